"""@me.custom_gradient: the guide's examples, variables, nesting, and the errors for a wrong grad_fn."""
import numpy as np
import pytest

import minieager as me


@me.custom_gradient
def clip_gradient_by_norm(x, norm):
    y = me.identity(x)

    def grad_fn(dresult):
        return [me.clip_by_norm(dresult, norm), None]
    return y, grad_fn


def log1pexp_plain(x):
    return me.log(1 + me.exp(x))


@me.custom_gradient
def log1pexp(x):
    e = me.exp(x)

    def grad(dy):
        return dy * (1 - 1 / (1 + e))
    return me.log(1 + e), grad


def test_clip_gradient_by_norm_forward_is_the_identity():
    x = me.constant([3.0, 4.0])
    np.testing.assert_array_equal(clip_gradient_by_norm(x, 1.0).numpy(), [3.0, 4.0])


def test_clip_gradient_by_norm_clips_the_backward():
    x, norm = me.constant([3.0, 4.0]), me.constant(1.0)
    with me.GradientTape() as tape:
        tape.watch([x, norm])
        y = clip_gradient_by_norm(x, norm) * me.constant([30.0, 40.0])
    dx, dnorm = tape.gradient(y, [x, norm])
    np.testing.assert_allclose(dx.numpy(), [0.6, 0.8], rtol=1e-6)   # [30, 40] scaled to norm 1
    assert dnorm is None


def test_clip_gradient_by_norm_leaves_small_gradients_alone():
    x = me.constant([3.0, 4.0])
    with me.GradientTape() as tape:
        tape.watch(x)
        y = clip_gradient_by_norm(x, 10.0) * me.constant([0.3, 0.4])
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.3, 0.4], rtol=1e-6)


@pytest.mark.parametrize("x, expected", [(0.0, 0.5), (100.0, 1.0), (-3.0, 1 / (1 + np.exp(3.0)))])
def test_log1pexp_custom_gradient_is_stable(x, expected):
    grad = me.gradients_function(log1pexp)
    np.testing.assert_allclose(grad(x)[0].numpy(), expected, rtol=1e-6)


def test_log1pexp_plain_gradient_is_nan_at_100():
    grad = me.gradients_function(log1pexp_plain)
    np.testing.assert_allclose(grad(0.0)[0].numpy(), 0.5)
    with np.errstate(all="ignore"):
        assert np.isnan(grad(100.0)[0].numpy())   # exp(100) overflows float32; inf * 0 in the backward


def test_custom_gradient_is_one_node_whose_grad_fn_replaces_the_inner_ops():
    @me.custom_gradient
    def fake_square(x):
        def grad(dy):
            return dy * 100.0                  # deliberately not 2x
        return x * x, grad

    x = me.constant(3.0)
    with me.GradientTape() as tape:
        tape.watch(x)
        y = fake_square(x) * 2.0
    assert y.numpy() == 18.0
    assert tape.gradient(y, x).numpy() == 200.0


def test_custom_gradient_without_a_tape_just_runs_the_function():
    assert log1pexp(0.0).numpy() == pytest.approx(np.log(2.0))
    np.testing.assert_array_equal(clip_gradient_by_norm([1.0, 2.0], 1.0).numpy(), [1.0, 2.0])


def test_a_single_gradient_may_be_returned_bare_or_in_a_list():
    @me.custom_gradient
    def in_a_list(x):
        return x * 3.0, lambda dy: [dy * 3.0]

    x = me.constant(1.0)
    with me.GradientTape() as tape:
        tape.watch(x)
        y = in_a_list(x)
    assert tape.gradient(y, x).numpy() == 3.0


def test_grad_fn_with_variables_returns_input_and_variable_gradients():
    w = me.Variable(2.0)

    @me.custom_gradient
    def scale(x):
        def grad_fn(dy, variables=None):
            assert variables == [w]
            return dy * w, [dy * x * 10.0]       # a made-up gradient for w, to see it used
        return x * w, grad_fn

    x = me.constant(3.0)
    with me.GradientTape() as tape:
        tape.watch(x)
        y = scale(x)
    dx, dw = tape.gradient(y, [x, w])
    assert dx.numpy() == 2.0
    assert dw.numpy() == 30.0


def test_grad_fn_with_variables_must_return_a_pair():
    w = me.Variable(2.0)

    @me.custom_gradient
    def bad_pair(x):
        return x * w, lambda dy, variables=None: dy * w

    x = me.constant(3.0)
    with me.GradientTape() as tape:
        tape.watch(x)
        y = bad_pair(x)
    with pytest.raises(ValueError, match=r"bad_pair.*input_gradients, variable_gradients"):
        tape.gradient(y, x)


def test_custom_gradient_under_nested_tapes_gives_the_second_derivative():
    # d/dx log1pexp = sigmoid(x); its derivative sigmoid(x)(1 - sigmoid(x)) is 0.25 at 0.
    x = me.constant(0.0)
    with me.GradientTape() as outer:
        outer.watch(x)
        with me.GradientTape() as inner:
            inner.watch(x)
            y = log1pexp(x)
        dy_dx = inner.gradient(y, x)
    np.testing.assert_allclose(dy_dx.numpy(), 0.5)
    np.testing.assert_allclose(outer.gradient(dy_dx, x).numpy(), 0.25, rtol=1e-6)


def test_multi_output_custom_gradient_gets_zeros_for_an_unused_output():
    seen = []

    @me.custom_gradient
    def two_outputs(x):
        def grad(dy_a, dy_b):
            seen.append((dy_a.numpy().copy(), dy_b.numpy().copy()))
            return dy_a * 2.0 + dy_b * 3.0
        return (x * 2.0, x * 3.0), grad

    x = me.constant([1.0, 2.0])
    with me.GradientTape() as tape:
        tape.watch(x)
        a, b = two_outputs(x)
    np.testing.assert_allclose(tape.gradient(a, x).numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(seen[0][1], [0.0, 0.0])


def test_wrong_number_of_gradients_is_a_clear_error():
    @me.custom_gradient
    def two_inputs(x, y):
        return x * y, lambda dy: [dy * y]          # one gradient for two inputs

    x, y = me.constant(1.0), me.constant(2.0)
    with me.GradientTape() as tape:
        tape.watch([x, y])
        z = two_inputs(x, y)
    with pytest.raises(ValueError, match=r"two_inputs.*returned 1 input gradient.*has 2 input"):
        tape.gradient(z, [x, y])


def test_wrong_gradient_shape_is_a_clear_error_naming_the_input():
    @me.custom_gradient
    def wrong_shape(x, scale):
        return x * scale, lambda dy: [dy, me.ones([5])]

    x, scale = me.constant([1.0, 2.0]), me.constant(3.0)
    with me.GradientTape() as tape:
        tape.watch([x, scale])
        y = wrong_shape(x, scale)
    with pytest.raises(ValueError, match=r"wrong_shape.*input 1 \('scale'\).*\(5,\).*\(\)"):
        tape.gradient(y, [x, scale])


def test_a_variable_passed_as_an_argument_is_an_input_not_a_captured_variable():
    v = me.Variable(0.0)
    with me.GradientTape() as tape:
        y = log1pexp(v)                   # grad(dy) takes no `variables`: v is an input here
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), 0.5)
