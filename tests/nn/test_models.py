"""Model / Sequential: tracking, variable sharing, summary, and the Keras-style fit/evaluate/predict."""
import re

import matplotlib
import numpy as np
import pytest

import minieager as me

matplotlib.use("Agg")


class MNISTModel(me.keras.Model):
    """The guide's model: dense2 is called twice and so shares its variables."""

    def __init__(self):
        super().__init__()
        self.dense1 = me.keras.layers.Dense(units=10)
        self.dense2 = me.keras.layers.Dense(units=10)

    def call(self, input):
        return self.dense2(self.dense2(self.dense1(input)))


def test_a_layer_called_twice_shares_its_variables():
    model = MNISTModel()
    out = model(me.zeros([1, 1, 784]))
    assert out.shape == (1, 1, 10)
    assert [v.name for v in model.variables] == ["dense/kernel:0", "dense/bias:0", "dense_1/kernel:0", "dense_1/bias:0"]
    assert model.layers == [model.dense1, model.dense2]
    with me.GradientTape() as tape:
        loss = me.reduce_sum(model(np.ones((2, 784), np.float32)))
    grads = tape.gradient(loss, model.trainable_variables)
    assert all(g is not None for g in grads)


SUMMARY = '''\
Model: "sequential"
_________________________________________________________________
 Layer (type)                Output Shape              Param #
=================================================================
 dense (Dense)               (None, 10)                7850
 dense_1 (Dense)             (None, 10)                110
=================================================================
Total params: 7,960
Trainable params: 7,960
Non-trainable params: 0
_________________________________________________________________'''


def test_sequential_with_input_shape_builds_at_once_and_summarises(capsys):
    model = me.keras.Sequential([me.keras.layers.Dense(10, input_shape=(784,)), me.keras.layers.Dense(10)])
    assert model.built and len(model.variables) == 4
    model.summary()
    assert capsys.readouterr().out.rstrip("\n") == SUMMARY


def test_summary_of_a_cnn_and_of_batch_norm(capsys):
    model = me.Sequential([me.layers.Conv2D(16, [3, 3], activation="relu", input_shape=(28, 28, 1)),
                           me.layers.BatchNormalization(), me.layers.GlobalAveragePooling2D(), me.layers.Dense(10)])
    model.summary()
    out = capsys.readouterr().out
    assert re.search(r"\n conv2d \(Conv2D\) +\(None, 26, 26, 16\) +160\n", out)
    assert "(None, 16)" in out and "Non-trainable params: 32" in out and "Total params: 394" in out


def test_summary_before_build():
    with pytest.raises(ValueError, match="has not been built yet"):
        me.Sequential([me.layers.Dense(2)]).summary()


def test_attribute_tracking_of_variables_lists_and_dicts():
    class Net(me.Model):
        def __init__(self):
            super().__init__()
            self.W = me.Variable(5.0, name="weight")
            self.blocks = [me.layers.Dense(2), me.layers.Dense(3)]
            self.heads = {"a": me.layers.Dense(1)}
            self.scale = me.Variable(1.0, trainable=False)
            self.note = "not tracked"

        def call(self, x):
            x = self.blocks[1](self.blocks[0](x)) * self.W
            return self.heads["a"](x) * self.scale

    net = Net()
    net.blocks.append(me.layers.Dense(4))   # appended after assignment: still tracked
    net(np.ones((1, 3), np.float32))
    names = [name for name, _ in net._checkpoint_dependencies()]
    assert names == ["W", "blocks/0", "blocks/1", "blocks/2", "heads/a", "scale"]
    assert net.trainable_variables[0] is net.W and net.non_trainable_variables == [net.scale]
    assert len(net.trainable_variables) == 1 + 2 + 2 + 2    # blocks/2 has never been built


def test_get_weights_and_set_weights_copy_values_between_models_as_in_keras():
    def make():
        model = me.keras.Sequential([me.keras.layers.Dense(3, activation="relu"), me.keras.layers.BatchNormalization(),
                                     me.keras.layers.Dense(1)])
        model.build((None, 4))
        return model

    a, b = make(), make()
    weights = a.get_weights()
    assert [w.shape for w in weights] == [tuple(v.shape) for v in a.weights]
    assert all(isinstance(w, np.ndarray) for w in weights)
    weights[0][0, 0] = 99.0                                  # copies: changing one leaves the model alone
    assert a.weights[0].numpy()[0, 0] != 99.0
    b.set_weights(a.get_weights())
    for va, vb in zip(a.weights, b.weights):
        np.testing.assert_array_equal(va.numpy(), vb.numpy())
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    np.testing.assert_array_equal(a(x).numpy(), b(x).numpy())
    b.set_weights([w.astype(np.float64) * 0 for w in a.get_weights()])   # cast to the variables' dtype
    assert b.weights[0].dtype == me.float32 and not b.weights[0].numpy().any()


def test_set_weights_checks_every_array_before_changing_anything():
    model = me.keras.Sequential([me.keras.layers.Dense(2)])
    with pytest.raises(me.errors.InvalidArgumentError,
                       match=r"set_weights: got 1 arrays, but the layer has 0 weights \(none\)\. It is not built yet"):
        model.set_weights([np.zeros((3, 2))])
    model.build((None, 3))
    before = model.get_weights()
    with pytest.raises(me.errors.InvalidArgumentError,
                       match=r"set_weights: weight '.*bias.*' has shape \(2,\), but the array given for it has "
                             r"shape \(3,\)"):
        model.set_weights([np.ones((3, 2)), np.ones(3)])     # the first is right, but nothing changes
    with pytest.raises(me.errors.InvalidArgumentError, match=r"got 1 arrays, but the layer has 2 weights"):
        model.set_weights([np.ones((3, 2))])
    for w, v in zip(before, model.get_weights()):
        np.testing.assert_array_equal(w, v)


def test_trainable_false_freezes_a_layer():
    model = me.Sequential([me.layers.Dense(2, input_shape=(3,)), me.layers.Dense(1)])
    model.layers[0].trainable = False
    assert len(model.trainable_variables) == 2 and len(model.non_trainable_variables) == 2


def test_on_build_runs_the_deferred_restorer_once_weights_exist():
    layer = me.layers.Dense(2)
    seen = []
    layer._deferred_restorer = lambda built: seen.append([v.shape for v in built.variables])
    layer(np.ones((1, 3), np.float32))
    layer(np.ones((1, 3), np.float32))
    assert seen == [[(3, 2), (2,)]]


def test_scopes_nest_model_and_layer_names():
    model = me.Sequential([me.layers.Dense(2, input_shape=(3,))], name="net")
    with me.GradientTape() as tape:
        model(np.ones((1, 3), np.float32))
    assert {r.scope for r in tape.records} == {"net/dense"}


def _toy_problem(n=256):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, 4)).astype(np.float32)
    y = (x @ np.array([1.0, -2.0, 0.5, 0.0]) > 0).astype(np.int64)
    return x, y


def _classifier():
    model = me.Sequential([me.layers.Dense(16, activation="relu"), me.layers.Dense(2)])
    model.compile(optimizer=me.optimizers.Adam(0.02),
                  loss=me.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    return model


def test_fit_evaluate_predict_reduce_the_loss():
    x, y = _toy_problem()
    model = _classifier()
    before = model.evaluate(x, y)
    history = model.fit(x, y, batch_size=32, epochs=4, verbose=0, validation_data=(x[:64], y[:64]), seed=0)
    assert list(history.history) == ["loss", "accuracy", "val_loss", "val_accuracy"]
    losses = history.history["loss"]
    assert len(losses) == 4 and losses[-1] < losses[0]
    after = model.evaluate(x, y)
    assert after[0] < before[0] and after[1] > before[1]
    predictions = model.predict(x[:40], batch_size=16)
    assert predictions.shape == (40, 2) and isinstance(predictions, np.ndarray)
    assert int(model.optimizer.iterations) == 4 * 8


def test_fit_on_a_dataset_and_history_plot():
    x, y = _toy_problem(64)
    model = _classifier()
    dataset = me.data.Dataset.from_tensor_slices((x, y)).batch(16)
    history = model.fit(dataset, epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2
    fig = history.plot()
    assert isinstance(fig, matplotlib.figure.Figure) and len(fig.axes) == 2
    for ax in fig.axes:     # the epoch axis has whole-number ticks only (1, 2; never 1.5)
        ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
        assert ticks and all(float(t).is_integer() for t in ticks), ticks


def test_fit_with_a_progress_bar_writes_to_stderr(capsys):
    x, y = _toy_problem(64)
    _classifier().fit(x, y, epochs=1, verbose=1)
    assert "Epoch 1/1" in capsys.readouterr().err


def test_fit_bad_inputs():
    x, y = _toy_problem(8)
    model = _classifier()
    with pytest.raises(ValueError, match="y \\(the labels\\) is missing"):
        model.fit(x)
    with pytest.raises(ValueError, match="x has 8 examples but y has 7"):
        model.fit(x, y[:7])
    with pytest.raises(ValueError, match="call model.compile"):
        me.Sequential([me.layers.Dense(1)]).fit(x, y)
