"""Keras APIs a TF user reaches for early (issue 20): the functional API, LayerNormalization, Embedding,
to_categorical and fit's callbacks. Each test names the Keras behaviour it follows."""
import os

import numpy as np
import pytest

import minieager as me
from minieager.testing import check_gradients


def _data(seed=0, n=32):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 4)).astype(np.float32)
    return x, (x @ np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32) + 1.0)


# ---- functional API -------------------------------------------------------------------------------------
def test_functional_model_computes_its_layers_in_order_as_in_keras():
    # Keras: Model(inputs, outputs) built from Input and layer calls; calling it runs the layers.
    me.random.set_seed(1)
    inputs = me.keras.Input(shape=(4,))
    assert inputs.shape == (None, 4) and inputs.dtype == me.float32
    dense, norm, head = me.layers.Dense(8, activation="relu"), me.layers.LayerNormalization(), me.layers.Dense(1)
    hidden = dense(inputs)
    assert not isinstance(hidden, me.Tensor) and hidden.shape == (None, 8)
    model = me.keras.Model(inputs=inputs, outputs=head(norm(hidden)))
    x, _ = _data()
    np.testing.assert_allclose(model(x).numpy(), head(norm(dense(x))).numpy(), rtol=1e-6)
    assert model.layers == [dense, norm, head]
    np.testing.assert_allclose(model(x[:1].tolist()).numpy(), model(x[:1]).numpy())    # a nested list is one input
    assert len(model.trainable_variables) == 6 and model.built


def test_functional_model_trains_with_fit_and_saves_its_weights(tmp_path):
    me.random.set_seed(2)
    inputs = me.keras.Input(shape=(4,))
    model = me.Model(inputs, me.layers.Dense(1)(me.layers.Dense(8, activation="tanh")(inputs)))
    model.compile(optimizer=me.optimizers.Adam(0.05), loss="mse")
    x, y = _data()
    history = model.fit(x, y, epochs=15, batch_size=8, verbose=0, seed=0)
    assert history.history["loss"][-1] < 0.5 * history.history["loss"][0]
    model.save_weights(str(tmp_path / "w"))
    expected = model.predict(x)
    for v in model.variables:
        v.assign(me.zeros_like(v))
    model.load_weights(str(tmp_path / "w")).assert_consumed()
    np.testing.assert_allclose(model.predict(x), expected)


def test_functional_model_with_embedding_and_lambda():
    # Keras: Input(dtype="int32") feeding an Embedding; Lambda wraps a function as a step.
    me.random.set_seed(3)
    ids = me.keras.Input(shape=(3,), dtype="int32")
    embedded = me.layers.Embedding(10, 4)(ids)
    assert embedded.shape == (None, 3, 4)
    pooled = me.layers.Lambda(lambda t: me.reduce_mean(t, axis=1))(embedded)
    model = me.Model(ids, me.layers.Dense(2)(pooled))
    out = model(me.constant([[1, 2, 3], [4, 4, 4]]))
    assert out.shape == (2, 2)
    table = model.layers[0].embeddings.numpy()
    dense = model.layers[2]
    expected = table[[4, 4, 4]].mean(axis=0) @ dense.kernel.numpy() + dense.bias.numpy()
    np.testing.assert_allclose(out.numpy()[1], expected, rtol=1e-5)


def test_a_two_input_functional_model_joined_by_a_lambda():
    # Keras: Model([a, b], out) is called with a list of inputs, in the order of its Inputs.
    me.random.set_seed(4)
    a, b = me.keras.Input(shape=(2,)), me.keras.Input(shape=(3,))
    joined = me.layers.Lambda(lambda xs: me.concat(xs, axis=-1))([a, b])
    assert joined.shape == (None, 5)
    head = me.layers.Dense(1)
    model = me.Model([a, b], head(joined))
    xa, xb = np.ones((4, 2), np.float32), np.full((4, 3), 2.0, np.float32)
    expected = np.concatenate([xa, xb], axis=1) @ head.kernel.numpy() + head.bias.numpy()
    np.testing.assert_allclose(model([xa, xb]).numpy(), expected, rtol=1e-6)
    with pytest.raises(me.errors.InvalidArgumentError, match=r"takes 2 input\(s\), got 1"):
        model(xa)


def test_ops_on_a_keras_tensor_teach_the_functional_rules():
    inputs = me.keras.Input(shape=(2,))
    with pytest.raises(TypeError, match=r"has no values.*me.layers.Lambda"):
        inputs * 2.0
    with pytest.raises(me.errors.InvalidArgumentError, match="inputs must be me.keras.Input"):
        me.Model(me.layers.Dense(1)(inputs), me.layers.Dense(1)(inputs))
    other = me.keras.Input(shape=(2,), name="other")
    with pytest.raises(me.errors.InvalidArgumentError, match="depend on the Input 'other'"):
        me.Model(inputs, me.layers.Dense(1)(other))


# ---- LayerNormalization -----------------------------------------------------------------------------------
def test_layer_normalization_matches_the_formula_as_in_keras():
    # Keras: per example, over the last axis: (x - mean) / sqrt(var + epsilon) * gamma + beta, epsilon 1e-3.
    x = np.random.default_rng(4).standard_normal((3, 5)) * 4 + 2
    layer = me.layers.LayerNormalization(dtype="float64")
    out = layer(x).numpy()
    expected = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-3)
    np.testing.assert_allclose(out, expected, rtol=1e-12)
    assert all(v.name.endswith(("/gamma:0", "/beta:0")) for v in layer.trainable_variables)


def test_layer_normalization_gradients_match_finite_differences():
    rng = np.random.default_rng(5)
    layer = me.layers.LayerNormalization(axis=[1, 2], dtype="float64")
    x = rng.standard_normal((2, 3, 4))
    layer(x)
    layer.gamma.assign(rng.standard_normal((3, 4)))
    layer.beta.assign(rng.standard_normal((3, 4)))
    check_gradients(layer, x)
    check_gradients(me.layers.LayerNormalization(axis=1, dtype="float64"), rng.standard_normal((2, 3, 2)))


def test_embedding_layer_gradient_adds_up_repeated_ids():
    layer = me.layers.Embedding(5, 2, dtype="float64")
    ids = me.constant([[1, 1, 3]])
    with me.GradientTape() as tape:
        y = me.reduce_sum(layer(ids))
    grad = tape.gradient(y, layer.embeddings)
    np.testing.assert_array_equal(grad.numpy(), [[0, 0], [2, 2], [0, 0], [1, 1], [0, 0]])


# ---- to_categorical -----------------------------------------------------------------------------------------
def test_to_categorical_as_in_keras():
    # Keras: to_categorical([[0], [2]]) drops the trailing 1-axis; num_classes defaults to max + 1; float32.
    out = me.keras.utils.to_categorical(np.array([[0], [2], [1]]))
    assert out.dtype == np.float32 and out.shape == (3, 3)
    np.testing.assert_array_equal(out, np.eye(3)[[0, 2, 1]])
    assert me.keras.utils.to_categorical([1, 0], num_classes=4, dtype="int32").tolist() == [[0, 1, 0, 0], [1, 0, 0, 0]]
    with pytest.raises(me.errors.InvalidArgumentError, match=r"class ids must be in \[0, 2\)"):
        me.keras.utils.to_categorical([0, 2], num_classes=2)


# ---- callbacks ----------------------------------------------------------------------------------------------
def _model(seed=6):
    me.random.set_seed(seed)
    model = me.Sequential([me.layers.Dense(1, input_shape=(4,))])
    model.compile(optimizer=me.optimizers.SGD(0.05), loss="mse")
    return model


def test_early_stopping_stops_after_patience_epochs_without_improvement():
    # Keras: with a learning rate of 0 the loss never improves after the first epoch; patience=2 stops at
    # epoch 3 (index 2), and restore_best_weights puts back the best epoch's weights.
    model = _model()
    model.optimizer.learning_rate = 0.0
    stop = me.keras.callbacks.EarlyStopping(monitor="loss", patience=2)
    history = model.fit(*_data(), epochs=20, verbose=0, callbacks=[stop], shuffle=False)
    assert len(history.epoch) == 3 and stop.stopped_epoch == 2 and model.stop_training


def test_early_stopping_on_val_loss_restores_the_best_weights():
    model = _model()
    x, y = _data()
    seen = []

    class Spoil(me.keras.callbacks.Callback):      # make every epoch after the 2nd worse than the 2nd
        def on_epoch_end(self, epoch, logs=None):
            seen.append([v.numpy() for v in self.model.variables])
            if epoch >= 1 and not self.model.stop_training:
                self.model.layers[0].bias.assign_add(np.array([10.0 * epoch], np.float32))

    stop = me.keras.callbacks.EarlyStopping(patience=1, restore_best_weights=True)
    history = model.fit(x, y, epochs=10, verbose=0, validation_data=(x, y), callbacks=[stop, Spoil()], shuffle=False)
    assert stop.best_epoch == 1 and len(history.epoch) == 3 and stop.stopped_epoch == 2   # patience 1: one bad epoch
    for variable, best in zip(model.variables, seen[1]):
        np.testing.assert_array_equal(variable.numpy(), best)


def test_model_checkpoint_saves_weights_by_epoch_and_only_the_best(tmp_path):
    # Keras: ModelCheckpoint(filepath with {epoch}, save_weights_only=True, save_best_only=...).
    model = _model()
    x, y = _data()
    every = me.keras.callbacks.ModelCheckpoint(str(tmp_path / "w-{epoch:02d}"), save_weights_only=True)
    best = me.keras.callbacks.ModelCheckpoint(str(tmp_path / "best"), monitor="loss", save_best_only=True,
                                              save_weights_only=True)
    model.fit(x, y, epochs=3, verbose=0, callbacks=[every, best])
    assert sorted(os.listdir(tmp_path)) == ["best.npz", "w-01.npz", "w-02.npz", "w-03.npz"]
    final = [v.numpy() for v in model.variables]
    model.load_weights(str(tmp_path / "w-01"))
    assert not np.allclose(model.variables[0].numpy(), final[0])
    model.load_weights(str(tmp_path / "best"))      # the loss fell every epoch: the best is the last
    np.testing.assert_array_equal(model.variables[0].numpy(), final[0])
    with pytest.raises(me.errors.InvalidArgumentError, match="save_weights_only=True"):
        me.keras.callbacks.ModelCheckpoint(str(tmp_path / "m"))


def test_learning_rate_scheduler_sets_the_rate_each_epoch():
    # Keras: schedule(epoch, lr) is called at the start of each epoch; the rate is logged as "learning_rate".
    model = _model()
    calls = []

    def schedule(epoch, lr):
        calls.append((epoch, lr))
        return 0.1 / (epoch + 1)

    history = model.fit(*_data(), epochs=3, verbose=0, callbacks=[me.keras.callbacks.LearningRateScheduler(schedule)])
    assert [e for e, _ in calls] == [0, 1, 2] and calls[1][1] == pytest.approx(0.1)
    assert history.history["learning_rate"] == pytest.approx([0.1, 0.05, 0.1 / 3])
    assert model.optimizer.learning_rate == pytest.approx(0.1 / 3)


def test_tensorboard_callback_writes_epoch_scalars(tmp_path):
    # Keras: TensorBoard(log_dir) writes "epoch_loss" per epoch under log_dir/train and log_dir/validation.
    model = _model()
    x, y = _data()
    history = model.fit(x, y, epochs=2, verbose=0, validation_data=(x, y),
                        callbacks=[me.keras.callbacks.TensorBoard(log_dir=str(tmp_path))])
    scalars = me.summary.read_scalars(str(tmp_path))
    steps, values = scalars["epoch_loss"]["train"]
    assert list(steps) == [0, 1]
    np.testing.assert_allclose(values, history.history["loss"], rtol=1e-6)
    np.testing.assert_allclose(scalars["epoch_loss"]["validation"][1], history.history["val_loss"], rtol=1e-6)


def test_fit_rejects_what_is_not_a_callback():
    with pytest.raises(me.errors.InvalidArgumentError, match="callbacks must be"):
        _model().fit(*_data(), epochs=1, verbose=0, callbacks=[print])
