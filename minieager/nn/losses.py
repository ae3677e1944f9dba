"""``me.losses``: each loss is the mean over the batch, a scalar, as the guide's ``tf.losses`` return.

The functions take the labels first, as TF 1 does (``sparse_softmax_cross_entropy(labels, logits)``).
For ``model.compile(loss=...)`` there are Keras-style objects and names too:
``SparseCategoricalCrossentropy(from_logits=True)``, "sparse_categorical_crossentropy", "mse", ...
"""
from ..ops import elementwise as ew
from ..ops import nn as nn_ops
from ..ops.creation import convert_to_tensor
from ..ops.reductions import reduce_mean, reduce_sum
from ..ops.shape import expand_dims, reshape
from ._config import Configurable
from ._lookup import by_name

_EPSILON = 1e-7     # keeps log() finite for probabilities of exactly 0 or 1 (Keras' epsilon)


def _float_labels(labels, like):
    labels = convert_to_tensor(labels)
    return labels if labels.dtype is like.dtype else ew.cast(labels, like.dtype)


def _same_rank(labels, predictions):
    """Labels (batch,) against predictions (batch, 1), or the reverse: Keras' ``squeeze_or_expand_to_same_rank``
    (a rank-1 side gains the axis of size 1, otherwise the other side loses it), instead of broadcasting the
    two to (batch, batch)."""
    def match(a, b):      # a has one axis more than b, of size 1
        return (a, expand_dims(b, -1)) if b.ndim == 1 else (reshape(a, tuple(a.shape[:-1])), b)
    if labels.ndim == predictions.ndim + 1 and labels.shape[-1] == 1:
        labels, predictions = match(labels, predictions)
    elif predictions.ndim == labels.ndim + 1 and predictions.shape[-1] == 1:
        predictions, labels = match(predictions, labels)
    return labels, predictions


def mean_squared_error(labels, predictions):
    """mean((labels - predictions)^2) over every element."""
    predictions = convert_to_tensor(predictions)
    labels, predictions = _same_rank(_float_labels(labels, predictions), predictions)
    return reduce_mean(ew.square(ew.subtract(predictions, labels)))


def mean_absolute_error(labels, predictions):
    """mean(|labels - predictions|) over every element."""
    predictions = convert_to_tensor(predictions)
    labels, predictions = _same_rank(_float_labels(labels, predictions), predictions)
    return reduce_mean(ew.abs(ew.subtract(predictions, labels)))


def sparse_softmax_cross_entropy(labels, logits):
    """Cross-entropy of integer class ``labels`` (batch,) against ``logits`` (batch, classes), averaged."""
    logits, labels = convert_to_tensor(logits), convert_to_tensor(labels)
    if labels.ndim == 2 and labels.shape[1] == 1 and logits.ndim == 2:
        labels = reshape(labels, (-1,))    # Keras-style (batch, 1) labels
    return nn_ops.mean_sparse_softmax_cross_entropy(labels, logits)


def softmax_cross_entropy(onehot_labels, logits):
    """Cross-entropy of one-hot (or probability) labels against ``logits`` (batch, classes), averaged."""
    logits = convert_to_tensor(logits)
    return nn_ops.mean_softmax_cross_entropy(_float_labels(onehot_labels, logits), logits)


def binary_crossentropy(labels, logits_or_probs, from_logits=False):
    """Mean binary cross-entropy of 0/1 labels against logits (from_logits=True) or probabilities."""
    x = convert_to_tensor(logits_or_probs)
    z, x = _same_rank(_float_labels(labels, x), x)
    if from_logits:   # max(x, 0) - x z + log(1 + exp(-|x|)): no overflow for any x
        per_element = ew.add(ew.subtract(ew.relu(x), ew.multiply(x, z)), ew.log1p(ew.exp(ew.negative(ew.abs(x)))))
    else:
        p = ew.clip_by_value(x, _EPSILON, 1 - _EPSILON)
        per_element = ew.negative(ew.add(ew.multiply(z, ew.log(p)),
                                         ew.multiply(ew.subtract(1.0, z), ew.log(ew.subtract(1.0, p)))))
    return reduce_mean(per_element)


def _probabilities_xent(onehot, probs):
    """Cross-entropy from probabilities (a softmax output): -sum(labels * log(probs)), averaged."""
    p = ew.clip_by_value(probs, _EPSILON, 1 - _EPSILON)
    return reduce_mean(ew.negative(reduce_sum(ew.multiply(onehot, ew.log(p)), axis=-1)))


# ---- Keras-style loss objects: ``loss(y_true, y_pred)`` -> scalar ---------------------------------
class Loss(Configurable):
    """A loss for ``model.compile``: called as ``loss(y_true, y_pred)``, returning the batch mean."""

    name = "loss"

    def __call__(self, y_true, y_pred):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}()"


class MeanSquaredError(Loss):
    name = "mean_squared_error"

    def __call__(self, y_true, y_pred):
        return mean_squared_error(y_true, y_pred)


class MeanAbsoluteError(Loss):
    name = "mean_absolute_error"

    def __call__(self, y_true, y_pred):
        return mean_absolute_error(y_true, y_pred)


class SparseCategoricalCrossentropy(Loss):
    """Integer labels against logits (from_logits=True) or softmax probabilities (the default, as in Keras)."""

    name = "sparse_categorical_crossentropy"

    def __init__(self, from_logits=False):
        self.from_logits = from_logits

    def __call__(self, y_true, y_pred):
        if self.from_logits:
            return sparse_softmax_cross_entropy(y_true, y_pred)
        # As Keras: log(clipped probabilities) are logits whose softmax is the probabilities (renormalised),
        # and the sparse op checks every label is a class index, eagerly and traced.
        y_pred = convert_to_tensor(y_pred)
        return sparse_softmax_cross_entropy(y_true, ew.log(ew.clip_by_value(y_pred, _EPSILON, 1 - _EPSILON)))

    def __repr__(self):
        return f"SparseCategoricalCrossentropy(from_logits={self.from_logits})"


class CategoricalCrossentropy(Loss):
    """One-hot labels against logits (from_logits=True) or softmax probabilities (the default)."""

    name = "categorical_crossentropy"

    def __init__(self, from_logits=False):
        self.from_logits = from_logits

    def __call__(self, y_true, y_pred):
        if self.from_logits:
            return softmax_cross_entropy(y_true, y_pred)
        y_pred = convert_to_tensor(y_pred)
        y_pred = ew.divide(y_pred, reduce_sum(y_pred, axis=-1, keepdims=True))   # rows summing to 1, as Keras
        return _probabilities_xent(_float_labels(y_true, y_pred), y_pred)

    def __repr__(self):
        return f"CategoricalCrossentropy(from_logits={self.from_logits})"


class BinaryCrossentropy(Loss):
    name = "binary_crossentropy"

    def __init__(self, from_logits=False):
        self.from_logits = from_logits

    def __call__(self, y_true, y_pred):
        return binary_crossentropy(y_true, y_pred, from_logits=self.from_logits)

    def __repr__(self):
        return f"BinaryCrossentropy(from_logits={self.from_logits})"


_BY_NAME = {"mse": MeanSquaredError, "mean_squared_error": MeanSquaredError, "mae": MeanAbsoluteError,
            "mean_absolute_error": MeanAbsoluteError,
            "sparse_categorical_crossentropy": SparseCategoricalCrossentropy,
            "categorical_crossentropy": CategoricalCrossentropy, "binary_crossentropy": BinaryCrossentropy}


def get(identifier):
    """A loss from a Keras name ("mse", "sparse_categorical_crossentropy", ...), a Loss, or a function."""
    return by_name("a loss", _BY_NAME, identifier, create=True, also=", or pass a function loss(y_true, y_pred)")


def __getattr__(name):
    from .._hints import missing
    raise missing(__name__, name)   # a TF name minieager lacks: say what to use instead
