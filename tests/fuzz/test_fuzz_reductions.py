"""Reductions, argmax/argmin and cumsum against NumPy references, on every kernel path.

Bounds: max, min, any, all, argmax, argmin and integer sums are exact. Float sums accumulate in
float64 (kernels/cpu/reduce.py) on both paths, in different orders (NumPy pairwise, the loop in
vector lanes): float16/float32 results are within 1 ulp of the float64 sum rounded once; float64
sums within a relative 1e-12 of it (plus a small absolute term where terms cancel).
"""
import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

import minieager as me

from ._util import FLOATS, INTS, arrays, assert_same, examples, path, shapes  # noqa: F401


@st.composite
def reduction_case(draw, path, dtypes=FLOATS + INTS):
    dtype = draw(st.sampled_from(dtypes))
    shape = draw(shapes(path, min_dims=1))
    x = draw(arrays(shape, dtype))
    kind = draw(st.sampled_from(["none", "int", "list"]))
    if kind == "none":
        axis = None
    elif kind == "int":
        axis = draw(st.integers(-len(shape), len(shape) - 1))
    else:
        axis = draw(st.lists(st.integers(-len(shape), len(shape) - 1), unique_by=lambda a: a % len(shape)))
    return x, axis, draw(st.booleans())


def _np_axis(axis, ndim):
    return None if axis is None else tuple(a % ndim for a in ([axis] if isinstance(axis, int) else axis))


@pytest.mark.parametrize("name", ["reduce_max", "reduce_min"])
@examples(15)
@given(data=st.data())
def test_max_min_are_exact(name, path, data):
    x, axis, keepdims = data.draw(reduction_case(path))
    got = getattr(me, name)(me.constant(x), axis=axis, keepdims=keepdims).numpy()
    ax = _np_axis(axis, x.ndim)
    fn = np.max if name == "reduce_max" else np.min
    empty = np.array(-np.inf if name == "reduce_max" else np.inf) if x.dtype.kind == "f" else \
        (np.iinfo(x.dtype).min if name == "reduce_max" else np.iinfo(x.dtype).max)
    want = fn(x, axis=ax, keepdims=keepdims, initial=empty) if x.size == 0 or ax == () else \
        fn(x, axis=ax, keepdims=keepdims)
    assert_same(got, np.asarray(want, x.dtype), 0, name)


@examples(10)
@given(data=st.data())
def test_count_nonzero_is_exact(path, data):
    x, axis, keepdims = data.draw(reduction_case(path))
    got = me.math.count_nonzero(me.constant(x), axis=axis, keepdims=keepdims).numpy()
    want = np.count_nonzero(x, axis=_np_axis(axis, x.ndim), keepdims=keepdims)
    assert_same(got, np.asarray(want, np.int64), 0, "count_nonzero")


@examples(15)
@given(data=st.data())
def test_any_all(path, data):
    x, axis, keepdims = data.draw(reduction_case(path, dtypes=(np.int32,)))
    b = x > 0
    ax = _np_axis(axis, x.ndim)
    assert_same(me.reduce_any(me.constant(b), axis=axis, keepdims=keepdims).numpy(), np.any(b, ax, keepdims=keepdims))
    assert_same(me.reduce_all(me.constant(b), axis=axis, keepdims=keepdims).numpy(), np.all(b, ax, keepdims=keepdims))


@examples(20)
@given(data=st.data())
def test_sum_and_mean_in_a_wide_type(path, data):
    x, axis, keepdims = data.draw(reduction_case(path))
    ax = _np_axis(axis, x.ndim)
    got = me.reduce_sum(me.constant(x), axis=axis, keepdims=keepdims).numpy()
    count = math.prod(x.shape[a] for a in (range(x.ndim) if ax is None else ax))
    if x.dtype.kind in "iu":
        exact = np.sum(x.astype(object), axis=ax, keepdims=keepdims)   # Python ints: no overflow
        wrapped = np.asarray(np.asarray(exact, dtype=object) % 2**64, dtype=np.uint64).astype(np.int64)
        assert_same(got, wrapped.astype(x.dtype), 0, "reduce_sum wraps like the dtype")
        fits = all(-2**63 <= int(v) < 2**63 for v in np.asarray(exact, dtype=object).ravel())
        if count and np.asarray(exact).size and fits:   # an int64 sum that leaves int64 wraps (as in TF)
            mean = me.reduce_mean(me.constant(x), axis=axis, keepdims=keepdims).numpy()
            truncated = np.vectorize(lambda s: int(s / count) if abs(s) < 2**52 else -(-s // count) if s < 0
                                     else s // count, otypes=[object])(np.asarray(exact, dtype=object))
            assert_same(mean, np.asarray(truncated.astype(np.int64), x.dtype), 0, "integer mean truncates toward 0")
        return
    with np.errstate(all="ignore"):
        exact = np.sum(x.astype(np.float64), axis=ax, keepdims=keepdims)
        mean = me.reduce_mean(me.constant(x), axis=axis, keepdims=keepdims).numpy()
        want_mean = (exact / count).astype(x.dtype) if count else np.full(np.shape(exact), np.nan, x.dtype)
    if x.dtype == np.float64:
        np.testing.assert_allclose(got, exact, rtol=1e-12, atol=1e-12 * np.abs(x).max(initial=1))
    else:
        assert_same(got, np.asarray(exact).astype(x.dtype), 1, "reduce_sum")
        assert_same(mean, np.asarray(want_mean), 1, "reduce_mean (float16 summed in float32)")


@examples(15)
@given(data=st.data())
def test_prod_and_logsumexp(path, data):
    x, axis, keepdims = data.draw(reduction_case(path, dtypes=FLOATS))
    x = np.clip(np.nan_to_num(x, nan=1.0), -3, 3).astype(x.dtype)   # finite products, no cancellation
    ax = _np_axis(axis, x.ndim)
    got = me.reduce_prod(me.constant(x), axis=axis, keepdims=keepdims).numpy()
    want = np.prod(x.astype(np.float64), axis=ax, keepdims=keepdims)
    if x.dtype == np.float64:
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300)
    else:
        assert_same(got, np.asarray(want).astype(x.dtype), 1, "reduce_prod")
    lse = me.reduce_logsumexp(me.constant(x), axis=axis, keepdims=keepdims).numpy()
    with np.errstate(divide="ignore"):
        want = np.log(np.sum(np.exp(x.astype(np.float64)), axis=ax, keepdims=keepdims))
    np.testing.assert_allclose(lse.astype(np.float64), want, rtol=4 * np.finfo(x.dtype).eps, atol=1e-6)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@examples(15)
@given(data=st.data())
def test_argmax_argmin_first_extreme_nan_wins(name, path, data):
    dtype = data.draw(st.sampled_from(FLOATS + INTS))
    x = data.draw(arrays(data.draw(shapes(path, min_dims=1)), dtype))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    if x.shape[axis] == 0:
        with pytest.raises(me.errors.InvalidArgumentError, match=f"{name}: axis .* is empty"):
            getattr(me, name)(me.constant(x), axis=axis)
        return
    got = getattr(me, name)(me.constant(x), axis=axis).numpy()
    assert_same(got, getattr(np, name)(x, axis=axis).astype(np.int64), 0, name)   # NumPy: first nan wins too


@examples(15)
@given(data=st.data(), exclusive=st.booleans(), reverse=st.booleans())
def test_cumsum(path, data, exclusive, reverse):
    dtype = data.draw(st.sampled_from(FLOATS + (np.int32, np.int64)))
    x = data.draw(arrays(data.draw(shapes(path, min_dims=1)), dtype))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    wide = np.float64 if x.dtype.kind == "f" else np.int64
    w = np.flip(x, axis) if reverse else x
    with np.errstate(all="ignore"):
        c = np.cumsum(w.astype(wide), axis=axis)    # sequential, in the accumulator type, as the loop
    if exclusive:   # each element leaves itself out: the running sum up to the element before
        c = np.concatenate([np.zeros_like(np.take(c, [0], axis)), np.take(c, range(c.shape[axis] - 1), axis)], axis) \
            if c.shape[axis] else c
    want = np.flip(c, axis) if reverse else c
    got = me.cumsum(me.constant(x), axis=axis, exclusive=exclusive, reverse=reverse).numpy()
    with np.errstate(over="ignore"):
        assert_same(got, want.astype(x.dtype), 0, "cumsum")


@examples(15)
@given(data=st.data(), exclusive=st.booleans(), reverse=st.booleans())
def test_cumprod(path, data, exclusive, reverse):
    dtype = data.draw(st.sampled_from(FLOATS + INTS))
    x = data.draw(arrays(data.draw(shapes(path, min_dims=1, max_dims=2)), dtype))
    if x.dtype.kind == "f":
        x = np.clip(np.nan_to_num(x, nan=1.0), -3, 3).astype(x.dtype)   # finite products, as reduce_prod's test
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    wide = np.float64 if x.dtype.kind == "f" else np.int64
    w = np.flip(x, axis) if reverse else x
    with np.errstate(all="ignore"):
        c = np.cumprod(w.astype(wide), axis=axis)   # in reduce_prod's accumulator type; ints wrap in it, then cast
    if exclusive:   # each element leaves itself out: the running product up to the element before
        c = np.concatenate([np.ones_like(np.take(c, [0], axis)), np.take(c, range(c.shape[axis] - 1), axis)], axis) \
            if c.shape[axis] else c
    want = (np.flip(c, axis) if reverse else c).astype(x.dtype)
    got = me.cumprod(me.constant(x), axis=axis, exclusive=exclusive, reverse=reverse).numpy()
    if x.dtype == np.float64:
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300)
    else:
        assert_same(got, want, 1 if x.dtype.kind == "f" else 0, "cumprod")
