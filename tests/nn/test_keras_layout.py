"""``minieager.keras`` is a package laid out as ``tf.keras`` (issue 28): submodules import as modules, the
names are minieager's own objects, and a missing name says what to use instead."""
import importlib
import types

import numpy as np
import pytest

import minieager as me

SUBMODULES = ["layers", "models", "losses", "metrics", "optimizers", "callbacks", "initializers", "activations",
              "datasets", "utils", "saving", "backend"]


@pytest.mark.parametrize("name", SUBMODULES)
def test_each_keras_submodule_is_a_real_module(name):
    module = importlib.import_module(f"minieager.keras.{name}")
    assert isinstance(module, types.ModuleType) and getattr(me.keras, name) is module


def test_from_imports_work_as_with_tensorflow_keras():
    from minieager.keras.callbacks import EarlyStopping
    from minieager.keras.layers import Dense
    from minieager.keras.losses import MSE
    from minieager.keras.models import Sequential, load_model  # noqa: F401
    from minieager.keras.optimizers import Adam
    assert Dense is me.layers.Dense and Sequential is me.Sequential and Adam is me.optimizers.Adam
    assert EarlyStopping is me.keras.callbacks.EarlyStopping and callable(MSE)


def test_attribute_access_keeps_working():
    assert me.keras.Sequential is me.keras.models.Sequential is me.Sequential
    assert me.keras.Model is me.Model and me.keras.Input is me.keras.layers.Input
    assert me.keras.layers.Dense is me.layers.Dense and me.keras.metrics.AUC is me.metrics.AUC
    assert me.keras.backend.floatx() == "float32" and me.keras.backend.epsilon() == 1e-7
    me.keras.backend.clear_session()
    assert me.layers.Dense(1).name == "dense"


def test_keras_loss_functions_return_one_value_per_example_as_keras_3():
    # keras.losses.MSE([[1.], [2.]], [[1.], [3.]]) -> [0., 1.]; labels (2,) against (2, 1) gain the axis: [0., 1.]
    np.testing.assert_allclose(me.keras.losses.MSE([[1.], [2.]], [[1.], [3.]]).numpy(), [0.0, 1.0])
    np.testing.assert_allclose(me.keras.losses.mse([1., 2.], [[1.], [3.]]).numpy(), [0.0, 1.0])
    np.testing.assert_allclose(me.keras.losses.MAE([[1., 3.]], [[2., 5.]]).numpy(), [1.5])
    probs = me.constant([[.2, .3, .5], [.1, .8, .1]])
    np.testing.assert_allclose(me.keras.losses.sparse_categorical_crossentropy([2, 1], probs).numpy(),
                               [-np.log(.5), -np.log(.8)], rtol=1e-6)
    np.testing.assert_allclose(me.keras.losses.categorical_crossentropy([[0, 0, 1.], [0, 1., 0]], probs).numpy(),
                               [-np.log(.5), -np.log(.8)], rtol=1e-6)
    np.testing.assert_allclose(me.keras.losses.binary_crossentropy([[1.], [0.]], [[.9], [.2]]).numpy(),
                               [-np.log(.9), -np.log(.8)], rtol=1e-6)
    with pytest.raises(me.errors.InvalidArgumentError, match="label value of 3"):
        me.keras.losses.sparse_categorical_crossentropy([3, 1], probs)


def test_mean_absolute_error_loss_for_compile():
    assert isinstance(me.losses.get("mae"), me.keras.losses.MeanAbsoluteError)
    assert float(me.keras.losses.MeanAbsoluteError()([1., 2.], [[2.], [4.]])) == 1.5


def test_network_only_datasets_name_the_offline_ones():
    assert me.keras.datasets.mnist is me.datasets.mnist and me.keras.datasets.digits is me.datasets.digits
    with pytest.raises(AttributeError, match=r"has no attribute 'cifar10'. .*offline only: me.keras.datasets.mnist .*digits"):
        me.keras.datasets.cifar10
    with pytest.raises(RuntimeError, match="does not download files"):
        me.keras.utils.get_file("x.zip", "https://example.com/x.zip")


@pytest.mark.parametrize("expression, hint", [
    ("me.keras.layers.LSTM", "no recurrent layers"),
    ("me.keras.optimizers.AdamW", "SGD .*Adam, RMSprop and Adagrad"),
    ("me.keras.layers.Dens", "Did you mean me.keras.layers.Dense"),
])
def test_missing_names_in_keras_submodules_get_hints(expression, hint):
    with pytest.raises(AttributeError, match=f"module '{expression.rsplit('.', 1)[0]}' has no attribute .*{hint}"):
        eval(expression)


def test_set_random_seed_seeds_numpy_and_minieager():
    me.keras.utils.set_random_seed(3)
    a = (np.random.rand(), float(me.random.uniform([])))
    me.keras.utils.set_random_seed(3)
    assert (np.random.rand(), float(me.random.uniform([]))) == a


def test_plot_model_writes_png_or_svg_as_keras(tmp_path):
    pytest.importorskip("PIL")          # the notebook extra that draws PNGs
    model = me.keras.Sequential([me.layers.Dense(4, input_shape=(3,), name="hidden"), me.layers.Dense(1)])
    drawing = me.keras.utils.plot_model(model, to_file=str(tmp_path / "model.png"), show_shapes=True)
    assert (tmp_path / "model.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "hidden (Dense)" in drawing.svg and "(None, 4)" in drawing.svg
    me.keras.utils.plot_model(model, to_file=str(tmp_path / "model.svg"))
    assert (tmp_path / "model.svg").read_text().startswith("<svg")
    with pytest.raises(TypeError, match="does not support dpi"):
        me.keras.utils.plot_model(model, dpi=96)
