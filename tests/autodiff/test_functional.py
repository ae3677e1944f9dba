"""gradients_function, value_and_gradients_function, implicit_gradients, implicit_value_and_gradients."""
import numpy as np
import pytest

import minieager as me


def square(x):
    return me.multiply(x, x)


def _values(grads):
    return [None if g is None else g.numpy().tolist() for g in grads]


def test_guide_higher_order_chain():
    grad = me.gradients_function(square)
    assert square(3.0).numpy() == 9.0
    assert _values(grad(3.0)) == [6.0]
    gradgrad = me.gradients_function(lambda x: grad(x)[0])
    assert _values(gradgrad(3.0)) == [2.0]
    gradgradgrad = me.gradients_function(lambda x: gradgrad(x)[0])
    assert gradgradgrad(3.0) == [None]


def test_guide_abs_with_python_control_flow():
    def abs(x):  # noqa: A001 (the guide's name)
        return x if x > 0.0 else -x
    grad = me.gradients_function(abs)
    assert _values(grad(3.0)) == [1.0]
    assert _values(grad(-3.0)) == [-1.0]


def test_python_floats_become_float32_tensors():
    (g,) = me.gradients_function(square)(2.0)
    assert isinstance(g, me.Tensor) and g.dtype == me.float32


def test_gradients_with_respect_to_every_argument():
    grads = me.gradients_function(lambda x, y: x * x * y)(2.0, 5.0)
    assert _values(grads) == [20.0, 4.0]


@pytest.mark.parametrize("params, expected", [([0], [20.0]), ([1], [4.0]), (["y"], [4.0]), ([1, 0], [4.0, 20.0])])
def test_params_selects_arguments(params, expected):
    def f(x, y):
        return x * x * y
    assert _values(me.gradients_function(f, params=params)(2.0, 5.0)) == expected


def test_value_and_gradients_function():
    value, grads = me.value_and_gradients_function(lambda x, y: x * y + y)(2.0, 5.0)
    assert value.numpy() == 15.0
    assert _values(grads) == [5.0, 3.0]


def test_non_scalar_functions_are_summed():
    (g,) = me.gradients_function(square)(me.constant([1.0, 2.0]))
    np.testing.assert_array_equal(g.numpy(), [2.0, 4.0])


def test_integer_arguments_get_no_gradient():
    grads = me.gradients_function(lambda x, n: x * me.cast(n, me.float32))(2.0, 3)
    assert _values(grads) == [3.0, None]


def test_keyword_arguments_are_passed_through():
    grads = me.gradients_function(lambda x, scale=1.0: x * scale)(2.0, scale=4.0)
    assert _values(grads) == [4.0]


def test_implicit_gradients_pairs_gradients_with_variables():
    w, b, frozen = me.Variable(3.0), me.Variable(1.0), me.Variable(10.0, trainable=False)

    def loss(x):
        return w * x + b + frozen

    pairs = me.implicit_gradients(loss)(2.0)
    assert [v for _, v in pairs] == [w, b]
    assert [g.numpy() for g, _ in pairs] == [2.0, 1.0]


def test_implicit_value_and_gradients():
    w = me.Variable(3.0)
    value, pairs = me.implicit_value_and_gradients(lambda x: w * w * x)(2.0)
    assert value.numpy() == 18.0
    ((g, v),) = pairs
    assert v is w and g.numpy() == 12.0


def test_function_style_gradients_compose_with_a_tape():
    x = me.constant(3.0)
    grad = me.gradients_function(lambda t: t * t * t)
    with me.GradientTape() as tape:
        tape.watch(x)
        (dx,) = grad(x)                 # 3 x^2 = 27
    assert dx.numpy() == 27.0
    assert tape.gradient(dx, x).numpy() == 18.0
