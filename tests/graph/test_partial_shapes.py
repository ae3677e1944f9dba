"""Unknown dimensions (None) in graph mode, and signatures and passes that compare values by their bits."""
import numpy as np
import pytest

import minieager as me
from minieager.errors import InvalidArgumentError


def test_tf1_placeholder_with_an_unknown_batch_takes_any_batch_size():
    # The most famous line of TF 1: x = tf.compat.v1.placeholder(tf.float32, [None, 784]).
    with me.compat.v1.Graph().as_default():
        x = me.compat.v1.placeholder(me.float32, [None, 784])
        w_value = np.random.default_rng(0).normal(0, 0.05, (784, 10)).astype(np.float32)
        w = me.constant(w_value)
        y = me.nn.softmax(x @ w)
        assert x.shape == (None, 784) and y.shape.as_list() == [None, 10]
        assert "float32[?,10]" in repr(y)
        with me.compat.v1.Session() as sess:
            for batch in (1, 7, 32):
                data = np.random.default_rng(batch).random((batch, 784), dtype=np.float32)
                out = sess.run(y, feed_dict={x: data})
                logits = data.astype(np.float64) @ w_value       # (me ops here would be recorded, not run)
                expected = np.exp(logits - logits.max(1, keepdims=True))
                np.testing.assert_allclose(out, expected / expected.sum(1, keepdims=True), rtol=1e-5)
            with pytest.raises(InvalidArgumentError, match="has shape \\(None, 784\\).*fed has shape \\(2, 3\\)"):
                sess.run(y, feed_dict={x: np.ones((2, 3), np.float32)})


def test_input_signature_with_none_traces_once_for_every_length():
    shapes = []

    @me.function(input_signature=[me.TensorSpec([None], me.float32)])
    def mean_twice(x):
        shapes.append(x.shape)                       # as tf.function: TensorShape([None])
        return me.reduce_mean(x * 2.0)
    for n in (3, 5, 1, 8):
        x = me.constant(np.arange(n, dtype=np.float32))
        np.testing.assert_allclose(mean_twice(x).numpy(), me.reduce_mean(x * 2.0).numpy())
    assert mean_twice.experimental_get_tracing_count() == 1 and shapes == [(None,)]
    assert shapes[0].as_list() == [None] and shapes[0].num_elements() is None
    listing = str(mean_twice.get_concrete_function().graph)
    assert listing.startswith("def mean_twice(x: float32[?]):")
    with pytest.raises(InvalidArgumentError, match="must have shape \\(None,\\)"):
        mean_twice(me.ones((2, 2)))


def test_reduce_retracing_relaxes_a_changed_dimension_as_tf_does():
    # tf.function(reduce_retracing=True) traced (3,), then (None,), then an unknown rank: 3 traces.
    shapes = []

    @me.function(reduce_retracing=True)
    def f(x):
        shapes.append(x.shape)
        return x + 1.0
    for shape in ([3], [4], [5], [2, 3], [2, 4], [3, 4]):
        np.testing.assert_allclose(f(me.ones(shape)).numpy(), np.full(shape, 2.0))
    assert [str(s) for s in shapes] == ["(3,)", "(None,)", "<unknown>"]
    assert f.experimental_get_tracing_count() == 3


def test_a_training_step_with_an_unknown_batch_gives_eager_values_and_gradients():
    rng = np.random.default_rng(0)
    w = me.Variable(rng.normal(size=(4, 3)).astype(np.float32))
    b = me.Variable(np.zeros(3, np.float32))

    def loss_and_grads(x, y):
        with me.GradientTape() as tape:
            logits = me.nn.relu(x @ w + b)
            loss = me.reduce_mean(me.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        return loss, tape.gradient(loss, [w, b])
    step = me.function(loss_and_grads, input_signature=[me.TensorSpec([None, 4], me.float32),
                                                        me.TensorSpec([None], me.int32)])
    for batch in (2, 5, 16):
        x, y = me.constant(rng.random((batch, 4), dtype=np.float32)), me.constant(np.arange(batch) % 3, me.int32)
        traced, eager = step(x, y), loss_and_grads(x, y)
        np.testing.assert_allclose(traced[0].numpy(), eager[0].numpy(), rtol=1e-6)
        for g, e in zip(traced[1], eager[1]):
            np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-5, atol=1e-7)
    assert step.experimental_get_tracing_count() == 1
    assert "float32[?,3] = matmul(x, " in str(step.get_concrete_function().graph)


def test_shape_inside_a_trace_and_a_concrete_function_with_unknown_dims():
    @me.function(input_signature=[me.TensorSpec([None, 2], me.float32)])
    def f(x):
        assert x.shape == (None, 2) and x.shape.rank == 2 and not x.shape.is_fully_defined()
        return me.reshape(x, [-1]) * 2.0
    concrete = f.get_concrete_function()
    np.testing.assert_allclose(concrete(me.ones((3, 2))).numpy(), np.full(6, 2.0))
    with pytest.raises(InvalidArgumentError, match="must be float32\\[\\?,2\\]"):
        concrete(me.ones((3, 3)))


def test_shape_and_size_of_an_unknown_batch_are_computed_when_the_graph_runs():
    f = me.function(lambda x: (me.shape(x), me.size(x), me.shape(x)[0] * 2),
                    input_signature=[me.TensorSpec([None, 3], me.float32)])
    for batch in (1, 4):
        shape, size, double = f(me.ones((batch, 3)))
        assert shape.numpy().tolist() == [batch, 3] and size.numpy() == 3 * batch and double.numpy() == 2 * batch
        assert shape.dtype == me.int32 and size.dtype == me.int32


def test_basic_indexing_of_unknown_dimensions_is_checked_when_the_graph_runs():
    @me.function(input_signature=[me.TensorSpec([None, None, 4])])
    def pick(x):
        return x[0], x[:, 1], x[-1, :, 2:]

    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for got, want in zip(pick(me.constant(x)), (x[0], x[:, 1], x[-1, :, 2:])):
        np.testing.assert_array_equal(got.numpy(), want)
    assert "float32[?,4] = getitem(x) {index=(0,)}" in str(pick.get_concrete_function().graph)
    eager = "getitem: index 0 is out of bounds for axis 0 with size 0 (tensor shape (0, 3, 4))."
    with pytest.raises(InvalidArgumentError) as info:
        me.zeros([0, 3, 4])[0]
    assert str(info.value) == eager
    with pytest.raises(InvalidArgumentError) as info:            # the eager error, and the node it came from
        pick(me.zeros([0, 3, 4]))
    assert str(info.value).startswith(eager + " (in graph node")
    known = me.function(lambda x: x[:, :, 4], input_signature=[me.TensorSpec([None, None, 4])])
    with pytest.raises(InvalidArgumentError, match=r"getitem: index 4 is out of bounds for axis 2 with size 4"):
        known.get_concrete_function()            # a dimension known while tracing is checked then


def test_signature_keys_floats_by_bits_and_nan_as_one_value():
    f = me.function(lambda x, c: x / c)
    x = me.constant([1.0, -1.0])
    np.testing.assert_array_equal(f(x, 0.0).numpy(), [np.inf, -np.inf])
    np.testing.assert_array_equal(f(x, -0.0).numpy(), (x / -0.0).numpy())    # -inf, inf, as eager
    for _ in range(4):
        assert np.isnan(f(x, float("nan")).numpy()).all()
    assert f.experimental_get_tracing_count() == 3                           # 0.0, -0.0 and one nan


def test_cse_compares_attributes_by_their_bits():
    def both(x):
        return me.nn.leaky_relu(x, alpha=0.0), me.nn.leaky_relu(x, alpha=-0.0)
    x = me.constant([-2.0, 3.0])
    traced = me.function(both)
    for got, want in zip(traced(x), both(x)):
        np.testing.assert_array_equal(got.numpy().view(np.int32), want.numpy().view(np.int32))
    report = {r.name: r for r in traced.get_concrete_function(x).pass_reports}
    assert report["common-subexpression elimination"].merged == {}


def test_fused_kernels_take_their_sizes_when_the_graph_runs():
    bias = me.constant(np.linspace(-1, 1, 64).astype(np.float32))

    def chain(x):     # exactly rounded ops (NumPy's tanh, which eager uses on small arrays, rounds otherwise)
        return me.maximum(x * 1.5 + bias, 0.0) * 0.5 + x     # bias: a row; 1.5, 0.5: scalars
    traced = me.function(chain, input_signature=[me.TensorSpec([None, 64], me.float32)])
    run_graph = str(traced.get_concrete_function().run_graph)
    assert "%fused0 : float32[?,64] = fused(" in run_graph
    for batch in (100, 7, 300):                            # below and above fusion's minimum size
        x = me.constant(np.random.default_rng(batch).normal(size=(batch, 64)).astype(np.float32))
        np.testing.assert_array_equal(traced(x).numpy(), chain(x).numpy())
    assert traced.experimental_get_tracing_count() == 1


def test_the_graph_drawing_shows_unknown_dimensions_as_question_marks():
    traced = me.function(lambda x: x * 2.0, input_signature=[me.TensorSpec([None, 784], me.float32)])
    svg = traced.get_concrete_function().graph.draw().to_svg()
    assert "?×784 · float32" in svg and "None×" not in svg and "×784 · float32" not in svg.replace("?×784", "")


# ---- a tape inside a function of unknown sizes (its first gradient is ones_like(target)) ----------------
@pytest.mark.parametrize("shape", [[None], None])
def test_a_tape_inside_a_function_with_unknown_sizes_or_rank(shape):
    """TF 2.21: the same function on [2., 1.] returns [4., 2.] for TensorSpec([None]) and TensorSpec(None)."""
    @me.function(input_signature=[me.TensorSpec(shape)])
    def grad_of_square(x):
        with me.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        return tape.gradient(y, x)

    np.testing.assert_array_equal(grad_of_square(me.constant([2.0, 1.0])).numpy(), [4.0, 2.0])
    np.testing.assert_array_equal(grad_of_square(me.constant([3.0, 1.0, -1.0])).numpy(), [6.0, 2.0, -2.0])
    assert len(grad_of_square._concrete) == 1


def test_ones_like_and_zeros_like_of_unknown_sizes_are_made_when_the_graph_runs():
    @me.function(input_signature=[me.TensorSpec(None, me.int32)])
    def ones_and_zeros(x):
        return me.ones_like(x), me.zeros_like(x, dtype=me.float32)

    ones, zeros = ones_and_zeros(me.constant([[1, 2, 3], [4, 5, 6]]))
    assert ones.dtype == me.int32 and ones.numpy().tolist() == [[1, 1, 1], [1, 1, 1]]
    assert zeros.dtype == me.float32 and zeros.numpy().tolist() == [[0.0] * 3] * 2


def test_a_custom_gradient_inside_a_function_of_unknown_length():
    """TF 2.21: clip_gradients(x * x) (the advanced-autodiff guide's) on [2., 1.] gives [1.4142135, 0.70710677]."""
    @me.custom_gradient
    def clip_gradients(y):
        return y, lambda dy: me.clip_by_norm(dy, 0.5)

    @me.function(input_signature=[me.TensorSpec([None])])
    def f(x):
        with me.GradientTape() as tape:
            tape.watch(x)
            y = clip_gradients(x * x)
        return tape.gradient(y, x)

    np.testing.assert_allclose(f(me.constant([2.0, 1.0])).numpy(), [1.4142135, 0.70710677], rtol=1e-6)
