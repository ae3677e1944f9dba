"""The loop tests again, with numba's bounds checking compiled into every loop.

The op layer checks every argument before a kernel runs (ops/_args.py, ops/_axes.py), so that
no numba loop is ever called with sizes that make it index outside its arrays: in a compiled loop
that is not an exception but a read of whatever memory lies there, or a crash. With
``NUMBA_BOUNDSCHECK=1`` numba adds a check to every array access (too slow for normal use), and an
out-of-bounds index raises IndexError instead. This runs the kernel tests (small inputs, every
loop) that way in a subprocess, with its own numba cache, kept in pytest's cache folder so that
only the first run compiles.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent


@pytest.mark.slow
def test_loop_tests_pass_with_numba_boundscheck(request):
    cache = getattr(request.config, "cache", None)      # None under -p no:cacheprovider
    cache = cache.mkdir("numba-boundscheck") if cache else HERE / ".numba-boundscheck"
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(cache))
    tests = [str(HERE / "test_conv_pool_kernels.py"), str(HERE / "test_cpu_kernels.py"),
             str(HERE.parent / "fuzz" / "test_fuzz_errors.py") + "::test_crash_prone_calls_in_a_subprocess"]
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests],
                         env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and "failed" not in run.stdout


def test_boundscheck_catches_what_validation_prevents(request):
    """The control: the pooling loop, called directly with the window of size 0 that max_pool2d now
    refuses, reads outside the input, and with bounds checking that is an IndexError."""
    cache = getattr(request.config, "cache", None)      # None under -p no:cacheprovider
    cache = cache.mkdir("numba-boundscheck") if cache else HERE / ".numba-boundscheck"
    code = ("import numpy as np\n"
            "from minieager.kernels.cpu import loops\n"
            "x = np.ones((1, 4, 4, 1), np.float32)\n"
            "out = np.empty((1, 5, 5, 1), np.float32)   # what ksize=0, stride 1 gave: a 5x5 result\n"
            "try:\n"
            "    loops.nn.max_pool(x, 0, 0, 1, 1, 0, 0, out)\n"
            "except Exception as err:   # in a prange loop numba reports it as a SystemError caused by it\n"
            "    print(type(err.__cause__ or err).__name__, err.__cause__ or err)\n")
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(cache))
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.startswith("IndexError"), run.stdout
