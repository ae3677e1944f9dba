"""The graph-mode tests again, with numba's bounds checking compiled into every loop.

A traced function must never hand a kernel an index its loop would read or write out of bounds:
the value checks (``Op.check``) run before each kernel every time a graph runs. With
``NUMBA_BOUNDSCHECK=1`` an out-of-bounds access in a loop raises IndexError instead of reading
(or writing) whatever memory lies there, so these tests would catch a check that a graph skips.
They run in a subprocess sharing the numba cache of tests/kernels/test_boundscheck.py (in pytest's
cache folder), so the loops compile once for both.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
GRAPH_TESTS = ["test_runtime_checks.py", "test_shape_rules.py", "test_function.py", "test_control_flow.py",
               "test_conv_fusion.py"]


@pytest.mark.slow
def test_graph_tests_pass_with_numba_boundscheck(request):
    cache = getattr(request.config, "cache", None)      # None under -p no:cacheprovider
    cache = cache.mkdir("numba-boundscheck") if cache else HERE.parent / "kernels" / ".numba-boundscheck"
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(cache))
    tests = [str(HERE / name) for name in GRAPH_TESTS]
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-m", "not slow",
                          *tests], env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and "failed" not in run.stdout
