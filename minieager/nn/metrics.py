"""``me.metrics``: running statistics as objects, updated by calling them.

    m = me.metrics.Mean("loss")
    m(0); m(5)
    m.result()        # 2.5
    m([8, 9])
    m.result()        # 5.5

A metric's state lives in non-trainable Variables, so a Checkpoint saves it. Updates run on
the arrays, outside every tape: a metric is never part of what is differentiated.
"""
import numpy as np

from ..autodiff.variable import Variable
from ..engine import dtypes
from ..engine.tensor import Tensor
from ..errors import InvalidArgumentError
from ..ops.creation import convert_to_tensor
from .layers.base import _snake_case


def _array(values):
    return values._host() if isinstance(values, Tensor) else np.asarray(values)


class Metric:
    """Base class: ``update_state(...)``, ``result()``, ``reset_state()``; calling updates and returns the result."""

    def __init__(self, name=None, dtype=None):
        self.name = name or _default_name(type(self).__name__)
        self.dtype = dtypes.as_dtype(dtype or self._default_dtype)
        self._state = []

    _default_dtype = dtypes.float32

    def add_weight(self, name, initial=0.0):
        variable = Variable(np.array(initial, self.dtype.np_dtype), trainable=False, name=f"{self.name}/{name}")
        self._state.append((name, variable))
        return variable

    def __call__(self, *args, **kwargs):
        self.update_state(*args, **kwargs)
        return self.result()

    def reset_state(self):
        """Start over: every state variable back to zero."""
        for _, variable in self._state:
            variable.assign(np.zeros((), self.dtype.np_dtype))

    reset_states = reset_state

    def variables(self):
        return [v for _, v in self._state]

    def _checkpoint_dependencies(self):
        return list(self._state)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name!r} result={float(self.result()):.6g}>"


def _default_name(class_name):
    return _snake_case(class_name)


class _Reduce(Metric):
    def __init__(self, name=None, dtype=None):
        super().__init__(name, dtype)
        self.total = self.add_weight("total")

    def _accumulate(self, values, sample_weight):
        values = _array(values).astype(self.dtype.np_dtype, copy=False)
        if sample_weight is None:
            return values.sum(), values.size
        weights = np.broadcast_to(_array(sample_weight).astype(self.dtype.np_dtype, copy=False), values.shape)
        return (values * weights).sum(), weights.sum()


class Sum(_Reduce):
    """The running sum of every value given."""

    _default_dtype = dtypes.float64

    def update_state(self, values, sample_weight=None):
        total, _ = self._accumulate(values, sample_weight)
        self.total.assign(self.total._host() + total)

    def result(self):
        return convert_to_tensor(self.total.numpy())


class Mean(_Reduce):
    """The running (weighted) mean of every value given (float64, as the guide's metrics print)."""

    _default_dtype = dtypes.float64

    def __init__(self, name=None, dtype=None):
        super().__init__(name, dtype)
        self.count = self.add_weight("count")

    def update_state(self, values, sample_weight=None):
        total, count = self._accumulate(values, sample_weight)
        self.total.assign(self.total._host() + total)
        self.count.assign(self.count._host() + self.dtype.np_dtype.type(count))

    def result(self):
        count = self.count._host()
        return convert_to_tensor(np.array(self.total._host() / count if count else 0.0, self.dtype.np_dtype))


class _MeanOfMatches(Mean):
    """The fraction of predictions that match their labels."""

    _default_dtype = dtypes.float32

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = self._labels(_array(y_true)), self._predicted(_array(y_pred))
        if y_true.shape != y_pred.shape:
            raise InvalidArgumentError(
                f"{type(self).__name__}: labels of shape {y_true.shape} do not match predictions giving "
                f"shape {y_pred.shape}.")
        super().update_state(y_true == y_pred, sample_weight)

    def _labels(self, y_true):
        return y_true

    def _predicted(self, y_pred):
        return y_pred


class Accuracy(_MeanOfMatches):
    """How often ``y_pred`` equals ``y_true`` exactly (both already class ids)."""


class SparseCategoricalAccuracy(_MeanOfMatches):
    """How often argmax(y_pred) equals the integer label y_true."""

    def _labels(self, y_true):
        return y_true.reshape(y_true.shape[:-1]) if y_true.ndim > 1 and y_true.shape[-1] == 1 else y_true

    def _predicted(self, y_pred):
        return y_pred.argmax(axis=-1)


class CategoricalAccuracy(_MeanOfMatches):
    """How often argmax(y_pred) equals argmax of the one-hot y_true."""

    def _labels(self, y_true):
        return y_true.argmax(axis=-1)

    def _predicted(self, y_pred):
        return y_pred.argmax(axis=-1)


_BY_NAME = {"mean": Mean, "sum": Sum, "accuracy": Accuracy, "sparse_categorical_accuracy": SparseCategoricalAccuracy,
            "categorical_accuracy": CategoricalAccuracy}


def get(identifier):
    """A new metric from a name ("sparse_categorical_accuracy", ...) or the Metric itself."""
    if isinstance(identifier, Metric):
        return identifier
    if isinstance(identifier, str) and identifier.lower() in _BY_NAME:
        return _BY_NAME[identifier.lower()](name=identifier)
    raise InvalidArgumentError(
        f"Unknown metric {identifier!r}: pass a Metric object or one of {', '.join(sorted(_BY_NAME))}.")


def __getattr__(name):
    from .._hints import missing
    raise missing(__name__, name)   # a TF name minieager lacks: say what to use instead
