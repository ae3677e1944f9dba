"""Elementwise ops forward against NumPy: unary math, binary arithmetic with broadcasting,
comparisons, logic, where/clip, and the nn activations that work elementwise."""
import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes

import minieager as me

from .conftest import assert_tensor, few_examples, random_array

InvalidArgumentError = me.errors.InvalidArgumentError

SHAPES = [(), (1,), (7,), (3, 4), (2, 3, 5), (0, 3)]
FLOATS = ["float16", "float32", "float64"]


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


# name -> (minieager function, NumPy reference, the (low, high) range of inputs, whether ints are allowed)
UNARY = {
    "negative": (me.negative, np.negative, (-5, 5), True),
    "abs": (me.abs, np.abs, (-5, 5), True),
    "sign": (me.sign, np.sign, (-5, 5), True),
    "square": (me.square, np.square, (-5, 5), True),
    "sqrt": (me.sqrt, np.sqrt, (0, 9), False),
    "rsqrt": (me.rsqrt, lambda x: 1 / np.sqrt(x), (0.1, 9), False),
    "reciprocal": (me.math.reciprocal, np.reciprocal, (0.5, 4), False),
    "exp": (me.exp, np.exp, (-5, 5), False),
    "log": (me.log, np.log, (0.01, 9), False),
    "log1p": (me.log1p, np.log1p, (-0.9, 9), False),
    "expm1": (me.expm1, np.expm1, (-3, 3), False),
    "sin": (me.sin, np.sin, (-6, 6), False),
    "cos": (me.cos, np.cos, (-6, 6), False),
    "tanh": (me.tanh, np.tanh, (-5, 5), False),
    "sigmoid": (me.sigmoid, _sigmoid, (-8, 8), False),
    "relu": (me.relu, lambda x: np.maximum(x, 0), (-5, 5), False),
    "softplus": (me.softplus, lambda x: np.logaddexp(0, x), (-8, 8), False),
    "leaky_relu": (me.leaky_relu, lambda x: np.where(x > 0, x, 0.2 * x), (-5, 5), False),
}


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", FLOATS)
def test_unary_ops_on_floats(name, dtype):
    fn, reference, (low, high), _ = UNARY[name]
    for shape in SHAPES:
        x = random_array(shape, dtype, low, high)
        expected = reference(x.astype(np.float64))
        assert_tensor(fn(me.constant(x)), expected, dtype=dtype)


@pytest.mark.parametrize("name", [n for n, spec in UNARY.items() if spec[3]])
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_unary_ops_on_integers(name, dtype):
    fn, reference, (low, high), _ = UNARY[name]
    x = random_array((4, 5), dtype, low, high)
    assert_tensor(fn(me.constant(x)), reference(x), dtype=dtype)


@pytest.mark.parametrize("name", [n for n, spec in UNARY.items() if not spec[3]])
def test_float_only_ops_refuse_integers(name):
    with pytest.raises(InvalidArgumentError, match="floating-point.*me.cast"):
        UNARY[name][0](me.constant([1, 2]))


@given(shape=array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5), seed=st.integers(0, 2**16),
       name=st.sampled_from(sorted(UNARY)))
@few_examples
def test_unary_ops_on_generated_shapes(shape, seed, name):
    fn, reference, (low, high), _ = UNARY[name]
    x = random_array(shape, "float32", low, high, seed=seed)
    assert_tensor(fn(me.constant(x)), reference(x.astype(np.float64)), dtype="float32")


def test_unary_ops_accept_python_values_and_non_contiguous_tensors():
    assert_tensor(me.exp([0.0, 1.0]), np.exp([0.0, 1.0]), dtype=me.float32)
    x = random_array((4, 6), "float32")
    strided = me.constant(x)[::2, ::-3]
    assert_tensor(me.tanh(strided), np.tanh(x[::2, ::-3]))
    assert_tensor(me.transpose(me.constant(x)) * 2.0, x.T * 2)


def test_leaky_relu_alpha():
    x = np.array([-2.0, -0.5, 0.0, 3.0], np.float32)
    assert_tensor(me.nn.leaky_relu(x, alpha=0.1), np.where(x > 0, x, 0.1 * x), dtype=me.float32)


def test_softplus_and_sigmoid_are_stable_for_large_inputs():
    x = np.array([-100.0, -30.0, 0.0, 30.0, 100.0], np.float32)
    assert_tensor(me.softplus(x), np.logaddexp(0, x.astype(np.float64)))
    assert_tensor(me.sigmoid(x), _sigmoid(x.astype(np.float64)))
    assert not np.isnan(me.softplus(x).numpy()).any()


def test_isnan_and_isfinite():
    x = np.array([[0.0, np.nan, np.inf], [-np.inf, 1.0, -0.0]], np.float32)
    for dtype in FLOATS:
        assert_tensor(me.isnan(x.astype(dtype)), np.isnan(x), dtype=me.bool)
        assert_tensor(me.isfinite(x.astype(dtype)), np.isfinite(x), dtype=me.bool)
    assert me.is_nan is me.isnan and me.math.is_finite is me.isfinite


# ---- binary arithmetic --------------------------------------------------------------------------
def _nonzero(x):
    return np.where(x == 0, 1, x).astype(x.dtype)


# name -> (minieager function, NumPy reference, input preparation (a, b) -> (a, b))
BINARY = {
    "add": (me.add, np.add, None),
    "subtract": (me.subtract, np.subtract, None),
    "multiply": (me.multiply, np.multiply, None),
    "divide": (me.divide, np.true_divide, lambda a, b: (a, _nonzero(b))),
    "floordiv": (me.floordiv, np.floor_divide, lambda a, b: (a, _nonzero(b))),
    "mod": (me.mod, np.mod, lambda a, b: (a, _nonzero(b))),
    "pow": (me.pow, np.power, lambda a, b: (np.abs(a) + 1, np.abs(b) % 4)),
    "maximum": (me.maximum, np.maximum, None),
    "minimum": (me.minimum, np.minimum, None),
    "squared_difference": (me.math.squared_difference, lambda a, b: (a - b) ** 2, None),
}

BROADCAST_CASES = [
    ((), ()), ((), (3, 4)), ((3, 4), ()), ((4,), (3, 4)), ((3, 4), (4,)), ((3, 1), (3, 4)), ((1, 4), (3, 1)),
    ((2, 3, 4), (3, 1)), ((2, 1, 4), (1, 3, 1)), ((0, 4), (1, 4)), ((5,), (5,)),
]


def _binary_case(name, a_shape, b_shape, dtype, seed=0):
    fn, reference, prepare = BINARY[name]
    a = random_array(a_shape, dtype, -4, 4, seed=seed)
    b = random_array(b_shape, dtype, -4, 4, seed=seed + 1)
    if prepare:
        a, b = prepare(a, b)
    expected = reference(a.astype(np.float64), b.astype(np.float64)) if dtype.startswith("float") else reference(a, b)
    return fn, a, b, expected


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("a_shape, b_shape", BROADCAST_CASES, ids=str)
def test_binary_ops_broadcast_like_numpy(name, a_shape, b_shape):
    fn, a, b, expected = _binary_case(name, a_shape, b_shape, "float32")
    assert_tensor(fn(me.constant(a), me.constant(b)), expected, dtype="float32")


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dtype", ["float16", "float64", "int32", "int64", "uint8"])
def test_binary_ops_on_each_dtype(name, dtype):
    fn, a, b, expected = _binary_case(name, (3, 4), (4,), dtype)
    if dtype.startswith("uint"):    # uint8 a - b wraps around below 0, in NumPy and in minieager alike
        a, b = np.abs(a), _nonzero(np.abs(b))
        expected = BINARY[name][1](a, b)
    result = fn(me.constant(a), me.constant(b))
    if name == "divide" and not dtype.startswith("float"):
        assert result.dtype == (me.float32 if dtype == "uint8" else me.float64)   # int / int is a float
        assert_tensor(result, a.astype(np.float64) / b)
    else:
        assert_tensor(result, expected, dtype=dtype)


@given(shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, min_side=0, max_side=4),
       name=st.sampled_from(sorted(BINARY)), seed=st.integers(0, 2**16))
@few_examples
def test_binary_ops_on_generated_broadcastable_shapes(shapes, name, seed):
    a_shape, b_shape = shapes.input_shapes
    fn, a, b, expected = _binary_case(name, a_shape, b_shape, "float32", seed)
    assert expected.shape == shapes.result_shape
    assert_tensor(fn(me.constant(a), me.constant(b)), expected, dtype="float32")


def test_float_floordiv_and_mod_follow_python_signs():
    a = np.array([7.5, -7.5, 7.5, -7.5, 0.0], np.float32)
    b = np.array([2.0, 2.0, -2.0, -2.0, 3.0], np.float32)
    assert_tensor(me.floordiv(a, b), np.floor_divide(a, b))
    assert_tensor(me.floormod(a, b), np.mod(a, b))


def test_aliases():
    assert me.truediv is me.divide and me.math.floormod is me.mod and me.math.add is me.add


# ---- comparisons and logic ----------------------------------------------------------------------
COMPARE = {"equal": np.equal, "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
           "greater": np.greater, "greater_equal": np.greater_equal}


@pytest.mark.parametrize("name", COMPARE)
@pytest.mark.parametrize("dtype", ["float32", "int32", "float64", "uint8"])
@pytest.mark.parametrize("a_shape, b_shape", [((3, 4), (3, 4)), ((3, 4), ()), ((2, 1, 4), (3, 1))], ids=str)
def test_comparisons(name, dtype, a_shape, b_shape):
    a = random_array(a_shape, dtype, 0, 3, seed=3)          # small ranges, so there are ties
    b = random_array(b_shape, dtype, 0, 3, seed=4)
    if dtype.startswith("float"):
        a, b = np.round(a).astype(dtype), np.round(b).astype(dtype)
    assert_tensor(getattr(me, name)(a, b), COMPARE[name](a, b), dtype=me.bool)


def test_equality_of_bools():
    p, q = np.array([True, False]), np.array([[True], [False]])
    assert_tensor(me.equal(p, q), p == q, dtype=me.bool)


LOGIC = {"logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor}


@pytest.mark.parametrize("name", LOGIC)
@pytest.mark.parametrize("a_shape, b_shape", [((5,), (5,)), ((2, 3), ()), ((3, 1), (1, 4))], ids=str)
def test_logical_ops(name, a_shape, b_shape):
    a, b = random_array(a_shape, "bool", seed=5), random_array(b_shape, "bool", seed=6)
    assert_tensor(getattr(me, name)(a, b), LOGIC[name](a, b), dtype=me.bool)


def test_logical_not():
    a = random_array((3, 4), "bool")
    assert_tensor(me.logical_not(a), ~a, dtype=me.bool)


# ---- where, clip ------------------------------------------------------------------------------------
@pytest.mark.parametrize("c_shape, x_shape, y_shape", [
    ((5,), (5,), (5,)), ((3, 4), (3, 4), ()), ((3, 1), (1, 4), (3, 4)), ((2, 3, 4), (4,), (3, 1))], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_where_broadcasts_all_three(c_shape, x_shape, y_shape, dtype):
    c = random_array(c_shape, "bool", seed=7)
    x, y = random_array(x_shape, dtype, seed=8), random_array(y_shape, dtype, seed=9)
    assert_tensor(me.where(c, x, y), np.where(c, x, y), dtype=dtype)


def test_where_with_python_scalars():
    c = np.array([True, False, True])
    assert_tensor(me.where(c, me.constant([1.0, 2.0, 3.0]), 0.0), [1.0, 0.0, 3.0], dtype=me.float32)


def test_where_with_one_argument_gives_coordinates():
    c = np.array([[True, False], [False, True]])
    assert_tensor(me.where(c), np.argwhere(c), dtype=me.int64)


def test_where_needs_a_bool_condition():
    with pytest.raises(TypeError, match="bool"):
        me.where(me.constant([1, 0]), [1, 2], [3, 4])


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_clip_by_value(dtype):
    x = random_array((4, 5), dtype, -5, 5)
    assert_tensor(me.clip_by_value(x, -2, 3), np.clip(x, -2, 3), dtype=dtype)
    low, high = random_array((5,), dtype, -5, -1), random_array((4, 1), dtype, 1, 5)
    assert_tensor(me.clip_by_value(x, low, high), np.clip(x, low, high), dtype=dtype)


# ---- the numba loops: sizes above the NumPy fast path for tiny arrays ------------------------------
# Below SMALL_SIZE output elements the CPU kernels call NumPy (cheaper than a numba call), and
# one-ufunc ops stay on NumPy up to PARALLEL_SIZE unless the fixture lowers that bound to SMALL_SIZE,
# so these cases are large enough to run the numba loops. One dtype per op for most: numba compiles
# every (kernel, dtype, layout) on first use, and a cold cache pays for each.
LARGE = (72, 64)
large = pytest.mark.usefixtures("numba_loops_from_small_size")
LARGE_BROADCASTS = [(LARGE, LARGE), ((64,), LARGE), ((72, 1), LARGE), ((4, 1, 64), (18, 1))]
LARGE_SCALAR_CASES = [("add", (), LARGE), ("add", LARGE, ()), ("subtract", (), LARGE), ("divide", (), LARGE),
                      ("pow", LARGE, ()), ("maximum", LARGE, ())]
LARGE_DTYPE_CASES = [("floordiv", "int32"), ("mod", "int32"), ("pow", "int32"), ("maximum", "int32"),
                     ("add", "int64"), ("add", "uint8"), ("multiply", "float64"), ("divide", "float64")]


def test_large_cases_are_above_the_numpy_fast_path():
    from minieager.kernels.cpu.broadcast import SMALL_SIZE
    sizes = [np.prod(LARGE)] + [np.prod(np.broadcast_shapes(a, b)) for a, b in LARGE_BROADCASTS + [
        (a, b) for _, a, b in LARGE_SCALAR_CASES]]
    assert min(sizes) >= SMALL_SIZE


@large
@pytest.mark.parametrize("name", UNARY)
def test_unary_ops_on_large_tensors(name):
    fn, reference, (low, high), _ = UNARY[name]
    x = random_array(LARGE, "float32", low, high, seed=21)
    assert_tensor(fn(me.constant(x)), reference(x.astype(np.float64)), dtype="float32")


@pytest.mark.parametrize("name, dtype", [("exp", "float64"), ("tanh", "float64"), ("sigmoid", "float64"),
                                         ("tanh", "float16"), ("negative", "int32"), ("abs", "int64")])
@large
def test_unary_ops_on_large_tensors_of_other_dtypes(name, dtype):
    fn, reference, (low, high), _ = UNARY[name]
    x = random_array(LARGE, dtype, low, high, seed=22)
    assert_tensor(fn(me.constant(x)), reference(x.astype(np.float64)).astype(dtype), dtype=dtype)


@large
@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("a_shape, b_shape", LARGE_BROADCASTS, ids=str)
def test_binary_ops_on_large_tensors(name, a_shape, b_shape):
    fn, a, b, expected = _binary_case(name, a_shape, b_shape, "float32", seed=23)
    assert_tensor(fn(me.constant(a), me.constant(b)), expected, dtype="float32")


@large
@pytest.mark.parametrize("name, a_shape, b_shape", LARGE_SCALAR_CASES, ids=str)
def test_binary_ops_with_a_one_element_operand_on_large_tensors(name, a_shape, b_shape):
    fn, a, b, expected = _binary_case(name, a_shape, b_shape, "float32", seed=24)
    assert_tensor(fn(me.constant(a), me.constant(b)), expected, dtype="float32")
    assert_tensor(fn(me.constant(a), b.item()) if b.ndim == 0 else fn(a.item(), me.constant(b)), expected)


@large
@pytest.mark.parametrize("name, dtype", LARGE_DTYPE_CASES, ids=str)
def test_binary_ops_on_large_tensors_of_other_dtypes(name, dtype):
    fn, a, b, expected = _binary_case(name, LARGE, LARGE, dtype, seed=25)
    if dtype == "uint8":
        a, b = np.abs(a), np.abs(b)
        expected = a + b
    result = fn(me.constant(a), me.constant(b))
    assert_tensor(result, expected.astype(result.dtype.np_dtype), dtype=dtype)


@large
@pytest.mark.parametrize("name", COMPARE)
def test_comparisons_on_large_tensors(name):
    a = np.round(random_array(LARGE, "float32", 0, 3, seed=26))
    b = np.round(random_array((64,), "float32", 0, 3, seed=27))
    assert_tensor(getattr(me, name)(a, b), COMPARE[name](a, b), dtype=me.bool)
    ints = random_array(LARGE, "int32", 0, 3, seed=28)
    assert_tensor(getattr(me, name)(ints, 1), COMPARE[name](ints, 1), dtype=me.bool)


@large
@pytest.mark.parametrize("name", LOGIC)
def test_logical_ops_on_large_tensors(name):
    a, b = random_array(LARGE, "bool", seed=29), random_array(LARGE, "bool", seed=30)
    assert_tensor(getattr(me, name)(a, b), LOGIC[name](a, b), dtype=me.bool)
    assert_tensor(me.logical_not(a), ~a, dtype=me.bool)


@large
def test_where_isnan_isfinite_leaky_relu_clip_on_large_tensors():
    x = random_array(LARGE, "float32", -3, 3, seed=31)
    x[::7, ::5] = np.nan
    x[1::9, ::3] = np.inf
    c = random_array(LARGE, "bool", seed=32)
    y = random_array(LARGE, "float32", seed=33)
    assert_tensor(me.where(c, x, y), np.where(c, x, y), dtype=me.float32)
    assert_tensor(me.isnan(x), np.isnan(x), dtype=me.bool)
    assert_tensor(me.isfinite(x), np.isfinite(x), dtype=me.bool)
    assert_tensor(me.leaky_relu(y, alpha=0.3), np.where(y > 0, y, 0.3 * y), dtype=me.float32)
    assert_tensor(me.clip_by_value(y, -1.0, 0.5), np.clip(y, -1.0, 0.5), dtype=me.float32)
