"""Activation functions by name, as layers accept them: ``Dense(10, activation="relu")``."""
from ..engine.errors import InvalidArgumentError
from ..ops import elementwise as ew
from ..ops.nn import softmax


def linear(x):
    """The identity: no activation."""
    return x


_BY_NAME = {"relu": ew.relu, "sigmoid": ew.sigmoid, "tanh": ew.tanh, "softmax": softmax, "linear": linear}


def get(identifier):
    """The activation function for a name, a callable, or None (linear)."""
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        try:
            return _BY_NAME[identifier.lower()]
        except KeyError:
            raise InvalidArgumentError(
                f"Unknown activation {identifier!r}. Known names: {', '.join(sorted(_BY_NAME))}, "
                f"or pass a function.") from None
    if callable(identifier):
        return identifier
    raise InvalidArgumentError(f"An activation must be a name or a callable, got {identifier!r}.")
