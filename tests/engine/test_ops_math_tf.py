"""TF's math and nn ops added for parity (floor, erf, divide_no_nan, reduce_variance, gelu, moments ...):
values against NumPy and TF's documented examples in float32 and float64, TF's edge cases, gradients
where a naive formula would give nan, and errors that name the op. Each test names the TF behaviour.
Finite-difference checks of the gradients are in tests/autodiff/test_gradcheck_ops.py; the elementwise
ops are compared with NumPy on every kernel path in tests/fuzz."""
import math

import numpy as np
import pytest
import scipy.special
from hypothesis import given, settings, strategies as st

import minieager as me
from minieager.errors import DTypeError, InvalidArgumentError

FLOATS = [np.float32, np.float64]
RNG = np.random.default_rng(2024)
SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def gradients(f, *xs):
    """The tape's gradients of sum(f(*xs)) with respect to each x, as NumPy arrays (None stays None)."""
    xs = [me.constant(x) for x in xs]
    with me.GradientTape() as tape:
        tape.watch(xs)
        y = me.reduce_sum(f(*xs))
    return [None if g is None else g.numpy() for g in tape.gradient(y, xs)]


def ulp_close(got, want, dtype, ulps=4):
    """Equal within a few units in the last place of ``dtype`` (nan where nan)."""
    want = np.asarray(want, np.float64)
    np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=ulps * np.finfo(dtype).eps, atol=0)


# ---- floor, ceil, round ------------------------------------------------------------------------------
EDGES = [-2.5, -1.5, -0.5, -0.0, 0.0, 0.5, 1.5, 2.5, 3.5, 2.4999, -2.6, 1e20, np.inf, -np.inf, np.nan]


@pytest.mark.parametrize("dtype", FLOATS + [np.float16])
def test_floor_ceil_round_match_numpy_with_round_half_to_even(dtype):
    with np.errstate(over="ignore"):
        x = np.array(EDGES, dtype)      # 1e20 is inf in float16
    for fn, reference in [(me.floor, np.floor), (me.math.floor, np.floor), (me.math.ceil, np.ceil),
                          (me.round, np.round), (me.math.round, np.round)]:
        got = fn(x)
        assert got.dtype == me.as_dtype(dtype)
        np.testing.assert_array_equal(got.numpy(), reference(x))
    # TF: tf.round rounds half to even (banker's rounding), so 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> -0.
    halves = me.round(me.constant([0.5, 1.5, 2.5, -0.5, -1.5], dtype)).numpy()
    np.testing.assert_array_equal(halves, [0.0, 2.0, 2.0, -0.0, -2.0])


def test_rounding_a_large_tensor_and_a_scalar():
    x = RNG.standard_normal(20000) * 10
    np.testing.assert_array_equal(me.math.ceil(x).numpy(), np.ceil(x))
    assert me.round(me.constant(2.5)).numpy() == 2.0 and me.floor(me.constant(-0.5)).shape == ()


def test_round_returns_integer_tensors_unchanged_and_floor_ceil_refuse_them():
    # TF: tf.math.round(int tensor) returns it as it is; Floor and Ceil take floats only.
    ints = me.constant([3, -2, 7])
    assert me.round(ints) is ints
    for fn, name in [(me.floor, "floor"), (me.math.ceil, "ceil")]:
        with pytest.raises(DTypeError, match=rf"^{name} needs a floating-point tensor, got int32 with shape \(3,\)"):
            fn(ints)
    with pytest.raises(DTypeError, match="round needs a floating-point tensor, got bool"):
        me.round(me.constant([True]))


def test_rounding_has_no_gradient_as_in_tf():
    # TF registers no gradient for Floor, Ceil and Round: tape.gradient gives None, and they add
    # nothing to the gradient of an expression that also uses x directly.
    x = me.constant([0.3, 1.7])
    with me.GradientTape(persistent=True) as tape:
        tape.watch(x)
        rounded = [me.floor(x), me.math.ceil(x), me.round(x)]
        mixed = x * 3.0 + me.floor(x) * x
    for y in rounded:
        assert tape.gradient(y, x) is None
    np.testing.assert_array_equal(tape.gradient(mixed, x).numpy(), [3.0, 4.0])   # 3 + floor(x)
    assert me.floor.op.rule == ["d(floor(x))/dx: no gradient"]


# ---- erf and is_inf ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("size", [7, 20000], ids=["numpy", "loop"])
def test_erf_matches_scipy(dtype, size):
    x = (RNG.standard_normal(size) * 2).astype(dtype)
    x[:7] = [0.0, -0.0, 1e-30, 6.0, -np.inf, np.inf, np.nan]
    got = me.math.erf(x).numpy()
    assert got.dtype == dtype
    ulp_close(got, scipy.special.erf(x.astype(np.float64)), dtype, ulps=2)
    np.testing.assert_array_equal(got[[0, 1, 3, 4, 5, 6]], [0.0, -0.0, 1.0, -1.0, 1.0, np.nan])
    np.testing.assert_array_equal(me.math.erf(-x).numpy(), -got)   # odd


def test_erf_gradient_is_the_normal_density_times_two_over_sqrt_pi():
    x = np.array([-2.0, -0.5, 0.0, 0.7, 3.0, 30.0])
    (dx,) = gradients(me.math.erf, x)
    np.testing.assert_allclose(dx, 2 / np.sqrt(np.pi) * np.exp(-x ** 2), rtol=1e-14)
    with pytest.raises(DTypeError, match="erf needs a floating-point tensor, got int32"):
        me.math.erf(me.constant([1]))


@pytest.mark.parametrize("dtype", FLOATS + [np.float16])
def test_is_inf(dtype):
    x = np.array([1.0, np.inf, -np.inf, np.nan, 0.0, -65504.0], dtype)
    got = me.math.is_inf(x)
    assert got.dtype == me.bool
    np.testing.assert_array_equal(got.numpy(), [False, True, True, False, False, False])
    with pytest.raises(DTypeError, match="is_inf needs a floating-point tensor, got int64"):
        me.math.is_inf(me.constant([1], me.int64))


# ---- divide_no_nan and xlogy ------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
def test_divide_no_nan_is_zero_where_y_is_zero_even_for_nan_and_inf(dtype):
    # TF: "Computes a safe divide which returns 0 if y (denominator) is zero", whatever x is.
    x = np.array([1.0, np.nan, np.inf, 0.0, 3.0, -4.0, np.nan], dtype)
    y = np.array([0.0, 0.0, -0.0, 0.0, 2.0, 0.5, 1.0], dtype)
    got = me.math.divide_no_nan(x, y)
    assert got.dtype == me.as_dtype(dtype)
    np.testing.assert_array_equal(got.numpy(), [0.0, 0.0, 0.0, 0.0, 1.5, -8.0, np.nan])
    np.testing.assert_array_equal(me.math.divide_no_nan(me.constant(x), 0.0).numpy(), np.zeros(7))


def test_divide_no_nan_gradients_are_zero_not_nan_where_y_is_zero():
    x = np.array([1.0, np.nan, np.inf, 3.0])
    y = np.array([0.0, 0.0, 0.0, 2.0])
    dx, dy = gradients(me.math.divide_no_nan, x, y)
    np.testing.assert_array_equal(dx, [0.0, 0.0, 0.0, 0.5])        # TF: div_no_nan(dz, y)
    np.testing.assert_array_equal(dy, [0.0, 0.0, 0.0, -0.75])      # TF: dz * div_no_nan(-x / y, y)
    # A zero scalar y broadcast over x: its gradient is a sum over x, still 0.
    dx, dy = gradients(me.math.divide_no_nan, np.array([1.0, np.inf]), np.float64(0.0))
    np.testing.assert_array_equal(dx, [0.0, 0.0])
    assert dy == 0.0


@pytest.mark.parametrize("dtype", FLOATS)
def test_xlogy_is_zero_where_x_is_zero(dtype):
    # TF: "Returns 0 if x == 0, and x * log(y) otherwise", even where log(y) is -inf or nan.
    x = np.array([0.0, 0.0, 0.0, -0.0, 2.0, 1.0, 1.0, 0.5], dtype)
    y = np.array([0.0, np.nan, np.inf, -1.0, 3.0, 0.0, -1.0, 4.0], dtype)
    got = me.math.xlogy(x, y)
    assert got.dtype == me.as_dtype(dtype)
    want = [0.0, 0.0, 0.0, 0.0, 2 * np.log(3.0), -np.inf, np.nan, 0.5 * np.log(4.0)]
    ulp_close(got.numpy(), np.array(want), dtype, ulps=2)


def test_xlogy_gradients_are_zero_not_nan_where_x_is_zero():
    x = np.array([0.0, 0.0, 0.0, 2.0])
    y = np.array([0.0, np.nan, 5.0, 4.0])
    dx, dy = gradients(me.math.xlogy, x, y)
    # TF's XlogyGrad: d/dx = xlogy(x != 0, y) (0 where x == 0, not log(y)); d/dy = xdivy(x, y).
    np.testing.assert_array_equal(dx, [0.0, 0.0, 0.0, np.log(4.0)])
    np.testing.assert_array_equal(dy, [0.0, 0.0, 0.0, 0.5])


@pytest.mark.parametrize("fn, name", [(me.math.divide_no_nan, "divide_no_nan"), (me.math.xlogy, "xlogy")])
def test_divide_no_nan_and_xlogy_errors(fn, name):
    with pytest.raises(DTypeError, match=rf"^{name} needs a floating-point tensor, got int32"):
        fn(me.constant([1, 2]), me.constant([1, 0]))
    with pytest.raises(InvalidArgumentError, match=rf"^{name}: shapes \(2,\) and \(3,\) are incompatible"):
        fn(me.ones(2), me.ones(3))
    with pytest.raises(InvalidArgumentError, match=rf"^{name}: the first argument is a float32 tensor but the second is float64"):
        fn(me.ones(2), me.ones(2, me.float64))


_finite = st.floats(-1e6, 1e6, width=32) | st.sampled_from([0.0, -0.0, np.inf, -np.inf, np.nan])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_finite, _finite), min_size=1, max_size=20))
def test_divide_no_nan_and_xlogy_follow_their_definitions(pairs):
    x, y = (np.array(v, np.float32) for v in zip(*pairs))
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(me.math.divide_no_nan(x, y).numpy(), np.where(y == 0, 0, x / y))
        want = np.where(x == 0, np.float32(0), x * np.log(y))
    got = me.math.xlogy(x, y).numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=4e-7)


# ---- add_n and is_tensor ----------------------------------------------------------------------------
def test_add_n_sums_a_list_of_one_shape_and_dtype():
    # TF: tf.math.add_n([a, b, a]) == a + b + a; the gradient is dy for each input.
    a, b = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[5.0, 0.0], [1.0, 1.0]])
    np.testing.assert_array_equal(me.add_n([a, me.constant(b), a]).numpy(), a + b + a)
    assert me.math.add_n is me.add_n
    assert me.add_n([me.constant([1, 2], me.int64)] * 2).dtype == me.int64
    single = me.constant([1.0])
    assert me.add_n([single]) is single
    da, db = gradients(lambda a, b: me.add_n([a, b, a]), a, b)
    np.testing.assert_array_equal(da, np.full((2, 2), 2.0))
    np.testing.assert_array_equal(db, np.ones((2, 2)))


def test_add_n_errors():
    with pytest.raises(InvalidArgumentError, match=r"^add_n: inputs must be a non-empty list of tensors, got \[\]"):
        me.add_n([])
    with pytest.raises(InvalidArgumentError, match="add_n: inputs must be a non-empty list"):
        me.add_n(me.ones(3))
    with pytest.raises(InvalidArgumentError, match=r"add_n: inputs must all have the same shape .*\(3,\), \(1,\)"):
        me.add_n([me.ones(3), me.ones(1)])
    with pytest.raises(InvalidArgumentError, match="add_n: the first argument is a float32 tensor but the second is int32"):
        me.add_n([me.ones(2), me.constant([1, 2])])
    with pytest.raises(DTypeError, match="add_n: bool tensors are not numbers"):
        me.add_n([me.constant([True])])


def test_is_tensor():
    # TF: tf.is_tensor is True for tensors and variables, False for what ops would convert.
    assert me.is_tensor(me.constant(1.0)) and me.is_tensor(me.Variable([1.0]))
    assert not any(me.is_tensor(v) for v in (np.ones(2), [1.0], 1.0, None))


# ---- count_nonzero and the statistics reductions ------------------------------------------------------
def test_count_nonzero_as_in_tf():
    # TF's docstring: x = [[0, 1, 0], [1, 1, 0]] has 3 non-zeros; [1, 2, 0] per column, [1, 2] per row.
    x = me.constant([[0, 1, 0], [1, 1, 0]])
    total = me.math.count_nonzero(x)
    assert total.dtype == me.int64 and total.numpy() == 3
    np.testing.assert_array_equal(me.math.count_nonzero(x, axis=0).numpy(), [1, 2, 0])
    np.testing.assert_array_equal(me.math.count_nonzero(x, axis=1, keepdims=True).numpy(), [[1], [2]])
    np.testing.assert_array_equal(me.math.count_nonzero(x, axis=[0, 1]).numpy(), 3)
    assert me.math.count_nonzero(x, dtype=me.int32).dtype == me.int32
    # nan is not zero, -0.0 is; bools count their Trues.
    assert me.math.count_nonzero(me.constant([0.0, -0.0, np.nan, 1e-30])).numpy() == 2
    assert me.math.count_nonzero(me.constant([True, False, True])).numpy() == 2
    with pytest.raises(InvalidArgumentError, match=r"^count_nonzero: axis 2 is out of range for a tensor of rank 2"):
        me.math.count_nonzero(x, axis=2)


def test_reduce_variance_and_std_as_in_tf():
    # TF's docstring: x = [[1., 2.], [3., 4.]]: variance 1.25, [1., 1.] per column, [0.25, 0.25] per row.
    x = me.constant([[1.0, 2.0], [3.0, 4.0]])
    assert me.math.reduce_variance(x).numpy() == 1.25
    np.testing.assert_array_equal(me.math.reduce_variance(x, axis=0).numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(me.math.reduce_variance(x, axis=1).numpy(), [0.25, 0.25])
    np.testing.assert_allclose(me.math.reduce_std(x).numpy(), 1.1180339887498949, rtol=1e-7)
    np.testing.assert_array_equal(me.math.reduce_std(x, axis=1, keepdims=True).numpy(), [[0.5], [0.5]])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)], ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_variance_std_and_euclidean_norm_match_numpy(dtype, axis, keepdims):
    x = (RNG.standard_normal((3, 4, 5)) * 3 + 1).astype(dtype)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    for fn, reference in [(me.math.reduce_variance, np.var), (me.math.reduce_std, np.std),
                          (me.math.reduce_euclidean_norm,
                           lambda a, axis, keepdims: np.sqrt(np.sum(a * a, axis=axis, keepdims=keepdims)))]:
        got = fn(x, axis=axis, keepdims=keepdims)
        assert got.dtype == me.as_dtype(dtype)
        np.testing.assert_allclose(got.numpy(), reference(x.astype(np.float64), axis=axis, keepdims=keepdims),
                                   rtol=rtol)


def test_statistics_reductions_errors():
    for fn, name in [(me.math.reduce_variance, "reduce_variance"), (me.math.reduce_std, "reduce_std")]:
        # TF: "Input must be either real or complex" for integer tensors.
        with pytest.raises(DTypeError, match=rf"^{name} needs a floating-point tensor, got int32"):
            fn(me.constant([1, 2]))
        with pytest.raises(InvalidArgumentError, match=rf"^{name}: axis 1 is out of range for a tensor of rank 1"):
            fn(me.ones(3), axis=1)
    with pytest.raises(DTypeError, match="^reduce_euclidean_norm: bool tensors are not numbers"):
        me.math.reduce_euclidean_norm(me.constant([True]))


def test_reduce_euclidean_norm_as_in_tf():
    # TF's docstring: of int32 [[1, 2, 3], [1, 1, 1]] it is 4 (sqrt(17) truncated, in int32); of the
    # same floats sqrt(17) = 4.1231055; per column [1.4142135, 2.236068, 3.1622777].
    ints = me.constant([[1, 2, 3], [1, 1, 1]])
    norm = me.math.reduce_euclidean_norm(ints)
    assert norm.dtype == me.int32 and norm.numpy() == 4
    np.testing.assert_array_equal(me.math.reduce_euclidean_norm(ints, axis=0).numpy(), [1, 2, 3])
    floats = me.cast(ints, me.float32)
    np.testing.assert_allclose(me.math.reduce_euclidean_norm(floats).numpy(), 4.1231055, rtol=1e-7)
    np.testing.assert_allclose(me.math.reduce_euclidean_norm(floats, axis=0).numpy(),
                               [1.4142135, 2.236068, 3.1622777], rtol=1e-7)
    # float16 is computed in float32: 300^2 would overflow float16 (max 65504), the norm does not.
    half = me.math.reduce_euclidean_norm(me.constant([300.0, 400.0], me.float16))
    assert half.dtype == me.float16 and half.numpy() == 500.0


# ---- activations -----------------------------------------------------------------------------------------
GRID = np.array([-1000.0, -20.0, -3.0, -1.0, -1e-3, 0.0, 1e-3, 1.0, 3.0, 6.0, 7.5, 20.0, 1000.0])


def _gelu(x):
    return 0.5 * x * (1 + scipy.special.erf(x / np.sqrt(2)))


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


ACTIVATIONS = {   # name: (function, NumPy reference in float64)
    "relu6": (me.nn.relu6, lambda x: np.minimum(np.maximum(x, 0), 6)),
    "elu": (me.nn.elu, lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0)))),
    "selu": (me.nn.selu, lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(np.minimum(x, 0)))),
    "gelu": (me.nn.gelu, _gelu),
    "gelu_approximate": (lambda x: me.nn.gelu(x, approximate=True), _gelu_tanh),
    "silu": (me.nn.silu, lambda x: x * scipy.special.expit(x)),
    "swish_beta": (lambda x: me.nn.swish(x, beta=2.0), lambda x: x * scipy.special.expit(2 * x)),
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activations_match_their_formulas(name, dtype):
    fn, reference = ACTIVATIONS[name]
    x = GRID.astype(dtype)
    got = fn(x)
    assert got.dtype == me.as_dtype(dtype)
    with np.errstate(over="ignore"):
        want = reference(GRID)
    # atol: gelu's 1 + erf(x / sqrt(2)) and 1 + tanh(...) cancel for negative x (TF's formulas do too)
    np.testing.assert_allclose(got.numpy(), want, rtol=8 * np.finfo(dtype).eps, atol=4 * np.finfo(dtype).eps)
    assert np.isnan(fn(np.array([np.nan], dtype)).numpy()).all()


def test_activations_of_tfs_docstrings():
    x = me.constant([-3.0, -1.0, 0.0, 1.0, 3.0])
    # atol: at -3, TF's float32 values (and ours) lose digits to the cancellation in 1 + erf(x / sqrt(2))
    # and 1 + tanh(...); the exact values are -0.0040496941 and -0.0036373921.
    np.testing.assert_allclose(me.nn.gelu(x).numpy(), [-0.00404951, -0.15865529, 0.0, 0.8413447, 2.9959507],
                               rtol=1e-6, atol=2e-7)
    np.testing.assert_allclose(me.nn.gelu(x, approximate=True).numpy(),
                               [-0.00363752, -0.15880796, 0.0, 0.841192, 2.9963627], rtol=1e-6, atol=2e-7)
    np.testing.assert_array_equal(me.nn.relu6(me.constant([-3.0, -1.0, 0.0, 6.0, 10.0])).numpy(), [0, 0, 0, 6, 6])
    np.testing.assert_allclose(me.nn.elu(me.constant([1.0, 0.0, -1000.0])).numpy(), [1.0, 0.0, -1.0])
    assert me.nn.swish is me.nn.silu


def test_activation_gradients_at_kinks_and_in_the_tails_are_finite_as_in_tf():
    x = np.array([-1000.0, -1.0, 0.0, 3.0, 6.0, 7.0, 1000.0])
    (relu6,) = gradients(me.nn.relu6, x)
    np.testing.assert_array_equal(relu6, [0, 0, 0, 1, 0, 0, 0])              # TF's Relu6Grad: 0 < x < 6
    (elu,) = gradients(me.nn.elu, x)
    np.testing.assert_allclose(elu, [0.0, np.exp(-1.0), 1.0, 1, 1, 1, 1])     # TF's EluGrad: 1 at 0 (y + 1)
    (selu,) = gradients(me.nn.selu, x)
    np.testing.assert_allclose(selu, SELU_SCALE * np.array([0.0, SELU_ALPHA * np.exp(-1.0), SELU_ALPHA, 1, 1, 1, 1]))
    for fn in (me.nn.gelu, lambda t: me.nn.gelu(t, approximate=True), me.nn.silu):
        (dx,) = gradients(fn, x)
        np.testing.assert_allclose(dx[[0, -1]], [0.0, 1.0])
        np.testing.assert_allclose(dx[2], 0.5)                                # d/dx x * F(x) at 0 is F(0)


def test_silu_beta_may_be_a_learned_scalar():
    # TF: tf.nn.silu(features, beta=1.0), beta a number or a scalar tensor; d/d(beta) = sum(x^2 s (1 - s)).
    x = np.array([-1.0, 0.5, 2.0])
    beta = me.Variable(1.5, dtype=me.float64)
    with me.GradientTape() as tape:
        y = me.reduce_sum(me.nn.silu(me.constant(x), beta))
    s = scipy.special.expit(1.5 * x)
    np.testing.assert_allclose(y.numpy(), np.sum(x * s), rtol=1e-14)
    np.testing.assert_allclose(tape.gradient(y, beta).numpy(), np.sum(x * x * s * (1 - s)), rtol=1e-14)
    with pytest.raises(InvalidArgumentError, match=r"^silu: beta must be a scalar, got a tensor of shape \(2,\)"):
        me.nn.silu(me.ones(2), me.ones(2))
    with pytest.raises(InvalidArgumentError, match="^silu: beta must be a number, got 'big'"):
        me.nn.silu(me.ones(2), "big")
    with pytest.raises(InvalidArgumentError, match="^silu: the value 1e[+]39 .* does not fit in float32"):
        me.nn.silu(me.ones(2), 1e39)


@pytest.mark.parametrize("name", ["relu6", "elu", "selu", "gelu", "silu", "swish"])
def test_activations_need_floats_and_have_keras_names(name):
    with pytest.raises(DTypeError, match=rf"^{'silu' if name == 'swish' else name} needs a floating-point tensor"):
        getattr(me.nn, name)(me.constant([1, 2]))
    # Keras: Dense(..., activation="gelu") and Activation("swish") find them by name.
    assert me.layers.Dense(2, activation=name).activation is getattr(me.nn, name)
    x = me.constant(GRID, me.float32)
    np.testing.assert_array_equal(me.layers.Activation(name)(x).numpy(), getattr(me.nn, name)(x).numpy())


# ---- sigmoid_cross_entropy_with_logits and l2_loss -------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
def test_sigmoid_cross_entropy_with_logits_is_tfs_stable_formula(dtype):
    logits = np.array([[-1000.0, -3.0, 0.0], [0.5, 4.0, 1000.0]])
    labels = np.array([[0.0, 1.0, 0.3], [1.0, 0.0, 1.0]])
    got = me.nn.sigmoid_cross_entropy_with_logits(labels=labels.astype(dtype), logits=logits.astype(dtype))
    assert got.dtype == me.as_dtype(dtype) and got.shape == (2, 3)
    stable = np.maximum(logits, 0) - logits * labels + np.log1p(np.exp(-np.abs(logits)))
    np.testing.assert_allclose(got.numpy(), stable, rtol=4 * np.finfo(dtype).eps)
    # For moderate logits the naive -z log(p) - (1 - z) log(1 - p) is the same number; at +-1000 it is nan.
    moderate = np.abs(logits) < 10
    p = scipy.special.expit(logits[moderate])
    naive = -labels[moderate] * np.log(p) - (1 - labels[moderate]) * np.log(1 - p)
    np.testing.assert_allclose(got.numpy()[moderate], naive, rtol=1e-6 if dtype == np.float32 else 1e-14)
    assert np.isfinite(got.numpy()).all()


def test_sigmoid_cross_entropy_gradients_are_sigmoid_minus_labels_even_at_zero():
    # TF writes max(x, 0) and -|x| with where(x >= 0): the gradient at x == 0 is sigmoid(0) - z = 0.5 - z
    # (relu(x) and abs(x), whose gradients are 0 at 0, would give -z there).
    logits = np.array([-1000.0, -2.0, 0.0, 0.0, 3.0, 1000.0])
    labels = np.array([1.0, 0.2, 0.0, 1.0, 0.5, 0.0])
    dlabels, dlogits = gradients(lambda z, x: me.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
                                 labels, logits)
    np.testing.assert_allclose(dlogits, scipy.special.expit(logits) - labels, rtol=1e-12, atol=1e-300)
    np.testing.assert_array_equal(dlabels, -logits)


def test_sigmoid_cross_entropy_errors():
    name = "sigmoid_cross_entropy_with_logits"
    with pytest.raises(InvalidArgumentError, match=rf"^{name}: logits and labels must have the same shape, got "
                                                   r"logits \(2, 3\) and labels \(3,\)"):
        me.nn.sigmoid_cross_entropy_with_logits(labels=me.ones(3), logits=me.ones((2, 3)))
    with pytest.raises(InvalidArgumentError, match=rf"^{name}: both labels and logits must be given"):
        me.nn.sigmoid_cross_entropy_with_logits(logits=me.ones(3))
    with pytest.raises(DTypeError, match=rf"^{name} needs a floating-point tensor, got int32"):
        me.nn.sigmoid_cross_entropy_with_logits(labels=[0, 1], logits=me.constant([1, 2]))
    with pytest.raises(InvalidArgumentError, match=rf"^{name}: the first argument is a float32 tensor but the second is int32"):
        me.nn.sigmoid_cross_entropy_with_logits(labels=me.constant([0, 1]), logits=me.ones(2))
    # TF 2's signature is (labels=None, logits=None, name=None): positional arguments work too.
    positional = me.nn.sigmoid_cross_entropy_with_logits(me.ones(1, me.float64), me.zeros(1, me.float64))
    np.testing.assert_array_equal(positional.numpy(), [np.log(2.0)])


def test_l2_loss_is_half_the_sum_of_squares():
    # TF's docstring: output = sum(t ** 2) / 2.
    loss = me.nn.l2_loss(me.constant([[1.0, 2.0], [3.0, -4.0]]))
    assert loss.shape == () and loss.numpy() == 15.0
    (dt,) = gradients(me.nn.l2_loss, np.array([1.0, -2.0]))
    np.testing.assert_array_equal(dt, [1.0, -2.0])
    with pytest.raises(DTypeError, match="^l2_loss needs a floating-point tensor"):
        me.nn.l2_loss(me.constant([1, 2]))


# ---- l2_normalize, moments, batch_normalization -----------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("axis", [None, 0, 1, -1, [0, 1]], ids=str)
def test_l2_normalize_matches_its_formula(dtype, axis):
    x = RNG.standard_normal((3, 4)).astype(dtype)
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    want = x / np.sqrt(np.maximum(np.sum(x.astype(np.float64) ** 2, axis=np_axis, keepdims=True), 1e-12))
    got = me.nn.l2_normalize(x, axis=axis)
    assert got.dtype == me.as_dtype(dtype)
    np.testing.assert_allclose(got.numpy(), want, rtol=8 * np.finfo(dtype).eps)
    assert me.math.l2_normalize is me.nn.l2_normalize is me.linalg.l2_normalize


def test_l2_normalize_of_zeros_is_zero_with_a_finite_gradient():
    # TF: x / sqrt(max(sum(x^2), epsilon)), so a zero vector stays 0 and its gradient is 1 / sqrt(epsilon).
    np.testing.assert_array_equal(me.nn.l2_normalize(me.zeros((2, 3)), axis=1).numpy(), np.zeros((2, 3)))
    (dx,) = gradients(lambda t: me.nn.l2_normalize(t, axis=0), np.zeros(3))
    np.testing.assert_allclose(dx, np.full(3, 1e6))
    np.testing.assert_allclose(me.nn.l2_normalize(me.constant([3.0, 4.0]), 0, epsilon=100.0).numpy(), [0.3, 0.4])


def test_l2_normalize_errors():
    with pytest.raises(InvalidArgumentError, match=r"^l2_normalize: axis 2 is out of range for a tensor of rank 2 "
                                                   r"\(valid: -2 to 1\)"):
        me.nn.l2_normalize(me.ones((2, 3)), axis=2)
    with pytest.raises(InvalidArgumentError, match="^l2_normalize: epsilon must be a number, got 'small'"):
        me.nn.l2_normalize(me.ones(3), epsilon="small")
    with pytest.raises(InvalidArgumentError, match="^l2_normalize: the value 1e[+]300 .* does not fit in float32"):
        me.nn.l2_normalize(me.ones(3), epsilon=1e300)
    with pytest.raises(DTypeError, match="^l2_normalize needs a floating-point tensor"):
        me.nn.l2_normalize(me.constant([3, 4]))


@pytest.mark.parametrize("dtype", FLOATS)
def test_moments_are_mean_and_population_variance(dtype):
    x = (RNG.standard_normal((4, 3, 3, 2)) * 2 + 5).astype(dtype)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    mean, variance = me.nn.moments(x, axes=[0, 1, 2])         # per channel, as batch normalization uses them
    assert mean.shape == variance.shape == (2,) and mean.dtype == variance.dtype == me.as_dtype(dtype)
    np.testing.assert_allclose(mean.numpy(), x.astype(np.float64).mean(axis=(0, 1, 2)), rtol=rtol)
    np.testing.assert_allclose(variance.numpy(), x.astype(np.float64).var(axis=(0, 1, 2)), rtol=rtol)
    mean, variance = me.nn.moments(me.constant(x), axes=[1], keepdims=True)
    assert mean.shape == variance.shape == (4, 1, 3, 2)
    np.testing.assert_allclose(variance.numpy(), x.astype(np.float64).var(axis=1, keepdims=True), rtol=rtol)


def test_moments_gradient_of_the_variance_is_the_full_one():
    # TF stops the gradient at the mean inside the variance: the full gradient, 2 (x - mean) / n, is unchanged.
    x = np.array([1.0, 2.0, 4.0, 9.0])
    (dx,) = gradients(lambda t: me.nn.moments(t, axes=[0])[1], x)
    np.testing.assert_allclose(dx, 2 * (x - x.mean()) / x.size, rtol=1e-14)


def test_moments_of_float16_are_computed_in_float32():
    # TF casts float16 to float32 for both statistics; here 3000^2 would overflow float16's squares.
    x = me.constant([3000.0, -3000.0, 3000.0, -3000.0], me.float16)
    mean, variance = me.nn.moments(x, axes=[0])
    assert mean.dtype == variance.dtype == me.float16
    assert mean.numpy() == 0.0 and variance.numpy() == np.inf   # 9e6 does not fit float16: rounded once, to inf
    mean, variance = me.nn.moments(me.constant([200.0, 400.0], me.float16), axes=[0])
    assert (mean.numpy(), variance.numpy()) == (300.0, 10000.0)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_moments_match_numpy_for_any_shape_and_axes(data):
    shape = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
    axes = data.draw(st.lists(st.integers(0, len(shape) - 1), unique=True, min_size=1))
    x = np.asarray(data.draw(st.lists(st.floats(-1e3, 1e3), min_size=math.prod(shape), max_size=math.prod(shape))))
    x = x.reshape(shape)
    keepdims = data.draw(st.booleans())
    mean, variance = me.nn.moments(x, axes, keepdims=keepdims)
    np.testing.assert_allclose(mean.numpy(), x.mean(axis=tuple(axes), keepdims=keepdims), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(variance.numpy(), x.var(axis=tuple(axes), keepdims=keepdims), rtol=1e-9, atol=1e-6)


def test_moments_errors():
    with pytest.raises(InvalidArgumentError, match=r"^moments: axis 3 is out of range for a tensor of rank 2"):
        me.nn.moments(me.ones((2, 3)), axes=[0, 3])
    with pytest.raises(DTypeError, match="^moments needs a floating-point tensor"):
        me.nn.moments(me.constant([1, 2]), axes=[0])


@pytest.mark.parametrize("dtype", FLOATS)
def test_batch_normalization_matches_its_formula(dtype):
    x = RNG.standard_normal((5, 3)).astype(dtype)
    mean, variance = RNG.standard_normal(3).astype(dtype), RNG.uniform(0.5, 2, 3).astype(dtype)
    offset, scale = RNG.standard_normal(3).astype(dtype), RNG.standard_normal(3).astype(dtype)
    wide = [a.astype(np.float64) for a in (x, mean, variance, offset, scale)]
    want = (wide[0] - wide[1]) / np.sqrt(wide[2] + 1e-3) * wide[4] + wide[3]
    got = me.nn.batch_normalization(x, mean, variance, offset, scale, 1e-3)
    assert got.dtype == me.as_dtype(dtype)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-6)
    # offset None is 0 and scale None is 1, as in TF.
    bare = (wide[0] - wide[1]) / np.sqrt(wide[2] + 1e-3)
    got = me.nn.batch_normalization(x, mean, variance, None, None, 1e-3)
    np.testing.assert_allclose(got.numpy(), bare, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-6)


def test_batch_normalization_with_moments_standardizes():
    x = me.constant(RNG.standard_normal((64, 4)) * 3 + 2)
    mean, variance = me.nn.moments(x, axes=[0])
    y = me.nn.batch_normalization(x, mean, variance, offset=None, scale=None, variance_epsilon=0.0)
    np.testing.assert_allclose(y.numpy().mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(y.numpy().std(axis=0), 1, rtol=1e-12)


def test_batch_normalization_errors():
    x = me.ones((2, 3))
    with pytest.raises(InvalidArgumentError, match=r"^batch_normalization: shapes \(2, 3\) and \(2,\) and \(3,\) "
                                                   "are incompatible"):
        me.nn.batch_normalization(x, me.zeros(2), me.ones(3), None, None, 1e-3)
    with pytest.raises(InvalidArgumentError, match="^batch_normalization: variance_epsilon must be a number, got None"):
        me.nn.batch_normalization(x, 0.0, 1.0, None, None, None)
    with pytest.raises(InvalidArgumentError, match="^batch_normalization: the first argument is a float32 tensor"):
        me.nn.batch_normalization(x, me.zeros(3, me.float64), 1.0, None, None, 1e-3)
    with pytest.raises(DTypeError, match="^batch_normalization needs a floating-point tensor"):
        me.nn.batch_normalization(me.constant([1, 2]), 0, 1, None, None, 1e-3)
