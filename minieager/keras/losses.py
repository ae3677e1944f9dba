"""``me.keras.losses``: Keras' loss objects and loss functions.

The objects (``MeanSquaredError()``, ``SparseCategoricalCrossentropy(from_logits=True)``) return the
batch mean, as ``compile`` and a custom loop want. The functions follow Keras 3: one loss per
example, the mean over the last axis (``keras.losses.MSE([[1.], [2.]], [[1.], [3.]])`` has shape (2,));
``me.losses.mean_squared_error`` is TF 1's, the batch mean.
"""
from ..nn.losses import (  # noqa: F401
    BinaryCrossentropy, CategoricalCrossentropy, Loss, MeanAbsoluteError, MeanSquaredError,
    SparseCategoricalCrossentropy, get)
from ..nn.losses import _EPSILON, _float_labels, _same_rank
from ..ops import elementwise as ew
from ..ops import nn as nn_ops
from ..ops.creation import convert_to_tensor
from ..ops.reductions import reduce_mean, reduce_sum
from ..ops.shape import reshape


def _pair(y_true, y_pred):
    y_pred = convert_to_tensor(y_pred)
    return _same_rank(_float_labels(y_true, y_pred), y_pred)


def mean_squared_error(y_true, y_pred):
    """mean((y_true - y_pred)^2) over the last axis: one value per example."""
    y_true, y_pred = _pair(y_true, y_pred)
    return reduce_mean(ew.square(ew.subtract(y_pred, y_true)), axis=-1)


def mean_absolute_error(y_true, y_pred):
    """mean(|y_true - y_pred|) over the last axis: one value per example."""
    y_true, y_pred = _pair(y_true, y_pred)
    return reduce_mean(ew.abs(ew.subtract(y_pred, y_true)), axis=-1)


def binary_crossentropy(y_true, y_pred, from_logits=False):
    """Binary cross-entropy averaged over the last axis: one value per example."""
    z, x = _pair(y_true, y_pred)
    if from_logits:
        per_element = ew.add(ew.subtract(ew.relu(x), ew.multiply(x, z)), ew.log1p(ew.exp(ew.negative(ew.abs(x)))))
    else:
        p = ew.clip_by_value(x, _EPSILON, 1 - _EPSILON)
        per_element = ew.negative(ew.add(ew.multiply(z, ew.log(p)),
                                         ew.multiply(ew.subtract(1.0, z), ew.log(ew.subtract(1.0, p)))))
    return reduce_mean(per_element, axis=-1)


def categorical_crossentropy(y_true, y_pred, from_logits=False):
    """Cross-entropy of one-hot (or probability) labels, one value per example (rows of y_pred)."""
    y_pred = convert_to_tensor(y_pred)
    y_true = _float_labels(y_true, y_pred)
    if from_logits:
        return nn_ops.softmax_cross_entropy_with_logits(y_true, y_pred)
    p = ew.clip_by_value(ew.divide(y_pred, reduce_sum(y_pred, axis=-1, keepdims=True)), _EPSILON, 1 - _EPSILON)
    return ew.negative(reduce_sum(ew.multiply(y_true, ew.log(p)), axis=-1))


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False):
    """Cross-entropy of integer labels, one value per example; a label outside [0, classes) is an error."""
    y_pred, y_true = convert_to_tensor(y_pred), convert_to_tensor(y_true)
    if y_true.ndim == y_pred.ndim and y_true.shape[-1] == 1:
        y_true = reshape(y_true, tuple(y_true.shape[:-1]))
    logits = y_pred if from_logits else ew.log(ew.clip_by_value(y_pred, _EPSILON, 1 - _EPSILON))
    return nn_ops.sparse_softmax_cross_entropy_with_logits(y_true, logits)


MSE = mse = mean_squared_error
MAE = mae = mean_absolute_error


def __getattr__(name):
    from .._hints import missing
    raise missing(__name__, name)   # a TF name minieager lacks: say what to use instead
