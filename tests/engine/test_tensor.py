"""The Tensor object: its attributes, NumPy interop, printing, Python conversions and operators."""
import operator

import numpy as np
import pytest

import minieager as me

from .conftest import assert_tensor

CPU_0 = "/job:localhost/replica:0/task:0/device:CPU:0"   # tensor.device, as TF names it

InvalidArgumentError = me.errors.InvalidArgumentError


# ---- attributes -----------------------------------------------------------------------------
def test_attributes():
    t = me.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert t.shape == (2, 3)
    assert t.shape == me.TensorShape((2, 3)) and t.shape != (3, 2)
    assert t.shape.as_list() == [2, 3] and t.shape.rank == 2 and t.shape.num_elements() == 6
    assert t.dtype == me.float32 and t.dtype == "float32" and t.dtype == np.float32
    assert t.ndim == 2
    assert t.device == CPU_0
    assert me.constant(1).shape == ()


def test_tensor_is_immutable():
    t = me.constant([1, 2])
    with pytest.raises((AttributeError, TypeError)):
        t[0] = 5
    with pytest.raises(AttributeError):
        t.extra = 1


def test_ids_are_distinct_counters():
    a, b = me.constant(1), me.constant(1)
    assert isinstance(a.id, int) and a.id != b.id


# ---- NumPy interop ------------------------------------------------------------------------------
def test_numpy_returns_a_copy():
    t = me.constant([[1, 2], [3, 4]])
    array = t.numpy()
    assert isinstance(array, np.ndarray) and array.dtype == np.int32
    array[0, 0] = 100
    assert t.numpy()[0, 0] == 1
    assert t.numpy() is not t.numpy()


def test_asarray_is_a_read_only_view():
    t = me.constant([1.0, 2.0])
    view = np.asarray(t)
    assert view.dtype == np.float32
    with pytest.raises(ValueError):
        view[0] = 5.0
    assert t.numpy()[0] == 1.0
    assert np.asarray(t, dtype=np.float64).dtype == np.float64


def test_numpy_functions_on_tensors_return_arrays():
    a = me.constant([[1, 2], [3, 4]])
    b = me.add(a, 1)
    c = np.multiply(a, b)             # the guide's example
    assert type(c) is np.ndarray
    np.testing.assert_array_equal(c, [[2, 6], [12, 20]])
    assert float(np.mean(a)) == 2.5
    assert type(np.sum(a, axis=0)) is np.ndarray


# ---- printing ------------------------------------------------------------------------------------
@pytest.mark.parametrize("value, text", [
    (me.constant(5), "me.Tensor(5, shape=(), dtype=int32)"),
    (me.constant(2.5), "me.Tensor(2.5, shape=(), dtype=float32)"),
    (me.constant(True), "me.Tensor(True, shape=(), dtype=bool)"),
    (me.constant([1, 2, 3]), "me.Tensor([1 2 3], shape=(3,), dtype=int32)"),
    (me.constant([[4.0]]), "me.Tensor([[4.]], shape=(1, 1), dtype=float32)"),
    (me.constant([[1, 2], [3, 4]]), "me.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)"),
    (me.constant([[2, 6], [12, 20]]), "me.Tensor(\n[[ 2  6]\n [12 20]], shape=(2, 2), dtype=int32)"),
    (me.zeros((2, 0)), "me.Tensor([], shape=(2, 0), dtype=float32)"),
])
def test_str_prints_like_tensorflow(value, text):
    assert str(value) == text


@pytest.mark.parametrize("value, text", [
    (me.constant(5), "<me.Tensor: shape=(), dtype=int32, numpy=5>"),
    (me.constant([1.5, 2.0]), "<me.Tensor: shape=(2,), dtype=float32, numpy=array([1.5, 2. ], dtype=float32)>"),
    (me.constant([[1, 2], [3, 4]]),
     "<me.Tensor: shape=(2, 2), dtype=int32, numpy=\narray([[1, 2],\n       [3, 4]], dtype=int32)>"),
])
def test_repr(value, text):
    assert repr(value) == text


def test_format_matches_the_guide():
    m = me.constant([[4.0]])
    assert "hello, {}".format(m) == "hello, [[4.]]"
    assert f"{m}" == "[[4.]]"


def test_format_spec_on_one_element_tensors():
    assert "{:.3f}".format(me.constant(3.14159)) == "3.142"
    assert f"{me.constant([[2.5]]):.1f}" == "2.5"
    assert f"{me.constant(7):03d}" == "007"
    assert "result is %d" % me.constant(25) == "result is 25"


# ---- one-element tensors as Python numbers ---------------------------------------------------------
@pytest.mark.parametrize("convert, value, expected", [
    (int, me.constant(7), 7), (int, me.constant([[2.9]]), 2), (float, me.constant(3), 3.0),
    (float, me.constant([0.5]), 0.5), (bool, me.constant(0), False), (bool, me.constant([[True]]), True),
    (bool, me.constant(0.0), False), (operator.index, me.constant(4, dtype=me.int64), 4),
])
def test_python_conversions_of_one_element_tensors(convert, value, expected):
    result = convert(value)
    assert result == expected and type(result) is type(expected)


def test_tensor_as_an_index():
    assert list(range(me.constant(3))) == [0, 1, 2]
    assert [10, 20, 30][me.constant(2)] == 30
    with pytest.raises(TypeError, match="float32"):
        range(me.constant(2.0))


@pytest.mark.parametrize("convert, name", [
    (int, "int"), (float, "float"), (bool, "bool"), (operator.index, "__index__"),
    (lambda t: f"{t:.2f}", "format")])
@pytest.mark.parametrize("shape", [(2,), (2, 3), (0,)])
def test_python_conversions_of_many_elements_raise_naming_the_shape(convert, name, shape):
    t = me.zeros(shape, dtype=me.int32)
    with pytest.raises(InvalidArgumentError, match=rf"{name}\(\).*shape \({shape[0]},") as info:
        convert(t)
    assert str(shape) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_if_on_a_many_element_comparison_raises():
    t = me.constant([1, 2, 3])
    with pytest.raises(ValueError, match=r"bool\(\).*\(3,\)"):
        if t == 3:
            pass


# ---- a sequence along the first axis --------------------------------------------------------------
def test_len_and_iteration():
    t = me.constant([[1, 2], [3, 4], [5, 6]])
    assert len(t) == 3
    rows = list(t)
    assert len(rows) == 3 and all(isinstance(r, me.Tensor) for r in rows)
    assert_tensor(rows[2], [5, 6], dtype=me.int32)


def test_for_over_range():
    seen = [int(i) for i in me.range(4)]
    assert seen == [0, 1, 2, 3]
    assert all(isinstance(i, me.Tensor) and i.dtype == me.int32 and i.shape == () for i in me.range(2))


def test_len_and_iteration_of_a_scalar_raise():
    with pytest.raises(TypeError, match="scalar"):
        len(me.constant(1))
    with pytest.raises(TypeError, match="scalar"):
        iter(me.constant(1)).__next__()


# ---- hashing -----------------------------------------------------------------------------------------
def test_hashable_by_identity():
    a, b = me.constant([1, 2]), me.constant([1, 2])
    table = {a: "a", b: "b"}
    assert table[a] == "a" and table[b] == "b"
    assert len({a, b, a}) == 2
    assert hash(a) == hash(a)


# ---- operators ----------------------------------------------------------------------------------------
X = np.array([[1.5, -2.0, 3.0], [4.0, 0.5, -6.0]], np.float32)
Y = np.array([[2.0, 4.0, -1.5], [1.0, -3.0, 2.5]], np.float32)

BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod]
COMPARISONS = [operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne]


@pytest.mark.parametrize("op", BINARY + COMPARISONS, ids=lambda f: f.__name__)
def test_binary_operators_on_two_tensors(op):
    result = op(me.constant(X), me.constant(Y))
    expected = op(X, Y)
    assert_tensor(result, expected, dtype=expected.dtype)


@pytest.mark.parametrize("op", BINARY + COMPARISONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("scalar", [2, 2.5, -3])
def test_operators_with_python_scalars_on_either_side(op, scalar):
    t = me.constant(X)
    expected_dtype = np.bool_ if op in COMPARISONS else np.float32
    assert_tensor(op(t, scalar), op(X, np.float32(scalar)), dtype=expected_dtype)
    assert_tensor(op(scalar, t), op(np.float32(scalar), X), dtype=expected_dtype)


@pytest.mark.parametrize("op", BINARY + [operator.pow, operator.lt, operator.eq], ids=lambda f: f.__name__)
def test_numpy_array_on_the_left_gives_a_tensor(op):
    left = np.abs(Y)
    result = op(left, me.constant(np.abs(X)))
    assert isinstance(result, me.Tensor)
    assert_tensor(result, op(left, np.abs(X)))


def test_power_operators():
    assert_tensor(me.constant([1.0, 2.0, 3.0]) ** 2, [1.0, 4.0, 9.0], dtype=me.float32)
    assert_tensor(2 ** me.constant([1, 2, 3]), [2, 4, 8], dtype=me.int32)
    assert_tensor(me.constant([4.0, 9.0]) ** me.constant([0.5, 0.5]), [2.0, 3.0])


def test_matmul_operator():
    a, b = np.arange(6, dtype=np.float32).reshape(2, 3), np.arange(12, dtype=np.float32).reshape(3, 4)
    assert_tensor(me.constant(a) @ me.constant(b), a @ b, dtype=me.float32)
    assert_tensor(a @ me.constant(b), a @ b, dtype=me.float32)       # reflected, NumPy on the left
    assert_tensor(me.constant(a) @ b, a @ b, dtype=me.float32)


def test_unary_operators():
    t = me.constant([[-1.5, 2.0], [0.0, -3.0]])
    assert_tensor(-t, -t.numpy(), dtype=me.float32)
    assert_tensor(abs(t), np.abs(t.numpy()), dtype=me.float32)
    assert +t is t
    assert_tensor(abs(me.constant([-3, 4])), [3, 4], dtype=me.int32)


def test_integer_floordiv_and_mod_follow_python_signs():
    a, b = np.array([7, -7, 7, -7], np.int32), np.array([2, 2, -2, -2], np.int32)
    assert_tensor(me.constant(a) // me.constant(b), a // b, dtype=me.int32)
    assert_tensor(me.constant(a) % me.constant(b), a % b, dtype=me.int32)


@pytest.mark.parametrize("divide", [operator.floordiv, operator.mod, me.floordiv, me.floormod])
def test_integer_division_by_zero_raises_as_in_tensorflow(divide):
    name = "mod" if divide in (operator.mod, me.floormod) else "floordiv"
    with pytest.raises(me.errors.InvalidArgumentError,
                       match=rf"^{name}: integer division by zero \(int32 \(2, 2\) by int32 \(2,\), which is 0 at "
                             rf"index \(1,\)\)\. Replace the zeros first \(me\.where\(y == 0, 1, y\)\)"):
        divide(me.constant([[1, 2], [3, 4]]), me.constant([5, 0]))
    with pytest.raises(me.errors.InvalidArgumentError, match=rf"^{name}: integer division by zero \(int64 \(\) by"):
        divide(me.constant(7, me.int64), 0)
    y = me.constant([5, 0])
    assert divide(me.constant([7, 8]), me.where(y == 0, 1, y)).numpy().tolist() == ([1, 8] if name == "floordiv"
                                                                                     else [2, 0])
    np.testing.assert_array_equal(divide(me.constant([1.0, -1.0]), 0.0).numpy(),     # floats: inf, nan, no error
                                  np.array([np.inf, -np.inf]) if name == "floordiv" else [np.nan, np.nan])


def test_true_division_of_integers_gives_floats():
    assert_tensor(me.constant([1, 2]) / 2, [0.5, 1.0], dtype=me.float64)    # as in TensorFlow


def test_augmented_assignment_rebinds_to_a_new_tensor():
    t = original = me.constant(10)
    t += 5
    assert int(t) == 15 and int(original) == 10


@pytest.mark.parametrize("op", [operator.and_, operator.or_, operator.xor], ids=lambda f: f.__name__)
def test_logical_operators_on_bools(op):
    p, q = np.array([True, True, False, False]), np.array([True, False, True, False])
    assert_tensor(op(me.constant(p), me.constant(q)), op(p, q), dtype=me.bool)
    assert_tensor(op(me.constant(p), True), op(p, True), dtype=me.bool)
    assert_tensor(op(False, me.constant(q)), op(False, q), dtype=me.bool)
    assert_tensor(~me.constant(p), ~p, dtype=me.bool)


def test_logical_operators_refuse_numbers():
    with pytest.raises(TypeError, match="bool"):
        me.constant([1, 2]) & me.constant([1, 0])
    with pytest.raises(TypeError, match="bool"):
        ~me.constant([1.0])


def test_comparison_with_none_is_a_python_bool():
    # As in TensorFlow: `t == None` is plain False (so `t in [None, ...]` and `x == None` checks work).
    t = me.constant([1, 2])
    assert (t == None) is False and (t != None) is True   # noqa: E711
    assert me.constant(1) not in [None]


def test_comparison_with_a_python_number_is_elementwise():
    # The comparison pitfall: == on a tensor is an elementwise op returning a bool tensor.
    result = me.constant(0) == 0
    assert isinstance(result, me.Tensor) and result.dtype == me.bool and bool(result)
    assert bool(me.constant(0) <= 0) and bool(me.constant(0) >= 0)
    assert_tensor(me.constant([1, 2, 3]) == 2, [False, True, False], dtype=me.bool)
    assert_tensor(me.constant([1, 2, 3]) != me.constant([1, 0, 3]), [False, True, False])


def test_a_python_value_that_fits_no_dtype_is_named_by_the_op_it_was_given_to():
    with pytest.raises(me.errors.InvalidArgumentError, match=r"^add: the value 9223372036854775808 does not fit in "
                                                             r"int64 .*Use a float dtype"):
        me.add(2**63, 1)
    with pytest.raises(me.errors.InvalidArgumentError, match=r"^add_n: 10{30} holds integers outside int64's range"):
        me.add_n([10**30])


def test_numpy_of_a_scalar_is_a_numpy_scalar_as_in_tf():
    """TF 2.21: tf.constant(6.).numpy() is np.float32(6.0), tf.constant(True).numpy() np.True_, a scalar
    string b'a'; a tensor of rank >= 1 gives a new array."""
    six = me.constant(6.0).numpy()
    assert type(six) is np.float32 and six == 6.0
    assert me.constant(True).numpy() is np.True_ and me.constant("a").numpy() == b"a"
    assert type(me.Variable(2).numpy()) is np.int32
    t = me.constant([1.0, 2.0])
    a = t.numpy()
    a[0] = 5.0                                            # a copy: the tensor keeps its value
    assert isinstance(a, np.ndarray) and t.numpy().tolist() == [1.0, 2.0]


def test_compute_gradient_of_a_scalar_steps_it():
    # TF 2.21: tf.test.compute_gradient(lambda x: x * x, [tf.constant(3.0, tf.float64)]) gives ([[6.]], [[6.]])
    theoretical, numerical = me.test.compute_gradient(lambda x: x * x, [me.constant(3.0, me.float64)])
    np.testing.assert_allclose(theoretical[0], [[6.0]])
    np.testing.assert_allclose(numerical[0], [[6.0]], rtol=1e-6)
