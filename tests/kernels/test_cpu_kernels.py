"""CPU kernels against NumPy, SciPy, direct loops and (when installed) PyTorch.

numba compiles each kernel once per signature (then caches it on disk), so the shapes are small
and the dtype sweeps cover the ops where dtypes behave differently.
"""
import itertools
import math

import numpy as np
import pytest
import scipy.special
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minieager.kernels.cpu  # noqa: F401  (registers the kernels)
from minieager.kernels.cpu import broadcast, elementwise, threads
from minieager.kernels.registry import get_kernel

RNG = np.random.default_rng(0)
SPECIAL = np.array([0.0, -0.0, 1e-30, -1e-8, 0.5, -3.0, 20.0, -20.0, 100.0, -100.0, 1e4, -1e4,
                    np.inf, -np.inf, np.nan])


def kernel(name):
    return get_kernel(name, "cpu")


@pytest.fixture
def numba_path(monkeypatch):
    """Send even tiny arrays through the numba loops instead of the NumPy fast path."""
    for module in (broadcast, elementwise):   # elementwise's per-op fast path has its own SMALL_SIZE
        monkeypatch.setattr(module, "SMALL_SIZE", 0)
    monkeypatch.setattr(broadcast, "PARALLEL_SIZE", 0)


def data(shape, dtype, low=-5, high=5):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return RNG.random(shape) < 0.5
    if dtype.kind in "iu":
        return RNG.integers(low, high, shape).astype(dtype)
    return RNG.uniform(low, high, shape).astype(dtype)


# ----------------------------------------------------------------------------- unary
def _softplus(x):
    return np.logaddexp(0, x)


UNARY = {
    "negative": np.negative, "abs": np.abs, "sign": np.sign, "square": np.square, "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x), "reciprocal": lambda x: 1 / x, "exp": np.exp, "log": np.log,
    "log1p": np.log1p, "expm1": np.expm1, "sin": np.sin, "cos": np.cos, "tanh": np.tanh,
    "sigmoid": scipy.special.expit, "softplus": _softplus, "relu": lambda x: np.where(x < 0, 0, x),
}
POSITIVE_ONLY = {"sqrt", "rsqrt", "log"}


def check_unary(name, x):
    got = kernel(name)(x)
    with np.errstate(all="ignore"):
        want = UNARY[name](x.astype(np.float64)).astype(x.dtype)   # rounded once, from float64
    assert got.shape == x.shape and got.dtype == x.dtype
    rtol = {np.float16: 2e-3, np.float32: 2e-6, np.float64: 1e-13}[x.dtype.type]
    np.testing.assert_allclose(got, want, rtol=rtol, atol=np.finfo(x.dtype).tiny)   # subnormals may differ


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_float32(numba_path, name):
    x = np.concatenate([SPECIAL, data(40, np.float64)]).astype(np.float32).reshape(5, 11)
    if name in POSITIVE_ONLY:
        x = np.abs(x)
    check_unary(name, x)


@pytest.mark.parametrize("name", ["exp", "tanh", "sigmoid", "softplus"])
def test_exp_family_float64_and_float16(numba_path, name):
    x = np.concatenate([SPECIAL, np.linspace(-750, 720, 301), np.geomspace(1e-12, 0.2, 50)])
    check_unary(name, x)
    check_unary(name, x[np.abs(x) < 60].astype(np.float16))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("name", ["negative", "abs", "sign", "square"])
def test_unary_integers(numba_path, name, dtype):
    x = data((4, 5), dtype)
    np.testing.assert_array_equal(kernel(name)(x), UNARY[name](x))
    assert kernel(name)(x).dtype == dtype


def test_leaky_relu(numba_path):
    x = data((3, 7), np.float32)
    got = kernel("leaky_relu")(x, alpha=0.1)
    np.testing.assert_allclose(got, np.where(x >= 0, x, np.float32(0.1) * x), rtol=1e-6)
    assert got.dtype == np.float32


@pytest.mark.parametrize("name,fn", [("isnan", np.isnan), ("isfinite", np.isfinite)])
def test_float_predicates(numba_path, name, fn):
    x = SPECIAL.astype(np.float32)
    assert kernel(name)(x).dtype == np.bool_
    np.testing.assert_array_equal(kernel(name)(x), fn(x))


def test_logical_not(numba_path):
    x = data((6,), np.bool_)
    np.testing.assert_array_equal(kernel("logical_not")(x), ~x)


def test_small_and_large_paths_agree():
    x = np.linspace(-30, 30, 2 * broadcast.SMALL_SIZE + 1).astype(np.float32)
    for name in ["tanh", "sigmoid", "softplus", "relu", "exp"]:
        small = np.concatenate([kernel(name)(part) for part in np.array_split(x, 4)])
        np.testing.assert_allclose(small, kernel(name)(x), rtol=2e-6, atol=1e-37)


# ----------------------------------------------------------------------------- binary
ARITHMETIC = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.true_divide,
              "floordiv": np.floor_divide, "mod": np.mod, "pow": np.power, "maximum": np.maximum,
              "minimum": np.minimum}
COMPARISON = {"equal": np.equal, "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
              "greater": np.greater, "greater_equal": np.greater_equal}
LOGICAL = {"logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor}


def check_binary(name, fn, a, b):
    got = kernel(name)(a, b)
    with np.errstate(all="ignore"):
        want = fn(a, b)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.dtype, want.dtype)
    if got.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-6 if got.dtype == np.float32 else 2e-3)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", sorted(ARITHMETIC) + sorted(COMPARISON))
def test_binary_float32(numba_path, name):
    fn = {**ARITHMETIC, **COMPARISON}[name]
    a = np.concatenate([SPECIAL, [2.0, -2.0, 3.0, np.nan, 1.0]]).astype(np.float32)
    b = np.concatenate([[3.0, 2.0, 0.0, 0.5, -1.5], SPECIAL]).astype(np.float32)
    check_binary(name, fn, a, b)
    check_binary(name, fn, data((3, 4), np.float32), np.float32(1.5).reshape(()))  # weak scalar


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("name", ["add", "multiply", "floordiv", "mod", "maximum", "less"])
def test_binary_integers(numba_path, name, dtype):
    fn = {**ARITHMETIC, **COMPARISON}[name]
    a = np.array([7, -7, 7, -7, 0, 5, -5, 3], dtype)
    b = np.array([2, 2, -2, -2, 3, 0, 0, -1], dtype)   # includes division by zero: 0, like NumPy
    check_binary(name, fn, a, b)


def test_integer_divide_gives_float64(numba_path):
    a, b = np.array([1, -7, 6], np.int32), np.array([2, 2, 4], np.int32)
    got = kernel("divide")(a, b)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, a / b)


@pytest.mark.parametrize("name", sorted(LOGICAL))
def test_logical(numba_path, name):
    a, b = np.array([True, True, False, False]), np.array([True, False, True, False])
    check_binary(name, LOGICAL[name], a, b)
    check_binary(name, LOGICAL[name], a.reshape(4, 1), b)


def test_float16_compute_in_float32(numba_path):
    a, b = data((5, 3), np.float16), data((3,), np.float16)
    got = kernel("multiply")(a, b)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, (a.astype(np.float32) * b.astype(np.float32)).astype(np.float16))


BROADCAST_CASES = [((3, 4), (3, 4)), ((3, 4), ()), ((), (3, 4)), ((3, 4), (1,)), ((3, 4), (4,)),
                   ((3, 1), (4,)), ((3, 1), (3, 4)), ((2, 1, 4), (3, 1)), ((1, 3, 1), (2, 1, 4))]


@pytest.mark.parametrize("sa,sb", BROADCAST_CASES)
def test_broadcasting(numba_path, sa, sb):
    a, b = data(sa, np.float32), data(sb, np.float32)
    check_binary("add", np.add, a, b)
    check_binary("greater", np.greater, a, b)


def test_strided_inputs(numba_path):
    a = data((4, 6), np.float32)
    check_binary("subtract", np.subtract, a.T, a[:, ::1].T[::-1])


@settings(max_examples=30, deadline=None)
@given(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=4))
def test_broadcast_shapes_property(shapes):
    broadcast.SMALL_SIZE, saved = 0, broadcast.SMALL_SIZE
    try:
        a, b = (data(s, np.float32) for s in shapes.input_shapes)
        check_binary("subtract", np.subtract, a, b)
    finally:
        broadcast.SMALL_SIZE = saved


@pytest.mark.parametrize("sc,sx,sy", [((3, 4), (3, 4), (3, 4)), ((3, 1), (4,), ()), ((4,), (3, 1), (3, 4))])
def test_where(numba_path, sc, sx, sy):
    c, x, y = data(sc, np.bool_), data(sx, np.float32), data(sy, np.float32)
    got = kernel("where")(c, x, y)
    np.testing.assert_array_equal(got, np.where(c, x, y))
    assert got.dtype == np.float32


def test_kernels_never_write_into_inputs(numba_path):
    a, b = data((5, 5), np.float32), data((5, 5), np.float32)
    a0, b0 = a.copy(), b.copy()
    for name in ["add", "maximum", "multiply"]:
        kernel(name)(a, b)
    kernel("exp")(a)
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)


# ----------------------------------------------------------------------------- reductions
REDUCE = {"reduce_sum": np.sum, "reduce_prod": np.prod, "reduce_max": np.max, "reduce_min": np.min}


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_reduce_sum_any_axes(draw):
    shape = draw.draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=4))
    axes = draw.draw(st.sets(st.integers(0, len(shape) - 1), min_size=1).map(lambda s: tuple(sorted(s))))
    keepdims = draw.draw(st.booleans())
    x = data(shape, np.float32)
    got = kernel("reduce_sum")(x, axis=axes, keepdims=keepdims)
    want = np.sum(x.astype(np.float64), axis=axes, keepdims=keepdims)
    assert got.shape == want.shape and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.float16])
@pytest.mark.parametrize("name", sorted(REDUCE))
@pytest.mark.parametrize("axis", [(0,), (1,), (0, 2), (0, 1, 2)])
def test_reductions(name, dtype, axis):
    x = data((3, 4, 5), dtype, low=-3, high=4)
    if name == "reduce_prod":   # products of 60 numbers: keep them in range
        x = data((3, 4, 5), dtype, *((-1, 2) if np.dtype(dtype).kind == "i" else (0.5, 1.5)))
    got = kernel(name)(x, axis=axis, keepdims=False)
    want = REDUCE[name](x.astype(np.float64), axis=axis).astype(dtype)
    assert got.dtype == dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-3 if dtype == np.float16 else 1e-6)


def test_float32_sum_is_accurate():
    x = np.full(10**6, 0.1, np.float32)
    assert kernel("reduce_sum")(x, axis=(0,), keepdims=False) == np.float32(np.float64(np.float32(0.1)) * 10**6)


def test_reduce_max_nan_and_empty():
    x = np.array([[1.0, np.nan, 3.0], [1.0, 2.0, 3.0]], np.float32)
    np.testing.assert_array_equal(kernel("reduce_max")(x, axis=(1,), keepdims=True), [[np.nan], [3.0]])
    empty = np.zeros((2, 0), np.float32)
    np.testing.assert_array_equal(kernel("reduce_max")(empty, axis=(1,), keepdims=False), [-np.inf, -np.inf])
    np.testing.assert_array_equal(kernel("reduce_sum")(empty, axis=(1,), keepdims=False), [0, 0])


@pytest.mark.parametrize("name,fn", [("reduce_any", np.any), ("reduce_all", np.all)])
@pytest.mark.parametrize("axis", [(0,), (1,), (0, 1)])
def test_any_all(name, fn, axis):
    x = data((4, 6), np.bool_)
    x[0] = True
    got = kernel(name)(x, axis=axis, keepdims=False)
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(got, fn(x, axis=axis))


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_argmax_argmin(dtype, axis):
    x = data((3, 4, 5), dtype, low=-2, high=3)   # many ties: the first index must win
    for name, fn in [("argmax", np.argmax), ("argmin", np.argmin)]:
        got = kernel(name)(x, axis=axis)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, fn(x, axis=axis))


def test_argmax_nan():
    x = np.array([[1.0, np.nan, 5.0, np.nan]], np.float32)
    assert kernel("argmax")(x, axis=1)[0] == np.argmax(x[0]) == 1


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
@pytest.mark.parametrize("axis,exclusive,reverse", list(itertools.product([0, 1], [False, True], [False, True])))
def test_cumsum(dtype, axis, exclusive, reverse):
    x = data((4, 5), dtype)
    want = np.flip(x, axis) if reverse else x
    want = np.cumsum(want, axis=axis)
    if exclusive:
        want = want - (np.flip(x, axis) if reverse else x)
    if reverse:
        want = np.flip(want, axis)
    got = kernel("cumsum")(x, axis=axis, exclusive=exclusive, reverse=reverse)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-5)


def _recurrence_reference(a, b, axis, transpose):
    a, b = np.moveaxis(a, axis, 0), np.moveaxis(b, axis, 0)
    h = np.zeros_like(b)
    order = range(len(b) - 1, -1, -1) if transpose else range(len(b))
    for step, r in enumerate(order):
        h[r] = b[r] if step == 0 else b[r] + (a[r + 1] * h[r + 1] if transpose else a[r] * h[r - 1])
    return np.moveaxis(h, 0, axis)


@pytest.mark.parametrize("shape", [(4, 5), (1, 3), (0, 2), (3, 0)])
@pytest.mark.parametrize("axis,transpose", list(itertools.product([0, 1], [False, True])))
def test_linear_recurrence(shape, axis, transpose):
    # h[r] = b[r] + a[r] * h[r-1] (cumprod's loop), or from the end with a[r+1]; a[0] is never read.
    a, b = data(shape, np.float64), data(shape, np.float64)
    if a.size:
        np.moveaxis(a, axis, 0)[0] = np.inf
    got = kernel("linear_recurrence")(a, b, axis=axis, transpose=transpose)
    np.testing.assert_allclose(got, _recurrence_reference(a, b, axis, transpose), rtol=1e-12)


# ----------------------------------------------------------------------------- matmul
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.float16])
@pytest.mark.parametrize("ta,tb", list(itertools.product([False, True], repeat=2)))
def test_matmul(dtype, ta, tb):
    for sa, sb in [((3, 4), (4, 5)), ((2, 3, 4), (4, 5)), ((2, 1, 3, 4), (3, 4, 2))]:
        a, b = data(sa, dtype), data(sb, dtype)
        a_in = np.swapaxes(a, -1, -2).copy() if ta else a
        b_in = np.swapaxes(b, -1, -2).copy() if tb else b
        got = kernel("matmul")(a_in, b_in, transpose_a=ta, transpose_b=tb)
        want = np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(dtype)
        assert got.dtype == dtype
        np.testing.assert_allclose(got, want, rtol=2e-3 if dtype == np.float16 else 1e-5, atol=1e-4)


# ----------------------------------------------------------------------------- convolution
def same_or_valid(size, k, stride, padding):
    if padding == "VALID":
        return (size - k) // stride + 1, 0
    out = math.ceil(size / stride)
    return out, max((out - 1) * stride + k - size, 0) // 2


def conv_reference(x, w, strides, padding):
    """A direct loop over output positions (TF semantics), in float64."""
    n, h, wd, c = x.shape
    kh, kw, _, f = w.shape
    oh, pt = same_or_valid(h, kh, strides[0], padding)
    ow, pl = same_or_valid(wd, kw, strides[1], padding)
    xp = np.zeros((n, h + 2 * kh, wd + 2 * kw, c))
    xp[:, pt:pt + h, pl:pl + wd] = x
    out = np.zeros((n, oh, ow, f))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, i * strides[0]:i * strides[0] + kh, j * strides[1]:j * strides[1] + kw]
            out[:, i, j] = np.einsum("nhwc,hwcf->nf", patch, w)
    return out


CONV_CASES = [((2, 5, 5, 2), (3, 3, 2, 3), (1, 1), "VALID"), ((2, 5, 5, 2), (3, 3, 2, 3), (1, 1), "SAME"),
              ((2, 7, 6, 2), (3, 2, 2, 4), (2, 2), "SAME"), ((1, 7, 7, 3), (3, 3, 3, 2), (2, 1), "VALID"),
              ((2, 4, 4, 1), (4, 4, 1, 2), (2, 2), "SAME")]


@pytest.mark.parametrize("xs,ws,strides,padding", CONV_CASES)
def test_conv2d_and_its_gradients(xs, ws, strides, padding):
    x, w = data(xs, np.float32), data(ws, np.float32)
    y = kernel("conv2d")(x, w, strides=strides, padding=padding)
    np.testing.assert_allclose(y, conv_reference(x, w, strides, padding), rtol=1e-5, atol=1e-4)
    # conv2d is linear in x and in w, so its gradients are its adjoints: <conv(x, w), dy> must
    # equal <x, backprop_input(dy)> and <w, backprop_filter(dy)> (exactly, up to rounding).
    dy = data(y.shape, np.float32)
    dx = kernel("conv2d_backprop_input")(dy, w, input_shape=xs, strides=strides, padding=padding)
    dw = kernel("conv2d_backprop_filter")(x, dy, filter_shape=ws, strides=strides, padding=padding)
    assert dx.shape == xs and dw.shape == ws
    inner = np.sum(y.astype(np.float64) * dy)
    # float32 rounding is relative to the size of the terms, not of their sum (which can be near 0)
    scale = np.sum(np.abs(y.astype(np.float64) * dy))
    np.testing.assert_allclose(np.sum(x.astype(np.float64) * dx), inner, rtol=0, atol=1e-5 * scale)
    np.testing.assert_allclose(np.sum(w.astype(np.float64) * dw), inner, rtol=0, atol=1e-5 * scale)
    # and entrywise: dx[i] = <conv(e_i, w), dy>
    for idx in [(0, 0, 0, 0), (xs[0] - 1, xs[1] - 1, xs[2] - 1, xs[3] - 1), (0, xs[1] // 2, 1, 0)]:
        e = np.zeros(xs)
        e[idx] = 1
        np.testing.assert_allclose(dx[idx], np.sum(conv_reference(e, w, strides, padding) * dy), atol=1e-4)


@pytest.mark.parametrize("xs,ws,strides,padding", CONV_CASES[:3])
def test_conv2d_against_torch(xs, ws, strides, padding):
    torch = pytest.importorskip("torch")
    x, w = data(xs, np.float64), data(ws, np.float64)
    xt = torch.tensor(x.transpose(0, 3, 1, 2), requires_grad=True)
    wt = torch.tensor(w.transpose(3, 2, 0, 1), requires_grad=True)
    oh, pt = same_or_valid(xs[1], ws[0], strides[0], padding)
    ow, pl = same_or_valid(xs[2], ws[1], strides[1], padding)
    xpad = torch.nn.functional.pad(xt, (pl, ws[1] + pl, pt, ws[0] + pt))   # extra padding is never read
    yt = torch.nn.functional.conv2d(xpad, wt, stride=strides)[:, :, :oh, :ow]
    y = kernel("conv2d")(x, w, strides=strides, padding=padding)
    np.testing.assert_allclose(y, yt.detach().numpy().transpose(0, 2, 3, 1), rtol=1e-10, atol=1e-10)
    dy = data(y.shape, np.float64)
    gx, gw = torch.autograd.grad(yt, (xt, wt), torch.tensor(dy.transpose(0, 3, 1, 2)))
    dx = kernel("conv2d_backprop_input")(dy, w, input_shape=xs, strides=strides, padding=padding)
    dw = kernel("conv2d_backprop_filter")(x, dy, filter_shape=ws, strides=strides, padding=padding)
    np.testing.assert_allclose(dx, gx.numpy().transpose(0, 2, 3, 1), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(dw, gw.numpy().transpose(2, 3, 1, 0), rtol=1e-10, atol=1e-10)


# ----------------------------------------------------------------------------- pooling
def pool_windows(shape, ksize, strides, padding):
    """(i, j, rows slice, cols slice) of every window, clipped to the input."""
    oh, pt = same_or_valid(shape[1], ksize[0], strides[0], padding)
    ow, pl = same_or_valid(shape[2], ksize[1], strides[1], padding)
    for i, j in itertools.product(range(oh), range(ow)):
        y0, x0 = i * strides[0] - pt, j * strides[1] - pl
        yield i, j, slice(max(y0, 0), min(y0 + ksize[0], shape[1])), slice(max(x0, 0), min(x0 + ksize[1], shape[2]))


POOL_CASES = [((2, 5, 5, 3), (2, 2), (2, 2), "VALID"), ((2, 5, 5, 3), (2, 2), (2, 2), "SAME"),
              ((1, 6, 7, 2), (3, 3), (1, 1), "SAME"), ((1, 6, 7, 2), (3, 2), (2, 1), "VALID")]


@pytest.mark.parametrize("xs,ksize,strides,padding", POOL_CASES)
def test_max_pool_and_grad(xs, ksize, strides, padding):
    x = data(xs, np.float32, low=-2, high=2).round()   # ties: the first maximum gets the gradient
    y = kernel("max_pool2d")(x, ksize=ksize, strides=strides, padding=padding)
    dy = data(y.shape, np.float32)
    want_y, want_dx = np.zeros(y.shape, np.float32), np.zeros(xs, np.float32)
    for i, j, rows, cols in pool_windows(xs, ksize, strides, padding):
        window = x[:, rows, cols]
        want_y[:, i, j] = window.max(axis=(1, 2))
        for n, c in itertools.product(range(xs[0]), range(xs[3])):
            r, q = np.unravel_index(np.argmax(window[n, :, :, c]), window.shape[1:3])
            want_dx[n, rows.start + r, cols.start + q, c] += dy[n, i, j, c]
    np.testing.assert_array_equal(y, want_y)
    dx = kernel("max_pool2d_grad")(x, dy, ksize=ksize, strides=strides, padding=padding)
    np.testing.assert_allclose(dx, want_dx, rtol=1e-6)


@pytest.mark.parametrize("xs,ksize,strides,padding", POOL_CASES)
def test_avg_pool_and_grad(xs, ksize, strides, padding):
    x = data(xs, np.float32)
    y = kernel("avg_pool2d")(x, ksize=ksize, strides=strides, padding=padding)
    want = np.zeros(y.shape, np.float32)
    for i, j, rows, cols in pool_windows(xs, ksize, strides, padding):
        want[:, i, j] = x[:, rows, cols].mean(axis=(1, 2))   # SAME: the real elements only
    np.testing.assert_allclose(y, want, rtol=1e-6, atol=1e-6)
    dy = data(y.shape, np.float32)
    dx = kernel("avg_pool2d_grad")(dy, input_shape=xs, ksize=ksize, strides=strides, padding=padding)
    np.testing.assert_allclose(np.sum(dx.astype(np.float64) * x), np.sum(y.astype(np.float64) * dy), rtol=1e-5)


# ----------------------------------------------------------------------------- softmax family
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_softmax_and_log_softmax(dtype, axis):
    x = data((3, 4, 5), dtype) * 10
    x[0, 0, 0] = 1e4
    log_want = x - scipy.special.logsumexp(x.astype(np.float64), axis=axis, keepdims=True)
    rtol, atol = (1e-5, 1e-5) if dtype == np.float32 else (1e-12, 1e-12)
    np.testing.assert_allclose(kernel("log_softmax")(x, axis=axis), log_want, rtol=rtol, atol=atol)
    np.testing.assert_allclose(kernel("softmax")(x, axis=axis), np.exp(log_want), rtol=rtol, atol=1e-30)


def test_softmax_cross_entropy():
    logits = data((6, 5), np.float32) * 3
    logits[0] = [1e4, -1e4, 0, 3e4, 2]   # no inf or nan for huge logits
    labels = scipy.special.softmax(data((6, 5), np.float64), axis=1).astype(np.float32)
    loss, backprop = kernel("softmax_cross_entropy")(logits, labels)
    log_p = scipy.special.log_softmax(logits.astype(np.float64), axis=1)
    assert loss.shape == (6,) and backprop.shape == (6, 5) and loss.dtype == np.float32
    np.testing.assert_allclose(loss, -np.sum(labels * log_p, axis=1), rtol=1e-5)
    np.testing.assert_allclose(backprop, np.exp(log_p) - labels, atol=1e-6)


def test_sparse_softmax_cross_entropy():
    logits = data((6, 5), np.float64) * 3
    logits[1] = [1e4, -1e4, 0, 3e4, 2]
    labels = np.array([0, 3, 4, 1, 2, 0], np.int32)
    loss, backprop = kernel("sparse_softmax_cross_entropy")(logits, labels)
    log_p = scipy.special.log_softmax(logits, axis=1)
    # a loss near 0 is a difference of two numbers near the max logit: its error is absolute
    np.testing.assert_allclose(loss, -log_p[np.arange(6), labels], rtol=1e-12, atol=1e-12 * np.abs(logits).max())
    np.testing.assert_allclose(backprop, np.exp(log_p) - np.eye(5)[labels], atol=1e-12)


def test_ops_from_parallel_size_on_agree_with_numpy():
    """At PARALLEL_SIZE elements and above, the numba loops run, on all threads (no fixture)."""
    n = threads.PARALLEL_SIZE + 13
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    np.testing.assert_array_equal(kernel("add")(a, b), a + b)
    np.testing.assert_allclose(kernel("tanh")(a), np.tanh(a), rtol=2e-6, atol=1e-7)
    assert kernel("reduce_max")(a, (0,), False) == a.max()
    np.testing.assert_allclose(kernel("reduce_sum")(a, (0,), False), a.astype(np.float64).sum(), rtol=1e-6)


def test_broadcasts_from_parallel_size_on_agree_with_numpy():
    """A bias row on a large array: NumPy broadcasts it for one-ufunc ops (add), the numba loop
    gets a materialised copy for the others (where)."""
    rng = np.random.default_rng(6)
    rows = threads.PARALLEL_SIZE // 64 + 3
    x, bias = rng.standard_normal((rows, 64)).astype(np.float32), rng.standard_normal(64).astype(np.float32)
    np.testing.assert_array_equal(kernel("add")(x, bias), x + bias)
    cond = x > 0
    np.testing.assert_array_equal(kernel("where")(cond, x, bias), np.where(cond, x, bias))
