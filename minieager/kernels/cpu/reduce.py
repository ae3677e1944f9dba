"""Reductions, argmax/argmin and cumsum.

Every kernel sees its input as a 3-D array ``(outer, reduced, inner)``:

* reduced axes that are next to each other (``axis=(1, 2)`` of NHWC, ``axis=-1``, ``axis=0``)
  are merged by a free ``reshape``: no copy, even for a reduction over the first axis;
* any other set of axes is moved last with one transposing copy, giving ``(kept, reduced, 1)``.

The loops run ``prange`` over ``outer``. With ``inner == 1`` (reducing the last axes) each row is
summed into one scalar; otherwise a row of ``inner`` accumulators, allocated inside the prange
loop so each thread has its own, is updated by a contiguous, vectorised inner loop.

max and min of whole rows (``inner == 1``, which includes reducing all axes) work differently,
because one running maximum is a chain of dependent compares, one element at a time:

* ``BLOCK`` running maxima side by side take a row ``BLOCK`` elements at a time, and
  ``running[k] = max(running[k], piece[b * BLOCK + k])`` over k is a loop LLVM turns into vector
  compares and selects. What is left after the last whole block is a short scalar tail. (With 16
  or 32 running values LLVM unrolls that loop into scalar code instead; 64 vectorises but spends
  its time entering the short loop; 256 doubles the scalar work per row, the tail and combining
  the running maxima, which shows on many short rows. 128 is the middle.)
* with fewer rows than threads (one row when reducing all axes), rows are cut into pieces so
  that every thread gets one; the piece maxima are then combined.
* the max is written as a select, ``v if (v > m) | (v != v) else m``, and not as
  ``if v > m or v != v: m = v``, whose branch stops vectorisation; ``v != v`` makes nan win,
  as in NumPy.

Measured on a (1000, 1000) float32 array, 2 threads: reduce_max over all axes takes 50 us, as
NumPy, where one thread running the scalar loop took 330-540 us; over the last axis (1000 rows)
200 us, from 300 us (NumPy: 115 us; its rows are still short enough for the tails to matter).

Accuracy: float32 (and float16) sums and products accumulate in float64 and integers in int64,
then are cast back to the input dtype (an int32 sum wraps like TensorFlow's). NumPy uses pairwise
summation in the input dtype instead; a float64 accumulator is both simpler and, for float32,
more accurate. float64 sums accumulate in float64: ``fastmath={"reassoc"}`` lets LLVM split the
sum over several vector lanes (a few partial sums, which is also a little more accurate than one
running sum). "reassoc" alone still honours nan and inf, unlike full fastmath.
"""
import math
from functools import partial

import numpy as np
from numba import njit, prange

from ..registry import register_kernel
from .broadcast import SMALL_SIZE, downcast, upcast
from .threads import blas_spinning, use_threads_for

_kernel = njit(parallel=True, cache=True, error_model="numpy")
_sum_kernel = njit(parallel=True, cache=True, error_model="numpy", fastmath={"reassoc"})


def _as_3d(x, axes):
    """``x`` viewed as (outer, reduced, inner), and the shape of the result (keepdims=False)."""
    x = np.ascontiguousarray(x)
    axes = sorted(axes)
    kept_shape = tuple(n for i, n in enumerate(x.shape) if i not in axes)
    reduced = math.prod(x.shape[i] for i in axes)    # before any transpose renumbers the axes
    if axes == list(range(axes[0], axes[-1] + 1)):   # one run of neighbouring axes: a free reshape
        outer = math.prod(x.shape[:axes[0]])
        inner = math.prod(x.shape[axes[-1] + 1:])
    else:                                            # move the reduced axes last (one copy)
        kept = [i for i in range(x.ndim) if i not in axes]
        x = np.ascontiguousarray(x.transpose(kept + axes))
        outer, inner = math.prod(kept_shape), 1
    return x.reshape(outer, reduced, inner), kept_shape


def _accumulator(dtype):
    """The accumulator type for sums and products: float64 for floats, int64 for integers."""
    return np.float64 if dtype.kind == "f" else np.int64


@_sum_kernel
def _sum(x, zero, out):
    outer, reduced, inner = x.shape
    for p in prange(outer):
        if inner == 1:
            acc = zero
            for r in range(reduced):
                acc += x[p, r, 0]
            out[p, 0] = acc
        else:
            accs = np.full(inner, zero)
            for r in range(reduced):
                for q in range(inner):
                    accs[q] += x[p, r, q]
            out[p, :] = accs


@_sum_kernel
def _prod(x, one, out):
    outer, reduced, inner = x.shape
    for p in prange(outer):
        if inner == 1:
            acc = one
            for r in range(reduced):
                acc *= x[p, r, 0]
            out[p, 0] = acc
        else:
            accs = np.full(inner, one)
            for r in range(reduced):
                for q in range(inner):
                    accs[q] *= x[p, r, q]
            out[p, :] = accs


# ----------------------------------------------------------------------------- max / min
BLOCK = 128   # running maxima (minima) side by side in a row reduction; see the module docstring


@njit(inline="always")
def _larger(m, v):
    """max(m, v) where nan wins, as in NumPy: v != v only for nan, and a nan m is kept.

    ``|`` rather than ``or``: both comparisons are always made, so LLVM can use a vector select
    instead of a branch per element.
    """
    return v if (v > m) | (v != v) else m


@njit(inline="always")
def _smaller(m, v):
    return v if (v < m) | (v != v) else m


@njit(inline="always")
def _extreme(m, v, largest):
    """The larger of m and v if ``largest``, else the smaller. ``largest`` is the same for a whole
    kernel call, so LLVM hoists the test out of the loop and vectorises both versions."""
    return _larger(m, v) if largest else _smaller(m, v)


@_kernel
def _max_min(x, largest, out):
    """out[p, q] = max (min) over r of x[p, r, q], for inner > 1: a row of running maxima."""
    outer, reduced, inner = x.shape
    for p in prange(outer):
        out[p, :] = x[p, 0, :]
        for r in range(1, reduced):
            for q in range(inner):
                out[p, q] = _extreme(out[p, q], x[p, r, q], largest)


@_kernel
def _max_min_rows(x, parts, largest, out):
    """out[p] = max (min) of row x[p], each row cut into ``parts`` pieces that the threads share."""
    rows, n = x.shape
    piece_best = np.empty((rows, parts), x.dtype)
    for t in prange(rows * parts):
        p, s = t // parts, t % parts
        piece = x[p, n * s // parts:n * (s + 1) // parts]
        blocks = len(piece) // BLOCK
        m = piece[0]
        if blocks > 0:
            running = piece[:BLOCK].copy()   # BLOCK running maxima, one per position in a block
            for b in range(1, blocks):
                for k in range(BLOCK):
                    running[k] = _extreme(running[k], piece[b * BLOCK + k], largest)
            for k in range(BLOCK):
                m = _extreme(m, running[k], largest)
        for i in range(blocks * BLOCK, len(piece)):
            m = _extreme(m, piece[i], largest)
        piece_best[p, s] = m
    for p in range(rows):
        m = piece_best[p, 0]
        for s in range(1, parts):
            m = _extreme(m, piece_best[p, s], largest)
        out[p] = m


def _max_or_min(largest, x3, out):
    """Whole rows reduced (inner == 1): rows split over the threads; else a row of running values."""
    outer, reduced, inner = x3.shape
    if inner > 1:
        _max_min(x3, largest, out)
        return
    threads = use_threads_for(x3.size)
    parts = 1 if outer >= threads else min(math.ceil(threads / outer), reduced)   # a piece for every thread
    _max_min_rows(x3.reshape(outer, reduced), parts, largest, out.reshape(outer))


def _reduce(x, axis, keepdims, run, empty_value=None, numpy_fn=None, numpy_after_blas=False, **numpy_kwargs):
    """Shared driver: 3-D view, ``run(x3, out2)``, then the result's shape.

    Below ``SMALL_SIZE`` elements ``numpy_fn`` does the work instead: waking the numba threads
    costs more than reducing a (32, 128) batch (measured 41 us against 1.5 us for NumPy). It is a
    ufunc's ``reduce`` (``np.add.reduce`` is what ``np.sum`` calls, minus a layer of Python).
    With ``numpy_after_blas`` (max and min, whose NumPy loops are SIMD), NumPy also does it at any
    size right after a matrix product, when our loop would get one thread (see ``threads.py``).
    """
    dtype = x.dtype
    if not axis:
        return x.copy()
    if numpy_fn is not None and 0 < x.size and (x.size < SMALL_SIZE or (numpy_after_blas and blas_spinning())):
        return np.asarray(numpy_fn(x, axis=axis, keepdims=keepdims, **numpy_kwargs)).astype(dtype, copy=False)
    x3, kept_shape = _as_3d(upcast(x), axis)
    outer, reduced, inner = x3.shape
    out = np.empty((outer, inner), x3.dtype)
    if reduced == 0:   # an empty reduction gives the identity (max: the lowest value, as in TF)
        out.fill(empty_value)
    else:
        use_threads_for(x3.size, splits=outer)   # max/min over whole rows split rows themselves
        run(x3, out)
    shape = tuple(1 if i in axis else n for i, n in enumerate(x.shape)) if keepdims else kept_shape
    return downcast(out.reshape(shape), dtype)


def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _highest(dtype):
    return np.inf if dtype.kind == "f" else np.iinfo(dtype).max


@register_kernel("reduce_sum", "cpu")
def reduce_sum(x, axis, keepdims):
    zero = _accumulator(x.dtype)(0)
    return _reduce(x, axis, keepdims, lambda x3, out: _sum(x3, zero, out), 0, np.add.reduce, dtype=zero.dtype)


@register_kernel("reduce_prod", "cpu")
def reduce_prod(x, axis, keepdims):
    one = _accumulator(x.dtype)(1)
    return _reduce(x, axis, keepdims, lambda x3, out: _prod(x3, one, out), 1, np.multiply.reduce, dtype=one.dtype)


@register_kernel("reduce_max", "cpu")
def reduce_max(x, axis, keepdims):
    return _reduce(x, axis, keepdims, partial(_max_or_min, True), _lowest(x.dtype), np.maximum.reduce,
                   numpy_after_blas=True)


@register_kernel("reduce_min", "cpu")
def reduce_min(x, axis, keepdims):
    return _reduce(x, axis, keepdims, partial(_max_or_min, False), _highest(x.dtype), np.minimum.reduce,
                   numpy_after_blas=True)


@register_kernel("reduce_any", "cpu")
def reduce_any(x, axis, keepdims):
    """any = max over the bools read as 0/1 bytes (a free view)."""
    return reduce_max(x.view(np.uint8), axis, keepdims).view(np.bool_)


@register_kernel("reduce_all", "cpu")
def reduce_all(x, axis, keepdims):
    return reduce_min(x.view(np.uint8), axis, keepdims).view(np.bool_)


# ----------------------------------------------------------------------------- argmax / argmin
@_kernel
def _argmax(x, out):
    """Index of the first largest value along axis 1 of (outer, n, inner); a nan counts as largest."""
    outer, n, inner = x.shape
    for p in prange(outer):
        for q in range(inner):
            best, where = x[p, 0, q], 0
            for r in range(1, n):
                v = x[p, r, q]
                if v > best or (v != v and best == best):
                    best, where = v, r
            out[p, q] = where


@_kernel
def _argmin(x, out):
    outer, n, inner = x.shape
    for p in prange(outer):
        for q in range(inner):
            best, where = x[p, 0, q], 0
            for r in range(1, n):
                v = x[p, r, q]
                if v < best or (v != v and best == best):
                    best, where = v, r
            out[p, q] = where


def _arg(kernel, x, axis):
    x3, kept_shape = _as_3d(upcast(x), (axis,))
    out = np.empty((x3.shape[0], x3.shape[2]), np.int64)
    use_threads_for(x3.size, splits=x3.shape[0])
    kernel(x3, out)
    return out.reshape(kept_shape)


@register_kernel("argmax", "cpu")
def argmax(x, axis):
    return _arg(_argmax, x, axis)


@register_kernel("argmin", "cpu")
def argmin(x, axis):
    return _arg(_argmin, x, axis)


# ----------------------------------------------------------------------------- cumsum
@_kernel
def _cumsum(x, zero, exclusive, reverse, out):
    outer, n, inner = x.shape
    for p in prange(outer):
        accs = np.full(inner, zero)
        for step in range(n):
            r = n - 1 - step if reverse else step
            for q in range(inner):
                if exclusive:
                    out[p, r, q] = accs[q]
                    accs[q] += x[p, r, q]
                else:
                    accs[q] += x[p, r, q]
                    out[p, r, q] = accs[q]


@register_kernel("cumsum", "cpu")
def cumsum(x, axis, exclusive=False, reverse=False):
    """Running sum along ``axis`` (``exclusive``: each element leaves itself out; ``reverse``: from the end)."""
    x3, _ = _as_3d(upcast(x), (axis,))
    out = np.empty_like(x3)
    use_threads_for(x3.size, splits=x3.shape[0])
    _cumsum(x3, _accumulator(x.dtype)(0), exclusive, reverse, out)
    return downcast(out.reshape(x.shape), x.dtype)
