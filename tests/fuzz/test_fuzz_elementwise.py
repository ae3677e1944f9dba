"""Elementwise ops against NumPy, on the NumPy path, the numba loops and the natural mix.

The bound for each op is how far it may be from NumPy's result in the same dtype, in ulps:
0 (bit for bit, nan where NumPy has nan) for exact operations, a few for the transcendental
functions, whose numba loops use their own polynomials (kernels/cpu/loops/vecmath.py) or libm
where NumPy uses its own SIMD routines.
"""
import numpy as np
import pytest
import scipy.special
from hypothesis import given, strategies as st

import minieager as me
from minieager.ops import elementwise as ew

from ._util import FLOATS, INTS, arrays, assert_same, broadcast_pair, examples, path, shapes, tensor  # noqa: F401

UNARY = {   # op: (NumPy reference, ulps allowed for float32/64, for float16, needs x > 0 to be real)
    "negative": (np.negative, 0, 0), "abs": (np.abs, 0, 0), "sign": (np.sign, 0, 0),
    "square": (np.square, 0, 0), "sqrt": (np.sqrt, 0, 0), "reciprocal": (np.reciprocal, 0, 0),
    "relu": (lambda x: np.where(x < 0, np.zeros_like(x), x), 0, 0),
    "rsqrt": (lambda x: (1 / np.sqrt(x.astype(np.float64))).astype(x.dtype), 1, 1),
    "exp": (np.exp, 2, 1), "log": (np.log, 4, 1), "log1p": (np.log1p, 4, 1), "expm1": (np.expm1, 4, 1),
    "sin": (np.sin, 4, 1), "cos": (np.cos, 4, 1), "tanh": (np.tanh, 4, 1),
    # in long double (80-bit on x86), where exp(740) does not overflow, so subnormal results are right too
    "sigmoid": (lambda x: (1 / (1 + np.exp(-x.astype(np.longdouble)))).astype(x.dtype), 4, 1),
    "softplus": (lambda x: np.logaddexp(0, x.astype(np.longdouble)).astype(x.dtype), 4, 1),
    "floor": (np.floor, 0, 0), "ceil": (np.ceil, 0, 0), "round": (np.round, 0, 0), "is_inf": (np.isinf, 0, 0),
    "erf": (lambda x: scipy.special.erf(x.astype(np.float64)).astype(x.dtype), 4, 1),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@examples(8)
@given(data=st.data())
def test_unary_float_ops(name, path, data):
    reference, bound, bound16 = UNARY[name]
    dtype = data.draw(st.sampled_from(FLOATS))
    x = data.draw(arrays(data.draw(shapes(path)), dtype))
    if name in ("sin", "cos") and dtype != np.float16:
        x = np.where(np.abs(x) > 1e4, dtype(0.5), x)   # libm and NumPy reduce huge arguments differently
    got = getattr(me, name, None) or getattr(me.math, name)   # me.math.ceil, me.math.erf ...
    got = got(tensor(x, data.draw(st.booleans())))
    with np.errstate(all="ignore"):
        want = np.asarray(reference(x))
    assert_same(got.numpy(), want, bound16 if dtype == np.float16 else bound, f"{name} {dtype.__name__}")


@pytest.mark.parametrize("name", ["negative", "abs", "sign", "square"])
@examples(6)
@given(data=st.data())
def test_unary_integer_ops(name, path, data):
    dtype = data.draw(st.sampled_from(INTS))
    if name in ("negative", "sign") and dtype == np.uint8:
        dtype = np.int32
    x = data.draw(arrays(data.draw(shapes(path)), dtype))
    got = getattr(me, name)(tensor(x, data.draw(st.booleans())))
    with np.errstate(all="ignore"):
        assert_same(got.numpy(), getattr(np, name if name != "abs" else "absolute")(x), 0, name)


BINARY = {   # op: NumPy reference; every one exact except pow (libm) on floats
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "maximum": np.maximum,
    "minimum": np.minimum, "floordiv": np.floor_divide, "mod": np.mod, "pow": np.power,
    "equal": np.equal, "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
    "greater": np.greater, "greater_equal": np.greater_equal,
}


@pytest.mark.parametrize("name", sorted(BINARY) + ["divide", "squared_difference"])
@examples(8)
@given(data=st.data())
def test_binary_ops_broadcasting(name, path, data):
    dtype = data.draw(st.sampled_from(FLOATS + INTS))
    shape_a, shape_b = broadcast_pair(data.draw, data.draw(shapes(path)))
    if name == "pow" and dtype in INTS:   # integers to negative powers are refused (tested in test_fuzz_errors)
        a, b = data.draw(arrays(shape_a, dtype, low=-3, high=3)), data.draw(arrays(shape_b, dtype, low=0, high=40))
    else:
        a, b = data.draw(arrays(shape_a, dtype)), data.draw(arrays(shape_b, dtype))
    strided = data.draw(st.booleans())
    if name in ("floordiv", "mod") and dtype in INTS and not b.all():   # TF refuses; NumPy would give 0
        with pytest.raises(me.errors.InvalidArgumentError, match=rf"^{name}: integer division by zero"):
            getattr(me, name)(tensor(a, strided), tensor(b, not strided))
        return
    got = getattr(me, name)(tensor(a, strided), tensor(b, not strided)).numpy()
    with np.errstate(all="ignore"):
        if name == "divide":
            wide = np.float32 if dtype == np.uint8 else (np.float64 if dtype in INTS else dtype)
            want = np.true_divide(a.astype(wide), b.astype(wide))
        elif name == "squared_difference":
            want = np.square(np.subtract(a, b))
        else:
            want = BINARY[name](a, b)
    assert_same(got, want, 2 if name == "pow" and dtype in FLOATS else 0, f"{name} {np.dtype(dtype).name}")


MASKED = {   # op: (NumPy reference in the dtype, ulps allowed for float32/64, for float16)
    "divide_no_nan": (lambda a, b: np.where(b == 0, a.dtype.type(0), a / b), 0, 0),
    "xlogy": (lambda a, b: np.where(a == 0, a.dtype.type(0), a * np.log(b)), 5, 2),
}


@pytest.mark.parametrize("name", sorted(MASKED))
@examples(8)
@given(data=st.data())
def test_masked_float_ops_broadcasting(name, path, data):
    reference, bound, bound16 = MASKED[name]
    dtype = data.draw(st.sampled_from(FLOATS))
    shape_a, shape_b = broadcast_pair(data.draw, data.draw(shapes(path)))
    a, b = data.draw(arrays(shape_a, dtype)), data.draw(arrays(shape_b, dtype))
    if data.draw(st.booleans()):   # the masked points: zeros in y (divide_no_nan) or x (xlogy)
        zeros = data.draw(arrays(shape_b if name == "divide_no_nan" else shape_a, np.bool_))
        if name == "divide_no_nan":
            b = np.where(zeros, dtype(0), b)
        else:
            a = np.where(zeros, dtype(0), a)
    strided = data.draw(st.booleans())
    got = getattr(me.math, name)(tensor(a, strided), tensor(b, not strided)).numpy()
    with np.errstate(all="ignore"):
        want = reference(a, b)
    assert_same(got, want, bound16 if dtype == np.float16 else bound, f"{name} {np.dtype(dtype).name}")


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
@examples(5)
@given(data=st.data())
def test_logical_ops(name, path, data):
    shape_a, shape_b = broadcast_pair(data.draw, data.draw(shapes(path)))
    a, b = data.draw(arrays(shape_a, np.bool_)), data.draw(arrays(shape_b, np.bool_))
    assert_same(getattr(me, name)(me.constant(a), me.constant(b)).numpy(), getattr(np, name)(a, b), 0, name)
    assert_same(me.logical_not(me.constant(a)).numpy(), ~a, 0, "logical_not")


@examples(10)
@given(data=st.data())
def test_where_cast_and_activation_grads(path, data):
    dtype = data.draw(st.sampled_from(FLOATS))
    shape = data.draw(shapes(path))
    cond, x, y = (data.draw(arrays(s, d)) for s, d in zip(broadcast_pair(data.draw, shape) + [shape],
                                                          [np.bool_, dtype, dtype]))
    assert_same(me.where(me.constant(cond), me.constant(x), me.constant(y)).numpy(), np.where(cond, x, y), 0, "where")
    dy = data.draw(arrays(shape, dtype))
    with np.errstate(all="ignore"):   # the fused gradients in their compute dtype (float32 for float16)
        wide = np.float32 if dtype == np.float16 else dtype
        dyw, yw = dy.astype(wide), y.astype(wide)
        fused = {"relu_grad": np.where(yw > 0, dyw, wide(0)), "tanh_grad": dyw * (1 - yw * yw),
                 "sigmoid_grad": dyw * yw * (1 - yw)}
        for name, want in fused.items():
            got = getattr(ew, name)(me.constant(dy), me.constant(y)).numpy()
            assert_same(got, want.astype(dtype), 1 if name != "relu_grad" else 0, name)
        alpha = data.draw(st.sampled_from([0.0, 0.2, 1.0]))
        want = np.where(yw >= 0, yw, wide(alpha) * yw).astype(dtype)
        assert_same(me.nn.leaky_relu(me.constant(y), alpha).numpy(), want, 0, "leaky_relu")
    target = data.draw(st.sampled_from([np.int32, np.int64, np.uint8, np.float32, np.float64, np.bool_]))
    finite = np.nan_to_num(x, nan=0.0, posinf=0.0, neginf=0.0)
    if np.dtype(target).kind in "iu":
        finite = np.clip(finite, 0 if target == np.uint8 else -1e9, 255 if target == np.uint8 else 1e9)
    assert_same(me.cast(me.constant(finite), target).numpy(), finite.astype(target), 0, "cast")
