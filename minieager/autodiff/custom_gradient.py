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


def _outer_tape_vjp(dy, *inputs, out, n=1):
    raise InvalidArgumentError(
        "custom_gradient: this graph was loaded from a SavedModel, which keeps a @custom_gradient function's "
        "forward ops but not its Python grad_fn, so a tape outside the function cannot apply it. Take the "
        "gradient inside the function, or call the Python function.")


# The outputs of a @custom_gradient function in a graph: the values unchanged. The node's inputs are the
# outputs ``ys``, then what the gradient needs (the function's inputs and variables, the tensors its traced
# grad_fn reads); attribute ``n`` = how many outputs. A tape inside the trace never sees the node (it sees
# the custom op); a tape outside, that records the graph's run, gets grad_fn's gradient from it (the Op
# made for each call, below; this one, found by name, serves a graph loaded from a SavedModel).
def _outputs_rule(*inputs, n=1):
    """The first ``n`` inputs, unchanged (any rank)."""
    return inputs[0] if n == 1 else inputs[:n]


_outputs_rule.any_rank = True
_traced_output = Op("custom_gradient_output", ("y",), "y", ("grad_fn (traced with the function)",),
                    vjp=_outer_tape_vjp, shape_rule=_outputs_rule)
register_kernel("custom_gradient_output")(lambda *arrays, n=1: arrays[0] if n == 1 else tuple(arrays[:n]))

# graph/gradients.py installs ``trace_gradient(name, ys, grad_fn) -> (apply, captured)``: grad_fn(*dys)
# traced into a graph of its own, ``apply(dys, captured_values)`` running it (autodiff sits below graph).
trace_gradient = None


def _fresh(tensors):
    """New tensors with the values of ``tensors`` that no tape links to them."""
    return tuple(wrap(t._value, t._device) for t in tensors)


def _traced(name, ys, sources, grads):
    """While me.function traces: the outputs ``ys`` as one ``custom_gradient_output`` node, recorded with
    the tapes paused, whose gradient (for a tape outside the function) is ``grads(*dys)`` traced with the
    function: one gradient per source (the function's inputs, then its variables)."""
    apply, captured = trace_gradient(name, ys, grads)
    n = len(ys)

    def vjp(dys, *inputs, out, n):
        dys = [dys] if n == 1 else [zeros_like(o) if d is None else d for d, o in zip(dys, out)]
        given = inputs[n:]
        return (None,) * n + tuple(apply(dys, given[len(sources):])) + (None,) * len(captured)

    op = Op("custom_gradient_output", ("y",), "y", (f"{name}'s grad_fn (traced with the function)",), vjp=vjp,
            num_outputs=n, shape_rule=_outputs_rule)
    with recording.paused():
        out = op(*ys, *sources, *captured, n=n)
    return (out,) if n == 1 else tuple(out)


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
        input_names = [names[i] if i < len(names) else f"x{i}" for i in range(len(inputs))]
        output_shapes = [o.shape for o in flat]

        def vjp(dy, *tensors, out):
            dys = dy if len(flat) > 1 else [dy]
            # An output the target does not use gets a zero gradient, as in TF (grad_fn never sees None).
            dys = [zeros_like(o) if d is None else d for d, o in zip(dys, flat)]
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

        def all_grads(*dys):       # grad_fn's gradients, zeros where it gives None (a traced graph returns tensors)
            grads = vjp(dys[0] if len(dys) == 1 else list(dys), out=None)
            return [zeros_like(t) if g is None else g for g, t in zip(grads, [*inputs, *variables])]

        # Fresh tensors for the outputs: the tape links them to the inputs through grad_fn alone.
        outputs = _fresh(flat) if recording.tracer() is None else _traced(
            f.__name__, flat, [*inputs, *variables], all_grads)
        all_names = input_names + [v.name for v in variables]
        op = CustomGradientOp(f.__name__, all_names, f"{f.__name__}({', '.join(all_names)})",
                              [f"{f.__name__}'s grad_fn(dy) (custom gradient)"] * len(all_names),
                              vjp=vjp, num_outputs=len(outputs))
        if recording.observing:     # the tapes (and, in a trace, me.gradients' recorder)
            recording.record(op, tuple(inputs) + tuple(variables), outputs, {})
        return nest.pack_sequence_as(result, list(outputs))

    return decorated
