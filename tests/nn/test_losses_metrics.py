"""Losses against NumPy (scalar batch means, stable for huge logits) and metrics as objects."""
import numpy as np
import pytest

import minieager as me

LOGITS = np.array([[2.0, 1.0, 0.1], [0.5, 2.5, -1.0], [1e4, -1e4, 0.0]], np.float32)
LABELS = np.array([0, 2, 0])


def log_softmax(x):
    x = x.astype(np.float64)
    shifted = x - x.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def test_mean_squared_error():
    labels, preds = np.array([1.0, 2.0, 3.0]), np.array([1.5, 2.0, 1.0], np.float32)
    loss = me.losses.mean_squared_error(labels, preds)
    assert loss.shape == () and float(loss) == pytest.approx(np.mean((labels - preds) ** 2))


def test_sparse_softmax_cross_entropy_is_the_batch_mean_and_stable():
    loss = me.losses.sparse_softmax_cross_entropy(LABELS, LOGITS)
    expected = -log_softmax(LOGITS)[np.arange(3), LABELS].mean()
    assert loss.shape == () and float(loss) == pytest.approx(expected, rel=1e-5)
    logits = me.Variable(LOGITS)
    with me.GradientTape() as tape:
        loss = me.losses.sparse_softmax_cross_entropy(LABELS, logits)
    grad = tape.gradient(loss, logits).numpy()
    assert np.isfinite(grad).all()
    np.testing.assert_allclose(grad, (np.exp(log_softmax(LOGITS)) - np.eye(3)[LABELS]) / 3, atol=1e-6)


@pytest.mark.parametrize("loss_fn, per_example, labels", [
    (me.losses.sparse_softmax_cross_entropy, me.nn.sparse_softmax_cross_entropy_with_logits, LABELS),
    (me.losses.softmax_cross_entropy, me.nn.softmax_cross_entropy_with_logits,
     np.eye(3, dtype=np.float32)[LABELS])], ids=["sparse", "dense"])
def test_cross_entropy_losses_are_one_op_matching_the_mean_of_the_per_example_losses(loss_fn, per_example, labels):
    logits = me.Variable(LOGITS[:2] * 3)
    with me.GradientTape(persistent=True) as tape:
        loss = loss_fn(labels[:2], logits)
        composed = me.reduce_mean(per_example(labels=labels[:2], logits=logits))
    ops = [r.op_name for r in tape.records]
    assert ops[0] == per_example.__name__.replace("_with_logits", "") and ops[1:] == [ops[0], "reduce_sum", "divide"]
    assert tape.records[0].attrs == {"mean": True} and "/ batch" in tape.records[0].rule[0]
    assert float(loss) == pytest.approx(float(composed), rel=1e-6)
    np.testing.assert_allclose(tape.gradient(loss, logits), tape.gradient(composed, logits), rtol=1e-6, atol=1e-7)


def test_cross_entropy_of_an_empty_batch_is_nan_as_reduce_mean_gives():
    loss = me.losses.sparse_softmax_cross_entropy(np.zeros(0, np.int32), np.zeros((0, 3), np.float32))
    assert loss.shape == () and loss.dtype == me.float32 and np.isnan(float(loss))


def test_softmax_cross_entropy_with_one_hot_labels():
    onehot = np.eye(3, dtype=np.float32)[LABELS]
    loss = me.losses.softmax_cross_entropy(onehot, LOGITS)
    assert float(loss) == pytest.approx(-(onehot * log_softmax(LOGITS)).sum(1).mean(), rel=1e-5)


def test_binary_crossentropy_from_logits_and_probabilities():
    labels = np.array([1.0, 0.0, 1.0, 0.0], np.float32)
    logits = np.array([2.0, -1.0, -3.0, 1e4], np.float32)
    p = 1 / (1 + np.exp(-logits.astype(np.float64)))
    from_logits = float(me.losses.binary_crossentropy(labels, logits, from_logits=True))
    assert from_logits == pytest.approx(np.mean(np.logaddexp(0, logits) - logits * labels), rel=1e-5)
    probs = np.array([0.9, 0.2, 0.6, 0.4], np.float32)
    expected = -np.mean(labels * np.log(probs) + (1 - labels) * np.log(1 - probs))
    assert float(me.losses.binary_crossentropy(labels, probs)) == pytest.approx(expected, rel=1e-5)
    assert np.isfinite(p).all()


def test_keras_loss_objects_and_names():
    probs = np.exp(log_softmax(LOGITS[:2])).astype(np.float32)
    expected = -log_softmax(LOGITS[:2])[np.arange(2), LABELS[:2]].mean()
    assert float(me.losses.get("sparse_categorical_crossentropy")(LABELS[:2], probs)) == pytest.approx(expected, rel=1e-4)
    by_logits = me.losses.SparseCategoricalCrossentropy(from_logits=True)
    assert float(by_logits(LABELS[:2, None], LOGITS[:2])) == pytest.approx(expected, rel=1e-5)
    onehot = np.eye(3, dtype=np.float32)[LABELS[:2]]
    assert float(me.losses.get("categorical_crossentropy")(onehot, probs)) == pytest.approx(expected, rel=1e-4)
    assert float(me.losses.get("mse")([1.0], np.array([3.0], np.float32))) == 4.0
    with pytest.raises(ValueError, match="Unknown loss 'hinge'"):
        me.losses.get("hinge")


def test_labels_outside_the_logits_range():
    with pytest.raises(me.errors.InvalidArgumentError, match=r"label value of 3 .*\[0, 3\)"):
        me.losses.sparse_softmax_cross_entropy([0, 3, 1], LOGITS)


def test_mean_as_in_the_guide():
    m = me.metrics.Mean("loss")
    m(0)
    m(5)
    assert float(m.result()) == 2.5
    m([8, 9])
    result = m.result()
    assert float(result) == 5.5 and result.dtype == me.float32     # as tf.keras.metrics.Mean in TF 2
    assert me.metrics.Mean(dtype="float64")(5).dtype == me.float64
    assert [name for name, _ in m._checkpoint_dependencies()] == ["total", "count"]
    assert all(isinstance(v, me.Variable) and not v.trainable for v in m.variables())
    m.reset_state()
    assert float(m.result()) == 0.0
    m.update_state([1.0, 3.0], sample_weight=[3.0, 1.0])
    assert float(m.result()) == 1.5
    m.reset_states()


def test_sum_and_accuracies():
    s = me.metrics.Sum()
    s([1, 2])
    s(me.constant(3.0))
    assert float(s.result()) == 6.0
    acc = me.metrics.Accuracy()
    assert float(acc([1, 2, 3, 4], [1, 2, 0, 4])) == 0.75
    sparse = me.metrics.SparseCategoricalAccuracy()
    assert float(sparse(LABELS, LOGITS)) == pytest.approx(2 / 3)
    cat = me.metrics.CategoricalAccuracy()
    assert float(cat(np.eye(3)[LABELS], LOGITS)) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="do not match"):
        sparse([0, 1], LOGITS)


# ---- metrics inside me.function (TF's quickstart "advanced" updates them in its train_step) -------------
def test_metrics_count_on_every_call_of_a_function_as_in_tf():
    """TF 2.21, the same function: returns [0.5, 0.5, 0.6667, 0.75]; Mean().result() 1.5, accuracy 0.75."""
    mean, accuracy = me.keras.metrics.Mean(), me.keras.metrics.SparseCategoricalAccuracy()

    @me.function
    def step(x, y, p, w):
        mean.update_state(x, sample_weight=w)
        return accuracy(y, p)

    outs = [float(step(me.constant([float(i), 10.0]), me.constant([1, 0]), me.constant([[0.1, 0.9], [0.4 * i, 0.8]]),
                       me.constant([1.0, 0.0]))) for i in range(4)]
    np.testing.assert_allclose(outs, [0.5, 0.5, 2 / 3, 0.75], rtol=1e-6)
    assert float(mean.result()) == 1.5 and float(accuracy.result()) == 0.75
    assert len(step._concrete) == 1                                    # one trace served all four calls
    listing = str(step.get_concrete_function(me.constant([0.0, 0.0]), me.constant([1, 0]), me.constant(
        [[0.1, 0.9], [0.0, 0.8]]), me.constant([1.0, 0.0])).graph)
    assert "metric_update" in listing and "metric_result" in listing


def test_a_custom_metric_works_inside_a_function():
    class Largest(me.keras.metrics.Metric):
        def __init__(self, name="largest"):
            super().__init__(name)
            self.largest = self.add_weight("largest", initial=-np.inf)

        def update_state(self, values):
            self.largest.assign(max(float(self.largest), float(me.reduce_max(values))))

        def result(self):
            return me.identity(self.largest)

    largest = Largest()

    @me.function
    def track(x):
        largest(x)

    for x in ([1.0, 3.0], [2.0], [5.0, -1.0]):
        track(me.constant(x))
    assert float(largest.result()) == 5.0


def test_a_metric_update_with_star_arguments_inside_a_function_says_to_name_them():
    class Star(me.keras.metrics.Mean):
        def update_state(self, *values):
            super().update_state(values[0])

    star = Star()
    with pytest.raises(me.errors.InvalidArgumentError, match=r"Star.update_state inside me.function: name its"):
        me.function(lambda x: star.update_state(x))(me.constant(1.0))
