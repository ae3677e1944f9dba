"""Each nn test starts from the same state: a fixed seed, fresh layer names, no global step."""
import pytest


@pytest.fixture(autouse=True)
def _fresh_state_for_every_test(fresh_state):
    """tests/conftest.py's ``fresh_state``, for every test of this folder."""
