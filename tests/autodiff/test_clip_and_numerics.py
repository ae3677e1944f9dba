"""clip_by_norm, clip_by_global_norm, and me.debugging's NaN/Inf checks."""
import numpy as np
import pytest

import minieager as me


@pytest.fixture
def check_numerics():
    me.debugging.enable_check_numerics()
    yield
    me.debugging.disable_check_numerics()


@pytest.mark.parametrize("values, clip_norm, expected", [
    ([3.0, 4.0], 1.0, [0.6, 0.8]),
    ([3.0, 4.0], 5.0, [3.0, 4.0]),
    ([3.0, 4.0], 10.0, [3.0, 4.0]),
    ([0.0, 0.0], 1.0, [0.0, 0.0]),
])
def test_clip_by_norm(values, clip_norm, expected):
    np.testing.assert_allclose(me.clip_by_norm(me.constant(values), clip_norm).numpy(), expected, rtol=1e-6)


def test_clip_by_norm_along_axes():
    t = me.constant([[3.0, 4.0], [0.3, 0.4]])
    np.testing.assert_allclose(me.clip_by_norm(t, 1.0, axes=[1]).numpy(), [[0.6, 0.8], [0.3, 0.4]], rtol=1e-6)


def test_clip_by_global_norm():
    a, b = me.constant([3.0, 0.0]), me.constant([[0.0], [4.0]])
    (ca, none, cb), norm = me.clip_by_global_norm([a, None, b], 1.0)
    assert norm.numpy() == pytest.approx(5.0)
    assert none is None
    np.testing.assert_allclose(ca.numpy(), [0.6, 0.0], rtol=1e-6)
    np.testing.assert_allclose(cb.numpy(), [[0.0], [0.8]], rtol=1e-6)


def test_clip_by_global_norm_below_the_limit_is_unchanged():
    (ca,), norm = me.clip_by_global_norm([me.constant([0.3, 0.4])], 1.0)
    np.testing.assert_allclose(ca.numpy(), [0.3, 0.4], rtol=1e-6)
    assert norm.numpy() == pytest.approx(0.5)


def test_check_numerics_passes_finite_tensors_through():
    t = me.constant([1.0, 2.0])
    np.testing.assert_array_equal(me.debugging.check_numerics(t, "fine").numpy(), [1.0, 2.0])


@pytest.mark.parametrize("value, kind", [(np.nan, "NaN"), (np.inf, "Inf"), (-np.inf, "Inf")])
def test_check_numerics_raises_with_the_message(value, kind):
    with pytest.raises(me.errors.InvalidArgumentError, match=f"my check.*{kind}"):
        me.debugging.check_numerics(me.constant([1.0, value]), "my check")


def test_enable_check_numerics_raises_at_the_first_bad_op_naming_it(check_numerics):
    x = me.constant([1.0, 0.0])
    with pytest.raises(me.errors.InvalidArgumentError, match=r"op 'log' produced Inf"):
        me.log(x)
    with pytest.raises(me.errors.InvalidArgumentError, match=r"op 'sqrt' produced NaN"):
        me.sqrt(me.constant(-1.0))


def test_guide_log1pexp_at_100_is_caught_in_the_forward_pass(check_numerics):
    # The guide's nan: in float32 exp(100.) overflows to inf in the *forward* pass, and the backward
    # pass then multiplies 0 * inf = nan. check_numerics stops at the first op that made a non-finite
    # value, so it names 'exp' (before any nan exists).
    def log1pexp(x):
        return me.log(1 + me.exp(x))
    grad = me.gradients_function(log1pexp)
    assert grad(0.0)[0].numpy() == 0.5
    with pytest.raises(me.errors.InvalidArgumentError, match=r"op 'exp' produced Inf"):
        grad(100.0)


def test_the_backward_pass_is_checked_too(check_numerics):
    # sqrt(0) = 0 is fine; its gradient 1 / (2 sqrt(0)) is not.
    x = me.constant(0.0)
    with me.GradientTape() as tape:
        tape.watch(x)
        y = me.sqrt(x)
    with pytest.raises(me.errors.InvalidArgumentError, match=r"op 'divide' produced Inf"):
        tape.gradient(y, x)


def test_disable_check_numerics():
    me.debugging.enable_check_numerics()
    me.debugging.disable_check_numerics()
    with np.errstate(all="ignore"):
        assert np.isinf(me.log(me.constant(0.0)).numpy())
