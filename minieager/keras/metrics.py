"""``me.keras.metrics``: running statistics for ``compile(metrics=...)`` (the same objects as ``me.metrics``)."""
from ..nn.metrics import (  # noqa: F401
    AUC, Accuracy, BinaryAccuracy, CategoricalAccuracy, Mean, MeanMetricWrapper, Metric, Precision, Recall,
    SparseCategoricalAccuracy, Sum, get)


def __getattr__(name):
    from .._hints import missing
    raise missing(__name__, name)   # a TF name minieager lacks: say what to use instead
