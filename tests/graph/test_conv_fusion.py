"""Graph mode's convolution epilogue: conv2d + bias_add (+ relu) as one fused_conv2d call.

The fused kernel must give the three eager ops' numbers to the bit (it adds the bias and applies
relu with the same formulas, per chunk of the convolution's output), its gradient must match
finite differences, and the pass must fuse only where nothing else needs the intermediate values.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import minieager as me
from minieager.graph.passes import conv_epilogue_fusion
from minieager.ops.nn import fused_conv2d
from minieager.testing import check_gradients

from .test_training import make_step   # the training step both files trace


def eager_chain(x, w, b, strides, padding, relu):
    y = me.nn.bias_add(me.nn.conv2d(x, w, strides, padding), b)
    return me.nn.relu(y) if relu else y


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_fused_conv2d_gives_the_three_ops_numbers_to_the_bit(data):
    """Few channels (the transposed patch layout) and many, both paddings, strides, batches that
    span several chunks of the kernel's loop, float32 and float64, and a nan that relu keeps."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    dtype = data.draw(st.sampled_from([np.float32, np.float64]))
    batch, size = data.draw(st.sampled_from([1, 3, 40])), data.draw(st.integers(3, 9))
    channels, filters = data.draw(st.sampled_from([1, 3, 8])), data.draw(st.integers(1, 6))
    k = data.draw(st.integers(1, 3))
    strides = (data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2)))
    padding, relu = data.draw(st.sampled_from(["VALID", "SAME"])), data.draw(st.booleans())
    x = rng.standard_normal((batch, size, size, channels)).astype(dtype)
    x[0, 0, 0, 0] = np.nan
    w = rng.standard_normal((k, k, channels, filters)).astype(dtype)
    b = rng.standard_normal(filters).astype(dtype)
    x, w, b = me.constant(x), me.constant(w), me.constant(b)
    want = eager_chain(x, w, b, strides, padding, relu).numpy()
    got = fused_conv2d(x, w, b, strides=strides, padding=padding, activation="relu" if relu else None).numpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"))


@pytest.mark.parametrize("activation", ["relu", None])
@pytest.mark.parametrize("padding, strides", [("VALID", (1, 1)), ("SAME", (2, 1))])
def test_fused_conv2d_gradients_match_finite_differences(activation, padding, strides):
    """Its VJP (used by a tape around a me.function call) in float64; inputs away from relu's kink."""
    rng = np.random.default_rng(7)
    x, w, b = rng.standard_normal((2, 5, 5, 2)), rng.standard_normal((3, 3, 2, 3)), rng.uniform(0.5, 1.0, 3)
    f = lambda x, w, b: fused_conv2d(x, w, b, strides=strides, padding=padding, activation=activation)  # noqa: E731
    pre = me.nn.bias_add(me.nn.conv2d(me.constant(x), me.constant(w), strides, padding), me.constant(b)).numpy()
    assert np.abs(pre).min() > 1e-3   # no output on relu's kink, where finite differences see a corner
    results = check_gradients(f, x, w, b)
    assert [r.ok for r in results] == [True, True, True], results


def guide_cnn():
    me.random.set_seed(3)
    return me.Sequential([me.layers.Conv2D(8, 3, activation="relu", input_shape=(10, 10, 1)),
                          me.layers.Conv2D(8, 3, activation="relu"),
                          me.layers.GlobalAveragePooling2D(), me.layers.Dense(4)])


def test_a_traced_cnn_step_fuses_each_layer_and_trains_as_eager_code_does():
    rng = np.random.default_rng(0)
    x, y = me.constant(rng.standard_normal((16, 10, 10, 1)).astype(np.float32)), me.constant(rng.integers(0, 4, 16))
    eager_model, traced_model = guide_cnn(), guide_cnn()
    eager_step = make_step(eager_model, me.optimizers.Adam())
    traced_step = me.function(make_step(traced_model, me.optimizers.Adam()))
    concrete = traced_step.get_concrete_function(x, y)
    fused = [node for node in concrete.run_graph.nodes if node.kind == "call" and node.op.name == "fused_conv2d"]
    assert [node.attrs["activation"] for node in fused] == ["relu", "relu"]
    names = {node.op.name for node in concrete.run_graph.nodes if node.kind == "call"}
    assert "conv2d" not in names and "relu" not in names
    report = next(r for r in concrete.pass_reports if r.name == "convolution epilogue fusion")
    assert [len(members) for members in report.fused.values()] == [3, 3]
    for _ in range(3):
        np.testing.assert_allclose(traced_step(x, y).numpy(), eager_step(x, y).numpy(), rtol=1e-5)
    for a, b in zip(eager_model.trainable_variables, traced_model.trainable_variables):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-6)


def traced(f, *args):
    return me.function(f).get_concrete_function(*args)


def ops_of(concrete):
    return [node.op.name for node in concrete.run_graph.nodes if node.kind == "call"]


X = me.constant(np.random.default_rng(1).standard_normal((2, 6, 6, 3)).astype(np.float32))
W = me.constant(np.random.default_rng(2).standard_normal((3, 3, 3, 4)).astype(np.float32))
B = me.constant(np.arange(4, dtype=np.float32))


def test_bias_add_alone_fuses_without_an_activation():
    concrete = traced(lambda x: me.nn.bias_add(me.nn.conv2d(x, W, 1, "SAME"), B), X)
    assert ops_of(concrete) == ["fused_conv2d"]
    assert concrete.run_graph.nodes[-1].attrs["activation"] is None


@pytest.mark.parametrize("f, left", [
    # the convolution's value is returned as well: it must exist, so nothing is fused
    (lambda x: (me.nn.conv2d(x, W, 1, "VALID"), me.nn.bias_add(me.nn.conv2d(x, W, 1, "VALID"), B)),
     ["conv2d", "bias_add"]),
    # a second user of the convolution
    (lambda x: me.nn.bias_add(me.nn.conv2d(x, W, 1, "VALID"), B) * me.nn.conv2d(x, W, 1, "VALID"),
     ["conv2d", "bias_add", "multiply"]),
    # the bias_add's value is used beside the relu: conv and bias fuse, relu stays
    (lambda x: me.nn.relu(me.nn.bias_add(me.nn.conv2d(x, W, 1, "VALID"), B)) + me.nn.bias_add(
        me.nn.conv2d(x, W, 1, "VALID"), B), ["fused_conv2d", "relu", "add"]),
    # an activation other than relu stays an op of its own
    (lambda x: me.tanh(me.nn.bias_add(me.nn.conv2d(x, W, 1, "VALID"), B)), ["fused_conv2d", "tanh"]),
])
def test_fusion_only_where_the_intermediate_values_are_not_needed(f, left):
    assert ops_of(traced(f, X)) == left


def test_float16_convolutions_are_left_as_three_ops():
    """float16 rounds after each eager op; one pass could not repeat those roundings."""
    x16, w16, b16 = (me.cast(t, me.float16) for t in (X, W, B))
    chain = lambda x: me.nn.relu(me.nn.bias_add(me.nn.conv2d(x, w16, 1, "VALID"), b16))  # noqa: E731
    assert ops_of(traced(chain, x16)) == ["conv2d", "bias_add", "relu"]


def test_the_pass_reports_what_it_fused_and_leaves_its_input_graph_alone():
    concrete = traced(lambda x: me.nn.relu(me.nn.bias_add(me.nn.conv2d(x, W, 1, "VALID"), B)), X)
    before = concrete.graph
    listing = str(before)
    after, report = conv_epilogue_fusion.with_report(before)
    assert str(before) == listing
    assert ops_of_graph(after) == ["fused_conv2d"]
    (name, members), = report.fused.items()
    assert [before_node.op.name for before_node in before.nodes if before_node.name in members] == [
        "conv2d", "bias_add", "relu"]
    assert "convolution epilogue fusion" in report.summary() and name in report.summary()


def ops_of_graph(graph):
    return [node.op.name for node in graph.nodes if node.kind == "call"]
