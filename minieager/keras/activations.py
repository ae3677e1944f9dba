"""``me.keras.activations``: the activation functions layers accept by name (``Dense(10, activation="relu")``)."""
from ..nn.activations import get, linear  # noqa: F401
from ..ops.activations import elu, gelu, relu6, selu, silu, swish  # noqa: F401
from ..ops.elementwise import relu, sigmoid, softplus, tanh  # noqa: F401
from ..ops.nn import softmax  # noqa: F401


def __getattr__(name):
    from .._hints import missing
    raise missing(__name__, name)   # a TF name minieager lacks: say what to use instead
