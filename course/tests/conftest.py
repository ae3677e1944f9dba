"""Settings for the course's own tests (test_declared_checks.py): one marker per exercise, a seeded start."""
import numpy as np
import pytest

import minieager as me
from course.catalog import EXERCISES


def pytest_configure(config):
    for exercise in EXERCISES:
        config.addinivalue_line("markers", f"{exercise.name}: the exercise '{exercise.title}' ({exercise.lesson})")


@pytest.fixture(autouse=True)
def seeded():
    """Every test starts from the same random state."""
    np.random.seed(0)
    me.random.set_seed(0)
