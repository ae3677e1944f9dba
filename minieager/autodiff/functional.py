"""The function-style (Autograd-style) gradient API from the guide, TF's ``tfe`` functions.

``me.gradients_function(f)`` turns ``f(x, y)`` into a function returning ``[df/dx, df/dy]``.
Each is a thin wrapper around a GradientTape, so they nest: the gradient of a gradient is a
second derivative. As in TF:

- each argument gets its own gradient, even when one tensor is passed twice
  (``gradients_function(f)(x, x)`` for ``f(a, b) = a * b`` gives ``[x, x]``, not ``2x`` twice);
- the keyword argument ``dy=`` is the gradient of the output (``tape.gradient``'s
  ``output_gradients``); by default the output is summed;
- ``implicit_gradients`` lists the variables in the order they were created;
- differentiating a function that returns None is a ValueError.
"""
import functools
import inspect

from ..ops.creation import convert_to_tensor
from ..ops.shape import identity
from .tape import GradientTape


def _param_indices(f, params, n_args):
    if params is None:
        return list(range(n_args))
    names = list(inspect.signature(f).parameters)
    return [p if isinstance(p, int) else names.index(p) for p in params]


def _check_value(f, value):
    if value is None:       # TF's message, word for word
        raise ValueError(f"Cannot differentiate a function that returns None; did you forget to return a "
                         f"value from {getattr(f, '__name__', 'the function')}?")


def _own_tensors(args):
    """Each argument as a tensor of its own, so that ``f(x, x)`` has two sources, as in TF. ``identity``
    makes the new tensor with an op, so an outer tape still sees it come from ``x`` (nested derivatives)."""
    return [identity(convert_to_tensor(a)) for a in args]


def make_vjp(f, params=None, persistent=True):
    """``f`` -> a function returning ``(f(*args), vjp)``; ``vjp(dy=None)`` gives the gradients for ``params``.

    With ``persistent=True`` (TF's default) ``vjp`` may be called several times.
    """
    @functools.wraps(f)
    def decorated(*args, **kwargs):
        tensors = _own_tensors(args)
        chosen = [tensors[i] for i in _param_indices(f, params, len(tensors))]
        with GradientTape(persistent=persistent) as tape:
            tape.watch([t for t in chosen if t.dtype.is_floating])
            value = f(*tensors, **kwargs)
        _check_value(f, value)

        def vjp(dy=None):
            return tape.gradient(value, chosen, output_gradients=dy)
        return value, vjp
    return decorated


def value_and_gradients_function(f, params=None):
    """``f`` -> a function returning ``(f(*args), [gradient for each selected arg])``; ``dy=`` as in TF."""
    @functools.wraps(f)
    def value_and_grads(*args, **kwargs):
        dy = kwargs.pop("dy", None)
        value, vjp = make_vjp(f, params, persistent=False)(*args, **kwargs)
        return value, vjp(dy)
    return value_and_grads


def gradients_function(f, params=None):
    """``f`` -> a function returning the list of gradients of ``f`` with respect to its arguments."""
    value_and_grads = value_and_gradients_function(f, params)

    @functools.wraps(f)
    def grads(*args, **kwargs):
        return value_and_grads(*args, **kwargs)[1]
    return grads


def implicit_value_and_gradients(f):
    """``f`` -> a function returning ``(value, [(gradient, variable), ...])`` for the variables f reads.

    The variables come in the order they were created (as TF sorts them), not the order f read them.
    """
    @functools.wraps(f)
    def value_and_grads(*args, **kwargs):
        with GradientTape() as tape:
            value = f(*args, **kwargs)
        _check_value(f, value)
        variables = sorted(tape.watched_variables(), key=lambda v: v._id)    # ids count up as tensors are made
        if not variables:
            raise ValueError(f"No trainable variables were accessed while the function {getattr(f, '__name__', '')} "
                             f"was being computed, so there is nothing to differentiate (as in TF).")
        return value, list(zip(tape.gradient(value, variables), variables))
    return value_and_grads


def implicit_gradients(f):
    """``f`` -> a function returning ``[(gradient, variable), ...]`` for every trainable variable f reads."""
    value_and_grads = implicit_value_and_gradients(f)

    @functools.wraps(f)
    def grads(*args, **kwargs):
        return value_and_grads(*args, **kwargs)[1]
    return grads
