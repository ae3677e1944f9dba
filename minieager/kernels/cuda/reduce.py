"""Reductions as shared-memory tree reductions: per block, then across blocks.

A sum over a row of K numbers cannot be one thread's loop (K steps, everybody else idle), and
threads cannot all add into one number (they would overwrite each other's sums). So:

1. Each block takes a share of a row. Every thread folds its elements (a grid-stride loop over
   the row) into one running value, then writes it into the block's shared memory.
2. The block halves the live threads each step: thread t combines slots t and t + half, until
   slot 0 holds the block's result (log2(threads) steps; ``cuda.syncthreads()`` between steps
   so that no thread reads a slot before its neighbour has written it). Every thread reaches
   every ``syncthreads()``: a thread with nothing to do still waits at the barrier (a thread that
   returned early would leave the others waiting, or be undefined).
3. With one block per row, that is the answer. With several, each wrote a partial result, and
   the same kernel runs again over the (rows, blocks) partials: across blocks.

Which axes: the reduced axes are moved last (an identity map, elementwise.py) so that the input
is (rows, K) with each row contiguous; a reduction over the trailing axes needs no copy.
Sums accumulate in float64, as the CPU's do. argmax/argmin carry (value, index) pairs through
the same tree; ties go to the smaller index and nan wins, as NumPy's do.
"""
import math

import numpy as np
from numba import cuda, float64, int64

from ..registry import _lookup, register_kernel
from .elementwise import UNARY, f, launch_map, transpose_array
from .host import float_kernel
from .memory import empty

SUM, PROD, MAX, MIN = 0, 1, 2, 3
MAX_THREADS = 256          # the shared arrays' size: a block never has more threads than this
# Pass 1 launches about this many blocks in all, spread over the rows (pass 2 folds each row's partials).
# A GPU needs many blocks in flight to hide memory latency: an H100 has 132 multiprocessors,
# each holding 8 blocks of 256 threads. reduce_sum over 1e8 float32 read 422 GB/s there with 64
# blocks per row, 696 GB/s with these. (Four running values per thread, for more loads in flight,
# read 508 GB/s: not kept.)
BLOCKS_IN_FLIGHT = 1024


@cuda.jit(device=True)
def combine(op, a, b):
    """One step of reduction ``op``: the elementwise formula of add, multiply, maximum or minimum
    (kernels/formulas.py; nan wins in maximum and minimum, as in the CPU's reduce_max)."""
    if op == SUM:
        return f.add(a, b)
    if op == PROD:
        return f.multiply(a, b)
    if op == MAX:
        return f.maximum(a, b)
    return f.minimum(a, b)


@cuda.jit(cache=True)
def reduce_rows(op, identity, x, out, scale):
    """out[row, blockIdx.x] = the block's share of ``x[row, :]`` combined by ``op``, times ``scale``.

    Grid: (blocks per row, rows). Block: a power of two threads, at most MAX_THREADS.
    """
    shared = cuda.shared.array(MAX_THREADS, float64)
    row, part = cuda.blockIdx.y, cuda.blockIdx.x
    t, threads = cuda.threadIdx.x, cuda.blockDim.x
    acc = identity
    for k in range(part * threads + t, x.shape[1], cuda.gridDim.x * threads):   # this thread's elements
        acc = combine(op, acc, x[row, k])
    total = block_reduce(op, shared, t, threads, acc)
    if t == 0:
        out[row, part] = total * scale


@cuda.jit(device=True)
def block_reduce(op, shared, t, threads, value):
    """Every thread of the block passes its ``value``; every thread gets all of them combined.

    The tree: each step, thread t < half combines slots t and t + half. Every thread runs every
    step and reaches every barrier (``threads`` is a power of two, the block's size).
    """
    shared[t] = value
    cuda.syncthreads()
    half = threads // 2
    while half > 0:
        if t < half:
            shared[t] = combine(op, shared[t], shared[t + half])
        cuda.syncthreads()
        half //= 2
    total = shared[0]
    cuda.syncthreads()   # all have read slot 0 before anyone reuses ``shared``
    return total


@cuda.jit(device=True)
def wins(largest, va, ia, vb, ib):
    """Whether (value va, index ia) beats (vb, ib) for argmax (``largest``) or argmin; index -1 is empty."""
    if ia < 0:
        return False
    if ib < 0:
        return True
    if va != va:                          # nan beats everything but an earlier nan
        return vb == vb or ia < ib
    if vb != vb:
        return False
    if va == vb:
        return ia < ib
    return va > vb if largest else va < vb


@cuda.jit(cache=True)
def arg_rows(largest, x, out):
    """out[row] = the index of the largest (smallest) element of ``x[row, :]``: one block per row."""
    values = cuda.shared.array(MAX_THREADS, float64)
    indices = cuda.shared.array(MAX_THREADS, int64)
    row, t, threads = cuda.blockIdx.x, cuda.threadIdx.x, cuda.blockDim.x
    best, best_i = 0.0, -1
    for k in range(t, x.shape[1], threads):
        v = x[row, k]
        if wins(largest, v, k, best, best_i):
            best, best_i = v, k
    values[t], indices[t] = best, best_i
    cuda.syncthreads()
    half = threads // 2
    while half > 0:
        if t < half and wins(largest, values[t + half], indices[t + half], values[t], indices[t]):
            values[t], indices[t] = values[t + half], indices[t + half]
        cuda.syncthreads()
        half //= 2
    if t == 0:
        out[row] = indices[0]


# ----------------------------------------------------------------------------- launching
def threads_for(k):
    """A power of two, 32 to MAX_THREADS, near the row length ``k``: short rows get small blocks."""
    return min(MAX_THREADS, max(32, 1 << max(int(k) - 1, 0).bit_length()))


def as_rows(x, axes):
    """``x`` as a contiguous (rows, K) device array with the reduced ``axes`` last, and the kept shape."""
    kept = [i for i in range(x.ndim) if i not in axes]
    if list(axes) != list(range(x.ndim - len(axes), x.ndim)):     # not the trailing axes: one copy
        x = transpose_array(x, kept + sorted(axes))
    rows = math.prod(x.shape[:len(kept)]) if kept else 1
    return x.reshape(rows, x.size // rows if rows else 0), [x.shape[i] for i in range(len(kept))]


def reduce_2d(op, x2, scale=1.0):
    """(rows, K) -> (rows,) float64: pass 1 over the rows, pass 2 over the blocks' partials if several."""
    rows, k = x2.shape
    identity = {SUM: 0.0, PROD: 1.0, MAX: -math.inf, MIN: math.inf}[op]
    threads = threads_for(k)
    blocks = max(1, min(BLOCKS_IN_FLIGHT // rows, math.ceil(k / threads)))
    partial = empty((rows, blocks), np.float64)
    reduce_rows[(blocks, rows), threads](op, identity, x2, partial, 1.0 if blocks > 1 else scale)
    if blocks == 1:
        return partial.reshape(rows)
    out = empty((rows, 1), np.float64)
    reduce_rows[(1, rows), threads_for(blocks)](op, identity, partial, out, scale)   # across blocks
    return out.reshape(rows)


def _reduction(op):
    def kernel(x, axis, keepdims):
        out_shape = tuple(1 if i in axis else n for i, n in enumerate(x.shape)) if keepdims else \
            tuple(n for i, n in enumerate(x.shape) if i not in axis)
        if not axis:
            return x
        x2, _ = as_rows(x, axis)
        if x2.shape[0] == 0:
            return empty(out_shape, x.dtype)
        result = reduce_2d(op, x2)
        if result.dtype != x.dtype:      # float64 sums back to float32: a map (a cast) on the device
            result = launch_map(UNARY["identity"], result, result.shape, (1,), x.dtype)
        return result.reshape(out_shape)
    return kernel


def sum_over(x, axes):
    """The sum of device array ``x`` over ``axes`` (a tuple), in ``x``'s dtype: reduce_sum's kernel."""
    return _reduction(SUM)(x, axes, False)


for _name, _op in [("reduce_sum", SUM), ("reduce_prod", PROD), ("reduce_max", MAX), ("reduce_min", MIN)]:
    register_kernel(_name, "gpu")(float_kernel(_reduction(_op), _lookup(_name, "cpu")))


def _arg(largest):
    def kernel(x, axis):
        x2, kept_shape = as_rows(x, (axis,))
        out = empty((x2.shape[0],), np.int64)
        if x2.shape[0]:
            arg_rows[x2.shape[0], threads_for(x2.shape[1])](largest, x2, out)
        return out.reshape(tuple(kept_shape))
    return kernel


register_kernel("argmax", "gpu")(float_kernel(_arg(True), _lookup("argmax", "cpu")))
register_kernel("argmin", "gpu")(float_kernel(_arg(False), _lookup("argmin", "cpu")))
