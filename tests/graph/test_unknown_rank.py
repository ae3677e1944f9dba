"""Tensors of unknown rank while tracing (``input_signature=[me.TensorSpec(None)]``) beyond elementwise ops:
reshape, reductions (whole, over given axes, with keepdims) and matmul work and differentiate as TF's do, and
what does not fit when the graph runs raises the eager error then."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import minieager as me
from minieager.errors import InvalidArgumentError

ANY_RANK = [me.TensorSpec(None, me.float32)]
X = me.constant([[1.0, 2.0], [3.0, 5.0]])


@pytest.mark.parametrize("name, fn, tf_shape", [
    # TF 2.21 with TensorSpec(None): the same values; static output shapes (), (), (None,), (2, 2), ().
    ("reduce_sum", lambda x: me.reduce_sum(x), ()),
    ("reduce_max", lambda x: me.reduce_max(x), ()),
    ("reshape -1", lambda x: me.reshape(x, [-1]), (None,)),
    ("reshape to a shape", lambda x: me.reshape(x, [2, 2]), (2, 2)),
    ("reduce_mean", lambda x: me.reduce_mean(x), ()),
])
def test_reshape_and_whole_reductions_take_an_unknown_rank(name, fn, tf_shape):
    f = me.function(fn, input_signature=ANY_RANK)
    assert tuple(f.get_concrete_function().output_shapes) == tf_shape
    for x in (X, me.constant([1.0, 2.0, 3.0, 4.0]), me.constant(np.arange(8.0, dtype=np.float32).reshape(2, 2, 2))):
        if name == "reshape to a shape" and x.shape.num_elements() != 4:
            continue
        np.testing.assert_array_equal(f(x).numpy(), fn(x).numpy())
    assert f.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("fn", [
    lambda x: me.reduce_sum(x * x),
    lambda x: me.reduce_mean(x * x),
    lambda x: me.reduce_max(x),
    lambda x: me.reduce_sum(me.reshape(x, [-1]) * me.constant([1.0, 2.0, 3.0, 4.0])),
])
def test_gradients_over_an_unknown_rank_equal_eager(fn):
    @me.function(input_signature=ANY_RANK)
    def grad(x):
        with me.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        return tape.gradient(y, x)
    for x in (X, me.constant([1.0, -2.0, 3.0, 0.5])):
        with me.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        np.testing.assert_allclose(grad(x).numpy(), tape.gradient(y, x).numpy(), rtol=1e-6)


def test_integer_mean_of_an_unknown_empty_tensor_is_zero_as_tf():
    # TF 2.21: tf.reduce_mean of an empty int32 tensor traced with TensorSpec(None) gives 0 (the int mean of [1, 2, 4]:
    # 2). The count is known only when the graph runs, and an empty one divides as 1.
    f = me.function(lambda x: me.reduce_mean(x), input_signature=[me.TensorSpec(None, me.int32)])
    assert int(f(me.zeros([0], me.int32))) == 0
    assert int(f(me.constant([1, 2, 4]))) == 2 and int(f(me.constant([[-1, -2]]))) == -1


def test_reshape_to_a_size_the_tensor_does_not_have_names_the_node_and_the_shapes():
    # TF 2.21: InvalidArgumentError "Input to reshape is a tensor with 4 values, but the requested shape has 3"
    # when the graph runs; here eager's message, with the graph node.
    f = me.function(lambda x: me.reshape(x, [3]), input_signature=ANY_RANK)
    with pytest.raises(InvalidArgumentError, match=r"^reshape: cannot reshape a tensor of shape \(2, 2\) \(4 elements\) "
                                                   r"into \(3,\)\..*\(in graph node %0 = reshape"):
        f(X)


TWO_ANY_RANK = [me.TensorSpec(None, me.float64)] * 2


def matmul_gradients(a, b):
    with me.GradientTape() as tape:
        tape.watch([a, b])
        y = me.reduce_sum(me.matmul(a, b, transpose_b=True) ** 2)
    return tape.gradient(y, [a, b])


def test_matmul_of_unknown_ranks_matches_tf():
    # TF 2.21, both TensorSpec(None, float64): static shape <unknown>; a = [[1, 2], [3, 4]], b = arange(12) as
    # (3, 2, 2): the gradients of sum((a @ b^T) ** 2) start [1440 1644 3320 3788] (a's, summed over b's batch)
    # and [28 40 124 176].
    f = me.function(me.matmul, input_signature=TWO_ANY_RANK)
    a = me.constant([[1.0, 2.0], [3.0, 4.0]], me.float64)
    b = me.constant(np.arange(12.0).reshape(3, 2, 2))
    assert f.get_concrete_function().output_shapes.rank is None
    assert f(a, a).numpy().tolist() == [[7.0, 10.0], [15.0, 22.0]]
    da, db = me.function(matmul_gradients, input_signature=TWO_ANY_RANK)(a, b)
    assert da.shape == (2, 2) and db.shape == (3, 2, 2)
    assert da.numpy().ravel().tolist() == [1440, 1644, 3320, 3788]
    assert db.numpy().ravel()[:4].tolist() == [28, 40, 124, 176]


def test_one_trace_multiplies_and_differentiates_every_rank_as_eager():
    grad = me.function(matmul_gradients, input_signature=TWO_ANY_RANK)

    @settings(max_examples=20, deadline=None)
    @given(st.lists(st.integers(1, 3), min_size=0, max_size=2), st.booleans(), st.booleans())
    def check(batch, batch_a, batch_b):
        rng = np.random.default_rng(len(batch))
        a = me.constant(rng.standard_normal((tuple(batch) if batch_a else ()) + (2, 3)))
        b = me.constant(rng.standard_normal((tuple(batch) if batch_b else ()) + (4, 3)))
        for traced, eager in zip(grad(a, b), matmul_gradients(a, b)):
            np.testing.assert_allclose(traced.numpy(), eager.numpy(), rtol=1e-12)
    check()
    assert grad.experimental_get_tracing_count() == 1


def test_matmul_gradient_over_unknown_ranks_matches_finite_differences():
    grad = me.function(matmul_gradients, input_signature=TWO_ANY_RANK)
    a, b = np.random.default_rng(1).standard_normal((2, 3)), np.random.default_rng(2).standard_normal((2, 4, 3))
    loss = lambda a, b: float(me.reduce_sum(me.matmul(me.constant(a), me.constant(b), transpose_b=True) ** 2))  # noqa
    numeric = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        up, down = a.copy(), a.copy()
        up[i] += 1e-6
        down[i] -= 1e-6
        numeric[i] = (loss(up, b) - loss(down, b)) / 2e-6
    np.testing.assert_allclose(grad(me.constant(a), me.constant(b))[0].numpy(), numeric, rtol=1e-6)


@pytest.mark.parametrize("b, message", [
    # TF 2.21 raises InvalidArgumentError when the graph runs; here the eager op's error, with the graph node.
    (np.ones(2), r"^matmul needs tensors of rank >= 2, got shapes \(2, 2\) and \(2,\)"),
    (np.ones((3, 3)), r"^matmul: inner dimensions do not match: \(2, 2\) @ \(3, 3\) multiplies 2 columns by 3 rows"),
])
def test_matmul_shapes_that_cannot_multiply_raise_the_eager_error_when_the_graph_runs(b, message):
    f = me.function(me.matmul, input_signature=TWO_ANY_RANK)
    with pytest.raises(InvalidArgumentError, match=message + r".*\(in graph node %0 = matmul"):
        f(me.constant(np.ones((2, 2))), me.constant(b))
    with pytest.raises(InvalidArgumentError, match=message):
        me.matmul(me.constant(np.ones((2, 2))), me.constant(b))


def test_an_elementwise_gradient_to_an_unknown_rank_is_summed_when_the_graph_runs():
    # TF 2.21: x of TensorSpec(None), w of [2]: d sum(x * w)/dw for x = [[1, 2], [3, 4]] is [4 6].
    @me.function(input_signature=[me.TensorSpec(None, me.float64), me.TensorSpec([2], me.float64)])
    def grads(x, w):
        with me.GradientTape() as tape:
            tape.watch([x, w])
            y = me.reduce_sum(x * w)
        return tape.gradient(y, [x, w])
    dx, dw = grads(me.constant([[1.0, 2.0], [3.0, 4.0]], me.float64), me.constant([1.0, 5.0], me.float64))
    assert dx.numpy().tolist() == [[1.0, 5.0], [1.0, 5.0]] and dw.numpy().tolist() == [4.0, 6.0]


# TF 2.21 with TensorSpec(None), x = arange(24).reshape(2, 3, 4) - 7 (float64): every one of these has static
# shape <unknown>; reduce_sum(axis=0) starts [-2 0 2 4], reduce_max(axis=[0, -1]) is [8 12 16],
# reduce_mean(keepdims=True) [[[4.5]]], reduce_prod(axis=1) starts [21 24 15 -0]; the gradients of
# sum(f(x) ** 2) start [-4 0 4 8 12 16], [0 0 0 0 0 0], [0.375 ...], [-126 -192 -90 -0 -294 -576].
REDUCTIONS = {
    "reduce_sum": lambda x, axis, keep: me.reduce_sum(x, axis, keep),
    "reduce_max": lambda x, axis, keep: me.reduce_max(x, axis, keep),
    "reduce_min": lambda x, axis, keep: me.reduce_min(x, axis, keep),
    "reduce_prod": lambda x, axis, keep: me.reduce_prod(x, axis, keep),
    "reduce_mean": lambda x, axis, keep: me.reduce_mean(x, axis, keep),
}
X3 = me.constant(np.arange(24.0).reshape(2, 3, 4) - 7.0)


def squared_sum_gradient(fn, traced):
    def grad(x):
        with me.GradientTape() as tape:
            tape.watch(x)
            y = me.reduce_sum(fn(x) ** 2)
        return tape.gradient(y, x)
    return me.function(grad, input_signature=[me.TensorSpec(None, me.float64)]) if traced else grad


def test_reductions_over_given_axes_match_tf():
    cases = [(lambda x: me.reduce_sum(x, axis=0), [-2, 0, 2, 4], [-4, 0, 4, 8, 12, 16]),
             (lambda x: me.reduce_max(x, axis=[0, -1]), [8, 12, 16], [0, 0, 0, 0, 0, 0]),
             (lambda x: me.reduce_mean(x, keepdims=True), [4.5], [0.375] * 6),
             (lambda x: me.reduce_prod(x, axis=1), [21, 24, 15, 0], [-126, -192, -90, 0, -294, -576])]
    for fn, values, grads in cases:
        f = me.function(fn, input_signature=[me.TensorSpec(None, me.float64)])
        assert f.get_concrete_function().output_shapes.rank is None       # TF: <unknown>
        assert f(X3).numpy().ravel()[:len(values)].tolist() == values
        assert squared_sum_gradient(fn, True)(X3).numpy().ravel()[:6].tolist() == grads


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_one_trace_reduces_any_rank_over_given_axes_as_eager(name):
    traced = {}

    @settings(max_examples=20, deadline=None)
    @given(st.data())
    def check(data):
        shape = tuple(data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=4)))
        axes = data.draw(st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1, max_size=2,
                                  unique_by=lambda a: a % len(shape)))
        keep = data.draw(st.booleans())
        x = me.constant(np.random.default_rng(len(traced)).uniform(0.5, 2.0, shape))
        fn = lambda x: REDUCTIONS[name](x, axes, keep) * 1.5     # noqa: E731
        key = (tuple(axes), keep)
        f = traced.setdefault(key, (me.function(fn, input_signature=[me.TensorSpec(None, me.float64)]),
                                    squared_sum_gradient(fn, True)))
        np.testing.assert_allclose(f[0](x).numpy(), fn(x).numpy(), rtol=1e-12)
        np.testing.assert_allclose(f[1](x).numpy(), squared_sum_gradient(fn, False)(x).numpy(), rtol=1e-12)
    check()
    assert all(f.experimental_get_tracing_count() == 1 for f, _ in traced.values())


def test_reduction_gradients_over_an_unknown_rank_match_finite_differences():
    x = np.random.default_rng(7).uniform(0.5, 2.0, (2, 3))
    for name, fn in REDUCTIONS.items():
        reduce = lambda t: me.reduce_sum(fn(t, -1, True) ** 2)     # noqa: E731
        grad = squared_sum_gradient(lambda t: fn(t, -1, True), True)(me.constant(x)).numpy()
        numeric = np.zeros_like(x)
        for i in np.ndindex(x.shape):
            up, down = x.copy(), x.copy()
            up[i] += 1e-6
            down[i] -= 1e-6
            numeric[i] = (float(reduce(me.constant(up))) - float(reduce(me.constant(down)))) / 2e-6
        np.testing.assert_allclose(grad, numeric, rtol=1e-6, err_msg=name)


@pytest.mark.parametrize("fn, message", [
    # TF 2.21 raises InvalidArgumentError when the graph runs ("Invalid reduction dimension (3 for input with 3
    # dimension(s)"); here the eager op's error, with the graph node.
    (lambda x: me.reduce_sum(x, axis=3), r"^reduce_sum: axis 3 is out of range for a tensor of rank 3 "
                                         r"\(valid: -3 to 2\)\. \(in graph node %0 = reduce_at_run"),
    (lambda x: me.reduce_max(x, axis=[1, -2]), r"^reduce_max: axis \[1, -2\] names the same axis twice"),
    (lambda x: me.reduce_mean(x, axis=-4, keepdims=True), r"^reduce_mean: axis -4 is out of range"),
])
def test_a_bad_axis_of_an_unknown_rank_raises_the_eager_error_when_the_graph_runs(fn, message):
    f = me.function(fn, input_signature=[me.TensorSpec(None, me.float64)])
    with pytest.raises(InvalidArgumentError, match=message):
        f(X3)
