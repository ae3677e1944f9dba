"""``me.metrics``: running statistics as objects, updated by calling them.

    m = me.metrics.Mean("loss")
    m(0); m(5)
    m.result()        # 2.5
    m([8, 9])
    m.result()        # 5.5

A metric's state lives in non-trainable Variables, so a Checkpoint saves it. Updates run on
the arrays, outside every tape: a metric is never part of what is differentiated. Inside
``me.function``, ``update_state`` and ``result`` each become one effect node that calls the same
method when the graph runs (``graph/effects.py``), so a metric counts on every call, as in TF.
"""
import functools
import inspect

import numpy as np

from ..autodiff.variable import Variable
from ..engine import dtypes
from ..engine.recording import tracer
from ..engine.tensor import Tensor
from ..errors import InvalidArgumentError
from ..graph.effects import trace_metric_result, trace_metric_update
from ..ops.creation import convert_to_tensor
from .layers.base import _snake_case


def _array(values):
    return values._host() if isinstance(values, Tensor) else np.asarray(values)


def _graph_update(update_state):
    """``update_state`` that, inside a trace, records an effect node calling it when the graph runs."""
    signature = inspect.signature(update_state)

    @functools.wraps(update_state)
    def update(self, *args, **kwargs):
        if tracer() is None:
            return update_state(self, *args, **kwargs)
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in signature.parameters.values()):
            raise InvalidArgumentError(f"{type(self).__name__}.update_state inside me.function: name its arguments "
                                       f"(no *args or **kwargs) so the graph can pass them back by name.")
        arguments = signature.bind(self, *args, **kwargs).arguments
        arguments.pop(next(iter(signature.parameters)))            # self
        return trace_metric_update(self, arguments)
    return update


def _graph_result(result):
    """``result`` that, inside a trace, records an effect node reading the result when the graph runs."""
    @functools.wraps(result)
    def read(self):
        return trace_metric_result(self) if tracer() is not None else result(self)
    return read


class Metric:
    """Base class: ``update_state(...)``, ``result()``, ``reset_state()``; calling updates and returns the result.

    A subclass's ``update_state`` and ``result`` also work inside ``me.function`` (see the module's doc)."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "update_state" in vars(cls):
            cls.update_state = _graph_update(vars(cls)["update_state"])
        if "result" in vars(cls):
            cls.result = _graph_result(vars(cls)["result"])

    def __init__(self, name=None, dtype=None):
        self.name = name or _default_name(type(self).__name__)
        self.dtype = dtypes.as_dtype(dtype or self._default_dtype)
        self._state = []

    _default_dtype = dtypes.float32

    def add_weight(self, name, initial=0.0, shape=()):
        value = np.full(shape, initial, self.dtype.np_dtype)
        variable = Variable(value, trainable=False, name=f"{self.name}/{name}")
        self._state.append((name, variable))
        return variable

    def get_config(self):
        """The constructor arguments that make this metric again (``type(m).from_config(m.get_config())``)."""
        return {"name": self.name, "dtype": self.dtype.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def _fresh(self):
        """A new metric like this one, with its own, empty state (evaluate's copy of fit's metrics)."""
        return type(self).from_config(self.get_config())

    def __call__(self, *args, **kwargs):
        self.update_state(*args, **kwargs)
        return self.result()

    def reset_state(self):
        """Start over: every state variable back to zero."""
        for _, variable in self._state:
            variable.assign(np.zeros(variable.shape, self.dtype.np_dtype))

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
    """The running sum of every value given (float32, as Keras)."""

    def update_state(self, values, sample_weight=None):
        total, _ = self._accumulate(values, sample_weight)
        self.total.assign(self.total._host() + total)

    def result(self):
        return convert_to_tensor(self.total.numpy())


class Mean(_Reduce):
    """The running (weighted) mean of every value given (float32, as Keras; pass dtype="float64" for more)."""

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


def _same_rank(y_true, y_pred):
    """Labels (batch,) against predictions (batch, 1), or the reverse: Keras' ``squeeze_or_expand_to_same_rank``."""
    def match(a, b):
        return (a, b[..., None]) if b.ndim == 1 else (a.reshape(a.shape[:-1]), b)
    if y_true.ndim == y_pred.ndim + 1 and y_true.shape[-1] == 1:
        y_true, y_pred = match(y_true, y_pred)
    elif y_pred.ndim == y_true.ndim + 1 and y_pred.shape[-1] == 1:
        y_pred, y_true = match(y_pred, y_true)
    return y_true, y_pred


class _MeanOfMatches(Mean):
    """The fraction of predictions that match their labels."""

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


class BinaryAccuracy(_MeanOfMatches):
    """How often ``y_pred > threshold`` equals the 0/1 label (predictions are probabilities, or logits with
    threshold=0)."""

    def __init__(self, name=None, dtype=None, threshold=0.5):
        super().__init__(name, dtype)
        self.threshold = float(threshold)

    def get_config(self):
        return {**super().get_config(), "threshold": self.threshold}

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = _same_rank(_array(y_true), _array(y_pred))
        super().update_state(y_true, (y_pred > self.threshold).astype(y_true.dtype), sample_weight)


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


class MeanMetricWrapper(Mean):
    """The running mean of ``fn(y_true, y_pred)``: any function of labels and predictions as a metric."""

    def __init__(self, fn, name=None, dtype=None):
        super().__init__(name or getattr(fn, "__name__", "metric"), dtype)
        self._fn = fn

    def get_config(self):
        return {**super().get_config(), "fn": self._fn}

    def update_state(self, y_true, y_pred, sample_weight=None):
        super().update_state(self._fn(y_true, y_pred), sample_weight)


# ---- confusion-matrix metrics: counts of true/false positives/negatives at thresholds ----------------
_EPSILON = 1e-7


def _confusion(metric, y_true, y_pred, sample_weight, thresholds):
    """Per threshold: the (weighted) counts of (tp, fp, tn, fn) when ``y_pred > threshold`` means positive.

    Any nonzero label is positive. Predictions are not checked to lie in [0, 1] (Keras 3 does not either):
    with logits, pass a threshold of 0."""
    y_true, y_pred = _same_rank(_array(y_true), _array(y_pred).astype(np.float64))
    if y_true.shape != y_pred.shape:
        raise InvalidArgumentError(f"{type(metric).__name__}: labels of shape {y_true.shape} do not match predictions "
                                   f"of shape {y_pred.shape}.")
    positive = (y_true != 0).reshape(-1)
    weight = np.ones(positive.shape) if sample_weight is None else \
        np.broadcast_to(_array(sample_weight), y_true.shape).reshape(-1).astype(np.float64)
    predicted = y_pred.reshape(1, -1) > np.asarray(thresholds, np.float64).reshape(-1, 1)   # (thresholds, examples)
    tp = (predicted & positive) @ weight
    fp = (predicted & ~positive) @ weight
    return tp, fp, (~predicted & ~positive) @ weight, (~predicted & positive) @ weight


class _Confusion(Metric):
    """Counts of true/false positives/negatives at one threshold (0.5 unless given), as Keras' Precision/Recall."""

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(name, dtype)
        if thresholds is not None and not isinstance(thresholds, (int, float)):
            raise InvalidArgumentError(f"{type(self).__name__}: thresholds must be one number in [0, 1] (minieager "
                                       f"computes the metric at one threshold), got {thresholds!r}.")
        self.thresholds = 0.5 if thresholds is None else float(thresholds)
        self.true_positives = self.add_weight("true_positives")
        self.false_positives = self.add_weight("false_positives")
        self.false_negatives = self.add_weight("false_negatives")

    def get_config(self):
        return {**super().get_config(), "thresholds": self.thresholds}

    def update_state(self, y_true, y_pred, sample_weight=None):
        tp, fp, _, fn = _confusion(self, y_true, y_pred, sample_weight, [self.thresholds])
        for variable, count in ((self.true_positives, tp), (self.false_positives, fp), (self.false_negatives, fn)):
            variable.assign(variable._host() + self.dtype.np_dtype.type(count[0]))

    def _ratio(self, numerator, other):
        n, d = numerator._host(), numerator._host() + other._host()
        return convert_to_tensor(np.array(n / d if d else 0.0, self.dtype.np_dtype))


class Precision(_Confusion):
    """tp / (tp + fp): of the examples predicted positive (``y_pred > thresholds``), the fraction that are."""

    def result(self):
        return self._ratio(self.true_positives, self.false_positives)


class Recall(_Confusion):
    """tp / (tp + fn): of the positive examples, the fraction predicted positive (``y_pred > thresholds``)."""

    def result(self):
        return self._ratio(self.true_positives, self.false_negatives)


def _divide_no_nan(a, b):
    return np.divide(a, b, out=np.zeros_like(a), where=b != 0)


class AUC(Metric):
    """The area under the ROC (or precision-recall, curve="PR") curve, from counts at ``num_thresholds``
    evenly spaced thresholds, summed as Keras does (summation_method "interpolation", "minoring", "majoring")."""

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation", name=None, dtype=None):
        super().__init__(name, dtype)
        if int(num_thresholds) < 2:
            raise InvalidArgumentError(f"AUC: num_thresholds must be at least 2, got {num_thresholds}.")
        if str(curve).upper() not in ("ROC", "PR"):
            raise InvalidArgumentError(f"AUC: curve must be 'ROC' or 'PR', got {curve!r}.")
        if summation_method not in ("interpolation", "minoring", "majoring"):
            raise InvalidArgumentError(f"AUC: summation_method must be 'interpolation', 'minoring' or 'majoring', "
                                       f"got {summation_method!r}.")
        self.num_thresholds, self.curve, self.summation_method = int(num_thresholds), str(curve).upper(), summation_method
        inner = [(i + 1) / (self.num_thresholds - 1) for i in range(self.num_thresholds - 2)]
        self.thresholds = np.array([-_EPSILON] + inner + [1 + _EPSILON])   # the ends catch predictions of 0 and 1
        n = (self.num_thresholds,)
        self.true_positives, self.false_positives = self.add_weight("true_positives", shape=n), self.add_weight(
            "false_positives", shape=n)
        self.true_negatives, self.false_negatives = self.add_weight("true_negatives", shape=n), self.add_weight(
            "false_negatives", shape=n)

    def get_config(self):
        return {**super().get_config(), "num_thresholds": self.num_thresholds, "curve": self.curve,
                "summation_method": self.summation_method}

    def update_state(self, y_true, y_pred, sample_weight=None):
        counts = _confusion(self, y_true, y_pred, sample_weight, self.thresholds)
        for variable, count in zip((self.true_positives, self.false_positives, self.true_negatives,
                                    self.false_negatives), counts):
            variable.assign(variable._host() + count.astype(self.dtype.np_dtype))

    def result(self):
        tp, fp, tn, fn = (v._host().astype(np.float64) for v in (self.true_positives, self.false_positives,
                                                                   self.true_negatives, self.false_negatives))
        if self.curve == "PR" and self.summation_method == "interpolation":
            area = self._interpolated_pr_area(tp, fp, fn)
        else:
            recall = _divide_no_nan(tp, tp + fn)
            x, y = (_divide_no_nan(fp, fp + tn), recall) if self.curve == "ROC" else (recall, _divide_no_nan(tp, tp + fp))
            heights = {"interpolation": (y[:-1] + y[1:]) / 2, "minoring": np.minimum(y[:-1], y[1:]),
                       "majoring": np.maximum(y[:-1], y[1:])}[self.summation_method]
            area = np.sum((x[:-1] - x[1:]) * heights)
        return convert_to_tensor(np.array(area, self.dtype.np_dtype))

    @staticmethod
    def _interpolated_pr_area(tp, fp, fn):
        """Davis & Goadrich (2006): precision interpolated between thresholds as Keras' ``interpolate_pr_auc``."""
        dtp = tp[:-1] - tp[1:]
        p = tp + fp
        dp = p[:-1] - p[1:]
        slope = _divide_no_nan(dtp, np.maximum(dp, 0))
        intercept = tp[1:] - slope * p[1:]
        both = (p[:-1] > 0) & (p[1:] > 0)
        ratio = np.where(both, _divide_no_nan(p[:-1], np.maximum(p[1:], 0)), 1.0)
        return np.sum(_divide_no_nan(slope * (dtp + intercept * np.log(ratio)), np.maximum(tp[1:] + fn[1:], 0)))


_BY_NAME = {"mean": Mean, "sum": Sum, "accuracy": Accuracy, "sparse_categorical_accuracy": SparseCategoricalAccuracy,
            "categorical_accuracy": CategoricalAccuracy, "binary_accuracy": BinaryAccuracy, "precision": Precision,
            "recall": Recall, "auc": AUC}


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
