"""``tfe = me.contrib.eager``: the ``tfe`` names of TensorFlow 1's eager guide (the syllabus), each
minieager's own object under its TF 1 name, so the guide's first line, ``tfe = tf.contrib.eager``, and
the code after it run unchanged.
"""
from .. import nn as _nn
from ..autodiff.functional import (  # noqa: F401
    gradients_function, implicit_gradients, implicit_value_and_gradients, value_and_gradients_function)
from ..autodiff.tape import GradientTape  # noqa: F401
from ..autodiff.variable import Variable  # noqa: F401
from ..engine import dtypes as _dtypes
from ..engine import recording as _recording
from ..graph.compat.v1 import py_func  # noqa: F401
from ..graph.function import function as defun  # noqa: F401  (TF 1's name for tf.function)
from ..machine import num_gpus  # noqa: F401
from ..nn.models import Model as _Model
from ..train import Checkpoint  # noqa: F401


def executing_eagerly():
    """True, except while ``me.function`` traces a function (as ``me.executing_eagerly``)."""
    return _recording.tracer() is None


def enable_eager_execution(*args, **kwargs):
    """Accepted so the guide's code runs unchanged; eager execution is always on."""


def Iterator(dataset):  # noqa: N802 (TF 1's name: a class there)
    """``tfe.Iterator(dataset)``: an iterator over the dataset's elements, with ``.next()`` as in TF 1."""
    return iter(dataset)


class Network(_Model):
    """TF 1.4's ``tfe.Network``: a Model whose layers are registered with ``track_layer``. A Model already
    tracks the layers set as its attributes, so ``track_layer`` only returns the layer."""

    def track_layer(self, layer):
        return layer


class _Metrics:
    """``tfe.metrics``: ``tfe.metrics.Mean("loss")`` keeps a float64 running mean, as the guide prints."""

    class Mean(_nn.metrics.Mean):
        def __init__(self, name=None, dtype=_dtypes.float64):
            super().__init__(name=name, dtype=dtype)

    def __getattr__(self, name):
        return getattr(_nn.metrics, name)


metrics = _Metrics()


def __getattr__(name):
    from .._hints import missing
    raise missing(__name__, name)
