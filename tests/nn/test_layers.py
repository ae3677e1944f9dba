"""Built-in layers against NumPy references, build-once semantics, gradient checks, bad inputs."""
import numpy as np
import pytest

import minieager as me
from minieager.errors import InvalidArgumentError

rng = np.random.default_rng(0)


def arr(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def test_dense_matches_numpy_and_builds_once():
    layer = me.layers.Dense(3, activation="relu")
    x = arr(4, 5)
    out = layer(x)
    kernel, bias = layer.kernel.numpy(), layer.bias.numpy()
    np.testing.assert_allclose(out.numpy(), np.maximum(x @ kernel + bias, 0), rtol=1e-5, atol=1e-6)
    assert layer.built and kernel.shape == (5, 3) and bias.shape == (3,)
    layer(x)
    assert len(layer.variables) == 2 and layer.kernel is layer.variables[0]
    assert layer.kernel.name == "dense/kernel:0"


def test_dense_on_rank_3_inputs_uses_the_last_axis():
    layer = me.layers.Dense(2)
    x = arr(2, 3, 4)
    np.testing.assert_allclose(layer(x).numpy(), x @ layer.kernel.numpy() + layer.bias.numpy(), rtol=1e-5, atol=1e-6)


def test_layer_names_are_unique_per_class():
    names = [me.layers.Dense(1).name, me.layers.Dense(1).name, me.layers.Conv2D(1, 3).name,
             me.layers.GlobalAveragePooling2D().name]
    assert names == ["dense", "dense_1", "conv2d", "global_average_pooling2d"]


def test_conv2d_is_conv2d_plus_bias():
    x = arr(2, 6, 6, 3)
    for padding, strides in [("valid", 1), ("same", 2)]:
        layer = me.layers.Conv2D(4, (3, 3), strides=strides, padding=padding, activation="tanh")
        out = layer(x)
        expected = np.tanh(me.conv2d(x, layer.kernel, strides=strides, padding=padding).numpy() + layer.bias.numpy())
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-6)
        assert tuple(layer.compute_output_shape((2, 6, 6, 3))) == tuple(out.shape)


def _pool_reference(x, size, reduce):
    n, h, w, c = x.shape
    windows = x[:, :h // size * size, :w // size * size].reshape(n, h // size, size, w // size, size, c)
    return reduce(windows, axis=(2, 4))


def test_pools_gap_and_flatten():
    x = arr(2, 4, 6, 3)
    np.testing.assert_allclose(me.layers.MaxPool2D()(x).numpy(), _pool_reference(x, 2, np.max))
    np.testing.assert_allclose(me.layers.AveragePooling2D()(x).numpy(), _pool_reference(x, 2, np.mean), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(me.layers.GlobalAveragePooling2D()(x).numpy(), x.mean(axis=(1, 2)), rtol=1e-5)
    assert me.layers.Flatten()(x).shape == (2, 72)
    assert tuple(me.layers.MaxPool2D(3, strides=1).compute_output_shape((None, 4, 6, 3))) == (None, 2, 4, 3)


def test_dropout_only_when_training_and_seeded():
    x = np.ones((100, 50), np.float32)
    layer = me.layers.Dropout(0.4, seed=1)
    assert layer(x).numpy().tolist() == x.tolist()
    assert layer(x, training=False).numpy().tolist() == x.tolist()
    out = layer(x, training=True).numpy()
    assert set(np.unique(out)) <= {0.0, np.float32(1 / 0.6)}
    assert 0.35 < (out == 0).mean() < 0.45
    me.random.set_seed(0)
    again = me.layers.Dropout(0.4, seed=1)(x, training=True).numpy()
    np.testing.assert_array_equal(out, again)


def test_training_flag_reaches_sublayers_of_a_sequential():
    model = me.Sequential([me.layers.Dense(20), me.layers.Dropout(0.5)])
    x = np.ones((8, 4), np.float32)
    np.testing.assert_array_equal(model(x).numpy(), model(x, training=False).numpy())
    assert (model(x, training=True).numpy() == 0).any()


def test_batch_normalization_training_and_inference():
    x = arr(16, 3) * 2 + 5
    bn = me.layers.BatchNormalization(momentum=0.9)
    out = bn(x, training=True).numpy()
    mean, var = x.mean(0), x.var(0)
    np.testing.assert_allclose(out, (x - mean) / np.sqrt(var + 1e-3), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.1 * mean, rtol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.numpy(), 0.9 + 0.1 * var, rtol=1e-5)
    infer = bn(x, training=False).numpy()
    np.testing.assert_allclose(infer, (x - 0.1 * mean) / np.sqrt(0.9 + 0.1 * var + 1e-3), rtol=1e-4, atol=1e-4)
    assert [v.name for v in bn.trainable_variables] == ["batch_normalization/gamma:0", "batch_normalization/beta:0"]
    assert len(bn.non_trainable_variables) == 2


def test_batch_normalization_on_images_normalises_each_channel():
    x = arr(4, 3, 3, 2) + np.array([1.0, -2.0], np.float32)
    out = me.layers.BatchNormalization()(x, training=True).numpy()
    np.testing.assert_allclose(out.mean(axis=(0, 1, 2)), 0, atol=1e-5)


def test_embedding_and_activation():
    emb = me.layers.Embedding(10, 3)
    ids = np.array([[1, 2], [9, 1]])
    np.testing.assert_array_equal(emb(ids).numpy(), emb.embeddings.numpy()[ids])
    np.testing.assert_allclose(me.layers.Activation("softmax")(np.zeros((1, 4), np.float32)).numpy(), 0.25)
    np.testing.assert_allclose(me.layers.Activation("sigmoid")(np.zeros((1, 2), np.float32)).numpy(), 0.5)


def test_layers_record_their_bias_as_bias_add():
    dense, conv = me.layers.Dense(3), me.layers.Conv2D(2, 3)
    with me.GradientTape() as tape:
        dense(me.ones([2, 4]))
        conv(me.ones([1, 5, 5, 1]))
    assert [r.op_name for r in tape.records] == ["matmul", "bias_add", "conv2d", "bias_add"]


def test_layer_call_records_on_a_tape_with_its_scope():
    layer = me.layers.Dense(2, name="head")
    x = me.constant(arr(3, 4))
    with me.GradientTape() as tape:
        tape.watch(x)
        y = layer(x)
    assert {r.scope for r in tape.records} == {"head"}
    grads = tape.gradient(y, [x, layer.kernel, layer.bias])
    np.testing.assert_allclose(grads[2].numpy(), [3, 3])


@pytest.mark.parametrize("make, shape, kwargs", [
    (lambda: me.layers.Dense(3, activation="tanh", dtype="float64"), (2, 4), {}),
    (lambda: me.layers.Conv2D(2, 2, padding="same", dtype="float64"), (1, 3, 3, 2), {}),
    (lambda: me.layers.BatchNormalization(dtype="float64"), (5, 3), {"training": True}),
])
def test_layer_gradients_with_respect_to_inputs(make, shape, kwargs):
    layer = make()
    me.testing.check_gradients(lambda x: layer(x, **kwargs), rng.standard_normal(shape))


def test_wrong_feature_size_names_the_layer_and_shapes():
    layer = me.layers.Dense(2)
    layer(np.zeros((1, 4), np.float32))
    with pytest.raises(InvalidArgumentError, match=r'Layer "dense" \(Dense\).*\(\.\.\., 4\).*\(1, 5\)'):
        layer(np.zeros((1, 5), np.float32))


def test_wrong_rank_names_the_layer_and_shapes():
    with pytest.raises(InvalidArgumentError, match=r'Layer "conv2d" \(Conv2D\) expects inputs of rank 4.*got shape \(8, 8, 1\)'):
        me.layers.Conv2D(2, 3)(np.zeros((8, 8, 1), np.float32))
    with pytest.raises(InvalidArgumentError, match=r'Layer "dense" \(Dense\) expects inputs of rank >= 2'):
        me.layers.Dense(2)(np.zeros((4,), np.float32))


def test_unknown_activation_and_unexpected_keyword():
    with pytest.raises(InvalidArgumentError, match="Unknown activation 'hard_sigmoid'"):
        me.layers.Dense(1, activation="hard_sigmoid")
    with pytest.raises(TypeError, match="unexpected keyword arguments: units2"):
        me.layers.Dense(1, units2=3)
