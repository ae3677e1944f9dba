"""Cold start: the compile notice in a notebook kernel, and the warm-up command.

Each test gives numba a cache folder of its own (NUMBA_CACHE_DIR), so "cold" really is cold
whatever the machine's own cache holds.
"""
import os
import subprocess
import sys

import nbclient
import nbformat
import pytest

NOTICE = "minieager: compiling the conv loops for float32 (forward), once"

# A convolution compiles its loop (patches, product, bias) for several seconds, far past the notice's delay.
CONV_CELL = """\
import minieager as me
x = me.random.normal([8, 12, 12, 8], seed=0)
print(me.nn.conv2d(x, me.ones([3, 3, 8, 4])).shape)
"""


def _run_in_kernel(code, cache_dir, notice="1"):
    """Run ``code`` as a one-cell notebook in a fresh Jupyter kernel; return its printed text."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(code)]
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir), MINIEAGER_COMPILE_NOTICE=notice)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3").execute(env=env)
    return "".join(out.get("text", "") for out in nb.cells[0].outputs if out.output_type == "stream")


@pytest.mark.slow
def test_notice_appears_cold_and_not_warm(tmp_path):
    cold = _run_in_kernel(CONV_CELL, tmp_path)
    assert NOTICE in cold
    assert cold.count("minieager: compiling") == 1          # one line, not one per loop
    assert "(8, 10, 10, 4)" in cold                          # and the cell still computed its result
    warm = _run_in_kernel(CONV_CELL, tmp_path)               # same cache: loaded, not compiled
    assert "compiling" not in warm
    assert "(8, 10, 10, 4)" in warm


@pytest.mark.slow
def test_notice_can_be_turned_off_in_a_kernel(tmp_path):
    out = _run_in_kernel(CONV_CELL, tmp_path, notice="0")
    assert "compiling" not in out and "(8, 10, 10, 4)" in out


@pytest.mark.slow
def test_no_notice_outside_notebooks(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), MINIEAGER_COMPILE_NOTICE="1")
    out = subprocess.run([sys.executable, "-c", CONV_CELL], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "(8, 10, 10, 4)"
    assert "compiling" not in out.stderr


@pytest.mark.slow
def test_warmup_compiles_every_loop():
    """After ``python -m minieager.warmup``, a fresh process loads every numba loop from the cache.

    Runs the warm-up, then every task again in a new process, and checks that (1) every loop of
    loops/ has been reached, and (2) none of them had to compile. It uses the machine's own cache
    (the loops the rest of the suite compiles are then ready for it, and the other way round),
    so this checks that the warm-up leaves nothing to compile, whatever the cache held before.
    """
    from minieager.warmup import cache_location
    env = dict(os.environ)
    done = subprocess.run([sys.executable, "-m", "minieager.warmup", "--quiet"], capture_output=True, text=True,
                          env=env, check=True)
    assert f"cache: {cache_location()}" in done.stdout and "Done in" in done.stdout
    check = subprocess.run([sys.executable, "-c", CHECK_EVERY_LOOP_CACHED], capture_output=True, text=True,
                           env=env, check=True)
    assert check.stdout.splitlines()[-1] == "unreached: [] compiled: []", check.stdout


CHECK_EVERY_LOOP_CACHED = """
from numba.core.registry import CPUDispatcher
from minieager import warmup
import minieager.kernels.cpu.loops as loops
for index in range(len(warmup.TASKS)):
    warmup.run_task(index)
unreached, compiled = [], []
for family in ("elementwise", "nn", "reduce"):
    module = getattr(loops, family)
    for name, loop in vars(module).items():
        if not isinstance(loop, CPUDispatcher) or name.startswith("_") or loop.py_func.__module__ != module.__name__:
            continue   # _helpers are called only by other loops (and cached inside their code); vexp is vecmath's
        if not loop.signatures:
            unreached.append(f"{family}.{name}")
        if sum(loop.stats.cache_misses.values()):
            compiled.append(f"{family}.{name}")
print("unreached:", unreached, "compiled:", compiled)
"""
