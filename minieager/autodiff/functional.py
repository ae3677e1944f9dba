"""The function-style (Autograd-style) gradient API from the guide.

``me.gradients_function(f)`` turns ``f(x, y)`` into a function returning ``[df/dx, df/dy]``.
Each is a thin wrapper around a GradientTape, so they nest: the gradient of a gradient is a
second derivative.
"""
import functools
import inspect

from ..engine.tensor import Tensor
from ..ops.creation import convert_to_tensor
from .tape import GradientTape


def _param_indices(f, params, n_args):
    if params is None:
        return list(range(n_args))
    names = list(inspect.signature(f).parameters)
    return [p if isinstance(p, int) else names.index(p) for p in params]


def value_and_gradients_function(f, params=None):
    """``f`` -> a function returning ``(f(*args), [gradient for each selected arg])``."""
    @functools.wraps(f)
    def value_and_grads(*args, **kwargs):
        tensors = [a if isinstance(a, Tensor) else convert_to_tensor(a) for a in args]
        chosen = _param_indices(f, params, len(tensors))
        with GradientTape() as tape:
            tape.watch([tensors[i] for i in chosen if tensors[i].dtype.is_floating])
            value = f(*tensors, **kwargs)
        return value, tape.gradient(value, [tensors[i] for i in chosen])
    return value_and_grads


def gradients_function(f, params=None):
    """``f`` -> a function returning the list of gradients of ``f`` with respect to its arguments."""
    value_and_grads = value_and_gradients_function(f, params)

    @functools.wraps(f)
    def grads(*args, **kwargs):
        return value_and_grads(*args, **kwargs)[1]
    return grads


def implicit_value_and_gradients(f):
    """``f`` -> a function returning ``(value, [(gradient, variable), ...])`` for the variables f reads."""
    @functools.wraps(f)
    def value_and_grads(*args, **kwargs):
        with GradientTape() as tape:
            value = f(*args, **kwargs)
        variables = tape.watched_variables()
        return value, list(zip(tape.gradient(value, list(variables)), variables))
    return value_and_grads


def implicit_gradients(f):
    """``f`` -> a function returning ``[(gradient, variable), ...]`` for every trainable variable f reads."""
    value_and_grads = implicit_value_and_gradients(f)

    @functools.wraps(f)
    def grads(*args, **kwargs):
        return value_and_grads(*args, **kwargs)[1]
    return grads
