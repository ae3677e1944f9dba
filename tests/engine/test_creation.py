"""Making tensors: constant and its dtype inference, the shape helpers, range/linspace, random."""
import numpy as np
import pytest

import minieager as me

from .conftest import assert_tensor

InvalidArgumentError = me.errors.InvalidArgumentError


# ---- constant: dtype inference as in TensorFlow -------------------------------------------------
@pytest.mark.parametrize("value, dtype", [
    (1.5, me.float32), ([1.0, 2.0], me.float32), ([[1.0], [2.0]], me.float32),
    (3, me.int32), ([1, 2, 3], me.int32),
    (True, me.bool), ([True, False], me.bool),
    ([1, 2.5], me.float32),                       # a mixed list is a float list
    (2**40, me.int64),                            # an int that does not fit in int32
])
def test_constant_infers_tf_dtypes_from_python_values(value, dtype):
    t = me.constant(value)
    assert t.dtype == dtype
    assert_tensor(t, np.asarray(value, dtype.np_dtype))


@pytest.mark.parametrize("np_dtype", [np.float16, np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_])
def test_constant_keeps_the_dtype_of_numpy_arrays(np_dtype):
    array = np.array([[1, 0], [3, 4]], dtype=np_dtype)
    t = me.constant(array)
    assert t.dtype == np.dtype(np_dtype)
    np.testing.assert_array_equal(t.numpy(), array)
    assert me.constant(array[0, 0]).dtype == np.dtype(np_dtype)   # NumPy scalars too


def test_constant_copies_its_input():
    array = np.array([1.0, 2.0], np.float32)
    t = me.constant(array)
    array[0] = 99.0
    assert t.numpy()[0] == 1.0


def test_constant_with_explicit_dtype_converts():
    assert_tensor(me.constant([1, 2], dtype=me.float64), [1.0, 2.0], dtype=me.float64)
    assert_tensor(me.constant(3.0, dtype="int32"), 3, dtype=me.int32)


def test_constant_refuses_to_truncate_fractions_to_int():
    with pytest.raises(InvalidArgumentError, match="fractional"):
        me.constant([1.5, 2.0], dtype=me.int32)


@pytest.mark.parametrize("value", [2, [0, 1], 1.0, np.array([0, 3], np.int64)])
def test_numbers_do_not_become_bools(value):
    first = np.asarray(value).flat[0].item()
    with pytest.raises(me.errors.DTypeError, match=rf"^constant: cannot convert the \w+ value {first!r} to bool "
                                                   rf".*Compare instead \(x != 0\), or use me\.cast\(x, me\.bool\)"):
        me.constant(value, dtype=me.bool)
    with pytest.raises(TypeError):                 # what TensorFlow raises; DTypeError is also one
        me.convert_to_tensor(value, dtype=me.bool)
    assert me.cast(me.constant(value), me.bool).numpy().tolist() == (np.asarray(value) != 0).tolist()
    assert me.constant([True, False], dtype=me.bool).numpy().tolist() == [True, False]


def test_constant_shape_fills_from_a_scalar():
    assert_tensor(me.constant(7, shape=(2, 3)), np.full((2, 3), 7), dtype=me.int32)
    assert_tensor(me.constant([1.5], shape=[2]), [1.5, 1.5], dtype=me.float32)


def test_constant_shape_reshapes_a_list():
    assert_tensor(me.constant([1, 2, 3, 4, 5, 6], shape=(3, 2)), np.arange(1, 7).reshape(3, 2))


def test_constant_shape_with_wrong_size_is_an_error():
    with pytest.raises(InvalidArgumentError, match=r"5 values cannot fill shape \(2, 3\)"):
        me.constant([1, 2, 3, 4, 5], shape=(2, 3))


def test_convert_to_tensor_returns_tensors_unchanged_and_converts_the_rest():
    t = me.constant([1.0, 2.0])
    assert me.convert_to_tensor(t) is t
    assert_tensor(me.convert_to_tensor([[1, 2]]), [[1, 2]], dtype=me.int32)
    assert_tensor(me.convert_to_tensor(np.arange(3.0)), [0.0, 1.0, 2.0], dtype=me.float64)
    assert_tensor(me.convert_to_tensor(2, dtype=me.float32), 2.0, dtype=me.float32)


def test_convert_to_tensor_with_a_different_dtype_asks_for_cast():
    with pytest.raises(InvalidArgumentError, match="me.cast"):
        me.convert_to_tensor(me.constant([1, 2]), dtype=me.float32)


def test_tensor_constructor_is_constant():
    assert_tensor(me.Tensor([1.0, 2.0]), [1.0, 2.0], dtype=me.float32)
    assert_tensor(me.Tensor(3, dtype=me.int64), 3, dtype=me.int64)


# ---- zeros, ones, fill, eye ------------------------------------------------------------------------
@pytest.mark.parametrize("make, fill_value", [(me.zeros, 0), (me.ones, 1)])
@pytest.mark.parametrize("shape", [(), (3,), [2, 3], (2, 0, 4)])
def test_zeros_and_ones(make, fill_value, shape):
    assert_tensor(make(shape), np.full(shape, fill_value, np.float32), dtype=me.float32)
    assert_tensor(make(shape, dtype=me.int64), np.full(shape, fill_value), dtype=me.int64)


def test_zeros_accepts_an_int_and_a_tensor_as_shape():
    assert me.zeros(4).shape == (4,)
    assert me.ones(me.constant([2, 3])).shape == (2, 3)


@pytest.mark.parametrize("make, fill_value", [(me.zeros_like, 0), (me.ones_like, 1)])
def test_zeros_like_and_ones_like_keep_shape_and_dtype(make, fill_value):
    source = me.constant([[1, 2, 3], [4, 5, 6]])
    assert_tensor(make(source), np.full((2, 3), fill_value), dtype=me.int32)
    assert_tensor(make(source, dtype=me.float64), np.full((2, 3), fill_value), dtype=me.float64)
    assert_tensor(make(np.zeros((2,), np.float16)), np.full(2, fill_value), dtype=me.float16)


def test_fill_takes_the_dtype_of_its_value():
    assert_tensor(me.fill([2, 2], 9), np.full((2, 2), 9), dtype=me.int32)
    assert_tensor(me.fill((3,), 0.5), [0.5, 0.5, 0.5], dtype=me.float32)
    assert_tensor(me.fill([2], True), [True, True], dtype=me.bool)


def test_negative_shape_is_an_error():
    with pytest.raises(InvalidArgumentError, match="negative"):
        me.zeros((2, -1))


@pytest.mark.parametrize("args, expected", [
    ((3,), np.eye(3)), ((2, 4), np.eye(2, 4)), ((4, 2), np.eye(4, 2))])
def test_eye(args, expected):
    assert_tensor(me.eye(*args), expected, dtype=me.float32)
    assert_tensor(me.eye(*args, dtype=me.int32), expected.astype(np.int32), dtype=me.int32)


# ---- range and linspace -------------------------------------------------------------------------
@pytest.mark.parametrize("args, kwargs, expected, dtype", [
    ((5,), {}, np.arange(5), me.int32),
    ((2, 7), {}, np.arange(2, 7), me.int32),
    ((10, 0, -3), {}, np.arange(10, 0, -3), me.int32),
    ((0, 10), {"delta": 4}, [0, 4, 8], me.int32),
    ((1.0, 2.0, 0.25), {}, [1.0, 1.25, 1.5, 1.75], me.float32),
    ((3.5,), {}, [0.0, 1.0, 2.0, 3.0], me.float32),
    ((4,), {"dtype": me.float64}, [0.0, 1.0, 2.0, 3.0], me.float64),
    ((4,), {"dtype": "int64"}, [0, 1, 2, 3], me.int64),
    ((me.constant(3),), {}, [0, 1, 2], me.int32),
    ((5, 5), {}, np.zeros(0), me.int32),
])
def test_range(args, kwargs, expected, dtype):
    assert_tensor(me.range(*args, **kwargs), np.asarray(expected), dtype=dtype)


def test_range_with_zero_delta_is_an_error():
    with pytest.raises(InvalidArgumentError, match="delta"):
        me.range(0, 5, 0)


def test_linspace():
    assert_tensor(me.linspace(0.0, 1.0, 5), np.linspace(0, 1, 5), dtype=me.float32)
    assert_tensor(me.linspace(np.float64(-1), np.float64(1), 3), [-1.0, 0.0, 1.0], dtype=me.float64)
    assert_tensor(me.linspace(0, 10, 3), [0.0, 5.0, 10.0], dtype=me.float64)    # integer ends: float64, as TF
    with pytest.raises(InvalidArgumentError, match="linspace: start is float32 but stop is float64"):
        me.linspace(0.0, np.float64(1), 3)


# ---- random ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("sample", [
    lambda: me.random.normal([3, 4]),
    lambda: me.random.uniform([5], minval=-1.0, maxval=2.0),
    lambda: me.random_normal([2, 2], mean=1.0, stddev=0.1),
    lambda: me.random_uniform([6], maxval=255, dtype=me.int32),
])
def test_global_seed_makes_random_ops_reproducible(sample):
    me.random.set_seed(42)
    first = [sample().numpy(), sample().numpy()]
    me.random.set_seed(42)
    second = [sample().numpy(), sample().numpy()]
    np.testing.assert_array_equal(first[0], second[0])
    np.testing.assert_array_equal(first[1], second[1])
    assert not np.array_equal(first[0], first[1])          # a stream, not one repeated draw
    me.random.set_seed(43)
    assert not np.array_equal(sample().numpy(), first[0])


def test_op_seed_gives_a_reproducible_stream_per_call_site():
    me.random.set_seed(1)
    a = me.random.normal([4], seed=7).numpy()
    me.random.set_seed(1)
    me.random.normal([4])                                   # the global stream does not disturb it
    np.testing.assert_array_equal(me.random.normal([4], seed=7).numpy(), a)


def test_random_normal_statistics_shape_and_dtype():
    me.random.set_seed(0)
    t = me.random.normal([200, 50], mean=3.0, stddev=2.0, dtype=me.float64)
    assert t.shape == (200, 50) and t.dtype == me.float64
    values = t.numpy()
    assert abs(values.mean() - 3.0) < 0.1
    assert abs(values.std() - 2.0) < 0.1


def test_random_uniform_range_shape_and_dtype():
    me.random.set_seed(0)
    floats = me.random.uniform([1000], minval=-2.0, maxval=3.0)
    assert floats.dtype == me.float32 and floats.shape == (1000,)
    assert floats.numpy().min() >= -2.0 and floats.numpy().max() < 3.0
    assert me.random.uniform([1000]).numpy().max() < 1.0           # maxval defaults to 1
    ints = me.random_uniform([28, 28, 3], maxval=255, dtype=me.int32)
    assert ints.dtype == me.int32 and ints.shape == (28, 28, 3)
    assert ints.numpy().min() >= 0 and ints.numpy().max() < 255


def test_random_errors():
    with pytest.raises(InvalidArgumentError, match="maxval"):
        me.random.uniform([2], dtype=me.int32)
    with pytest.raises(InvalidArgumentError, match="floating"):
        me.random.normal([2], dtype=me.int32)
