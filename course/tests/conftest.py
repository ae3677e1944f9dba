"""The ``ns`` fixture: the namespace whose definitions an exercise's tests check.

Inside ``check()`` it is the calling notebook's namespace; under plain pytest
(``pytest -m sigmoid_vjp course/``) it is the namespace of the lesson's solution notebook.
"""
import numpy as np
import pytest

import minieager as me
from course import checker, notebooks
from course.catalog import BY_NAME, EXERCISES


def pytest_configure(config):
    for exercise in EXERCISES:
        config.addinivalue_line("markers", f"{exercise.name}: the exercise '{exercise.title}' ({exercise.lesson})")


def _lesson(item):
    names = [m.name for m in item.iter_markers() if m.name in BY_NAME]
    assert names, f"{item.name} has no exercise marker"
    return BY_NAME[names[0]].lesson


@pytest.fixture
def ns(request):
    if checker.active_namespace is not None:
        return checker.active_namespace
    return notebooks.solution_namespace(_lesson(request.node))


@pytest.fixture(autouse=True)
def seeded():
    """Every test starts from the same random state."""
    np.random.seed(0)
    me.random.set_seed(0)
