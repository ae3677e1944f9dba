"""The passes inside ``me.function``: what runs is optimised, and it computes what eager code does."""
import numpy as np
import pytest

import minieager as me
from minieager.graph.passes import fusion
from minieager.graph.passes import FusedOp


@pytest.fixture(autouse=True, scope="module")
def fuse_small_graphs():
    """Fuse the small tensors these tests use (normally only groups of SMALL_SIZE elements and up)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fusion, "MIN_SIZE", 1)
        yield


def expression(x, w, b):
    return me.tanh(x * w + b) * 0.5 + x


def test_function_runs_the_fused_graph_and_optimize_false_the_traced_one():
    x = me.constant(np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4))
    w, b = me.constant(0.7), me.constant(np.arange(4, dtype=np.float32))
    fast, plain = me.function(expression), me.function(expression, optimize=False)
    concrete = fast.get_concrete_function(x, w, b)
    (fused,) = [n for n in concrete.run_graph.nodes if n.kind == "call"]
    assert isinstance(fused.op, FusedOp) and len(fused.op.members) == 5
    assert [n.op.name for n in concrete.graph.nodes if n.kind == "call"] == ["multiply", "add", "tanh", "multiply",
                                                                             "add"]
    assert concrete.fused_kernels[0].source == fused.op.source
    assert [r.name for r in concrete.pass_reports][-1] == "elementwise fusion"
    unoptimised = plain.get_concrete_function(x, w, b)
    assert unoptimised.run_graph is unoptimised.graph and unoptimised.fused_kernels == []
    expected = expression(x, w, b).numpy()
    np.testing.assert_allclose(fast(x, w, b).numpy(), expected, rtol=2e-6)
    np.testing.assert_allclose(plain(x, w, b).numpy(), expected, rtol=2e-6)


def test_gradients_through_a_fused_function_equal_eager_to_second_order():
    rng = np.random.default_rng(3)
    x = me.Variable(rng.standard_normal((2, 3)))
    w, b = me.constant(0.7, me.float64), me.constant(rng.standard_normal(3))
    fast = me.function(expression)

    def derivatives(f):
        with me.GradientTape() as outer:
            with me.GradientTape() as inner:
                y = me.reduce_sum(f(x, w, b))
            dx = inner.gradient(y, x)
            total = me.reduce_sum(dx)
        return dx.numpy(), outer.gradient(total, x).numpy()
    for got, expected in zip(derivatives(fast), derivatives(expression)):
        np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_mlp_train_step_in_function_equals_eager():
    rng = np.random.default_rng(4)
    x = me.constant(rng.standard_normal((8, 20)).astype(np.float32))
    y = me.constant(rng.integers(0, 5, 8))

    def make():
        me.random.set_seed(7)
        model = me.Sequential([me.layers.Dense(16, activation="tanh", input_shape=(20,)), me.layers.Dense(5)])
        optimizer = me.optimizers.SGD(0.1)

        def step(x, y):
            with me.GradientTape() as tape:
                loss = me.losses.sparse_softmax_cross_entropy(y, model(x, training=True))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            return loss
        return model, step
    (eager_model, eager_step), (graph_model, graph_step) = make(), make()
    graph_step = me.function(graph_step)
    for _ in range(5):
        np.testing.assert_allclose(graph_step(x, y).numpy(), eager_step(x, y).numpy(), rtol=1e-6)
    for a, b in zip(graph_model.trainable_variables, eager_model.trainable_variables):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7)
