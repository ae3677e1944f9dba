"""TensorFlow's own tutorials, cell by cell, with ``import tensorflow as tf`` changed to ``import minieager as tf``.

The notebooks are read from a checkout of github.com/tensorflow/docs named by $MINIEAGER_TF_DOCS (they are
not copied into this repository); without one these tests are skipped and say why. Each cell runs as a
notebook runs it: in one namespace named ``__main__``, with its source readable (``inspect.getsource``, so
AutoGraph converts what it would in Jupyter). Network downloads get offline data of the same shapes (MNIST:
uint8 (n, 28, 28) images and labels 0-9; the penguins of ``tensorflow_datasets``: 4 float32 features and an
int64 species). The second half of the file walks the same API paths in our own
words, so they are covered with or without the checkout.

The cells that stay out, each with its reason, are ``EXCLUDED`` below (and ``LINES_LEFT_OUT``, single lines
of a cell whose other lines run); docs/tf-tutorials.md is the same list as a table, per notebook (a test
keeps the two in step).
"""
import contextlib
import io
import json
import linecache
import os
import re
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import minieager as me

TF_DOCS = os.environ.get("MINIEAGER_TF_DOCS")
NOTEBOOKS = ["guide/basics", "guide/tensor", "guide/variable", "guide/autodiff", "guide/advanced_autodiff",
             "guide/intro_to_modules", "guide/basic_training_loops", "tutorials/customization/basics",
             "tutorials/customization/custom_training_walkthrough", "tutorials/quickstart/beginner",
             "tutorials/quickstart/advanced"]
# notebook -> {code cell number (0-based, code cells only): why it stays out}
EXCLUDED = {
    "guide/tensor": {40: "ragged tensors", 41: "ragged tensors", 50: "sparse tensors"},
    "guide/autodiff": {30: "tf.image"},
    "guide/advanced_autodiff": {7: "a SavedModel keeps no custom gradient (SaveOptions(experimental_custom_gradients=True)): "
                                   "a tape outside the loaded function gets a clear error"},
    "guide/intro_to_modules": {16: "TensorBoard graph tracing (tf.summary.trace_on needs TF's GraphDef)"},
}
# notebook -> {code cell number: (the start of the lines left out, why)}: the rest of the cell runs
LINES_LEFT_OUT = {"guide/variable": {2: ("complex_variable =", "complex dtypes")}}


def _offline_mnist(*args, **kwargs):
    rng = np.random.default_rng(0)
    return ((rng.integers(0, 256, (600, 28, 28), dtype=np.uint8), rng.integers(0, 10, 600).astype(np.uint8)),
            (rng.integers(0, 256, (100, 28, 28), dtype=np.uint8), rng.integers(0, 10, 100).astype(np.uint8)))


class _OfflinePenguins(types.ModuleType):
    """``tensorflow_datasets`` for the penguins the custom training walkthrough downloads: the same structure
    (4 float32 features in [0, 1], int64 species 0-2, 334 examples; "penguins/simple" as dicts of named
    columns), drawn around a centre per species so that the walkthrough's model has something to learn."""

    __version__ = "offline penguins (tests/nn/test_tf_tutorials.py)"
    COLUMNS = ("culmen_length_mm", "culmen_depth_mm", "flipper_length_mm", "body_mass_g")

    def __init__(self):
        super().__init__("tensorflow_datasets")
        rng = np.random.default_rng(0)
        self._species = rng.integers(0, 3, 334)
        centres = np.array([[0.3, 0.6, 0.2, 0.3], [0.7, 0.6, 0.4, 0.3], [0.5, 0.2, 0.8, 0.7]])
        self._features = np.clip(centres[self._species] + rng.normal(0, 0.08, (334, 4)), 0, 1).astype(np.float32)
        self.features = "FeaturesDict({'features': Tensor(shape=(4,), dtype=float32), 'species': ClassLabel(3)})"

    def load(self, name, split="train", as_supervised=False, with_info=False, **kwargs):
        if isinstance(split, (list, tuple)):
            datasets = [self.load(name, s, as_supervised) for s in split]
            return (datasets, self) if with_info else datasets
        n = len(self._species)
        low, high = re.fullmatch(r"train(?:\[(\d*)%?:(\d*)%?\])?", split).groups("")
        rows = slice(int(low or 0) * n // 100, int(high or 100) * n // 100)
        features, species = self._features[rows], self._species[rows].astype(np.int64)
        if name == "penguins/simple":
            element = {c: features[:, i] for i, c in enumerate(self.COLUMNS)} | {"species": species}
        else:
            element = (features, species) if as_supervised else {"features": features, "species": species}
        dataset = me.data.Dataset.from_tensor_slices(element)
        return (dataset, self) if with_info else dataset

    def as_dataframe(self, dataset, info=None):
        return "\n".join(str(element) for element in dataset)


def _translate(source):
    """Only the imports change: tensorflow -> minieager, Keras 3's ``import keras`` -> minieager's."""
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    source = "\n".join(lines)
    source = re.sub(r"^(\s*)import tensorflow as tf\b", r"\1import minieager as tf", source, flags=re.M)
    source = re.sub(r"^(\s*)from tensorflow((\.\w+)*) import", r"\1from minieager\2 import", source, flags=re.M)
    return re.sub(r"^(\s*)import keras\s*$", r"\1from minieager import keras", source, flags=re.M)


def _without(source, start):
    kept = [line for line in source.splitlines() if not line.startswith(start)]
    assert len(kept) < len(source.splitlines()), f"no line starts with {start!r}: the notebook changed"
    return "\n".join(kept)


def code_cells(notebook):
    cells = json.loads((Path(TF_DOCS) / "site/en" / f"{notebook}.ipynb").read_text())["cells"]
    return ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]


def run_cells(notebook, sources):
    """Run each cell's source as Jupyter would; return one line per failing cell."""
    namespace, failures = {"__name__": "__main__"}, []
    for i, source in sources:
        filename = f"<{notebook} cell {i}>"
        code = _translate(source)
        linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)   # as IPython does
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(code, filename, "exec"), namespace)
        except Exception as error:      # noqa: BLE001 (every failing cell is reported, not only the first)
            failures.append(f"cell {i}: {type(error).__name__}: {error}\n{source[:200]}")
    return failures


@pytest.mark.slow
@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_tensorflow_tutorial_runs_cell_by_cell(notebook, tmp_path, monkeypatch):
    if not TF_DOCS:
        pytest.skip("set MINIEAGER_TF_DOCS to a checkout of github.com/tensorflow/docs to run TF's tutorials")
    import matplotlib
    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)                                  # the tutorials write files (models, logs)
    monkeypatch.setattr(me.keras.datasets.mnist, "load_data", _offline_mnist)
    monkeypatch.setitem(sys.modules, "tensorflow_datasets", _OfflinePenguins())
    excluded, lines_out = EXCLUDED.get(notebook, {}), LINES_LEFT_OUT.get(notebook, {})
    sources = [(i, _without(s, lines_out[i][0]) if i in lines_out else s)
               for i, s in enumerate(code_cells(notebook)) if i not in excluded]
    failures = run_cells(notebook, sources)
    assert not failures, "\n\n".join(failures)


def test_the_exclusions_are_the_documented_ones():
    """docs/tf-tutorials.md lists, per notebook, the cells that stay out: the same cells as EXCLUDED."""
    text = (Path(__file__).parents[2] / "docs" / "tf-tutorials.md").read_text()
    documented, lines = {}, {}
    for notebook, cells in re.findall(r"^\| `([\w/]+)` \|[^|]*\|[^|]*\| ([^|]*)\|", text, flags=re.M):
        documented[notebook] = {int(n) for n in re.findall(r"(?<!in )cell (\d+)", cells)}
        lines[notebook] = {int(n): line for n, line in re.findall(r"in cell (\d+), the line `([^`]+)`", cells)}
    assert set(documented) == set(NOTEBOOKS)
    assert documented == {nb: set(EXCLUDED.get(nb, {})) for nb in NOTEBOOKS}
    for nb in NOTEBOOKS:
        left_out = LINES_LEFT_OUT.get(nb, {})
        assert set(lines[nb]) == set(left_out), nb
        assert all(lines[nb][i].startswith(start) for i, (start, _) in left_out.items()), nb


# ---- the same paths in our own words --------------------------------------------------------------------
class FlexibleDense(me.Module):
    """A module that makes its variables on the first call (as the modules guide's)."""

    def __init__(self, out_features, name=None):
        super().__init__(name=name)
        self.is_built, self.out_features = False, out_features

    def __call__(self, x):
        if not self.is_built:
            self.w = me.Variable(me.random.normal([x.shape[-1], self.out_features]), name="w")
            self.b = me.Variable(me.zeros([self.out_features]), name="b")
            self.is_built = True
        return me.matmul(x, self.w) + self.b


class Dense(me.Module):
    def __init__(self, in_features, out_features, name=None):
        super().__init__(name=name)
        self.w = me.Variable(me.random.normal([in_features, out_features]), name="w")
        self.b = me.Variable(me.zeros([out_features]), name="b")

    def __call__(self, x):
        return me.nn.relu(me.matmul(x, self.w) + self.b)


def test_a_module_that_builds_on_its_first_call():
    flexible = FlexibleDense(3)
    assert flexible.variables == ()
    assert flexible(me.constant([[1.0, 2.0]])).shape == (1, 3)
    assert [v.name for v in flexible.trainable_variables] == ["b:0", "w:0"]       # sorted by attribute, as tf


def test_modules_as_the_modules_guide_uses_them(tmp_path):
    class TwoLayers(me.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.dense_1, self.dense_2 = Dense(3, 3), Dense(3, 2)

        @me.function
        def __call__(self, x):
            return self.dense_2(self.dense_1(x))

    model = TwoLayers(name="the_model")
    out = model(me.constant([[2.0, 2.0, 2.0]]))
    assert out.shape == (1, 2) and len(model.variables) == 4 and len(model.submodules) == 2
    checkpoint = me.train.Checkpoint(model=model)
    path = checkpoint.write(str(tmp_path / "my_checkpoint"))
    fresh = TwoLayers()
    me.train.Checkpoint(model=fresh).restore(path)
    np.testing.assert_array_equal(fresh(me.constant([[2.0, 2.0, 2.0]])).numpy(), out.numpy())


def test_keras_models_with_keras_3_saving_as_the_modules_guide(tmp_path):
    @me.keras.saving.register_keras_serializable(package="tutorial")
    class TwoDense(me.keras.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dense_1 = me.keras.layers.Dense(3)
            self.dense_2 = me.keras.layers.Dense(2)

        def call(self, x):
            return self.dense_2(self.dense_1(x))

    model = TwoDense(name="the_model")
    x = me.constant([[2.0, 2.0, 2.0]])
    expected = model(x).numpy()
    assert len(model.variables) == 4 and list(model.submodules) == [model.dense_1, model.dense_2]
    model.save(tmp_path / "exname_of_file.keras")
    reconstructed = me.keras.models.load_model(tmp_path / "exname_of_file.keras")
    np.testing.assert_array_equal(reconstructed(x).numpy(), expected)


def test_fit_as_the_training_loops_guide_compiles_it():
    x = me.cast(me.linspace(-2.0, 2.0, 201), me.float32)
    y = x * 3.0 + 2.0 + me.random.normal([201]) * 0.1

    class Linear(me.keras.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.w, self.b = me.Variable(5.0), me.Variable(0.0)

        def call(self, x):
            return self.w * x + self.b

    model = Linear()
    model.compile(run_eagerly=False, optimizer=me.keras.optimizers.SGD(learning_rate=0.1),
                  loss=me.keras.losses.mean_squared_error)
    model.fit(x, y, epochs=30, batch_size=1000, verbose=0)
    assert float(model.w) == pytest.approx(3.0, abs=0.1) and float(model.b) == pytest.approx(2.0, abs=0.1)


def test_the_quickstarts_softmax_head_and_custom_loop():
    (x_train, y_train), _ = _offline_mnist()
    x_train = x_train[:64] / 255.0
    model = me.keras.models.Sequential([me.keras.layers.Flatten(input_shape=(28, 28)),
                                        me.keras.layers.Dense(16, activation="relu"),
                                        me.keras.layers.Dropout(0.2), me.keras.layers.Dense(10)])
    loss_fn = me.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    model.compile(optimizer="adam", loss=loss_fn, metrics=["accuracy"])
    model.fit(x_train, y_train[:64], epochs=1, verbose=0)
    probability_model = me.keras.Sequential([model, me.keras.layers.Softmax()])
    np.testing.assert_allclose(probability_model(x_train[:5]).numpy().sum(axis=1), 1.0, rtol=1e-5)

    optimizer, train_loss = me.keras.optimizers.Adam(), me.keras.metrics.Mean(name="train_loss")
    train_accuracy = me.keras.metrics.SparseCategoricalAccuracy(name="train_accuracy")

    @me.function
    def train_step(images, labels):
        with me.GradientTape() as tape:
            predictions = model(images, training=True)
            loss = loss_fn(labels, predictions)
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        return loss, predictions

    for images, labels in me.data.Dataset.from_tensor_slices((x_train.astype("float32"), y_train[:64])).batch(32):
        loss, predictions = train_step(images, labels)
        train_loss(loss)
        train_accuracy(labels, predictions)
    assert 0.0 <= float(train_accuracy.result()) <= 1.0 and np.isfinite(float(train_loss.result()))
