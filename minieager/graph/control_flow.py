"""``me.cond`` and ``me.while_loop``: decisions and loops on tensor values, in eager code and in graphs.

Eagerly they are plain Python (``true_fn() if pred else false_fn()``, a ``while`` loop). While
``me.function`` traces, a Python ``if`` on a symbolic tensor cannot work (the tensor has no value
yet), so these trace each branch / the loop's condition and body into a graph of its own and
record one node that runs the right subgraph when the graph runs:

    %4 : float32[3] = cond(p, x, w_in) {false_graph=..., true_graph=...}

A subgraph reads tensors of the enclosing graph as extra inputs ("captures"); one without effects
reads the variables it uses as captures too, so the node names everything it depends on.

Both check their arguments by one rule, eagerly and in a trace (TF's graph rule, which is the
stricter): ``pred`` and the loop's condition are bool scalars, the loop body keeps every loop
variable's dtype and shape, ``maximum_iterations`` is an int.

Gradients. When a graph runs under a GradientTape, the interpreter runs these nodes with
``interpret``: the chosen branch, every iteration of the loop, op by op, where the tape sees them,
so the gradient is exactly eager code's. Inside a trace (a tape inside the function,
``me.gradients``) a cond's gradient is a cond of the branches' gradients, and a loop's is a
``while_grad`` node that, when it runs, runs the loop again under a tape and plays it back.
"""
import numpy as np

from .. import nest
from ..autodiff.tape import GradientTape
from ..engine.abstract import AbstractArray, abstract
from ..engine.op import EffectOp, Op
from ..engine.recording import observed, this_thread, tracer
from ..engine.tensor import Tensor, wrap
from ..errors import InvalidArgumentError
from ..kernels.registry import register_kernel
from ..ops.creation import convert_to_tensor, zeros_like
from ..ops.shape import identity
from ..ops.tensor_array import unused_writes
from .ir import run, run_arrays
from .symbolic import SymbolicTensor
from .tracing import Tracer


def _type_text(shape, dtype):
    return f"{dtype.name}[{','.join(map(str, shape))}]"


def _describe_tensors(tensors):
    """``float32[3], TensorArray(float32)``: an eager loop checks a TensorArray by its dtype alone (its
    size may grow); a traced one sees its buffer, whose growing dimension is unknown (``None``)."""
    return ", ".join(f"{type(t).__name__}({t.dtype.name})" if nest.is_composite(t) else
                     _type_text(tuple(t.shape), t.dtype) for t in tensors)


def _flat_tensors(result, what, expand_composites=True):
    flat = []
    for leaf in nest.flatten(result, expand_composites):
        if isinstance(leaf, (bool, int, float, np.ndarray, np.generic)):
            leaf = convert_to_tensor(leaf)
        if not isinstance(leaf, Tensor) and not (nest.is_composite(leaf) and not expand_composites):
            raise TypeError(f"{what} must return tensors (or nested lists/tuples/dicts of them), "
                            f"got {type(leaf).__name__}.")
        flat.append(leaf)
    return flat


def _check_callable(fn, name, call):
    if not callable(fn):
        raise TypeError(f"{call}: '{name}' must be callable (a function, e.g. a lambda), got "
                        f"{type(fn).__name__}.")


def _check_bool_scalar(value, call, what, fix):
    """``value`` (a Python bool or a bool scalar tensor) for ``if``; the same rule eagerly and traced."""
    if isinstance(value, (bool, np.bool_)):
        return value
    if isinstance(value, Tensor) and value.dtype.name == "bool" and tuple(value.shape) == ():
        return value
    got = _type_text(tuple(value.shape), value.dtype) if isinstance(value, Tensor) else \
        f"{type(value).__name__} {value!r}"
    raise InvalidArgumentError(f"{call}: {what} must be a scalar bool tensor (or a Python bool), got {got}. {fix}")


def _subgraph(outer, name, fn, args=(), placeholders=()):
    """Trace ``fn(*args)`` into a graph of its own, under ``outer``. ``placeholders``: (name, shape,
    dtype) of the subgraph's own inputs, passed to fn as ``args``' structure."""
    sub = Tracer(name, parent=outer)
    with sub:
        own = [sub.placeholder(n, shape, dtype) for n, shape, dtype in placeholders]
        result = fn(*nest.pack_sequence_as(args, own, expand_composites=True)) if args else fn()
        flat = _flat_tensors(result, name)
        graph = sub.graph(flat)
    sub.close()
    if unused_writes(sub):
        raise InvalidArgumentError(
            f"TensorArray.write: an array that a write returned in a loop body or a branch is never used, so the "
            f"write is lost (while tracing {name}). TensorArrays are values: keep the result, ta = ta.write(i, value).")
    return graph, list(sub.captures), result


def _variables_as_captures(graph, captures):
    """In a subgraph without effects no variable changes, so each ``variable`` read can become one more
    input, read where the cond/while node stands: the node then lists every variable it depends on
    among its inputs, and gradients taken inside the trace reach them through it. (A subgraph with
    effects keeps its reads: an assignment in a loop body must be seen by the next iteration.)"""
    names = {n.name for n in graph.nodes}
    for node in graph.nodes:
        if node.kind == "variable":
            variable = node.value
            node.kind, node.value = "placeholder", None
            if f"{node.name}_in" not in names:        # named as the other captures are
                node.name = f"{node.name}_in"
            graph.inputs.append(node)
            captures.append((variable, node))


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


def _stand_ins(tensors):
    """The AbstractArray (dtype and shape) of each of ``tensors``: what a node that returns their like gives."""
    return tuple(abstract(t._value) for t in tensors)


def _fixed(results):
    """The shape rule of a cond/while/while_grad node: its outputs are known when it is recorded."""
    return lambda *inputs, **attrs: results if len(results) > 1 else results[0]


def _no_gradient_in_trace(what):
    """A tape inside the trace must not silently get None through an effectful cond or loop."""
    def vjp(dys, *inputs, out, **attrs):
        raise InvalidArgumentError(
            f"{what} has effects (it assigns a variable, prints, draws random numbers or calls Python), so "
            f"its gradient cannot be built inside the traced function. Take the gradient with a GradientTape "
            f"around the call of the function (the graph's run is then recorded op by op), or move the "
            f"effect out of the {what}.")
    return vjp


def _record_effect(outer, name, what, formula, inputs, attrs, stand_ins, n, interpret):
    op = _SubgraphEffectOp(name, ("inputs",), formula, shape_rule=_fixed(stand_ins),
                           traced=lambda tracer, a, o: tracer.forget_reads(), num_outputs=n)
    op.interpret_fn, op.results = interpret, stand_ins
    out = outer.effect(op, inputs, attrs)
    if observed() and n:
        guard = Op(name, ("inputs",), formula, vjp=_no_gradient_in_trace(what), num_outputs=n)
        for observer in this_thread.observers:
            observer._observe(guard, inputs, out if n > 1 else (out,), attrs)
    return out


class _SubgraphOp(Op):
    """A cond or while node: its kernel runs the subgraphs on arrays (the fast path); ``interpret``
    runs them on Tensors, so that a tape open while the graph runs records the ops inside;
    ``record_again`` records the node into an outer trace that inlines its graph (its outputs'
    shapes are those it was recorded with: the subgraphs never run while tracing)."""

    __slots__ = ("interpret_fn", "results")

    def interpret(self, args, **attrs):
        return self.interpret_fn(self, args, **attrs)

    def record_again(self, tracer, args, attrs):
        return tracer.record(self, args, attrs, self.results)


class _SubgraphEffectOp(EffectOp):
    __slots__ = ("interpret_fn", "results")
    interpret = _SubgraphOp.interpret

    def record_again(self, tracer, args, attrs):
        return tracer.effect(self, args, attrs)


# ---- cond -----------------------------------------------------------------------------------------
@register_kernel("cond")
def _cond_kernel(pred, *captured, true_graph, false_graph, true_inputs, false_inputs):
    graph, positions = (true_graph, true_inputs) if pred else (false_graph, false_inputs)
    out = run_arrays(graph, [captured[i] for i in positions])
    return out[0] if len(out) == 1 else tuple(out)


def _interpret_cond(op, args, true_graph, false_graph, true_inputs, false_inputs):
    pred, captured = args[0], args[1:]
    graph, positions = (true_graph, true_inputs) if bool(pred) else (false_graph, false_inputs)
    out = run(graph, *[captured[i] for i in positions])
    return out[0] if op.num_outputs == 1 else tuple(out)


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
    both branches are traced and one ``cond`` node picks one when the graph runs. ``pred`` is a bool
    scalar; both branches must return the same structure of tensors with the same shapes and dtypes."""
    _check_callable(true_fn, "true_fn", "me.cond(pred, true_fn, false_fn)")
    _check_callable(false_fn, "false_fn", "me.cond(pred, true_fn, false_fn)")
    _check_bool_scalar(pred, "me.cond", "pred",
                       "Compare or reduce it first, e.g. me.reduce_any(x > 0) (as tf.cond in a tf.function).")
    outer = tracer()
    if not (outer is not None and isinstance(pred, SymbolicTensor)):
        return true_fn() if pred else false_fn()       # eager, or a value known while tracing
    true_graph, true_caps, true_result = _subgraph(outer, f"{outer.name}_true", true_fn)
    false_graph, false_caps, false_result = _subgraph(outer, f"{outer.name}_false", false_fn)
    if (nest.pack_sequence_as(true_result, [0] * len(nest.flatten(true_result))) !=
            nest.pack_sequence_as(false_result, [0] * len(nest.flatten(false_result)))
            or _describe(true_graph) != _describe(false_graph)):
        raise InvalidArgumentError(
            f"me.cond: both branches must return the same structure, shapes and dtypes; true_fn returned "
            f"({_describe(true_graph)}), false_fn returned ({_describe(false_graph)}).")
    effects = true_graph.has_effects or false_graph.has_effects
    if not effects:
        _variables_as_captures(true_graph, true_caps)
        _variables_as_captures(false_graph, false_caps)
    captured, (true_inputs, false_inputs) = _join_captures(true_caps, false_caps)
    attrs = dict(true_graph=true_graph, false_graph=false_graph, true_inputs=true_inputs,
                 false_inputs=false_inputs)
    n = len(true_graph.outputs)
    stand_ins = tuple(AbstractArray(node.shape, node.dtype.np_dtype) for node in true_graph.outputs)
    formula = "true_graph if pred else false_graph"
    if effects:
        out = _record_effect(outer, "cond", "me.cond", formula, (pred, *captured), attrs, stand_ins, n, _interpret_cond)
    else:
        op = _SubgraphOp("cond", ("pred", "captured"), formula,
                         grads=(None, "cond(pred, d true_graph, d false_graph)"), vjp=_cond_vjp, num_outputs=n,
                         shape_rule=_fixed(stand_ins))
        op.interpret_fn, op.results = _interpret_cond, stand_ins
        out = outer.record(op, (pred, *captured), attrs, stand_ins)
    flat = [out] if n == 1 else list(out)
    return nest.pack_sequence_as(true_result, flat, expand_composites=True)


# ---- while_loop -------------------------------------------------------------------------------------
def _loop(run_graph, values, captured, n, cond_graph, body_graph, cond_inputs, body_inputs, maximum_iterations,
          limit_is_input=False):
    """The loop itself, for arrays (``run_graph=run_arrays``) and for Tensors (``run``, under a tape)."""
    limit = int(captured[-1]) if limit_is_input else maximum_iterations
    cond_extra = [captured[i] for i in cond_inputs]
    body_extra = [captured[i] for i in body_inputs]
    steps = 0
    while run_graph(cond_graph, list(values) + cond_extra)[0]:
        if limit is not None and steps >= limit:
            break
        values = run_graph(body_graph, list(values) + body_extra)
        steps += 1
    return values


def _run_tensors(graph, tensors):
    return run(graph, *tensors)


@register_kernel("while")
def _while_kernel(*arrays, n, **attrs):
    values = _loop(run_arrays, arrays[:n], arrays[n:], n, **attrs)
    return values[0] if n == 1 else tuple(values)


def _interpret_while(op, args, n, **attrs):
    values = _loop(_run_tensors, args[:n], args[n:], n, **attrs)
    return values[0] if n == 1 else tuple(values)


def _while_gradients(dys, inputs, n, wrt, **attrs):
    """The gradients of a loop's outputs (``dys``) for its inputs ``wrt`` (positions), on Tensors: the
    loop runs again, op by op, under a tape, which is then played back. (Its graphs have no effects,
    so the second run computes what the first did.) Any tape open outside records all of it, so a
    second derivative works too."""
    fresh = [identity(t) for t in inputs]      # one tensor per position, even where an input repeats
    sources = [fresh[i] for i in wrt]
    with GradientTape() as tape:
        for s in sources:
            tape.watch(s)
        outs = _loop(_run_tensors, fresh[:n], fresh[n:], n, **attrs)
    grads = tape.gradient(list(outs), sources, output_gradients=list(dys))
    return tuple(zeros_like(s) if g is None else g for g, s in zip(grads, sources))


@register_kernel("while_grad")
def _while_grad_kernel(*arrays, num_dys, **attrs):
    tensors = [wrap(a) for a in arrays]
    return tuple(g._value for g in _while_gradients(tensors[:num_dys], tensors[num_dys:], **attrs))


def _interpret_while_grad(op, args, num_dys, **attrs):
    return _while_gradients(args[:num_dys], args[num_dys:], **attrs)


def _no_second_derivative(dys, *inputs, out, **attrs):
    raise InvalidArgumentError(
        "me.while_loop: a second derivative through a loop cannot be built inside a traced function (its "
        "first derivative is a while_grad node). Take the outer derivative with a GradientTape around the "
        "call of the function instead.")


def _while_vjp(dys, *inputs, out, **attrs):
    outs = out if isinstance(out, (list, tuple)) else [out]
    dys = dys if isinstance(dys, (list, tuple)) else [dys]
    dys = [zeros_like(o) if d is None else d for d, o in zip(dys, outs)]   # an unused output: no gradient
    wrt = tuple(i for i, t in enumerate(inputs) if t.dtype.is_floating)
    if not wrt:
        return (None,) * len(inputs)
    outer = tracer()
    if outer is not None:
        results = _stand_ins([inputs[i] for i in wrt])
        op = _SubgraphOp("while_grad", ("dys", "loop_vars", "captured"), "d while / d inputs",
                         vjp=_no_second_derivative, num_outputs=len(wrt), shape_rule=_fixed(results))
        op.interpret_fn, op.results = _interpret_while_grad, results
        grads = outer.record(op, (*dys, *inputs), dict(attrs, num_dys=len(dys), wrt=wrt), results)
        grads = (grads,) if len(wrt) == 1 else grads
    else:
        grads = _while_gradients(dys, inputs, wrt=wrt, **attrs)
    by_position = dict(zip(wrt, grads))
    return tuple(by_position.get(i) for i in range(len(inputs)))


def _check_maximum_iterations(maximum_iterations):
    m = maximum_iterations
    if m is None or isinstance(m, Tensor) and m.dtype.is_integer and tuple(m.shape) == ():
        return m
    if isinstance(m, (int, np.integer)) and not isinstance(m, (bool, np.bool_)):
        return int(m)
    got = _type_text(tuple(m.shape), m.dtype) if isinstance(m, Tensor) else f"{m!r} ({type(m).__name__})"
    raise TypeError(f"me.while_loop: maximum_iterations must be an int or a scalar int tensor, got {got} "
                    f"(as tf.while_loop in a tf.function).")


def _check_body_result(result, structure, want, expand_composites=True):
    """The body's result as a flat list of tensors (eagerly: TensorArrays kept whole), checked against
    the loop variables (the same check eagerly, after every iteration, and once when tracing)."""
    if len(structure) == 1 and not isinstance(result, (list, tuple)):
        result = [result]                    # a body of one loop variable may return it bare, as in TF
    flat = _flat_tensors(result, "me.while_loop: body", expand_composites)
    got = _describe_tensors(flat)
    if got != want:
        raise InvalidArgumentError(
            f"me.while_loop: body must return the loop variables with unchanged shapes and dtypes: loop_vars "
            f"are ({want}), body returned ({got}).")
    return flat


def _check_cond_result(result):
    if isinstance(result, (list, tuple)) and len(result) == 1:
        result = result[0]
    return _check_bool_scalar(result, "me.while_loop", "cond's result",
                              "Return a comparison, e.g. lambda i, x: i < 10, or reduce it (me.reduce_any).")


def _pack(loop_vars, single, values, expand_composites):
    if single:
        return nest.pack_sequence_as(loop_vars, list(values), expand_composites)
    packed = nest.pack_sequence_as(list(loop_vars), list(values), expand_composites)
    return tuple(packed) if isinstance(loop_vars, tuple) else packed


def while_loop(cond, body, loop_vars, shape_invariants=None, maximum_iterations=None, name=None):
    """Repeat ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``; returns the final loop_vars
    (same structure, as tensors). Inside ``me.function``: one ``while`` node running the traced cond
    and body. The body must keep each loop variable's shape and dtype (``shape_invariants`` is
    accepted for TF's signature; minieager's loop variables never change shape), and
    ``maximum_iterations`` (an int or an int tensor) stops the loop after that many iterations."""
    _check_callable(cond, "cond", "me.while_loop(cond, body, loop_vars)")
    _check_callable(body, "body", "me.while_loop(cond, body, loop_vars)")
    if isinstance(loop_vars, (list, tuple)) and not nest.flatten(loop_vars):
        raise ValueError("me.while_loop: 'loop_vars' must be provided (at least one loop variable).")
    limit = _check_maximum_iterations(maximum_iterations)
    single = not isinstance(loop_vars, (list, tuple))
    structure = [loop_vars] if single else list(loop_vars)
    outer = tracer()
    if outer is None:                        # eagerly: a Python loop, checked as the traced one is
        values = [v if nest.is_composite(v) else convert_to_tensor(v) for v in nest.flatten(structure)]
        want, steps = _describe_tensors(values), 0

        def call(fn, values):
            return fn(*nest.pack_sequence_as(structure, list(values)))

        while _check_cond_result(call(cond, values)):
            if limit is not None and steps >= int(limit):
                break
            values = _check_body_result(call(body, values), structure, want, expand_composites=False)
            steps += 1
        return _pack(loop_vars, single, values, expand_composites=False)

    if any(getattr(leaf, "_shape_unknown", False) for leaf in nest.flatten(structure)):
        _learn_element_shapes(outer, body, structure)
    flat = [convert_to_tensor(v) for v in nest.flatten(structure, expand_composites=True)]
    want = _describe_tensors(flat)
    specs = [(f"loop_{i}", tuple(t.shape), t.dtype) for i, t in enumerate(flat)]
    cond_graph, cond_caps, _ = _subgraph(
        outer, f"{outer.name}_while_cond", lambda *a: _check_cond_result(cond(*a)), structure, specs)
    body_graph, body_caps, _ = _subgraph(
        outer, f"{outer.name}_while_body", lambda *a: _check_body_result(body(*a), structure, want), structure, specs)
    effects = cond_graph.has_effects or body_graph.has_effects
    if not effects:
        _variables_as_captures(cond_graph, cond_caps)
        _variables_as_captures(body_graph, body_caps)
    captured, (cond_inputs, body_inputs) = _join_captures(cond_caps, body_caps)
    limit_is_input = isinstance(limit, Tensor)
    if limit_is_input:
        captured.append(limit)               # the last input: read when the loop starts
    attrs = dict(n=len(flat), cond_graph=cond_graph, body_graph=body_graph, cond_inputs=cond_inputs,
                 body_inputs=body_inputs, maximum_iterations=None if limit_is_input else limit)
    if limit_is_input:                       # (only then in the listing: maximum_iterations is the last input)
        attrs["limit_is_input"] = True
    stand_ins = _stand_ins(flat)
    formula = "while cond_graph(v): v = body_graph(v)"
    if effects:
        out = _record_effect(outer, "while", "me.while_loop", formula, (*flat, *captured), attrs, stand_ins, len(flat),
                             _interpret_while)
    else:
        op = _SubgraphOp("while", ("loop_vars", "captured"), formula, grads=("while_grad(...)", "while_grad(...)"),
                         vjp=_while_vjp, num_outputs=len(flat), shape_rule=_fixed(stand_ins))
        op.interpret_fn, op.results = _interpret_while, stand_ins
        out = outer.record(op, (*flat, *captured), attrs, stand_ins)
    return _pack(loop_vars, single, [out] if len(flat) == 1 else list(out), expand_composites=True)


def _learn_element_shapes(outer, body, structure):
    """A TensorArray whose element shape is unknown has no buffer yet, and a loop must carry one from its
    start. A trial trace of the body, thrown away, writes to it once: its element shape is then known
    (shared by every array written from it, as TF's), and the loop starts with a buffer of zeros."""
    flat = [convert_to_tensor(v) for v in nest.flatten(structure, expand_composites=True)]
    specs = [(f"loop_{i}", tuple(t.shape), t.dtype) for i, t in enumerate(flat)]
    _subgraph(outer, f"{outer.name}_while_trial", body, structure, specs)
