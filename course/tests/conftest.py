"""The ``ns`` fixture: the namespace whose definitions an exercise's tests check.

Inside ``check()`` it is the calling notebook's namespace; under plain pytest
(``pytest -m sigmoid_vjp course/``) it is the namespace of the lesson's solution notebook.

A test file marked ``cuda_simulator`` (lesson 08's) needs numba's CUDA simulator, which can only be
switched on before numba is imported. Under plain pytest in a process without it, its tests run in
a fresh Python that has it (``course/simulator.py``) and report their outcomes from there.
"""
import numpy as np
import pytest

import minieager as me
from course import checker, notebooks, simulator
from course.catalog import BY_NAME, EXERCISES
from course.expect import CheckFailure


def pytest_configure(config):
    for exercise in EXERCISES:
        config.addinivalue_line("markers", f"{exercise.name}: the exercise '{exercise.title}' ({exercise.lesson})")
    config.addinivalue_line("markers", "cuda_simulator: needs numba's CUDA simulator (run in a subprocess if "
                                       "this process imported numba without it)")


def _lesson(item):
    names = [m.name for m in item.iter_markers() if m.name in BY_NAME]
    assert names, f"{item.name} has no exercise marker"
    return BY_NAME[names[0]].lesson


def _runs_in_the_simulator_subprocess(item):
    """A cuda_simulator test under plain pytest (not check()) in a process whose numba is not the simulator."""
    return (item.get_closest_marker("cuda_simulator") is not None and checker.active_namespace is None
            and not simulator.simulator_on())


@pytest.fixture
def ns(request):
    if checker.active_namespace is not None:
        return checker.active_namespace
    if _runs_in_the_simulator_subprocess(request.node):
        return None   # the solution runs in the subprocess, not here (pytest_pyfunc_call below)
    return notebooks.solution_namespace(_lesson(request.node))


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """Report a cuda_simulator test's outcome from the simulator subprocess instead of calling it here."""
    if not _runs_in_the_simulator_subprocess(pyfuncitem):
        return None
    outcome, message = simulator.outcomes(_lesson(pyfuncitem)).get(
        pyfuncitem.name, ("missing", "the subprocess did not run this test (is its exercise in course/catalog.py?)"))
    if outcome != "passed":
        raise CheckFailure(f"under the CUDA simulator (in a subprocess), this check was '{outcome}': {message}")
    return True


@pytest.fixture(autouse=True)
def seeded():
    """Every test starts from the same random state."""
    np.random.seed(0)
    me.random.set_seed(0)
