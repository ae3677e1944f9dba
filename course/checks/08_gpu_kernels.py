"""Lesson 08's visible checks: GPU kernels written with numba.cuda, run under numba's CUDA simulator.

Format: course/spec.py. The probes launch the learner's kernels in the learner's process, where the
notebook's first cell switched the simulator on (NUMBA_ENABLE_CUDASIM=1 before numba is imported; under
the grader that process is the kernel inside the sandbox); they return the arrays the kernels wrote. The
judges compare them with NumPy here, and never need numba.cuda. ``CUDA_SIMULATOR`` tells the tests that
prove these checks (course/tests/test_declared_checks.py) to run the probes in a Python with the
simulator on (course/simulator.py). Shapes stay tiny: the simulator runs one Python thread per GPU thread.
"""
import math

import numpy as np

from course.expect import CheckFailure, expect, expect_close, expect_equal
from course.spec import check

CUDA_SIMULATOR = True

NO_SIMULATOR = ("numba's CUDA simulator is off in this kernel and there is no GPU: restart the kernel (Kernel > "
                "Restart) and run the notebook from the top, so that the first cell sets NUMBA_ENABLE_CUDASIM=1 "
                "before numba is imported.")


def launchable():
    """True when this process's numba can launch a kernel: the simulator is on, or there is a GPU."""
    from numba import config, cuda
    return bool(config.ENABLE_CUDASIM) or cuda.is_available()


def expect_launchable(got):
    expect(got.get("launchable", True), NO_SIMULATOR)


def inputs(rng, n, dtype="float64"):
    return {"x": rng.normal(size=n).astype(dtype), "y": rng.normal(size=n).astype(dtype)}


# ---- gpu_saxpy ---------------------------------------------------------------------------------------

def probe_launch_size(ns, n):
    threads, max_blocks = learner(ns, "THREADS"), learner(ns, "MAX_BLOCKS")
    got = learner(ns, "launch_size")(n)
    return {"got": [int(v) for v in got] if isinstance(got, tuple) else repr(got)[:200],
            "threads": int(threads), "max_blocks": int(max_blocks)}


def judge_launch_size(got, n):
    threads, max_blocks = got["threads"], got["max_blocks"]
    expected = [max(1, min(max_blocks, math.ceil(n / threads))), threads]
    expect_equal(got["got"], expected, f"launch_size({n}) with THREADS = {threads}, MAX_BLOCKS = {max_blocks}")


def probe_kernel(ns, blocks, threads, a, x, y):
    """Launch saxpy_kernel[blocks, threads] into an output filled with nan; the output, or what went wrong."""
    if not launchable():
        return {"launchable": False}
    kernel = learner(ns, "saxpy_kernel")
    if not hasattr(type(kernel), "__getitem__"):
        return {"kernel": False}
    out = np.full_like(x, np.nan)
    try:
        kernel[blocks, threads](a, x, y, out)
    except IndexError as err:
        return {"kernel": True, "index_error": str(err)[:300]}
    return {"kernel": True, "out": out}


def judge_kernel(got, blocks, threads, a, x, y, all_written=True):
    expect_launchable(got)
    expect(got["kernel"], "saxpy_kernel is not a CUDA kernel: put @cuda.jit above it (a kernel is launched as "
                          "kernel[blocks, threads](...)).")
    n = x.size
    if "index_error" in got:
        raise CheckFailure(
            f"saxpy_kernel[{blocks}, {threads}] on {n} elements ({blocks * threads} threads) read or wrote past "
            f"the end of an array ({got['index_error']}). A thread whose index is past the end must do nothing: "
            f"range(cuda.grid(1), out.size, cuda.gridsize(1)) stops there.")
    out = got["out"]
    if all_written:
        missed = np.flatnonzero(np.isnan(out)).tolist()
        expect(not missed, f"saxpy_kernel[{blocks}, {threads}] on {n} elements never wrote elements {missed}: the "
                           f"grid has {blocks * threads} threads, so each thread must do elements i, "
                           f"i + {blocks * threads}, ... (a grid-stride loop).")
    expect_close(out, a * x + y, f"saxpy_kernel[{blocks}, {threads}]({a:g}, x, y, out) for {n} elements")


def probe_saxpy(ns, a, x, y):
    if not launchable():
        return {"launchable": False}
    before = x.copy(), y.copy()
    got = learner(ns, "saxpy")(a, x, y)
    return {"type": type(got).__name__, "got": got if isinstance(got, np.ndarray) else None,
            "inputs_kept": bool(np.array_equal(x, before[0]) and np.array_equal(y, before[1]))}


def judge_saxpy(got, a, x, y):
    expect_launchable(got)
    name = x.dtype.name
    expect(got["type"] == "ndarray", f"saxpy should return a NumPy array (copy the result back with "
                                     f".copy_to_host()), got {got['type']}.")
    expect_equal(got["got"].dtype.name, name, f"the dtype saxpy returns for {name} inputs")
    expect_close(got["got"], a * x + y, f"saxpy({a:g}, x, y) for {x.size} {name} elements",
                 rtol=1e-6 if name == "float32" else 1e-12)
    expect(got["inputs_kept"], "saxpy changed x or y: it must only read them.")


def probe_launches(ns, a, x, y):
    """saxpy with saxpy_kernel swapped for a recorder that notes each launch's (blocks, threads)."""
    if not launchable():
        return {"launchable": False}
    saxpy, launch_size = learner(ns, "saxpy"), learner(ns, "launch_size")
    kernel = learner(ns, "saxpy_kernel")
    if not hasattr(type(kernel), "__getitem__"):
        return {"kernel": False}

    class Recorder:
        def __init__(self):
            self.launches = []

        def __getitem__(self, launch):
            self.launches.append([int(np.prod(v)) for v in launch[:2]])
            return kernel[launch]

    recorder = Recorder()
    ns["saxpy_kernel"] = recorder          # saxpy looks the kernel up by name when it runs
    try:
        got = saxpy(a, x, y)
    finally:
        ns["saxpy_kernel"] = kernel
    return {"kernel": True, "launches": recorder.launches, "launch_size": [int(v) for v in launch_size(x.size)],
            "got": np.asarray(got)}


def judge_launches(got, a, x, y):
    expect_launchable(got)
    expect(got["kernel"], "saxpy_kernel is not a CUDA kernel: put @cuda.jit above it.")
    n = x.size
    expect_equal(len(got["launches"]), 1, f"the number of times saxpy({a:g}, x, y) launched saxpy_kernel (x and y "
                                          f"of {n} elements)")
    expect_equal(got["launches"][0], got["launch_size"],
                 f"saxpy's launch [blocks, threads] for {n} elements (launch_size({n}))")
    expect_close(got["got"], a * x + y, f"saxpy({a:g}, x, y) for {n} elements")


@check("gpu_saxpy", points=2)
class LaunchSizeFollowsTheArray:
    """launch_size(n): enough blocks for n elements, at least 1 and at most MAX_BLOCKS."""
    probe_helpers = (probe_launch_size,)
    cases = [{"n": n} for n in [0, 1, 31, 32, 33, 100, 128, 129, 1000]]

    def probe(ns, n):
        return probe_launch_size(ns, n)

    def judge(got, n):
        judge_launch_size(got, n)


@check("gpu_saxpy", points=2)
class KernelWithFewerThreadsThanElements:
    """A grid smaller than the array: every element written, by a grid-stride loop."""
    probe_helpers = (launchable, probe_kernel)

    def cases(rng):
        return [{"blocks": b, "threads": t, "a": 2.5, **inputs(rng, n)} for b, t, n in [(1, 4, 10), (2, 4, 19), (3, 2, 7)]]

    def probe(ns, blocks, threads, a, x, y):
        return probe_kernel(ns, blocks, threads, a, x, y)

    def judge(got, blocks, threads, a, x, y):
        judge_kernel(got, blocks, threads, a, x, y)


@check("gpu_saxpy", points=2)
class KernelWithMoreThreadsThanElements:
    """A grid larger than the array: no thread reads or writes past the end."""
    probe_helpers = (launchable, probe_kernel)

    def cases(rng):
        return [{"blocks": b, "threads": t, "a": -0.5, **inputs(rng, n)} for b, t, n in [(1, 32, 1), (2, 32, 33), (4, 8, 5)]]

    def probe(ns, blocks, threads, a, x, y):
        return probe_kernel(ns, blocks, threads, a, x, y)

    def judge(got, blocks, threads, a, x, y):
        judge_kernel(got, blocks, threads, a, x, y, all_written=False)


@check("gpu_saxpy", points=2)
class SaxpyEqualsNumpy:
    """saxpy(2.0, x, y) against NumPy for float32 and float64 arrays; x and y left as they were."""
    probe_helpers = (launchable, probe_saxpy)

    def cases(rng):
        return [{"a": 2.0, **inputs(rng, n, dtype)} for n, dtype in
                [(1, "float32"), (5, "float64"), (31, "float32"), (33, "float64"), (100, "float32"), (300, "float64")]]

    def probe(ns, a, x, y):
        return probe_saxpy(ns, a, x, y)

    def judge(got, a, x, y):
        judge_saxpy(got, a, x, y)


@check("gpu_saxpy", points=1)
class SaxpyLaunchesYourKernel:
    """saxpy launches saxpy_kernel once, with the grid launch_size gives."""
    probe_helpers = (launchable, probe_launches)

    def cases(rng):
        return [{"a": 1.5, **inputs(rng, n)} for n in [1, 40, 300]]

    def probe(ns, a, x, y):
        return probe_launches(ns, a, x, y)

    def judge(got, a, x, y):
        judge_launches(got, a, x, y)


# ---- gpu_block_sum -----------------------------------------------------------------------------------

def probe_block_sums(ns, blocks, x):
    if not launchable():
        return {"launchable": False}
    kernel, threads = learner(ns, "block_sums_kernel"), learner(ns, "THREADS")
    if not hasattr(type(kernel), "__getitem__"):
        return {"kernel": False}
    partials = np.full(blocks, np.nan)
    kernel[blocks, threads](x, partials)
    return {"kernel": True, "threads": int(threads), "partials": partials}


def block_shares(x, blocks, threads):
    """The sum each block should find: element i belongs to block (i mod grid size) // threads."""
    owner = (np.arange(x.size) % (blocks * threads)) // threads
    return np.array([x[owner == b].sum() for b in range(blocks)])


def judge_block_sums(got, blocks, x):
    expect_launchable(got)
    expect(got["kernel"], "block_sums_kernel is not a CUDA kernel: put @cuda.jit above it.")
    threads, partials, n = got["threads"], got["partials"], x.size
    missed = np.flatnonzero(np.isnan(partials)).tolist()
    expect(not missed, f"block_sums_kernel[{blocks}, {threads}] on {n} elements: blocks {missed} wrote nothing into "
                       f"partials. Thread 0 of each block writes the block's total into partials[cuda.blockIdx.x].")
    expect_close(partials, block_shares(x, blocks, threads),
                 f"block_sums_kernel[{blocks}, {threads}] on {n} elements: the partial sum of each block", rtol=1e-12)


def probe_gpu_sum(ns, x):
    if not launchable():
        return {"launchable": False}
    got = learner(ns, "gpu_sum")(x)
    return {"ndim": int(np.ndim(got)), "value": float(got) if np.ndim(got) == 0 else repr(got)[:200]}


def judge_gpu_sum(got, x):
    expect_launchable(got)
    expect(got["ndim"] == 0, f"gpu_sum should return one number, got {got['value']}.")
    expect_close(np.float64(got["value"]), x.sum(), f"gpu_sum(x) for {x.size} elements", rtol=1e-12)


@check("gpu_block_sum", points=3)
class BlockSumsKernelGivesEachBlocksSum:
    """block_sums_kernel[blocks, THREADS]: each block's grid-stride share, summed into partials."""
    probe_helpers = (launchable, probe_block_sums)

    def cases(rng):
        return [{"blocks": b, "x": rng.normal(size=n)} for b, n in [(1, 1), (1, 20), (2, 64), (3, 100), (3, 200)]]

    def probe(ns, blocks, x):
        return probe_block_sums(ns, blocks, x)

    def judge(got, blocks, x):
        judge_block_sums(got, blocks, x)


@check("gpu_block_sum", points=2)
class GpuSumEqualsNumpy:
    """gpu_sum(x) against NumPy's sum."""
    probe_helpers = (launchable, probe_gpu_sum)

    def cases(rng):
        return [{"x": rng.normal(size=n)} for n in [1, 7, 32, 33, 100, 300]]

    def probe(ns, x):
        return probe_gpu_sum(ns, x)

    def judge(got, x):
        judge_gpu_sum(got, x)
