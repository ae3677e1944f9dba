"""Second derivatives through nested tapes, checked against finite differences of the first gradient.

``check_gradients(first_gradient, x)`` records ``first_gradient`` (which opens its own inner tape)
on an outer tape, so the outer gradient of ``sum(v * grad f)`` is the Hessian-vector product H v,
compared element by element with central differences of the first gradient.
"""
import numpy as np
import pytest

import minieager as me
from minieager.testing import check_gradients

RNG = np.random.default_rng(7)


def first_gradient(f):
    """x... -> the tape's gradient of sum(f(x...)), computed on an inner tape (a list, one per input)."""
    def grads(*xs):
        with me.GradientTape() as inner:
            inner.watch(list(xs))
            y = f(*xs)
        return inner.gradient(y, list(xs))
    return grads


WEIGHTS = me.constant(RNG.standard_normal((3, 4)))   # fixed: f must be the same function at every probe


SECOND_ORDER = {
    "exp": (me.exp, [(3, 4)]),
    "tanh": (me.tanh, [(3, 4)]),
    "sigmoid": (me.sigmoid, [(3, 4)]),
    "multiply": (lambda a, b: a * b * a, [(3, 4), (4,)]),
    "matmul": (lambda a, b: me.tanh(me.matmul(a, b)), [(2, 3), (3, 2)]),
    "batched_matmul_transposed": (lambda a, b: me.square(me.matmul(a, b, transpose_b=True)), [(2, 2, 3), (4, 3)]),
    "softmax": (lambda x: me.nn.softmax(x) * WEIGHTS, [(3, 4)]),
    "log_softmax": (lambda x: me.nn.log_softmax(x) * WEIGHTS, [(3, 4)]),
    "softmax_cross_entropy": (lambda x: me.nn.softmax_cross_entropy_with_logits(
        labels=me.constant(np.full((2, 3), 1 / 3)), logits=x), [(2, 3)]),
    "sparse_softmax_cross_entropy": (lambda x: me.nn.sparse_softmax_cross_entropy_with_logits(
        labels=me.constant([2, 0]), logits=x), [(2, 3)]),
    "losses.softmax_cross_entropy": (lambda x: me.losses.softmax_cross_entropy(
        me.constant(np.full((2, 3), 1 / 3)), x), [(2, 3)]),
    "losses.sparse_softmax_cross_entropy": (lambda x: me.losses.sparse_softmax_cross_entropy(
        me.constant([2, 0]), x) * me.reduce_sum(x), [(2, 3)]),
    "reduce_logsumexp": (lambda x: me.reduce_logsumexp(x, axis=1), [(2, 3)]),
    "divide_and_log": (lambda a, b: me.log(a * a + 1.0) / (b * b + 1.0), [(3,), (3,)]),
    "getitem_and_gather": (lambda x: me.exp(x[::2]) * me.gather(x, me.constant([3, 3])), [(4,)]),
    "avg_pool2d": (lambda x: me.square(me.nn.avg_pool2d(x, 2, 1, "VALID")), [(1, 3, 3, 1)]),
    "tensor_scatter_nd_update": (lambda t, u: me.square(me.tensor_scatter_nd_update(t * t, [[1], [0], [1]], u * t[0])),
                                 [(2, 3), (3, 3)]),
    "tensor_scatter_nd_add": (lambda t, u: me.square(me.tensor_scatter_nd_add(t, [[1], [1]], u * t)), [(2, 3), (2, 3)]),
    "cumprod": (lambda x: me.math.cumprod(x, axis=1, exclusive=True) * x, [(2, 4)]),
    "top_k_and_roll": (lambda x: me.exp(me.math.top_k(me.roll(x, 1, 0), 2).values), [(3, 4)]),
}


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_second_derivative(name):
    f, shapes = SECOND_ORDER[name]
    results = check_gradients(first_gradient(f), *[RNG.standard_normal(s) for s in shapes])
    assert all(r.ok for r in results)


@pytest.mark.parametrize("padding, strides", [("VALID", 1), ("SAME", 2)])
def test_second_derivative_through_conv2d(padding, strides):
    def f(x, w):
        return me.square(me.nn.conv2d(x, w, strides=strides, padding=padding))
    results = check_gradients(first_gradient(f), RNG.standard_normal((1, 4, 4, 2)), RNG.standard_normal((2, 2, 2, 2)))
    assert all(r.ok for r in results)


def test_hessian_vector_product_by_hand():
    # The same check, spelled out: outer.gradient(sum(v * grad f)) = H v,
    # against (grad f(x + eps v) - grad f(x - eps v)) / (2 eps).
    def f(x):
        return me.reduce_sum(me.exp(x) * me.tanh(x))

    x0, v = RNG.standard_normal(5), RNG.standard_normal(5)
    x, eps = me.constant(x0), 1e-6
    with me.GradientTape() as outer:
        outer.watch(x)
        (g,) = first_gradient(f)(x)
        gv = me.reduce_sum(g * me.constant(v))
    hv = outer.gradient(gv, x).numpy()
    numeric = (first_gradient(f)(me.constant(x0 + eps * v))[0].numpy()
               - first_gradient(f)(me.constant(x0 - eps * v))[0].numpy()) / (2 * eps)
    np.testing.assert_allclose(hv, numeric, rtol=1e-6, atol=1e-8)


def test_second_derivative_through_max_pool2d_is_a_clear_error():
    x = me.constant(np.arange(16.0).reshape(1, 4, 4, 1))
    with me.GradientTape() as outer:
        outer.watch(x)
        with me.GradientTape() as inner:
            inner.watch(x)
            y = me.square(me.nn.max_pool2d(x, 2, 2, "VALID"))
        g = inner.gradient(y, x)
    with pytest.raises(NotImplementedError, match="max_pool2d"):
        outer.gradient(g, x)
