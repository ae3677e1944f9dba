"""dtypes: names, the promotion table for two tensors, weak Python scalars, cast, and errors."""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import minieager as me
from minieager.engine import dtypes

from .conftest import assert_tensor

InvalidArgumentError = me.errors.InvalidArgumentError

ALL = [me.bool, me.uint8, me.int32, me.int64, me.float16, me.float32, me.float64]
NUMERIC = ALL[1:]


@pytest.mark.parametrize("dtype, name, np_dtype", [
    (me.float16, "float16", np.float16), (me.float32, "float32", np.float32), (me.float64, "float64", np.float64),
    (me.int32, "int32", np.int32), (me.int64, "int64", np.int64), (me.uint8, "uint8", np.uint8),
    (me.bool, "bool", np.bool_)])
def test_dtype_names_and_numpy_equivalents(dtype, name, np_dtype):
    # TF 2.21: str(tf.float32) is "<dtype: 'float32'>" (what print(x.dtype) shows), repr is "tf.float32"
    assert str(dtype) == f"<dtype: '{name}'>" and dtype.name == name and repr(dtype) == f"me.{name}"
    assert me.as_dtype(name) is dtype and me.as_dtype(np_dtype) is dtype and me.as_dtype(np.dtype(np_dtype)) is dtype
    assert dtype == name and dtype == np_dtype and dtype.as_numpy_dtype is np_dtype


def test_python_types_map_to_tf_defaults():
    assert me.as_dtype(float) is me.float32 and me.as_dtype(int) is me.int32 and me.as_dtype(bool) is me.bool


def test_dtype_properties():
    assert me.float16.is_floating and not me.float16.is_integer
    assert me.uint8.is_integer and me.uint8.min == 0 and me.uint8.max == 255
    assert me.bool.is_bool and not me.bool.is_integer
    assert me.int32.max == 2**31 - 1


@pytest.mark.parametrize("name", ["float", "int", "complex64", "float8", "Float32"])
def test_unknown_dtype_names_are_an_error_listing_the_known_ones(name):
    with pytest.raises(InvalidArgumentError, match=rf"Unknown dtype name '{name}'.*float32") as info:
        me.as_dtype(name)
    assert isinstance(info.value, ValueError)
    with pytest.raises(InvalidArgumentError, match="Unknown dtype"):
        me.constant([1, 2], dtype=name)
    with pytest.raises(InvalidArgumentError, match="Unknown dtype"):
        me.zeros([2], dtype=name)


@pytest.mark.parametrize("dtype", [np.complex64, "U5"])   # (object is me.string, as TF)
def test_unsupported_numpy_dtypes_are_an_error(dtype):
    with pytest.raises(InvalidArgumentError):
        me.as_dtype(dtype)


# ---- two tensors of different dtypes: an error, as in TensorFlow ----------------------------------
# The order an error message suggests casting to: bool < uint8 < int32 < int64 < float16 < float32 <
# float64, the later wins, except int64 with float16 gives float32.
EXPECTED_WIDER = {
    (me.uint8, me.int32): me.int32, (me.uint8, me.int64): me.int64, (me.uint8, me.float16): me.float16,
    (me.int32, me.int64): me.int64, (me.int32, me.float16): me.float16, (me.int32, me.float32): me.float32,
    (me.int64, me.float16): me.float32, (me.int64, me.float32): me.float32, (me.int64, me.float64): me.float64,
    (me.float16, me.float32): me.float32, (me.float16, me.float64): me.float64, (me.float32, me.float64): me.float64,
    (me.bool, me.uint8): me.uint8, (me.bool, me.int32): me.int32, (me.bool, me.float32): me.float32,
    (me.uint8, me.float64): me.float64,
}


@pytest.mark.parametrize("a, b", list(itertools.product(ALL, ALL)), ids=str)
def test_the_suggested_cast_is_symmetric_and_follows_the_documented_order(a, b):
    result = dtypes.wider(a, b)
    assert result is dtypes.wider(b, a)
    if a is b:
        assert result is a
    elif (a, b) in EXPECTED_WIDER:
        assert result is EXPECTED_WIDER[(a, b)]
    elif (b, a) in EXPECTED_WIDER:
        assert result is EXPECTED_WIDER[(b, a)]
    else:
        assert result in (a, b) and ALL.index(result) == max(ALL.index(a), ALL.index(b))


@pytest.mark.parametrize("a, b", [
    (me.uint8, me.int32), (me.int32, me.int64), (me.int32, me.float32), (me.int64, me.float16),
    (me.float16, me.float32), (me.float32, me.float64), (me.uint8, me.float64)], ids=str)
@pytest.mark.parametrize("op", [me.add, me.multiply, me.maximum, me.less, me.matmul,
                                lambda x, y: me.concat([x, y], 0), lambda x, y: me.where(x > 0, x, y)],
                         ids=["add", "multiply", "maximum", "less", "matmul", "concat", "where"])
def test_two_tensors_of_different_dtypes_are_an_error_naming_both_and_the_cast(a, b, op):
    # TF: tf.constant(1.0) + tf.constant(1) raises InvalidArgumentError ("cannot compute AddV2 as
    # input #1 was expected to be a float tensor but is a int32 tensor"); nothing is promoted.
    x = me.constant(np.array([[1, 2], [3, 4]], a.np_dtype))
    y = me.constant(np.array([[4, 5], [6, 7]], b.np_dtype))
    wide = EXPECTED_WIDER[(a, b)].name
    for first, second in ((x, y), (y, x)):
        with pytest.raises(InvalidArgumentError) as info:
            op(first, second)
        message = str(info.value)
        assert first.dtype.name in message and second.dtype.name in message
        assert f"me.cast(t, me.{wide})" in message


def test_mixed_dtypes_in_an_operator_name_the_op():
    with pytest.raises(InvalidArgumentError, match=r"^add: the first argument is a float32 tensor but the "
                                                   r"second is int32.*me\.cast\(t, me\.float32\) on the second"):
        me.constant(1.0) + me.constant(1)


def test_a_cast_makes_mixed_dtypes_work():
    x, n = me.constant([1.5, 2.5]), me.constant([2, 3])
    assert_tensor(x * me.cast(n, me.float32), [3.0, 7.5], dtype=me.float32)


# ---- Python numbers and NumPy arrays take the tensor's dtype where they fit ---------------------------
@pytest.mark.parametrize("dtype, scalar", [
    (me.float16, 2), (me.float16, 2.5), (me.float64, 2), (me.float64, 0.1), (me.int32, 2), (me.int64, 3),
    (me.uint8, 2), (me.int32, 2.0), (me.uint8, 255), (me.float32, True),
], ids=str)
def test_python_numbers_take_the_tensor_dtype(dtype, scalar):
    # TF: binary ops convert a Python operand with convert_to_tensor(y, dtype=x.dtype).
    x = np.array([1, 2, 4], dtype.np_dtype)
    t = me.constant(x)
    exact = (x.astype(np.float64) * scalar).astype(dtype.np_dtype)
    assert_tensor(t * scalar, exact, dtype=dtype)
    assert_tensor(scalar * t, exact, dtype=dtype)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([me.uint8, me.int32, me.int64, me.float16, me.float32]),
       st.one_of(st.integers(-2**70, 2**70), st.floats(allow_nan=False, allow_infinity=False, width=64)))
def test_a_python_number_converts_exactly_when_its_value_fits(dtype, value):
    # The rule behind TF's convert_to_tensor(value, dtype=x.dtype): no truncation, no overflow, else an error.
    if dtype.is_integer:
        fits = float(value).is_integer() and dtype.min <= value <= dtype.max
    else:
        fits = abs(value) <= dtype.max
    t = me.constant(np.array([1], dtype.np_dtype))
    if fits:
        result = t * value
        assert result.dtype == dtype
        expected = np.array([1], dtype.np_dtype) * np.array(value, dtype.np_dtype)
        np.testing.assert_array_equal(result.numpy(), expected)
    else:
        with pytest.raises(InvalidArgumentError, match="does not fit"):
            t * value


def test_float64_scalar_keeps_full_precision_next_to_float64():
    t = me.constant(np.array([1.0]))
    assert (t + 1e-10).numpy()[0] == 1.0 + 1e-10


@pytest.mark.parametrize("dtype, value, hint", [
    (me.uint8, 300, r"range 0\.\.255.*me\.cast\(x, me\.int64\)"), (me.uint8, -1, "range 0"),
    (me.int32, 2**40, r"me\.cast\(x, me\.int64\)"), (me.int32, 2.5, r"me\.cast\(x, me\.float32\)"),
    (me.int64, 0.5, "float32"), (me.float16, 70000, r"me\.cast\(x, me\.float32\)"),
    (me.bool, 1, r"x != 0"),
], ids=str)
def test_python_number_that_does_not_fit_is_an_error(dtype, value, hint):
    # TF: tf.constant([1]) * 2.5 raises "Cannot convert 2.5 to EagerTensor of dtype int32"; minieager
    # never widens the tensor instead (the float16 case: 70000 + 1.0 would be inf).
    t = me.constant(np.array([1], dtype.np_dtype))
    with pytest.raises(InvalidArgumentError, match=f"does not fit in {dtype.name}, the dtype of the tensor beside it.*{hint}"):
        t + value
    with pytest.raises(InvalidArgumentError, match="does not fit"):
        value * t


def test_numpy_arrays_and_lists_take_the_tensor_dtype():
    # TF: tf.constant([1.0], tf.float16) + np.array([1.0]) is float16 (the array converts).
    assert_tensor(me.constant([1.0], dtype=me.float16) + np.array([1.0]), [2.0], dtype=me.float16)
    assert_tensor(me.constant([1, 2]) + np.array([1, 2], np.int64), [2, 4], dtype=me.int32)
    assert_tensor(me.constant([1.0, 2.0]) * [2, 3], [2.0, 6.0], dtype=me.float32)
    assert_tensor(np.array([0.5]) * me.constant([4.0]), [2.0], dtype=me.float32)


def test_numpy_array_that_does_not_fit_is_an_error():
    with pytest.raises(InvalidArgumentError, match=r"ndarray of dtype float64 .*\(the second argument\) does not fit in int32"):
        me.constant([1, 2]) + np.array([0.5, 1.0])
    with pytest.raises(InvalidArgumentError, match="does not fit.*float32"):
        me.constant([1.0]) + np.array([1e300])


def test_with_no_tensor_the_first_argument_sets_the_dtype():
    # TF: tf.add(1, 2) is int32 and tf.add(1, 2.5) raises (2.5 does not convert to int32).
    assert_tensor(me.add(1, 2), 3, dtype=me.int32)
    assert_tensor(me.add(1.0, 2), 3.0, dtype=me.float32)
    with pytest.raises(InvalidArgumentError, match="2.5.*does not fit.*int32"):
        me.add(1, 2.5)


# ---- bool arithmetic --------------------------------------------------------------------------------
@pytest.mark.parametrize("op", [
    lambda b: b + b, lambda b: b * b, lambda b: -b, lambda b: abs(b), lambda b: me.reduce_sum(b),
    lambda b: me.square(b), lambda b: b / b], ids=["add", "mul", "neg", "abs", "reduce_sum", "square", "div"])
def test_arithmetic_on_bools_is_a_clear_error(op):
    with pytest.raises(InvalidArgumentError, match="bool tensors are not numbers.*me.cast"):
        op(me.constant([True, False]))


def test_bools_count_after_a_cast():
    assert int(me.reduce_sum(me.cast(me.constant([True, False, True]), me.int32))) == 2


# ---- cast --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("source, target", [
    (me.float32, me.int32), (me.float64, me.float16), (me.int32, me.float32), (me.int64, me.uint8),
    (me.bool, me.float32), (me.float32, me.bool), (me.int32, me.int64), (me.uint8, me.float64)], ids=str)
def test_cast_matches_numpy(source, target):
    x = np.array([-2.7, -0.0, 0.4, 1.0, 2.5, 250.9]) if source.is_floating else np.array([0, 1, 3, 200])
    x = x.astype(source.np_dtype) if not source.is_bool else np.array([True, False, True])
    if target is me.uint8:
        x = np.abs(x)
    assert_tensor(me.cast(me.constant(x), target), x.astype(target.np_dtype), dtype=target)
    assert_tensor(me.cast(x, target.name), x.astype(target.np_dtype), dtype=target)


def test_cast_truncates_toward_zero_and_to_the_same_dtype_is_a_no_op():
    assert me.cast(me.constant([-1.7, 1.7]), me.int32).numpy().tolist() == [-1, 1]
    t = me.constant([1, 2])
    assert me.cast(t, me.int32) is t


def test_cast_to_an_unknown_dtype_is_an_error():
    with pytest.raises(InvalidArgumentError, match="Unknown dtype"):
        me.cast(me.constant([1]), "int17")
