"""tape.jacobian and tape.batch_jacobian, against central finite differences."""
import numpy as np
import pytest

import minieager as me


def _numeric_jacobian(f, x, eps=1e-6):
    """d f(x)[i...] / d x[j...] by central differences, shape f(x).shape + x.shape (float64)."""
    x = np.asarray(x, np.float64)
    out_shape = np.shape(f(x))
    jac = np.zeros(out_shape + x.shape)
    for j in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[j] = eps
        jac[(Ellipsis,) + j] = (f(x + step) - f(x - step)) / (2 * eps)
    return jac


def _tanh_of_matmul(x):
    w = np.arange(6, dtype=np.float64).reshape(3, 2) / 10 - 0.2
    return np.tanh(x @ w)


@pytest.mark.parametrize("me_fn, np_fn, shape", [
    (lambda x: x * x, lambda x: x * x, (3,)),
    (lambda x: me.exp(x) * me.reduce_sum(x), lambda x: np.exp(x) * np.sum(x), (2, 2)),
    (lambda x: me.tanh(me.matmul(x, me.constant(np.arange(6).reshape(3, 2) / 10 - 0.2))), _tanh_of_matmul, (2, 3)),
    (lambda x: me.softmax(x), lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True), (4,)),
])
def test_jacobian_matches_finite_differences(me_fn, np_fn, shape):
    value = np.random.default_rng(0).standard_normal(shape)
    x = me.constant(value)
    with me.GradientTape() as tape:
        tape.watch(x)
        y = me_fn(x)
    jac = tape.jacobian(y, x)
    assert jac.shape == tuple(y.shape) + shape
    np.testing.assert_allclose(jac.numpy(), _numeric_jacobian(np_fn, value), rtol=1e-6, atol=1e-8)


def test_jacobian_of_an_unconnected_source():
    x, unused = me.constant([1.0, 2.0]), me.constant([3.0, 4.0, 5.0])
    with me.GradientTape(persistent=True) as tape:
        tape.watch([x, unused])
        y = x * 2.0
    assert tape.jacobian(y, unused) is None
    zeros = tape.jacobian(y, unused, unconnected_gradients="zero")
    assert zeros.shape == (2, 3)
    np.testing.assert_array_equal(zeros.numpy(), np.zeros((2, 3)))


def test_jacobian_uses_up_a_non_persistent_tape():
    x = me.constant([1.0, 2.0])
    with me.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    np.testing.assert_allclose(tape.jacobian(y, x).numpy(), np.diag([2.0, 4.0]))
    with pytest.raises(RuntimeError, match="persistent=True"):
        tape.jacobian(y, x)


def test_batch_jacobian_matches_per_example_jacobians():
    rng = np.random.default_rng(1)
    value, w = rng.standard_normal((4, 3)), rng.standard_normal((3, 2))
    x = me.constant(value)
    with me.GradientTape() as tape:
        tape.watch(x)
        y = me.tanh(me.matmul(x, me.constant(w)))            # (4, 2)
    jac = tape.batch_jacobian(y, x)
    assert jac.shape == (4, 2, 3)
    for b in range(4):
        expected = _numeric_jacobian(lambda row: np.tanh(row @ w), value[b])
        np.testing.assert_allclose(jac.numpy()[b], expected, rtol=1e-6, atol=1e-8)


def test_batch_jacobian_needs_a_shared_batch_dimension():
    x = me.constant(np.ones((4, 3)))
    with me.GradientTape() as tape:
        tape.watch(x)
        y = me.reduce_sum(x, axis=0)                          # (3,)
    with pytest.raises(ValueError, match="batch"):
        tape.batch_jacobian(y, x)
