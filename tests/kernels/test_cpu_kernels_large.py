"""The numba loops, multi-threaded, at sizes above SMALL_SIZE (below it the kernels call NumPy).

Sizes are odd on purpose: a vectorised loop handles whole vectors and then a scalar tail, and the
special values (nan, +-inf, -0.0, subnormals) are placed both in the body and in that tail.
"""
import numpy as np
import pytest
import scipy.special

import minieager.kernels.cpu  # noqa: F401  (registers the kernels)
from minieager.kernels.cpu import broadcast, loops, reduce
from minieager.kernels.registry import get_kernel

N = 3 * broadcast.SMALL_SIZE + 13
pytestmark = pytest.mark.usefixtures("numba_loops_from_small_size")
RNG = np.random.default_rng(7)


def kernel(name):
    return get_kernel(name, "cpu")


def with_specials(x, specials):
    """``x`` with ``specials`` written near its start, in its middle and as its last elements."""
    x = x.copy()
    k = len(specials)
    for start in (3, len(x) // 2, len(x) - k):
        x[start:start + k] = specials
    return x


FLOAT_SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -2.5]


def operand(dtype, n=N, low=-50, high=50):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return RNG.random(n) < 0.5
    if dtype.kind in "iu":
        return RNG.integers(low, high, n).astype(dtype)
    return with_specials(RNG.uniform(low, high, n), FLOAT_SPECIALS).astype(dtype)


# ----------------------------------------------------------------------------- one-element operands
def check_scalar_operand(name, fn, array, scalar, scalar_first):
    """``name(array, scalar)`` (or ``name(scalar, array)``) with a one-element operand, against NumPy."""
    s = np.array(scalar, array.dtype)
    args = (s, array) if scalar_first else (array, s)
    got = kernel(name)(*args)
    with np.errstate(all="ignore"):
        if array.dtype == np.float16:   # computed in float32, rounded once to float16
            want = fn(*(a.astype(np.float32) for a in args)).astype(np.float16)
        else:
            want = fn(*args)
    assert got.shape == want.shape and got.dtype == want.dtype
    if name in ("pow", "mod", "floordiv") and got.dtype.kind == "f":   # libm-style: last-ulp differences
        np.testing.assert_allclose(got, want, rtol=1e-6, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


ARITHMETIC = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.true_divide,
              "floordiv": np.floor_divide, "mod": np.mod, "pow": np.power, "maximum": np.maximum,
              "minimum": np.minimum, "less": np.less, "equal": np.equal}


@pytest.mark.parametrize("scalar_first", [False, True], ids=["array-scalar", "scalar-array"])
@pytest.mark.parametrize("name", sorted(ARITHMETIC))
def test_scalar_operand_float32(name, scalar_first):
    x = operand(np.float32, low=0.5, high=4) if name == "pow" else operand(np.float32)
    for scalar in [1.5, -3.0, 0.0, np.nan, np.inf]:
        check_scalar_operand(name, ARITHMETIC[name], x, scalar, scalar_first)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("name", ["add", "multiply", "floordiv", "mod", "maximum", "minimum", "less"])
def test_scalar_operand_integers(name, dtype):
    x = operand(dtype)
    for scalar in [3, -7, 0]:   # 0: the kernels give 0, as NumPy, never crash (the ops refuse it first, as TF)
        check_scalar_operand(name, ARITHMETIC[name], x, scalar, scalar_first=False)
    check_scalar_operand(name, ARITHMETIC[name], x, -7, scalar_first=True)


def test_scalar_operand_integer_divide_gives_float64():
    x = operand(np.int32)
    got = kernel("divide")(x, np.array(4, np.int32))
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, x / np.int32(4))


@pytest.mark.parametrize("name", ["multiply", "divide", "maximum"])
def test_scalar_operand_float16(name):
    x = operand(np.float16, low=-10, high=10)
    for scalar in [0.1, np.nan]:
        check_scalar_operand(name, ARITHMETIC[name], x, scalar, scalar_first=False)


def test_scalar_operand_float64_and_bool():
    check_scalar_operand("divide", np.true_divide, operand(np.float64), 3.0, scalar_first=True)
    b = operand(np.bool_)
    for name, fn in [("logical_and", np.logical_and), ("logical_or", np.logical_or)]:
        for scalar in [True, False]:
            check_scalar_operand(name, fn, b, scalar, scalar_first=False)


def test_where_with_one_element_operands():
    cond, x, y = operand(np.bool_), operand(np.float32), operand(np.float32)
    one = np.array(2.5, np.float32)
    np.testing.assert_array_equal(kernel("where")(cond, one, y), np.where(cond, one, y))
    np.testing.assert_array_equal(kernel("where")(cond, x, one), np.where(cond, x, one))
    np.testing.assert_array_equal(kernel("where")(np.array(False), x, y.reshape(1, -1)), y.reshape(1, -1))


def test_scalar_operand_with_a_broadcast_output_shape():
    x = operand(np.float32).reshape(1, N)
    got = kernel("multiply")(x, np.full((1, 1), 0.5, np.float32))
    assert got.shape == (1, N)
    np.testing.assert_array_equal(got, x * np.float32(0.5))


# ----------------------------------------------------------------------------- max / min reductions
REDUCTIONS = [("reduce_max", np.max), ("reduce_min", np.min)]
# cut in two pieces (as for two threads), each is 16 whole blocks and a scalar tail of 19 or 20
ROW = 2 * 16 * loops.reduce.BLOCK + 2 * 19 + 1


def test_cases_are_above_the_numpy_fast_path():
    assert min(N, ROW, 7 * 1303, 3 * 2 * 1367) >= broadcast.SMALL_SIZE == reduce.SMALL_SIZE


def nan_positions(n):
    """Where a single nan is tried: the ends, the middle, block edges, and inside scalar tails."""
    tail = n // 2 // loops.reduce.BLOCK * loops.reduce.BLOCK   # first element after the blocks of the first half
    return sorted({0, 1, loops.reduce.BLOCK - 1, loops.reduce.BLOCK, n // 2 - 1, n // 2, n // 2 + 1, tail, tail + 5,
                   n - 3, n - 1})


@pytest.mark.parametrize("name,fn", REDUCTIONS)
@pytest.mark.parametrize("shape,axis", [((ROW,), (0,)), ((7, 1303), (0, 1)), ((5, ROW), (1,)),
                                        ((3, 2, 1367), (0, 2)), ((ROW, 3), (0,)), ((2, 1303, 3), (1,))],
                         ids=str)
def test_max_min_nan_anywhere(name, fn, shape, axis):
    x = RNG.uniform(-1e3, 1e3, shape).astype(np.float32)
    np.testing.assert_array_equal(kernel(name)(x, axis=axis, keepdims=False), fn(x, axis=axis))
    flat = x.reshape(-1)
    for pos in nan_positions(flat.size):
        y = flat.copy()
        y[pos] = np.nan
        y = y.reshape(shape)
        got = kernel(name)(y, axis=axis, keepdims=True)
        np.testing.assert_array_equal(got, fn(y, axis=axis, keepdims=True), err_msg=f"nan at {pos}")


@pytest.mark.parametrize("name,fn", REDUCTIONS)
@pytest.mark.parametrize("dtype", [np.float64, np.float16, np.int32, np.int64, np.uint8, np.int8])
@pytest.mark.parametrize("shape,axis", [((ROW,), (0,)), ((3, ROW), (1,)), ((ROW, 2), (0,))], ids=str)
def test_max_min_dtypes(name, fn, dtype, shape, axis):
    info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else None
    if info:
        x = RNG.integers(info.min, info.max, shape, endpoint=True).astype(dtype)
    else:
        x = RNG.normal(0, 100, shape).astype(dtype)
    flat = x.reshape(-1)
    flat[-1] = info.max if info else np.inf          # the extreme values sit in the last scalar tail
    flat[flat.size // 2 + 1] = info.min if info else -np.inf
    got = kernel(name)(x, axis=axis, keepdims=False)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, fn(x, axis=axis))


@pytest.mark.parametrize("name,fn", REDUCTIONS)
def test_max_min_all_nan_and_infinities(name, fn):
    for values in ([np.nan], [np.inf, -np.inf], [-np.inf], [np.inf]):
        x = np.resize(np.array(values, np.float32), ROW)
        np.testing.assert_array_equal(kernel(name)(x, axis=(0,), keepdims=False), fn(x))


@pytest.mark.parametrize("name,fn", [("reduce_any", np.any), ("reduce_all", np.all)])
def test_any_all_large(name, fn):
    x = np.full((3, ROW), name == "reduce_all")
    x[1, -1] = not x[1, -1]   # one differing value, in the last row's scalar tail
    for axis in [(0, 1), (1,), (0,)]:
        np.testing.assert_array_equal(kernel(name)(x, axis=axis, keepdims=False), fn(x, axis=axis))


@pytest.mark.parametrize("parts", [1, 2, 3, 7])
def test_rows_kernels_with_any_number_of_parts(parts):
    x = RNG.uniform(-5, 5, (3, 2 * loops.reduce.BLOCK + 7)).astype(np.float32)
    x[1, -2] = np.nan
    x[2, 5] = 9.0
    for largest, fn in [(True, np.max), (False, np.min)]:
        out = np.empty(3, np.float32)
        loops.reduce.max_min_rows(x, parts, largest, out)
        np.testing.assert_array_equal(out, fn(x, axis=1))


# ----------------------------------------------------------------------------- exp family
def wide_range(dtype, n=N):
    """Values of every magnitude and sign for ``dtype``, special values included, shuffled."""
    finfo = np.finfo(dtype)
    mags = np.exp(RNG.uniform(np.log(finfo.tiny) - 5, np.log(finfo.max), n)) * RNG.choice([-1, 1], n)
    x = np.concatenate([mags[: n // 2], RNG.uniform(-30, 30, n - n // 2)])
    RNG.shuffle(x)
    return with_specials(x, [np.nan, np.inf, -np.inf, 0.0, -0.0, 20.0, -20.0]).astype(dtype)


UNARY = {"exp": np.exp, "tanh": np.tanh, "sigmoid": scipy.special.expit}


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_exp_family_large(name, dtype):
    with np.errstate(over="ignore"):   # float16 has a narrower range: inf there
        x = wide_range(np.float32 if dtype == np.float16 else dtype).astype(dtype)
    got = kernel(name)(x)
    with np.errstate(all="ignore"):
        want = UNARY[name](x.astype(np.float64)).astype(dtype)   # rounded once, from float64
    assert got.dtype == dtype
    rtol = {np.float16: 2e-3, np.float32: 2e-6, np.float64: 1e-13}[dtype]
    np.testing.assert_allclose(got, want, rtol=rtol, atol=np.finfo(dtype).tiny)
    if name == "tanh":   # odd: the sign is kept, also for -0.0 and values that round to 0 or +-1
        numbers = ~np.isnan(x)
        assert np.array_equal(np.signbit(got[numbers]), np.signbit(x[numbers]))


# float32 tanh has its own float32 recipe (vecmath.py), within 2 ulp (2.4e-7 relative error) of the
# exact value, 1.93 ulp measured; NumPy's float32 tanh is within 1.4 ulp. Checked more tightly than
# the 2e-6 above, so that losing a term of its polynomial would show (test_vecmath_bound.py: in ulp).
TANH_F32_RTOL = 2.5e-7


def test_tanh_float32_everywhere():
    """Random bit patterns: every exponent, subnormals, nan, +-inf, and -0.0 and friends in the tail."""
    bits = RNG.integers(0, 2**32, 4 * N, dtype=np.uint64).astype(np.uint32)
    x = with_specials(bits.view(np.float32), np.array([-0.0, 0.0, -1e-45, 1e-45, -np.inf, np.nan], np.float32))
    got = kernel("tanh")(x)
    with np.errstate(invalid="ignore"):   # nan bit patterns
        want = np.tanh(x.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=TANH_F32_RTOL, atol=np.finfo(np.float32).tiny)
    numbers = ~np.isnan(x)
    assert np.array_equal(np.signbit(got[numbers]), np.signbit(x[numbers]))   # tanh is odd: -0.0 stays -0.0


def test_tanh_float32_small_and_near_one():
    x = np.concatenate([np.geomspace(1e-37, 1, N), np.linspace(1, 12, N)]).astype(np.float32)
    x = np.concatenate([x, -x])
    got = kernel("tanh")(x)
    np.testing.assert_allclose(got, np.tanh(x.astype(np.float64)), rtol=TANH_F32_RTOL, atol=0)
    assert np.all(got[np.abs(x) >= 9.1] == np.sign(x[np.abs(x) >= 9.1]))   # exactly +-1 once tanh rounds to 1
