"""``me.gradients(ys, xs)``: TensorFlow's ``tf.gradients``, gradients built into the graph being traced.

Inside ``me.function`` (or a ``compat.v1`` graph) every differentiable op call is also kept by the
trace's ``GraphRecorder`` (tracing.py), a tape that watches everything. ``me.gradients`` plays
those records backwards with the eager tape's own ``backward`` and the ops' own VJP rules; since
the VJPs run while the trace is open, the gradient ops they call are recorded into the same graph,
graph to graph, and run whenever the graph runs. Eagerly there is no graph to add to: use
``me.GradientTape``.
"""
from .. import nest
from ..autodiff import custom_gradient
from ..autodiff.backprop import backward
from ..autodiff.tape import UnconnectedGradients
from ..engine import recording
from ..engine.tensor import Tensor
from ..errors import InaccessibleTensorError, InvalidArgumentError
from ..ops.creation import convert_to_tensor, zeros_like
from .control_flow import _subgraph
from .ir import run
from .symbolic import SymbolicTensor


def _tensors(value, what):
    flat = [value] if isinstance(value, Tensor) else nest.flatten(value)
    for t in flat:
        if not isinstance(t, Tensor):
            raise TypeError(f"me.gradients: {what} must be tensors (or a list of them), got "
                            f"{type(t).__name__} ({t!r}).")
    return flat


def gradients(ys, xs, grad_ys=None, name="gradients", gate_gradients=False, aggregation_method=None,
              stop_gradients=None, unconnected_gradients=UnconnectedGradients.NONE):
    """The gradient of ``sum(ys)`` for each of ``xs`` (a list, one per x, None where ``ys`` do not
    depend on it), as tensors of the graph being traced. ``grad_ys``: the gradients of ``ys`` to start
    from (ones by default); ``stop_gradients``: tensors the gradient does not flow through.
    ``gate_gradients`` and ``aggregation_method`` are accepted for TF's signature."""
    tracer = recording.tracer()
    if tracer is None:
        raise RuntimeError(
            "me.gradients is not supported when eager execution is enabled (as tf.gradients): it adds gradient "
            "ops to the graph being built. Use me.GradientTape instead, or call it inside me.function or a "
            "me.compat.v1 graph.")
    flat_ys, flat_xs = _tensors(ys, "ys"), _tensors(xs, "xs")
    for what, t in [("ys", y) for y in flat_ys] + [("xs", x) for x in flat_xs]:
        if isinstance(t, SymbolicTensor) and t._tracer is not tracer:
            raise InaccessibleTensorError(
                f"me.gradients: {what} tensor '{t._node.name}' belongs to the trace of '{t._tracer.name}', not to "
                f"'{tracer.name}', where the gradient is being built. Call me.gradients in the function (or "
                f"branch, or loop body) that computes it.")
    start = _start_gradients(flat_ys, grad_ys)
    records = tracer.recorder.records
    if stop_gradients is not None:
        stopped = {t._id for t in _tensors(stop_gradients, "stop_gradients")}
        # A stopped tensor's producer is left out, so no gradient flows through it to its inputs.
        records = [r for r in records if not any(o._id in stopped for o in r[2])]
    # Only floating ys have gradients (as tf.gradients: an int y contributes none).
    targets = [(y, g) for y, g in zip(flat_ys, start) if y.dtype.is_floating]
    found = backward(records, [y for y, _ in targets], [g for _, g in targets], flat_xs)
    zero = UnconnectedGradients(unconnected_gradients) is UnconnectedGradients.ZERO
    result = []
    for x in flat_xs:
        g = found.get(x._id) if x.dtype.is_floating else None
        if g is None and zero and x.dtype.is_floating:
            g = zeros_like(x)
        result.append(g)
    return result


def _start_gradients(ys, grad_ys):
    if grad_ys is None:
        return [None] * len(ys)
    given = [grad_ys] if isinstance(grad_ys, Tensor) else list(grad_ys)
    if len(given) != len(ys):
        raise InvalidArgumentError(f"me.gradients: got {len(given)} grad_ys for {len(ys)} ys; give one per y "
                                   f"(None for ones).")
    out = []
    for i, (y, g) in enumerate(zip(ys, given)):
        if g is not None:
            g = convert_to_tensor(g, dtype=y.dtype)
            if tuple(g.shape) != tuple(y.shape):
                raise InvalidArgumentError(
                    f"me.gradients: grad_ys[{i}] must have the shape of ys[{i}], {tuple(y.shape)}, got "
                    f"{tuple(g.shape)}.")
        out.append(g)
    return out


def _trace_custom_gradient(name, ys, grads):
    """A @custom_gradient function's ``grads(*dys)`` (one gradient per input and variable) traced into a graph
    of its own while the function is traced, so that a tape outside the function, which records the graph's
    run, gets grad_fn's gradient: ``apply(dys, captured_values)`` runs that graph (as ops a tape records, for
    higher orders); ``captured`` lists the tensors of the function's graph it reads."""
    dys = [(f"d{name}_{i}", tuple(y._value.shape), y._dtype) for i, y in enumerate(ys)]
    graph, captures, _ = _subgraph(recording.tracer(), f"{name}_grad", grads, [0] * len(ys), dys)
    return (lambda values, captured: run(graph, *values, *captured)), [outer for outer, _ in captures]


custom_gradient.trace_gradient = _trace_custom_gradient
