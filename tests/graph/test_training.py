"""A whole training step (tape, gradients, optimizer update) traced into one graph equals the eager step."""
import numpy as np
import pytest

import minieager as me


def mlp():
    return me.Sequential([me.layers.Dense(32, activation="relu", input_shape=(784,)), me.layers.Dense(10)])


def guide_cnn():
    return me.Sequential([me.layers.Conv2D(16, 3, activation="relu", input_shape=(28, 28, 1)),
                          me.layers.Conv2D(16, 3, activation="relu"),
                          me.layers.GlobalAveragePooling2D(), me.layers.Dense(10)])


def make_step(model, optimizer):
    def step(x, y):
        with me.GradientTape() as tape:
            loss = me.losses.sparse_softmax_cross_entropy(y, model(x, training=True))
        variables = model.trainable_variables
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss
    return step


@pytest.mark.parametrize("build, optimizer, shape", [
    (mlp, lambda: me.optimizers.SGD(0.1), (784,)),
    (guide_cnn, lambda: me.optimizers.Adam(), (28, 28, 1)),
], ids=["mlp-sgd", "guide-cnn-adam"])
def test_traced_step_equals_eager_over_20_steps(build, optimizer, shape):
    rng = np.random.default_rng(0)
    models, steps = [], []
    for traced in (False, True):
        me.random.set_seed(7)
        model, opt = build(), optimizer()
        step = make_step(model, opt)
        models.append((model, opt))
        steps.append(me.function(step) if traced else step)
    for i in range(20):
        x = me.constant(rng.standard_normal((4,) + shape).astype(np.float32))
        y = me.constant(rng.integers(0, 10, 4))
        eager_loss, graph_loss = steps[0](x, y), steps[1](x, y)
        np.testing.assert_allclose(graph_loss.numpy(), eager_loss.numpy(), atol=1e-6)
    (m1, o1), (m2, o2) = models
    for a, b in zip(m1.variables + o1.variables(), m2.variables + o2.variables()):
        np.testing.assert_allclose(b.numpy(), a.numpy(), atol=1e-6, err_msg=a.name)
    assert steps[1].experimental_get_tracing_count() == 1 and int(o2.iterations.numpy()) == 20


def test_the_step_is_one_graph_with_one_update_effect():
    model, opt = mlp(), me.optimizers.SGD(0.1)
    step = me.function(make_step(model, opt))
    graph = step.get_concrete_function(me.ones((4, 784)), me.constant([1, 2, 3, 4])).graph
    effects = [n for n in graph.nodes if n.effect]
    assert [n.op.name for n in effects] == ["apply_gradients"]
    assert {n.value.name for n in graph.nodes if n.kind == "variable"} == {v.name for v in model.trainable_variables}
    assert any(n.op.name == "relu_grad" for n in graph.nodes if n.kind == "call")   # the backward is in the graph
    assert int(opt.iterations.numpy()) == 0                                        # tracing updated nothing


def test_a_model_built_inside_the_first_trace_has_the_eager_initial_weights():
    me.random.set_seed(3)
    traced_model = me.Sequential([me.layers.Dense(4, activation="relu"), me.layers.Dense(2)])
    out = me.function(lambda x: traced_model(x))(me.ones((3, 5)))    # builds the weights while tracing
    me.random.set_seed(3)
    eager_model = me.Sequential([me.layers.Dense(4, activation="relu"), me.layers.Dense(2)])
    np.testing.assert_allclose(out.numpy(), eager_model(me.ones((3, 5))).numpy(), rtol=1e-6)
    for a, b in zip(traced_model.variables, eager_model.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    # A function that makes a Variable on every call is refused, as tf.function refuses it.
    with pytest.raises(ValueError, match="only supports variables created once, on the first call"):
        me.function(lambda: me.Variable(lambda: me.random.normal([2])).read_value())()
