"""Reductions against NumPy: axis as int, tuple, None or negative, keepdims, and the arg/cum ops."""
import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra.numpy import array_shapes

import minieager as me

from .conftest import assert_tensor, few_examples, random_array

InvalidArgumentError = me.errors.InvalidArgumentError

NUMERIC = {"reduce_sum": np.sum, "reduce_mean": np.mean, "reduce_max": np.max, "reduce_min": np.min,
           "reduce_prod": np.prod}
LOGICAL = {"reduce_any": np.any, "reduce_all": np.all}
AXES = [None, 0, 1, -1, -3, (0, 2), (2, 0), (-1, 1), (0, 1, 2), ()]


@pytest.mark.parametrize("name", NUMERIC)
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_numeric_reductions_over_axes(name, axis, keepdims):
    x = random_array((2, 3, 4), "float32", 0.5, 1.5)
    expected = NUMERIC[name](x.astype(np.float64), axis=axis, keepdims=keepdims)
    assert_tensor(getattr(me, name)(x, axis=axis, keepdims=keepdims), expected, dtype=me.float32)


@pytest.mark.parametrize("name", LOGICAL)
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_logical_reductions_over_axes(name, axis, keepdims):
    x = random_array((2, 3, 4), "bool", seed=2)
    assert_tensor(getattr(me, name)(x, axis=axis, keepdims=keepdims),
                  LOGICAL[name](x, axis=axis, keepdims=keepdims), dtype=me.bool)


# Every dtype for sum and max; min and prod share their loops, so two dtypes each (numba compiles
# every (kernel, dtype) pair on first use, and a cold cache pays for each one).
@pytest.mark.parametrize("name, dtype", [
    *[(name, dtype) for name in ("reduce_sum", "reduce_max")
      for dtype in ("float16", "float64", "int32", "int64", "uint8")],
    *[(name, dtype) for name in ("reduce_min", "reduce_prod") for dtype in ("float64", "int32")]])
def test_reductions_keep_the_dtype(name, dtype):
    x = random_array((3, 5), dtype, 1, 3)
    for axis in (None, 0, 1):
        expected = NUMERIC[name](x, axis=axis).astype(dtype)
        assert_tensor(getattr(me, name)(x, axis=axis), expected, dtype=dtype)


def test_integer_mean_truncates_as_in_tensorflow():
    assert_tensor(me.reduce_mean(me.constant([1, 2, 4])), 2, dtype=me.int32)
    assert_tensor(me.reduce_mean(me.constant([[1, 2], [4, 4]]), axis=1), [1, 4], dtype=me.int32)


def test_reductions_of_a_scalar_and_of_empty_tensors():
    assert_tensor(me.reduce_sum(me.constant(3.0)), 3.0)
    assert_tensor(me.reduce_sum(me.zeros((0, 3)), axis=0), np.zeros(3))
    assert_tensor(me.reduce_prod(me.zeros((2, 0)), axis=1), np.ones(2))
    assert_tensor(me.reduce_any(me.zeros((0,), dtype=me.bool)), False)
    assert_tensor(me.reduce_all(me.zeros((0,), dtype=me.bool)), True)


def test_axis_given_as_a_tensor():
    x = random_array((2, 3, 4), "float32")
    assert_tensor(me.reduce_sum(x, axis=me.constant(1)), x.sum(axis=1))
    assert_tensor(me.reduce_sum(x, axis=me.constant([0, 2])), x.sum(axis=(0, 2)))


@given(shape=array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=5), data=st.data(),
       name=st.sampled_from(sorted(NUMERIC)), keepdims=st.booleans())
@few_examples
def test_reductions_on_generated_shapes(shape, data, name, keepdims):
    ndim = len(shape)
    axis = data.draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1),
                               st.lists(st.integers(0, ndim - 1), unique=True).map(tuple)), label="axis")
    x = random_array(shape, "float32", 0.5, 1.5, seed=data.draw(st.integers(0, 999)))
    expected = NUMERIC[name](x.astype(np.float64), axis=axis, keepdims=keepdims)
    assert_tensor(getattr(me, name)(x, axis=axis, keepdims=keepdims), expected, dtype="float32")


def test_reduce_max_with_nan_and_inf():
    x = np.array([[1.0, np.inf], [-np.inf, -2.0]], np.float32)
    assert_tensor(me.reduce_max(x, axis=1), [np.inf, -2.0])
    assert_tensor(me.reduce_min(x, axis=0), [-np.inf, -2.0])


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduce_logsumexp(axis, keepdims):
    x = random_array((3, 4), "float32", -5, 5)
    x[0, 0] = 80.0       # would overflow exp() in float32 without the max shift
    expected = np.log(np.sum(np.exp(x.astype(np.float64)), axis=axis, keepdims=keepdims))
    assert_tensor(me.reduce_logsumexp(x, axis=axis, keepdims=keepdims), expected, dtype=me.float32)


def test_reduce_logsumexp_of_minus_infinity():
    assert_tensor(me.reduce_logsumexp(np.full(3, -np.inf, np.float32)), -np.inf)


# ---- argmax / argmin -----------------------------------------------------------------------------
@pytest.mark.parametrize("name, reference", [("argmax", np.argmax), ("argmin", np.argmin)])
@pytest.mark.parametrize("axis", [None, 0, 1, 2, -1])
@pytest.mark.parametrize("dtype", ["float32", "int32", "float64"])
def test_argmax_argmin(name, reference, axis, dtype):
    x = random_array((3, 4, 5), dtype, 0, 3, seed=11)     # small integer-valued range: ties pick the first
    result = getattr(me, name)(x, axis=axis)
    assert_tensor(result, reference(x, axis=0 if axis is None else axis), dtype=me.int64)


def test_argmax_output_type():
    assert_tensor(me.argmax([3, 9, 2], output_type=me.int32), 1, dtype=me.int32)


def test_argmax_of_a_scalar_is_an_error():
    with pytest.raises(InvalidArgumentError, match="rank"):
        me.argmax(me.constant(1.0))


# ---- cumsum ----------------------------------------------------------------------------------------
def _cumsum_reference(x, axis, exclusive, reverse):
    if reverse:
        x = np.flip(x, axis)
    out = np.cumsum(x, axis=axis)
    if exclusive:
        out = out - x
    return np.flip(out, axis) if reverse else out


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_cumsum(axis, exclusive, reverse, dtype):
    x = random_array((3, 4), dtype, -5, 5)
    assert_tensor(me.cumsum(x, axis=axis, exclusive=exclusive, reverse=reverse),
                  _cumsum_reference(x, axis, exclusive, reverse), dtype=dtype)


def test_cumsum_examples_from_tensorflow():
    x = me.constant([1, 2, 3])
    assert me.cumsum(x).numpy().tolist() == [1, 3, 6]
    assert me.cumsum(x, exclusive=True).numpy().tolist() == [0, 1, 3]
    assert me.cumsum(x, reverse=True).numpy().tolist() == [6, 5, 3]
    assert me.cumsum(x, exclusive=True, reverse=True).numpy().tolist() == [5, 3, 0]


def test_math_namespace_has_the_reductions():
    for name in [*NUMERIC, *LOGICAL, "argmax", "argmin", "cumsum", "reduce_logsumexp"]:
        assert getattr(me.math, name) is getattr(me, name)
