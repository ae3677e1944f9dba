"""``me.cond`` and ``me.while_loop``: decisions and loops on tensor values, in eager code and in graphs.

Eagerly they are plain Python (``true_fn() if pred else false_fn()``, a ``while`` loop). While
``me.function`` traces, a Python ``if`` on a symbolic tensor cannot work (the tensor has no value
yet), so these trace each branch / the loop's condition and body into a graph of its own and
record one node that runs the right subgraph when the graph runs:

    %4 : float32[3] = cond(p, x, w_in) {false_graph=..., true_graph=...}

A subgraph reads tensors of the enclosing graph as extra inputs ("captures"). A cond is
differentiable (its gradient is a cond of the branches' gradients); a while loop is not.
"""
import numpy as np

from .. import nest
from ..autodiff.tape import GradientTape
from ..engine.abstract import AbstractArray
from ..engine.op import Op
from ..engine.recording import tracers
from ..engine.tensor import Tensor
from ..errors import InvalidArgumentError
from ..kernels.registry import register_kernel
from ..ops.creation import convert_to_tensor, zeros_like
from .effects import EffectOp
from .ir import run, run_arrays
from .symbolic import SymbolicTensor
from .tracing import Tracer


def _flat_tensors(result, what):
    flat = []
    for leaf in nest.flatten(result):
        if isinstance(leaf, (bool, int, float, np.ndarray, np.generic)):
            leaf = convert_to_tensor(leaf)
        if not isinstance(leaf, Tensor):
            raise TypeError(f"{what} must return tensors (or nested lists/tuples/dicts of them), "
                            f"got {type(leaf).__name__}.")
        flat.append(leaf)
    return flat


def _subgraph(outer, name, fn, args=(), placeholders=(), capture_variables=True):
    """Trace ``fn(*args)`` into a graph of its own, under ``outer``. ``placeholders``: (name, shape,
    dtype) of the subgraph's own inputs, passed to fn as ``args``' structure."""
    sub = Tracer(name, parent=outer, capture_variables=capture_variables)
    with sub:
        own = [sub.placeholder(n, shape, dtype) for n, shape, dtype in placeholders]
        result = fn(*nest.pack_sequence_as(args, own)) if placeholders else fn()
        flat = _flat_tensors(result, name)
        graph = sub.graph(flat)
    sub.close()
    return graph, sub.captures, result


def _join_captures(*capture_lists):
    """All captured outer tensors, in order, and for each subgraph the positions of its own."""
    outer = []
    for captures in capture_lists:
        for t, _ in captures:
            if not any(t is o for o in outer):
                outer.append(t)
    positions = [tuple(next(i for i, o in enumerate(outer) if o is t) for t, _ in captures)
                 for captures in capture_lists]
    return outer, positions


def _describe(graph):
    return ", ".join(n.type_text for n in graph.outputs)


# ---- cond -----------------------------------------------------------------------------------------
@register_kernel("cond")
def _cond_kernel(pred, *captured, true_graph, false_graph, true_inputs, false_inputs):
    graph, positions = (true_graph, true_inputs) if pred else (false_graph, false_inputs)
    out = run_arrays(graph, [captured[i] for i in positions])
    return out[0] if len(out) == 1 else tuple(out)


def _cond_vjp(dys, pred, *captured, out, true_graph, false_graph, true_inputs, false_inputs):
    """The gradient of a cond is a cond of the gradients: replay the chosen branch under a tape."""
    outs = out if isinstance(out, (list, tuple)) else [out]
    dys = dys if isinstance(dys, (list, tuple)) else [dys]
    dys = [zeros_like(o) if d is None else d for d, o in zip(dys, outs)]   # an unused output: no gradient

    def branch_gradients(graph, positions):
        def gradients():
            with GradientTape() as tape:
                for t in captured:
                    if t.dtype.is_floating:
                        tape.watch(t)
                outs = run(graph, *[captured[i] for i in positions])
            grads = tape.gradient(outs, list(captured), output_gradients=list(dys))
            return [zeros_like(t) if g is None else g for g, t in zip(grads, captured) if t.dtype.is_floating]
        return gradients

    floating = cond(pred, branch_gradients(true_graph, true_inputs), branch_gradients(false_graph, false_inputs))
    floating = iter(floating if isinstance(floating, (list, tuple)) else [floating])
    return (None,) + tuple(next(floating) if t.dtype.is_floating else None for t in captured)


def cond(pred, true_fn=None, false_fn=None, name=None):
    """``true_fn()`` if ``pred`` else ``false_fn()``; inside ``me.function`` with a symbolic ``pred``,
    both branches are traced and one ``cond`` node picks one when the graph runs. Both branches
    must return the same structure of tensors with the same shapes and dtypes."""
    if not callable(true_fn) or not callable(false_fn):
        raise TypeError("me.cond(pred, true_fn, false_fn): true_fn and false_fn must be functions of no "
                        "arguments (e.g. lambda: x + 1).")
    if not (tracers and isinstance(pred, SymbolicTensor)):
        return true_fn() if pred else false_fn()       # eager, or a value known while tracing
    if pred.dtype.name != "bool" or pred._node.shape != ():
        raise InvalidArgumentError(f"me.cond: pred must be a scalar bool tensor, got {pred._node.type_text}. "
                                   f"Reduce it first, e.g. me.reduce_any(x > 0).")
    outer = tracers[-1]
    true_graph, true_caps, true_result = _subgraph(outer, f"{outer.name}_true", true_fn)
    false_graph, false_caps, false_result = _subgraph(outer, f"{outer.name}_false", false_fn)
    if (nest.pack_sequence_as(true_result, [0] * len(true_graph.outputs)) !=
            nest.pack_sequence_as(false_result, [0] * len(false_graph.outputs))
            or _describe(true_graph) != _describe(false_graph)):
        raise InvalidArgumentError(
            f"me.cond: both branches must return the same structure, shapes and dtypes; true_fn returned "
            f"({_describe(true_graph)}), false_fn returned ({_describe(false_graph)}).")
    captured, (true_inputs, false_inputs) = _join_captures(true_caps, false_caps)
    attrs = dict(true_graph=true_graph, false_graph=false_graph, true_inputs=true_inputs,
                 false_inputs=false_inputs)
    n = len(true_graph.outputs)
    results = tuple(AbstractArray(node.shape, node.dtype.np_dtype) for node in true_graph.outputs)
    if true_graph.has_effects or false_graph.has_effects:
        op = EffectOp("cond", ("pred", "captured"), "true_graph if pred else false_graph",
                      shape_rule=lambda *inputs, **attrs: results if n > 1 else results[0],
                      traced=lambda tracer, a, o: tracer.forget_reads(),
                      num_outputs=n)
        out = outer.effect(op, (pred, *captured), attrs)
    else:
        op = Op("cond", ("pred", "captured"), "true_graph if pred else false_graph",
                grads=(None, "cond(pred, d true_graph, d false_graph)"), vjp=_cond_vjp, num_outputs=n,
                shape_rule=lambda *inputs, **attrs: results if n > 1 else results[0])
        out = outer.record(op, (pred, *captured), attrs, results)
    flat = [out] if n == 1 else list(out)
    return nest.pack_sequence_as(true_result, flat)


# ---- while_loop -------------------------------------------------------------------------------------
@register_kernel("while")
def _while_kernel(*arrays, n, cond_graph, body_graph, cond_inputs, body_inputs, maximum_iterations):
    values, captured = list(arrays[:n]), arrays[n:]
    cond_extra = [captured[i] for i in cond_inputs]
    body_extra = [captured[i] for i in body_inputs]
    steps = 0
    while run_arrays(cond_graph, values + cond_extra)[0]:
        if maximum_iterations is not None and steps >= maximum_iterations:
            break
        values = run_arrays(body_graph, values + body_extra)
        steps += 1
    return values[0] if n == 1 else tuple(values)


def while_loop(cond, body, loop_vars, shape_invariants=None, maximum_iterations=None, name=None):
    """Repeat ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``; returns the final loop_vars
    (same structure). Inside ``me.function``: one ``while`` node running the traced cond and body.
    The body must keep each loop variable's shape and dtype."""
    if not callable(cond) or not callable(body):
        raise TypeError("me.while_loop(cond, body, loop_vars): cond and body must be functions of the loop "
                        "variables.")
    single = not isinstance(loop_vars, (list, tuple))
    structure = [loop_vars] if single else loop_vars
    if not tracers:
        values, steps = structure, 0
        while cond(*values):
            if maximum_iterations is not None and steps >= maximum_iterations:
                break
            values = body(*values)
            values = [values] if single or not isinstance(values, (list, tuple)) else values
            steps += 1
        return values[0] if single else type(loop_vars)(values) if isinstance(loop_vars, tuple) else list(values)
    outer = tracers[-1]
    flat = [convert_to_tensor(v) for v in nest.flatten(structure)]
    specs = [(f"loop_{i}", tuple(t._value.shape), t.dtype) for i, t in enumerate(flat)]
    # Variables are read afresh in the loop (capture_variables=False): the body may assign them.
    cond_graph, cond_caps, _ = _subgraph(outer, f"{outer.name}_while_cond", cond, structure, specs, False)
    body_graph, body_caps, body_result = _subgraph(outer, f"{outer.name}_while_body",
                                                   lambda *a: body(*a), structure, specs, False)
    out_node = cond_graph.outputs[0]
    if len(cond_graph.outputs) != 1 or out_node.dtype.name != "bool" or out_node.shape != ():
        raise InvalidArgumentError(f"me.while_loop: cond must return one scalar bool tensor, got "
                                   f"({_describe(cond_graph)}).")
    want = ", ".join(f"{d.name}[{','.join(map(str, s))}]" for _, s, d in specs)
    if _describe(body_graph) != want:
        raise InvalidArgumentError(
            f"me.while_loop: body must return the loop variables with unchanged shapes and dtypes: loop_vars "
            f"are ({want}), body returned ({_describe(body_graph)}).")
    captured, (cond_inputs, body_inputs) = _join_captures(cond_caps, body_caps)
    attrs = dict(n=len(flat), cond_graph=cond_graph, body_graph=body_graph, cond_inputs=cond_inputs,
                 body_inputs=body_inputs, maximum_iterations=maximum_iterations)
    results = tuple(AbstractArray(s, d.np_dtype) for _, s, d in specs)
    formula = "while cond_graph(v): v = body_graph(v)"
    if cond_graph.has_effects or body_graph.has_effects:
        op = EffectOp("while", ("loop_vars", "captured"), formula,
                      shape_rule=lambda *inputs, **a: results if len(flat) > 1 else results[0],
                      traced=lambda tracer, a, o: tracer.forget_reads(), num_outputs=len(flat))
        out = outer.effect(op, (*flat, *captured), attrs)
    else:
        op = Op("while", ("loop_vars", "captured"), formula, num_outputs=len(flat),
                shape_rule=lambda *inputs, **a: results if len(flat) > 1 else results[0])
        out = outer.record(op, (*flat, *captured), attrs, results)
    out = [out] if len(flat) == 1 else list(out)
    packed = nest.pack_sequence_as(structure, out)
    return packed[0] if single else type(loop_vars)(packed) if isinstance(loop_vars, tuple) else packed
