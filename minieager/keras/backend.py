"""``me.keras.backend``: the few backend settings tutorials touch."""
from ..nn.layers.base import clear_session  # noqa: F401

_EPSILON = 1e-7


def floatx():
    """The default float type of layers' weights: "float32", as Keras."""
    return "float32"


def epsilon():
    """The small number Keras adds to avoid dividing by zero or taking log(0): 1e-7."""
    return _EPSILON


def __getattr__(name):
    from .._hints import missing
    raise missing(__name__, name)   # a TF name minieager lacks: say what to use instead
