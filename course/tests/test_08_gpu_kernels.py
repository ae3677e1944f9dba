"""Lesson 08: GPU kernels written with numba.cuda (saxpy, a per-block sum), run under numba's CUDA simulator.

The lesson notebook switches the simulator on in its first cell, so ``check()`` runs these tests
in the notebook's process. Under plain pytest they run in a subprocess with the simulator on
(the ``cuda_simulator`` marker; see conftest.py and course/simulator.py). Shapes stay tiny: the
simulator runs one Python thread per GPU thread.
"""
import math

import numpy as np
import pytest

from course.expect import CheckFailure, expect, expect_close, expect_equal, learner
from course.simulator import simulator_on

# slow: under plain pytest the first test runs the lesson's solution in a simulator subprocess (~10-25 s).
pytestmark = [pytest.mark.cuda_simulator, pytest.mark.slow]


@pytest.fixture(autouse=True)
def a_gpu_or_the_simulator(ns):
    """Fail with the fix when this process's numba can launch no kernel (the first cell ran too late)."""
    if ns is None:
        return   # plain pytest: the tests run in the simulator subprocess (conftest.py)
    from numba import cuda
    expect(simulator_on() or cuda.is_available(),
           "numba's CUDA simulator is off in this kernel and there is no GPU: restart the kernel (Kernel > Restart) "
           "and run the notebook from the top, so that the first cell sets NUMBA_ENABLE_CUDASIM=1 before numba is "
           "imported.")


# gpu_saxpy -------------------------------------------------------------------------------------------

def _kernel(ns):
    kernel = learner(ns, "saxpy_kernel")
    expect(hasattr(type(kernel), "__getitem__"),
           "saxpy_kernel is not a CUDA kernel: put @cuda.jit above it (a kernel is launched as kernel[blocks, threads](...)).")
    return kernel


def _launch(kernel, blocks, threads, a, x, y):
    """Launch ``kernel[blocks, threads]`` on x, y into an output filled with nan; returns the output."""
    out = np.full_like(x, np.nan)
    try:
        kernel[blocks, threads](a, x, y, out)
    except IndexError as err:
        raise CheckFailure(
            f"saxpy_kernel[{blocks}, {threads}] on {x.size} elements ({blocks * threads} threads) read or wrote past "
            f"the end of an array ({err}). A thread whose index is past the end must do nothing: "
            f"range(cuda.grid(1), out.size, cuda.gridsize(1)) stops there.") from None
    return out


def _inputs(n, dtype=np.float64, seed=1):
    rng = np.random.default_rng(seed)
    return rng.normal(size=n).astype(dtype), rng.normal(size=n).astype(dtype)


@pytest.mark.gpu_saxpy
@pytest.mark.parametrize("n", [0, 1, 31, 32, 33, 100, 128, 129, 1000])
def test_launch_size_follows_the_array(ns, n):
    launch_size = learner(ns, "launch_size")
    threads, max_blocks = learner(ns, "THREADS"), learner(ns, "MAX_BLOCKS")
    expected = (max(1, min(max_blocks, math.ceil(n / threads))), threads)
    got = launch_size(n)
    expect_equal(tuple(int(v) for v in got) if isinstance(got, tuple) else got, expected,
                 f"launch_size({n}) with THREADS = {threads}, MAX_BLOCKS = {max_blocks}")


@pytest.mark.gpu_saxpy
@pytest.mark.parametrize("blocks, threads, n", [(1, 4, 10), (2, 4, 19), (3, 2, 7)])
def test_saxpy_kernel_with_fewer_threads_than_elements(ns, blocks, threads, n):
    x, y = _inputs(n)
    out = _launch(_kernel(ns), blocks, threads, 2.5, x, y)
    missed = np.flatnonzero(np.isnan(out)).tolist()
    expect(not missed, f"saxpy_kernel[{blocks}, {threads}] on {n} elements never wrote elements {missed}: the grid has "
                       f"{blocks * threads} threads, so each thread must do elements i, i + {blocks * threads}, ... "
                       f"(a grid-stride loop).")
    expect_close(out, 2.5 * x + y, f"saxpy_kernel[{blocks}, {threads}](2.5, x, y, out) for {n} elements")


@pytest.mark.gpu_saxpy
@pytest.mark.parametrize("blocks, threads, n", [(1, 32, 1), (2, 32, 33), (4, 8, 5)])
def test_saxpy_kernel_with_more_threads_than_elements(ns, blocks, threads, n):
    x, y = _inputs(n)
    out = _launch(_kernel(ns), blocks, threads, -0.5, x, y)
    expect_close(out, -0.5 * x + y, f"saxpy_kernel[{blocks}, {threads}](-0.5, x, y, out) for {n} elements")


@pytest.mark.gpu_saxpy
@pytest.mark.parametrize("n, dtype", [(1, np.float32), (5, np.float64), (31, np.float32), (33, np.float64),
                                      (100, np.float32), (300, np.float64)])
def test_saxpy_equals_numpy(ns, n, dtype):
    saxpy = learner(ns, "saxpy")
    x, y = _inputs(n, dtype)
    before = x.copy(), y.copy()
    got = saxpy(2.0, x, y)
    expect(isinstance(got, np.ndarray), f"saxpy should return a NumPy array (copy the result back with "
                                        f".copy_to_host()), got {type(got).__name__}.")
    expect_equal(got.dtype.name, np.dtype(dtype).name, f"the dtype saxpy returns for {np.dtype(dtype).name} inputs")
    expect_close(got, 2.0 * x + y, f"saxpy(2.0, x, y) for {n} {np.dtype(dtype).name} elements",
                 rtol=1e-6 if dtype == np.float32 else 1e-12)
    expect(np.array_equal(x, before[0]) and np.array_equal(y, before[1]), "saxpy changed x or y: it must only read them.")


class _RecordingKernel:
    """Stands in for saxpy_kernel: notes each launch's (blocks, threads) and runs the real kernel."""

    def __init__(self, kernel):
        self.kernel, self.launches = kernel, []

    def __getitem__(self, launch):
        self.launches.append(tuple(int(np.prod(v)) for v in launch[:2]))
        return self.kernel[launch]


@pytest.mark.gpu_saxpy
@pytest.mark.parametrize("n", [1, 40, 300])
def test_saxpy_launches_your_kernel_with_the_grid_from_launch_size(ns, n):
    saxpy, launch_size, kernel = learner(ns, "saxpy"), learner(ns, "launch_size"), _kernel(ns)
    recorder = _RecordingKernel(kernel)
    ns["saxpy_kernel"] = recorder          # saxpy looks the kernel up by name when it runs
    try:
        x, y = _inputs(n)
        got = saxpy(1.5, x, y)
    finally:
        ns["saxpy_kernel"] = kernel
    expect_equal(len(recorder.launches), 1, f"the number of times saxpy(1.5, x, y) launched saxpy_kernel (x and y of {n} elements)")
    expect_equal(recorder.launches[0], tuple(launch_size(n)),
                 f"saxpy's launch [blocks, threads] for {n} elements (launch_size({n}))")
    expect_close(got, 1.5 * x + y, f"saxpy(1.5, x, y) for {n} elements")


# gpu_block_sum ---------------------------------------------------------------------------------------

def _block_shares(x, blocks, threads):
    """The sum each block should find: element i belongs to block (i mod grid size) // threads."""
    owner = (np.arange(x.size) % (blocks * threads)) // threads
    return np.array([x[owner == b].sum() for b in range(blocks)])


@pytest.mark.gpu_block_sum
@pytest.mark.parametrize("blocks, n", [(1, 1), (1, 20), (2, 64), (3, 100), (3, 200)])
def test_block_sums_kernel_gives_each_blocks_sum(ns, blocks, n):
    kernel, threads = learner(ns, "block_sums_kernel"), learner(ns, "THREADS")
    expect(hasattr(type(kernel), "__getitem__"), "block_sums_kernel is not a CUDA kernel: put @cuda.jit above it.")
    x = np.random.default_rng(2).normal(size=n)
    partials = np.full(blocks, np.nan)
    kernel[blocks, threads](x, partials)
    missed = np.flatnonzero(np.isnan(partials)).tolist()
    expect(not missed, f"block_sums_kernel[{blocks}, {threads}] on {n} elements: blocks {missed} wrote nothing into "
                       f"partials. Thread 0 of each block writes the block's total into partials[cuda.blockIdx.x].")
    expect_close(partials, _block_shares(x, blocks, threads),
                 f"block_sums_kernel[{blocks}, {threads}] on {n} elements: the partial sum of each block", rtol=1e-12)


@pytest.mark.gpu_block_sum
@pytest.mark.parametrize("n", [1, 7, 32, 33, 100, 300])
def test_gpu_sum_equals_numpy(ns, n):
    gpu_sum = learner(ns, "gpu_sum")
    x = np.random.default_rng(3).normal(size=n)
    got = gpu_sum(x)
    expect(np.ndim(got) == 0, f"gpu_sum should return one number, got {got!r}.")
    expect_close(np.float64(got), x.sum(), f"gpu_sum(x) for {n} elements", rtol=1e-12)
