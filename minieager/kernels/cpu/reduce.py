"""Reductions, argmax/argmin and cumsum.

Every kernel sees its input as a 3-D array ``(outer, reduced, inner)``:

* reduced axes that are next to each other (``axis=(1, 2)`` of NHWC, ``axis=-1``, ``axis=0``)
  are merged by a free ``reshape``: no copy, even for a reduction over the first axis;
* any other set of axes is moved last with one transposing copy, giving ``(kept, reduced, 1)``.

The loops that reduce that middle axis are in ``loops/reduce.py``, with how they are made fast
and accurate. Below ``SMALL_SIZE`` elements NumPy does the work instead (see ``_reduce``).
"""
import math
from functools import partial

import numpy as np

from ..registry import _lookup, register_kernel
from . import loops
from .broadcast import SMALL_SIZE, downcast, upcast
from .threads import blas_spinning, use_threads_for


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


def _max_or_min(largest, x3, out):
    """Whole rows reduced (inner == 1): rows split over the threads; else a row of running values."""
    outer, reduced, inner = x3.shape
    if inner > 1:
        loops.reduce.max_min(x3, largest, out)
        return
    threads = use_threads_for(x3.size)
    parts = 1 if outer >= threads else min(math.ceil(threads / outer), reduced)   # a piece for every thread
    loops.reduce.max_min_rows(x3.reshape(outer, reduced), parts, largest, out.reshape(outer))


def _reduce(x, axis, keepdims, run, empty_value=None, numpy_fn=None, numpy_after_blas=False, **numpy_kwargs):
    """Shared driver: 3-D view, ``run(x3, out2)`` (which calls a loop), then the result's shape.

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
    elif out.size:     # no loop for an empty result (it has no rows to split over threads)
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
    return _reduce(x, axis, keepdims, lambda x3, out: loops.reduce.reduce_sum(x3, zero, out), 0,
                   np.add.reduce, dtype=zero.dtype)


@register_kernel("reduce_prod", "cpu")
def reduce_prod(x, axis, keepdims):
    one = _accumulator(x.dtype)(1)
    return _reduce(x, axis, keepdims, lambda x3, out: loops.reduce.reduce_prod(x3, one, out), 1,
                   np.multiply.reduce, dtype=one.dtype)


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
def _arg(x, axis, largest):
    """argmax (``largest``) or argmin along ``axis``."""
    x3, kept_shape = _as_3d(upcast(x), (axis,))
    out = np.empty((x3.shape[0], x3.shape[2]), np.int64)
    use_threads_for(x3.size, splits=x3.shape[0])
    loops.reduce.arg_extreme(x3, largest, out)
    return out.reshape(kept_shape)


@register_kernel("argmax", "cpu")
def argmax(x, axis):
    return _arg(x, axis, largest=True)


@register_kernel("argmin", "cpu")
def argmin(x, axis):
    return _arg(x, axis, largest=False)


# ---------------------------------------------------- reductions of a tensor whose rank a graph learns on running
def _axes_now(x, axis):
    """``axis`` as given (may be negative; None: every axis) made non-negative and sorted for ``x``. The
    op's check has raised the eager error for an axis out of range or named twice."""
    return tuple(range(x.ndim)) if axis is None else tuple(sorted(a % x.ndim for a in axis))


@register_kernel("reduce_at_run", "cpu")
def reduce_at_run(x, reduction, axis):
    """The kernel of ``reduction`` (reduce_sum, reduce_max ...) over ``axis``, the axes kept (size 1)."""
    return _lookup(reduction, "cpu")(x, axis=_axes_now(x, axis), keepdims=True)


@register_kernel("drop_axes", "cpu")
def drop_axes(x, axis):
    """``x`` without the axes ``axis`` (each of size 1): a reduction's keepdims=False, done on running."""
    axes = _axes_now(x, axis)
    return x.reshape(tuple(n for i, n in enumerate(x.shape) if i not in axes))


@register_kernel("sum_to_like", "cpu")
def sum_to_like(grad, like):
    """``grad`` summed down to ``like``'s shape, which it was broadcast from: a gradient's unbroadcast where
    a graph learns the ranks only when it runs."""
    if grad.shape == like.shape:
        return grad
    extra = grad.ndim - like.ndim
    stretched = tuple(range(extra)) + tuple(i + extra for i, n in enumerate(like.shape) if n == 1)
    return np.ascontiguousarray(grad.sum(axis=stretched, dtype=grad.dtype).reshape(like.shape))


# ----------------------------------------------------------------------------- count
@register_kernel("count", "cpu")
def count(x, axis, dtype):
    """How many elements ``axis`` holds (the divisor of a mean whose size is known only when it runs)."""
    return np.asarray(math.prod(x.shape[a] for a in axis), dtype.np_dtype)


# ----------------------------------------------------------------------------- cumsum
@register_kernel("cumsum", "cpu")
def cumsum(x, axis, exclusive=False, reverse=False):
    """Running sum along ``axis`` (``exclusive``: each element leaves itself out; ``reverse``: from the end)."""
    x3, _ = _as_3d(upcast(x), (axis,))
    out = np.empty_like(x3)
    use_threads_for(x3.size, splits=x3.shape[0])
    loops.reduce.cumsum(x3, _accumulator(x.dtype)(0), exclusive, reverse, out)
    return downcast(out.reshape(x.shape), x.dtype)


# ----------------------------------------------------------------------------- linear recurrence (cumprod)
@register_kernel("linear_recurrence", "cpu")
def linear_recurrence(a, b, axis, transpose=False):
    """h = b + a * (h shifted by one) along ``axis``: the loop cumprod and its gradient run (see loops/reduce.py).
    In the input dtype, as np.cumprod: an integer product wraps like TF's (float16 runs in float32,
    which numba computes in, and rounds back)."""
    a3, _ = _as_3d(upcast(a), (axis,))
    b3, _ = _as_3d(upcast(b), (axis,))
    out = np.empty_like(b3)
    use_threads_for(b3.size, splits=b3.shape[0])
    loops.reduce.linear_recurrence(a3, b3, transpose, out)
    return downcast(out.reshape(b.shape), b.dtype)
