"""TF's math ops added for parity (floor, erf, divide_no_nan, reduce_variance ...):
values against NumPy and TF's documented examples in float32 and float64, TF's edge cases, gradients
where a naive formula would give nan, and errors that name the op. Each test names the TF behaviour.
Finite-difference checks of the gradients are in tests/autodiff/test_gradcheck_ops.py; the elementwise
ops are compared with NumPy on every kernel path in tests/fuzz."""
import numpy as np
import pytest
import scipy.special
from hypothesis import given, settings, strategies as st

import minieager as me
from minieager.engine.errors import DTypeError, InvalidArgumentError

FLOATS = [np.float32, np.float64]
RNG = np.random.default_rng(2024)


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
