"""``@me.custom_gradient``: a function whose gradient you write yourself.

    @me.custom_gradient
    def log1pexp(x):
        e = me.exp(x)
        def grad(dy):
            return dy * (1 - 1 / (1 + e))
        return me.log(1 + e), grad

The whole function becomes one node on the tape (named after it); when the tape plays it
backwards it calls ``grad`` instead of differentiating the ops inside.
"""
import functools
import inspect

import numpy as np

from .. import nest
from ..engine import recording
from ..engine.abstract import same
from ..errors import InvalidArgumentError
from ..engine.op import Op
from ..engine.tensor import Tensor, wrap
from ..kernels.registry import register_kernel
from ..ops.creation import convert_to_tensor, zeros_like
from .variable import Variable


class CustomGradientOp(Op):
    """The tape node of one call of a ``@custom_gradient`` function."""
    __slots__ = ()
    is_custom = True


class VariableWatcher:
    """Collects the trainable variables that ops read while it is open."""

    def __init__(self):
        self.variables = []

    def __enter__(self):
        recording.add_observer(self)
        return self

    def __exit__(self, *exc):
        recording.remove_observer(self)

    def _observe(self, op, inputs, outputs, attrs):
        for t in inputs:
            if isinstance(t, Variable) and t.trainable and all(t is not v for v in self.variables):
                self.variables.append(t)


def _check_grads(fn_name, what, grads, tensors, names, output_shapes):
    grads = list(grads) if isinstance(grads, (list, tuple)) else [grads]
    if len(grads) != len(tensors):
        raise InvalidArgumentError(
            f"custom_gradient '{fn_name}': grad_fn returned {len(grads)} {what} gradient(s) but the function "
            f"has {len(tensors)} {what}(s). Return one gradient per {what} (None for no gradient).")
    checked = []
    for i, (g, t, name) in enumerate(zip(grads, tensors, names)):
        if g is not None:
            g = convert_to_tensor(g, dtype=t.dtype) if not isinstance(g, Tensor) else g
            # The input's own shape, or an output's shape that the input was broadcast to (the tape sums it back).
            if g.shape != t.shape and not (g.shape in output_shapes and _broadcasts_to(t.shape, g.shape)):
                raise InvalidArgumentError(
                    f"custom_gradient '{fn_name}': the gradient for {what} {i} ('{name}') has shape "
                    f"{tuple(g.shape)} but that {what} has shape {tuple(t.shape)}.")
        checked.append(g)
    return checked


def _broadcasts_to(shape, target):
    try:
        return np.broadcast_shapes(tuple(shape), tuple(target)) == tuple(target)
    except ValueError:
        return False


def _outer_tape_vjp(dy, x, out):
    raise InvalidArgumentError(
        "custom_gradient: this @custom_gradient function was traced by me.function, and a tape outside the "
        "function cannot apply its grad_fn (the graph keeps only the forward ops). Take the gradient inside "
        "the function (a GradientTape or me.gradients there), or call the function eagerly.")


# The output of a @custom_gradient function in a graph: the value unchanged (the identity kernel). A tape
# inside the trace never sees it (it sees the custom op); a tape outside, that records the graph's run,
# gets an error from it instead of a gradient that silently ignores grad_fn.
_traced_output = Op("custom_gradient_output", ("y",), "y", ("grad_fn (only inside the traced function)",),
                    vjp=_outer_tape_vjp, shape_rule=same)       # (any rank: the identity)
register_kernel("custom_gradient_output")(lambda y: y)


def _fresh(tensors):
    """New tensors with the values of ``tensors`` that no tape links to them. While me.function traces,
    a value exists only when the graph runs, so each is a ``custom_gradient_output`` node, recorded
    with the tapes paused."""
    if recording.tracer() is None:
        return tuple(wrap(t._value, t._device) for t in tensors)
    with recording.paused():
        return tuple(_traced_output(t) for t in tensors)


def custom_gradient(f):
    """Decorator: ``f(*x)`` returns ``(y, grad_fn)``; ``grad_fn(dy)`` returns the gradient for each x.

    If ``f`` reads trainable variables, ``grad_fn(dy, variables=None)`` must return
    ``(input_grads, variable_grads)``, as in TensorFlow.
    """
    try:
        names = tuple(inspect.signature(f).parameters)
    except (TypeError, ValueError):
        names = ()

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        inputs = [a if isinstance(a, Tensor) else convert_to_tensor(a) for a in args]
        with VariableWatcher() as watcher:
            result, grad_fn = f(*inputs, **kwargs)
        # Variables passed in as arguments are inputs; grad_fn's `variables` are the ones it reads on its own.
        variables = [v for v in watcher.variables if all(v is not x for x in inputs)]
        flat = [convert_to_tensor(r) for r in nest.flatten(result)]
        # Fresh tensors for the outputs: the tape links them to the inputs through grad_fn alone.
        outputs = _fresh(flat)
        input_names = [names[i] if i < len(names) else f"x{i}" for i in range(len(inputs))]
        output_shapes = [o.shape for o in outputs]

        def vjp(dy, *tensors, out):
            dys = dy if len(outputs) > 1 else [dy]
            # An output the target does not use gets a zero gradient, as in TF (grad_fn never sees None).
            dys = [zeros_like(o) if d is None else d for d, o in zip(dys, outputs)]
            if variables:
                returned = grad_fn(*dys, variables=variables)
                if not (isinstance(returned, (list, tuple)) and len(returned) == 2):
                    raise InvalidArgumentError(
                        f"custom_gradient '{f.__name__}': it reads variables, so grad_fn(dy, variables=...) must "
                        f"return (input_gradients, variable_gradients).")
                input_grads, var_grads = returned
                return (_check_grads(f.__name__, "input", input_grads, inputs, input_names, output_shapes)
                        + _check_grads(f.__name__, "variable", var_grads, variables,
                                       [v.name for v in variables], output_shapes))
            return _check_grads(f.__name__, "input", grad_fn(*dys), inputs, input_names, output_shapes)

        all_names = input_names + [v.name for v in variables]
        op = CustomGradientOp(f.__name__, all_names, f"{f.__name__}({', '.join(all_names)})",
                              [f"{f.__name__}'s grad_fn(dy) (custom gradient)"] * len(all_names),
                              vjp=vjp, num_outputs=len(outputs))
        if recording.observing:     # the tapes (and, in a trace, me.gradients' recorder)
            recording.record(op, tuple(inputs) + tuple(variables), outputs, {})
        return nest.pack_sequence_as(result, list(outputs))

    return decorated
