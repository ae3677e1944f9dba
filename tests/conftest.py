"""Fixtures shared by every test folder."""
import pytest

import minieager as me
from minieager.kernels.cpu import broadcast, threads
from minieager.kernels.cpu.free_cpus import FreeCPUs
from minieager.kernels.cpu.thread_choice import ThreadChoice
from minieager.nn.optimizers import reset_global_step


@pytest.fixture
def fresh_state():
    """A fixed seed, fresh layer names (``dense``, ``dense_1`` ...) and no global step, before the
    test; and no global step left behind for the next one.

    Autouse in tests/nn and tests/gpu (their conftest.py); any other test can ask for it by name.
    """
    me.random.set_seed(0)
    me.keras.backend.clear_session()
    reset_global_step()
    yield
    reset_global_step()


@pytest.fixture
def numba_loops_from_small_size(monkeypatch):
    """Run every op's numba loop, on all threads, from ``SMALL_SIZE`` elements on.

    Normally ops that NumPy does in one ufunc pass (add, tanh, ...) stay on NumPy, and loops run
    on one thread, up to ``threads.PARALLEL_SIZE`` (524,288 elements). Lowering that bound lets
    tests reach the multi-threaded numba loops, and their scalar tails, with arrays of ~1e4.
    """
    for module in (broadcast, threads):
        monkeypatch.setattr(module, "PARALLEL_SIZE", broadcast.SMALL_SIZE)


@pytest.fixture(autouse=True)
def no_recent_blas_call_and_no_neighbours(monkeypatch):
    """Every test starts as if no matrix product had just run, every CPU were free, and no product
    had been timed (so no timing sends a product to one thread: thread_choice.py).

    For ``threads.BLAS_SPIN_SECONDS`` after a product, and while other programs hold all CPUs but
    one, large loops run on one thread (or in NumPy). Without this a test's path would depend on
    whether the test before it multiplied matrices, or on what else the machine is running.
    tests/kernels/test_free_cpus.py watches the real CPUs.
    """
    threads.forget_blas_call()
    monkeypatch.setattr(threads, "_free_cpus", FreeCPUs(stat_path=None))
    monkeypatch.setattr(threads, "_thread_choice", ThreadChoice(enabled=False))


# ---- hypothesis profiles (tests/fuzz) --------------------------------------------------------------
# "ci", the default, keeps the whole fuzz suite within a few minutes on 2 cores; a long local run:
# `pytest tests/fuzz --hypothesis-profile=long` (random examples each run; "ci" draws the same ones
# every run, so that CI is reproducible). No deadline: the first call of a numba loop loads
# or compiles it, which takes far longer than any later call.
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("ci", max_examples=100, deadline=None, print_blob=True, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.register_profile("long", max_examples=3000, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.load_profile("ci")
