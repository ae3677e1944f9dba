"""Keras 3 model files: Model.save("m.keras") / load_model, get_config / from_config for every layer,
register_keras_serializable, ModelCheckpoint of whole models, save_weights to .weights.h5 (issue 28)."""
import builtins
import json
import os
import zipfile

import numpy as np
import pytest

import minieager as me

X = np.random.RandomState(0).randn(20, 4).astype("float32")
Y = (X[:, 0] > 0).astype("int32")

LAYERS = [
    lambda: me.layers.Dense(3, activation="relu", input_shape=(2,)),
    lambda: me.layers.Dense(2, kernel_initializer=me.initializers.RandomNormal(stddev=0.1), use_bias=False),
    lambda: me.layers.Conv2D(4, 3, padding="same", strides=2),
    lambda: me.layers.BatchNormalization(momentum=0.9), lambda: me.layers.LayerNormalization(),
    lambda: me.layers.Dropout(0.5), lambda: me.layers.Embedding(10, 4), lambda: me.layers.Reshape((2, 2)),
    lambda: me.layers.MaxPooling2D(), lambda: me.layers.AveragePooling2D(3), lambda: me.layers.GlobalAveragePooling2D(),
    lambda: me.layers.Flatten(), lambda: me.layers.Concatenate(axis=1), lambda: me.layers.Add(),
    lambda: me.layers.Activation("tanh"), lambda: me.layers.Softmax(axis=1), lambda: me.layers.ReLU(),
    lambda: me.layers.Rescaling(1 / 255.0, offset=0.5), lambda: me.layers.Average(), lambda: me.layers.Maximum(),
    lambda: me.layers.Minimum(), lambda: me.layers.Multiply(), lambda: me.layers.Subtract(),
    lambda: me.layers.Lambda(me.nn.relu), lambda: me.layers.Layer(), lambda: me.layers.Permute((2, 1)), lambda: me.layers.RepeatVector(3),
]


@pytest.mark.parametrize("make", LAYERS)
def test_every_layer_round_trips_through_its_config_as_json(make):
    layer = make()
    config = layer.get_config()
    assert json.loads(json.dumps(config)) == config              # plain JSON: no objects, no pickling
    assert config["name"] == layer.name and config["dtype"] == "float32" and config["trainable"] is True
    again = type(layer).from_config(config)
    assert type(again) is type(layer) and again.get_config() == config


def test_a_lambda_of_a_minieager_function_comes_back_as_that_function():
    layer = me.layers.Lambda(me.nn.relu)
    assert layer.get_config()["function"]["class_name"] == "function"
    assert me.layers.Lambda.from_config(layer.get_config()).function is me.nn.relu


def test_the_round_trip_above_covers_every_layer_class():
    classes = {obj for obj in vars(me.keras.layers).values()
               if isinstance(obj, type) and issubclass(obj, me.layers.Layer)}
    covered = {type(make()) for make in LAYERS}
    assert classes - covered == set()


def test_a_dense_config_names_its_arguments_as_keras():
    config = me.layers.Dense(3, activation="relu", name="d").get_config()
    assert {k: config[k] for k in ("units", "activation", "use_bias", "kernel_initializer", "bias_initializer")} == {
        "units": 3, "activation": "relu", "use_bias": True, "kernel_initializer": "glorot_uniform",
        "bias_initializer": "zeros"}
    assert me.layers.Dense(3, activation=me.nn.relu).get_config()["activation"] == "relu"


def _compiled_sequential():
    model = me.keras.Sequential([me.layers.Dense(8, activation="relu", input_shape=(4,)),
                                 me.layers.BatchNormalization(), me.layers.Dense(2)])
    model.compile(me.optimizers.Adam(0.01), me.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    model.fit(X, Y, epochs=2, verbose=0)
    return model


def test_a_saved_sequential_loads_with_its_weights_and_compile_settings(tmp_path):
    model = _compiled_sequential()
    path = tmp_path / "m.keras"
    model.save(path)
    with zipfile.ZipFile(path) as archive:                       # the Keras 3 layout, no pickle inside
        assert sorted(archive.namelist()) == ["config.json", "metadata.json", "model.weights.npz"]
        assert json.loads(archive.read("config.json"))["class_name"] == "Sequential"
    loaded = me.keras.models.load_model(path)
    assert type(loaded) is me.Sequential and [l.name for l in loaded.layers] == [l.name for l in model.layers]
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    assert all(np.array_equal(a, b) for a, b in zip(loaded.get_weights(), model.get_weights()))
    assert type(loaded.optimizer) is me.optimizers.Adam and loaded.optimizer.learning_rate == 0.01
    assert loaded.evaluate(X, Y) == pytest.approx(model.evaluate(X, Y))
    loaded.fit(X, Y, epochs=1, verbose=0)                         # trains on from there


def test_a_functional_model_round_trips(tmp_path):
    inputs = me.keras.Input(shape=(4,))
    hidden = me.layers.Dense(5, activation="tanh")(inputs)
    outputs = me.layers.Dense(1)(me.layers.concatenate([hidden, inputs]))
    model = me.Model(inputs, outputs, name="two_paths")
    model.save(tmp_path / "f.keras")
    loaded = me.keras.models.load_model(tmp_path / "f.keras")
    assert loaded.name == "two_paths" and loaded.input_shape == (None, 4)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


@me.keras.saving.register_keras_serializable(package="tests")
class Doubler(me.Model):
    def __init__(self, units=3, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.dense = me.layers.Dense(units)

    def call(self, x):
        return self.dense(x) * 2.0


def test_a_registered_subclassed_model_round_trips(tmp_path):
    model = Doubler(units=5)
    model(X)
    model.save(tmp_path / "s.keras")
    loaded = me.keras.models.load_model(tmp_path / "s.keras")
    assert type(loaded) is Doubler and loaded.units == 5
    np.testing.assert_array_equal(loaded(X).numpy(), model(X).numpy())


def test_an_unregistered_class_is_found_only_through_custom_objects(tmp_path):
    class Plain(me.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dense = me.layers.Dense(2)

        def call(self, x):
            return self.dense(x)

    model = Plain()
    model(X)
    model.save(tmp_path / "p.keras")
    with pytest.raises(TypeError, match=r"Could not find the class 'Plain'.*register_keras_serializable.*custom_objects"):
        me.keras.models.load_model(tmp_path / "p.keras")
    loaded = me.keras.models.load_model(tmp_path / "p.keras", custom_objects={"Plain": Plain})
    np.testing.assert_array_equal(loaded(X).numpy(), model(X).numpy())


def test_saving_refuses_what_it_cannot_write(tmp_path):
    with pytest.raises(me.errors.InvalidArgumentError, match="Add the .keras extension"):
        _compiled_sequential().save(tmp_path / "model")
    with pytest.raises(me.errors.InvalidArgumentError, match="has not been built"):
        me.Sequential([me.layers.Dense(1)]).save(tmp_path / "unbuilt.keras")
    with pytest.raises(me.errors.InvalidArgumentError, match="not a .keras file"):
        (tmp_path / "junk.keras").write_text("not a zip")
        me.keras.models.load_model(tmp_path / "junk.keras")


def test_model_checkpoint_saves_the_whole_best_model_as_keras_3(tmp_path):
    model = _compiled_sequential()
    path = tmp_path / "best.keras"
    checkpoint = me.keras.callbacks.ModelCheckpoint(str(path), monitor="loss", save_best_only=True)
    history = model.fit(X, Y, epochs=3, verbose=0, callbacks=[checkpoint])
    assert checkpoint.best == min(history.history["loss"])
    loaded = me.keras.models.load_model(path)
    assert type(loaded) is me.Sequential and len(loaded.weights) == len(model.weights)


def test_model_checkpoint_refuses_paths_keras_3_refuses():
    with pytest.raises(me.errors.InvalidArgumentError, match="must end in .keras"):
        me.keras.callbacks.ModelCheckpoint("ckpt/weights")
    with pytest.raises(me.errors.InvalidArgumentError, match="not a .keras model file"):
        me.keras.callbacks.ModelCheckpoint("m.keras", save_weights_only=True)


@pytest.fixture
def no_h5py(monkeypatch):
    real_import = builtins.__import__

    def refuse_h5py(name, *args, **kwargs):
        if name == "h5py":
            raise ImportError("No module named 'h5py'")
        return real_import(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", refuse_h5py)


def test_weights_h5_without_h5py_is_a_clear_error_never_a_renamed_file(tmp_path, no_h5py):
    model = _compiled_sequential()
    with pytest.raises(ImportError, match=r"needs the h5py package: pip install h5py. Or use another name"):
        model.save_weights(tmp_path / "ckpt.weights.h5")
    with pytest.raises(ImportError, match="h5py"):
        me.keras.callbacks.ModelCheckpoint(str(tmp_path / "ckpt.weights.h5"), save_weights_only=True)
    assert os.listdir(tmp_path) == []                              # before: ckpt.weights.h5.npz appeared


def test_weights_h5_round_trip_with_h5py(tmp_path):
    pytest.importorskip("h5py")      # an optional dependency, as in Keras; the error without it is tested above
    model = _compiled_sequential()
    model.save_weights(tmp_path / "w.weights.h5")
    assert os.listdir(tmp_path) == ["w.weights.h5"]
    other = me.keras.Sequential([me.layers.Dense(8, activation="relu", input_shape=(4,)),
                                 me.layers.BatchNormalization(), me.layers.Dense(2)])
    other.load_weights(tmp_path / "w.weights.h5")
    np.testing.assert_array_equal(other.predict(X), model.predict(X))


def test_save_weights_to_a_checkpoint_path_still_works(tmp_path):
    model = _compiled_sequential()
    model.save_weights(str(tmp_path / "ckpt"))
    other = me.keras.Sequential([me.layers.Dense(8, activation="relu", input_shape=(4,)),
                                 me.layers.BatchNormalization(), me.layers.Dense(2)])
    other.load_weights(str(tmp_path / "ckpt"))
    np.testing.assert_array_equal(other.predict(X), model.predict(X))


def test_functions_are_saved_by_name_and_a_lambda_cannot_come_back(tmp_path):
    # as TF's guide/basics: Lambda(lambda x: ...) and kernel_initializer=tf.random.normal save; Keras refuses to
    # load a lambda in safe mode, and minieager, which saves no code, always does
    model = me.keras.Sequential([me.layers.Lambda(lambda x: me.stack([x, x ** 2], axis=1)),
                                 me.layers.Dense(1, kernel_initializer=me.random.normal)])
    model(me.constant([1.0, 2.0]))
    model.save(tmp_path / "l.keras")
    with pytest.raises(ValueError, match=r"<lambda>.*a .keras file does not hold.*safe_mode=False.*never runs code"):
        me.keras.models.load_model(tmp_path / "l.keras")
    assert type(me.layers.Dense(1, kernel_initializer=me.random.normal)).from_config(
        model.layers[1].get_config()).kernel_initializer is me.random.normal       # minieager's own, by name


@me.keras.saving.register_keras_serializable(package="tests")
def squared_plus_one(x):
    return x * x + 1.0


def test_a_registered_function_comes_back(tmp_path):
    model = me.keras.Sequential([me.layers.Lambda(squared_plus_one, input_shape=(4,)), me.layers.Dense(2)])
    model.save(tmp_path / "f.keras")
    loaded = me.keras.models.load_model(tmp_path / "f.keras")
    assert loaded.layers[0].function is squared_plus_one
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


def test_a_function_loss_is_saved_by_name_and_compiled_again(tmp_path):
    # as TF's guide/basics: compile(loss=tf.keras.losses.MSE), then model.save
    model = me.keras.Sequential([me.layers.Dense(1, input_shape=(4,))])
    model.compile(loss=me.keras.losses.MSE, optimizer=me.keras.optimizers.SGD(learning_rate=0.01))
    model.save(tmp_path / "m.keras")
    loaded = me.keras.models.load_model(tmp_path / "m.keras")
    assert loaded._compiled["loss"] is me.keras.losses.mean_squared_error
    assert type(loaded.optimizer) is me.optimizers.SGD and loaded.optimizer.learning_rate == 0.01
    y = X[:, :1]
    assert loaded.evaluate(X, y) == pytest.approx(model.evaluate(X, y), rel=1e-6)
