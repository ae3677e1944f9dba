"""Keras pieces TensorFlow's tutorials use (issue 28): metrics, "accuracy" by shapes, validation_split,
label checks in the sparse losses, get_layer / output_shape, optimizers on scalar Variables.

Each expected value was computed with TensorFlow 2.21 / Keras 3 on the same inputs.
"""
import numpy as np
import pytest

import minieager as me

# ---- metrics -------------------------------------------------------------------------------------------
LABELS5, PREDS5 = [1, 0, 1, 1, 0], [0.6, 0.7, 0.3, 0.9, 0.2]


def test_binary_accuracy_precision_and_recall_as_keras():
    b = me.keras.metrics.BinaryAccuracy()
    b.update_state([1, 0, 1, 1], [0.6, 0.4, 0.3, 0.9])
    assert float(b.result()) == 0.75 and b.result().dtype == me.float32       # keras: 0.75
    assert float(me.metrics.BinaryAccuracy(threshold=0.0)([[1], [0]], [[2.0], [-1.0]])) == 1.0   # logits, threshold 0
    assert float(me.metrics.Precision()(LABELS5, PREDS5)) == pytest.approx(2 / 3)   # keras: 0.6666667
    assert float(me.metrics.Recall()(LABELS5, PREDS5)) == pytest.approx(2 / 3)      # keras: 0.6666667
    p = me.metrics.Precision(thresholds=0.8)
    p.update_state(LABELS5, PREDS5)
    assert float(p.result()) == 1.0
    p.reset_state()
    assert float(p.result()) == 0.0
    with pytest.raises(me.errors.InvalidArgumentError, match="thresholds must be one number"):
        me.metrics.Precision(thresholds=[0.3, 0.5])


RNG = np.random.RandomState(1)
AUC_LABELS, AUC_PREDS = RNG.randint(0, 2, 50), RNG.rand(50)


@pytest.mark.parametrize("kwargs, keras", [
    ({}, 0.6006441116333008),
    ({"curve": "PR"}, 0.6249773502349854),
    ({"summation_method": "minoring"}, 0.5974235534667969),
    ({"curve": "PR", "summation_method": "majoring"}, 0.644353985786438),
    ({"num_thresholds": 7}, 0.5845410823822021),
])
def test_auc_matches_keras(kwargs, keras):
    auc = me.keras.metrics.AUC(**kwargs)
    auc.update_state(AUC_LABELS[:20], AUC_PREDS[:20])
    auc.update_state(AUC_LABELS[20:], AUC_PREDS[20:])         # counts accumulate over batches
    assert float(auc.result()) == pytest.approx(keras, rel=1e-5)


def test_auc_of_a_perfect_ranking_is_one_and_bad_settings_are_refused():
    assert float(me.metrics.AUC()([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9])) == pytest.approx(1.0)
    with pytest.raises(me.errors.InvalidArgumentError, match="curve must be 'ROC' or 'PR'"):
        me.metrics.AUC(curve="PRGAIN")


def test_mean_result_is_float32_as_keras():
    assert me.keras.metrics.Mean().result().dtype == me.float32


def test_a_function_metric_is_averaged_over_batches():
    m = me.metrics.MeanMetricWrapper(lambda t, p: np.abs(np.asarray(t) - np.asarray(p)), name="mae")
    m([1.0, 2.0], [1.5, 2.5])
    m([0.0], [2.0])
    assert m.name == "mae" and float(m.result()) == pytest.approx(1.0)


# ---- compile's "accuracy", fit(validation_split=...) --------------------------------------------------------
def _binary_data():
    x = np.random.RandomState(0).randn(40, 3).astype("float32")
    return x, (x[:, 0] > 0).astype("float32")


@pytest.mark.parametrize("last_units, loss, labels, expected", [
    (1, "binary_crossentropy", "binary", me.metrics.BinaryAccuracy),      # was always 0.0 before
    (1, "mse", "binary", me.metrics.BinaryAccuracy),                      # keras 3 decides by shapes, not the loss
    (3, "sparse_categorical_crossentropy", "sparse", me.metrics.SparseCategoricalAccuracy),
    (3, "categorical_crossentropy", "onehot", me.metrics.CategoricalAccuracy),
])
def test_accuracy_is_resolved_by_the_shapes_as_keras_3(last_units, loss, labels, expected):
    x, y = _binary_data()
    y = {"binary": y, "sparse": y.astype("int32"), "onehot": np.eye(3, dtype="float32")[y.astype(int)]}[labels]
    model = me.Sequential([me.layers.Dense(last_units, activation="sigmoid" if last_units == 1 else "softmax",
                                           input_shape=(3,))])
    model.compile("sgd", loss, metrics=["accuracy"])
    history = model.fit(x, y, epochs=1, verbose=0)
    metric = model._compiled["metrics"][0]
    assert type(metric) is expected and metric.name == "accuracy"
    # the reported value is the fraction actually right, recomputed here from the predictions
    predictions = model.predict(x)
    right = ((predictions[:, 0] > 0.5) == (y > 0.5)) if last_units == 1 else (predictions.argmax(-1) == x[:, 0].__gt__(0))
    loss_value, accuracy = model.evaluate(x, y)
    assert accuracy == pytest.approx(right.mean())
    assert 0.0 <= history.history["accuracy"][0] <= 1.0


def test_binary_accuracy_is_not_zero_on_a_separable_problem():
    # the case: compile("sgd", "binary_crossentropy", metrics=["accuracy"]) on a 1-unit sigmoid model
    x, y = _binary_data()
    model = me.Sequential([me.layers.Dense(1, activation="sigmoid", input_shape=(3,))])
    model.compile(me.optimizers.SGD(0.5), "binary_crossentropy", metrics=["accuracy"])
    history = model.fit(x, y, epochs=20, verbose=0, seed=0)
    assert history.history["accuracy"][-1] > 0.9


def test_validation_split_holds_out_the_last_fraction_before_shuffling():
    x, y = _binary_data()
    model = me.Sequential([me.layers.Dense(1, activation="sigmoid", input_shape=(3,))])
    model.compile("sgd", "binary_crossentropy", metrics=["accuracy"])
    history = model.fit(x, y, epochs=2, verbose=0, validation_split=0.25)
    assert list(history.history) == ["loss", "accuracy", "val_loss", "val_accuracy"]
    val_loss, val_acc = model.evaluate(x[30:], y[30:])          # keras: the last 25% (10 of 40 examples)
    assert history.history["val_loss"][-1] == pytest.approx(val_loss, rel=1e-6)
    assert history.history["val_accuracy"][-1] == pytest.approx(val_acc)


def test_validation_split_is_refused_for_a_dataset_and_out_of_range():
    x, y = _binary_data()
    model = me.Sequential([me.layers.Dense(1, input_shape=(3,))])
    model.compile("sgd", "mse")
    with pytest.raises(me.errors.InvalidArgumentError, match="validation_split works on arrays only"):
        model.fit(me.data.Dataset.from_tensor_slices((x, y)).batch(8), validation_split=0.2, verbose=0)
    with pytest.raises(me.errors.InvalidArgumentError, match="fraction between 0 and 1"):
        model.fit(x, y, validation_split=1.5, verbose=0)


def test_validation_data_takes_precedence_over_validation_split():
    x, y = _binary_data()
    model = me.Sequential([me.layers.Dense(1, input_shape=(3,))])
    model.compile("sgd", "mse")
    history = model.fit(x, y, epochs=1, verbose=0, validation_split=0.5, validation_data=(x[:4], y[:4]))
    assert history.history["val_loss"][0] == pytest.approx(model.evaluate(x[:4], y[:4]), rel=1e-6)


# ---- sparse losses check their labels -----------------------------------------------------------------------
@pytest.mark.parametrize("from_logits", [False, True])
@pytest.mark.parametrize("label", [5, -1])
def test_sparse_crossentropy_refuses_a_label_out_of_range_as_tf(from_logits, label):
    # TF: InvalidArgumentError "Received a label value of 5 which is outside the valid range of [0, 3)"
    loss = me.keras.losses.SparseCategoricalCrossentropy(from_logits=from_logits)
    with pytest.raises(me.errors.InvalidArgumentError, match=rf"label value of {label} .*range of \[0, 3\)"):
        loss(me.constant([label]), me.constant([[.2, .3, .5]]))

    @me.function
    def traced(labels, probs):
        return loss(labels, probs)
    with pytest.raises(me.errors.InvalidArgumentError, match=rf"label value of {label}"):
        traced(me.constant([label]), me.constant([[.2, .3, .5]]))


def test_probability_crossentropies_renormalise_the_rows_as_keras():
    probs = me.constant([[.2, .3, .6], [0., .5, .5]])        # the first row sums to 1.1
    # keras: 8.362116 for both (log(0.6 / 1.1) and the clipped log(1e-7), averaged)
    assert float(me.keras.losses.SparseCategoricalCrossentropy()(me.constant([2, 0]), probs)) == pytest.approx(
        8.362116, rel=1e-6)
    assert float(me.keras.losses.SparseCategoricalCrossentropy()(me.constant([[2], [0]]), probs)) == pytest.approx(
        8.362116, rel=1e-6)
    onehot = me.constant([[0, 0, 1.], [1, 0, 0]])
    assert float(me.keras.losses.CategoricalCrossentropy()(onehot, probs)) == pytest.approx(8.362116, rel=1e-6)


# ---- get_layer, input_shape/output_shape, count_params, attribute hints ------------------------------------
def test_get_layer_output_shape_and_count_params_as_keras():
    model = me.keras.Sequential([me.layers.Dense(4, name="h", input_shape=(3,)), me.layers.Dense(1)])
    assert model.input_shape == (None, 3) and model.output_shape == (None, 1)
    assert model.get_layer("h") is model.layers[0] and model.get_layer(index=1) is model.layers[1]
    assert model.layers[0].output_shape == (None, 4)
    assert model.count_params() == 21                            # keras: 3*4+4 + 4*1+1
    with pytest.raises(ValueError, match=r"No such layer: zz. Existing layers are: \['h', 'dense(_\d+)?'\]"):
        model.get_layer("zz")
    with pytest.raises(ValueError, match="retrieve layer at index 5 but model only has 2 layers"):
        model.get_layer(index=5)
    inputs = me.keras.Input(shape=(5,))
    functional = me.Model(inputs, me.layers.Dense(2)(inputs))
    assert functional.input_shape == (None, 5) and functional.output_shape == (None, 2)


def test_a_layer_never_called_has_no_output_shape():
    with pytest.raises(AttributeError, match="never been called"):
        me.layers.Dense(2).output_shape


@pytest.mark.parametrize("attribute, hint", [
    ("train_on_batch", "GradientTape"), ("summry", "Did you mean summary"), ("to_json", "get_config"),
])
def test_a_missing_model_attribute_gets_a_hint(attribute, hint):
    model = me.Sequential([me.layers.Dense(1)])
    with pytest.raises(AttributeError, match=f"'Sequential' object has no attribute '{attribute}'. .*{hint}"):
        getattr(model, attribute)
    assert not hasattr(model, attribute)


# ---- optimizers on a scalar Variable ---------------------------------------------------------------------------
@pytest.mark.parametrize("optimizer, keras", [
    (me.optimizers.Adam, 1.8001684), (me.optimizers.RMSprop, 1.4738754), (me.optimizers.Adagrad, 1.831543),
    (me.optimizers.SGD, 1.28)])
@pytest.mark.parametrize("traced", [False, True])
def test_optimizers_update_a_scalar_variable_eagerly_and_traced(optimizer, keras, traced):
    w = me.Variable(2.0)
    opt = optimizer(0.1)

    def step():
        with me.GradientTape() as tape:
            loss = w * w
        opt.apply_gradients([(tape.gradient(loss, w), w)])
    step = me.function(step) if traced else step
    step()
    step()
    assert w.shape == () and float(w.numpy()) == pytest.approx(keras, rel=2e-6)   # two Keras steps from w=2


@pytest.mark.parametrize("loss", ["mse", "binary_crossentropy"])
def test_labels_of_shape_batch_against_one_output_unit_are_not_broadcast(loss):
    # keras squeezes (batch, 1) predictions to the labels' (batch,) rank; broadcasting would pair every label
    # with every prediction, (batch, batch), and train towards the mean label
    y, p = np.array([1.0, 0.0, 1.0]), np.array([[0.9], [0.2], [0.6]], np.float32)
    fn = me.losses.get(loss)
    expected = {"mse": np.mean((p[:, 0] - y) ** 2),
                "binary_crossentropy": -np.mean(y * np.log(p[:, 0]) + (1 - y) * np.log(1 - p[:, 0]))}[loss]
    assert float(fn(y, p)) == pytest.approx(expected, rel=1e-6)
    assert float(fn(y[:, None], p[:, 0])) == pytest.approx(expected, rel=1e-6)


def test_softmax_relu_and_rescaling_layers_as_keras():
    x = me.constant([[1.0, 2.0, -3.0]])
    np.testing.assert_allclose(me.keras.layers.Softmax()(x).numpy(), me.nn.softmax(x).numpy())
    np.testing.assert_allclose(me.keras.layers.Softmax(axis=0)(x).numpy(), np.ones((1, 3)))
    np.testing.assert_array_equal(me.keras.layers.ReLU()(x).numpy(), [[1.0, 2.0, 0.0]])
    pixels = np.array([[0, 51, 255]], np.uint8)
    out = me.keras.layers.Rescaling(1 / 255.0, offset=-0.5)(pixels)
    assert out.dtype == me.float32
    np.testing.assert_allclose(out.numpy(), [[-0.5, -0.3, 0.5]], rtol=1e-6)


def test_compile_takes_keras_3s_arguments_and_refuses_what_fit_cannot_do():
    model = me.Sequential([me.layers.Dense(1, input_shape=(2,))])
    model.compile(run_eagerly=False, jit_compile="auto", loss="mse")
    assert type(model.optimizer) is me.optimizers.RMSprop                  # keras 3's default optimizer
    with pytest.raises(me.errors.InvalidArgumentError, match="loss_weights and weighted_metrics are not supported"):
        model.compile(loss="mse", loss_weights=[1.0])
    with pytest.raises(me.errors.InvalidArgumentError, match="steps_per_execution must be 1"):
        model.compile(loss="mse", steps_per_execution=4)


def test_a_per_example_loss_function_trains_as_its_mean():
    # keras reduces keras.losses.MSE's per-example values with "sum_over_batch_size" (the mean): the same
    # steps as the MeanSquaredError object, not len(batch) times larger
    x, y = _binary_data()
    weights = []
    for loss in (me.keras.losses.MSE, me.keras.losses.MeanSquaredError()):
        me.random.set_seed(0)
        model = me.Sequential([me.layers.Dense(1, input_shape=(3,))])
        model.compile(me.optimizers.SGD(0.1), loss)
        history = model.fit(x, y, epochs=2, batch_size=8, shuffle=False, verbose=0)
        weights.append((model.get_weights(), history.history["loss"]))
    for a, b in zip(weights[0][0], weights[1][0]):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    np.testing.assert_allclose(weights[0][1], weights[1][1], rtol=1e-6)
