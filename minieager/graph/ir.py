"""The graph IR: a traced function as plain data, a listing you can read, and the loop that runs it.

A ``Graph`` is a list of ``Node``s in execution order, in SSA form: every node is computed once,
by one line of the listing, and names the nodes it reads. There are five kinds of node:

    placeholder   an argument of the function (``x``), fed by the caller
    constant      a value known when tracing (``c0``): a NumPy array in ``node.value``
    variable      a read of a captured ``me.Variable`` (``v0``), at this point of the program
    call          one call of an eager ``Op`` (``%3 = matmul(x, v0)``): the very Op object the
                  eager code calls, so kernels and gradient rules are shared, not copied
    output        not stored as a node: ``graph.outputs`` lists the nodes the function returns

Nodes with ``effect=True`` change the world (assign a variable, print, call Python): a pass may
never remove, fold, merge or reorder them past each other. A ``variable`` node reads the
variable's value where it stands, so it must not move past an effect node either.

``run(graph, *inputs)`` interprets a graph: with no tape open it calls each node's kernel on
arrays straight from precomputed slots (the fast path, ``run_arrays``); with a tape open it runs
the ``Interpreter``, which calls each node's Op on Tensors, so the tape records the calls and
gradients of a graph come for free. ``Interpreter`` is also the class to subclass to watch or
change a run node by node. A graph runs
where eager code would: on the device of its tensor inputs and variables (one device: a graph
with inputs on two raises the eager ops' error), with that device's kernels.
"""
import numpy as np

from ..autodiff.variable import Variable
from ..engine import recording
from ..engine.abstract import shape_text
from ..engine.device import CPU, current_device, to_device, to_host
from ..engine.tensor import Tensor, place, wrap
from ..errors import InvalidArgumentError
from ..ops.shape import identity
from .draw import draw

KINDS = ("placeholder", "constant", "variable", "call", "output")


class Node:
    """One line of a graph (see the module docstring for the kinds and fields)."""

    __slots__ = ("kind", "name", "op", "inputs", "attrs", "shape", "dtype", "value", "index", "source",
                 "effect")

    def __init__(self, kind, name, *, op=None, inputs=(), attrs=None, shape=(), dtype=None, value=None,
                 index=None, source=None, effect=False):
        if kind not in KINDS:
            raise ValueError(f"Node kind must be one of {KINDS}, got {kind!r}.")
        self.kind, self.name, self.op = kind, name, op
        self.inputs = tuple(inputs)
        self.attrs = dict(attrs) if attrs else {}
        self.shape = None if shape is None else tuple(shape)   # None: known only when it runs
        self.dtype, self.value = dtype, value
        self.index, self.source, self.effect = index, source, bool(effect)

    def copy(self, **changes):
        """A new node with the same fields, except those given (``node.copy(inputs=(a, b))``)."""
        fields = {f: getattr(self, f) for f in self.__slots__ if f not in ("kind", "name")}
        fields.update(changes)
        kind, name = fields.pop("kind", self.kind), fields.pop("name", self.name)
        return Node(kind, name, **fields)

    @property
    def type_text(self):
        """``float32[32,10]``; ``float32[?,784]`` with a dimension known only when it runs;
        ``float32[...]`` if even the rank is unknown; ``()`` for an effect that returns nothing."""
        if self.dtype is None:
            return "()"
        return self.dtype.name + shape_text(self.shape)

    def __repr__(self):
        return f"<Node {self.name} = {self.kind} {self.op.name if self.op else ''} {self.type_text}>"


class Graph:
    """Nodes in execution order (``nodes``), the placeholders in argument order (``inputs``) and
    the nodes returned (``outputs``). Passes never change a graph: they build a new one."""

    def __init__(self, nodes, inputs, outputs, name="f"):
        self.nodes, self.inputs, self.outputs, self.name = list(nodes), list(inputs), list(outputs), name
        self._plans = {}    # device -> run()'s precomputed plan, built on the first run there
        self._variable_devices = None   # the devices of the variables it reads, found on the first run

    def copy(self):
        """A deep copy of the nodes (new Node objects, same ops, attrs and values)."""
        new = {}
        for node in self.nodes:
            new[node] = node.copy(inputs=tuple(new[i] for i in node.inputs), attrs=dict(node.attrs))
        return Graph(new.values(), [new[n] for n in self.inputs], [new[n] for n in self.outputs], self.name)

    def __len__(self):
        return len(self.nodes)

    @property
    def has_effects(self):
        return any(n.effect for n in self.nodes)

    def count(self, kind=None):
        """How many nodes (of one kind, e.g. "call")."""
        return sum(1 for n in self.nodes if kind is None or n.kind == kind)

    # ---- the listing ----------------------------------------------------------------------
    def __str__(self):
        args = ", ".join(f"{n.name}: {n.type_text}" for n in self.inputs)
        body = [n for n in self.nodes if n.kind != "placeholder"]
        width = max([len(n.name) for n in body] + [1])
        type_width = max([len(n.type_text) for n in body] + [1])
        lines = [f"def {self.name}({args}):"]
        for n in body:
            lines.append(f"    {n.name:<{width}} : {n.type_text:<{type_width}} = {_right_side(n)}".rstrip())
        lines.append(f"    return {', '.join(n.name for n in self.outputs) or '()'}")
        return "\n".join(lines)

    def __repr__(self):
        return f"<Graph {self.name}: {len(self.nodes)} nodes, {len(self.inputs)} inputs, {len(self.outputs)} outputs>"

    def draw(self, title=None, direction=None, builtin_layout=False):
        """The graph drawn as the tape debugger draws a tape (an SVG in a notebook, a PNG where it is
        untrusted): laid out by dot, left to right when that fits a notebook, else top to bottom."""
        return draw(self, title, direction, builtin_layout)

    def _repr_pretty_(self, p, cycle):   # IPython prints the listing, not the repr
        p.text(str(self))


def _right_side(n):
    if n.kind == "constant":
        return f"constant {_value_text(n.value)}"
    if n.kind == "variable":
        return f"variable '{n.value.name}'"
    text = f"{n.op.name}({', '.join(i.name for i in n.inputs)})"
    if n.index is not None:
        text += f"[{n.index}]"
    if n.attrs:
        text += " {" + ", ".join(f"{k}={_value_text(v)}" for k, v in sorted(n.attrs.items())) + "}"
    if n.effect:
        text += "  !effect"
    return text


def _value_text(v):
    """A short, stable text for an attribute or a constant (never a memory address)."""
    if hasattr(v, "copy_to_host"):               # a constant on a GPU: print its value, as on the CPU
        v = v.copy_to_host()
    if isinstance(v, np.ndarray):
        if v.ndim == 0:
            return _value_text(v.item())
        if v.size <= 4:
            return np.array2string(v, precision=6, separator=",").replace("\n", "")
        return f"<{v.dtype}[{','.join(map(str, v.shape))}]>"
    if isinstance(v, (float, np.floating)):
        text = f"{float(v):.6g}"
        return text + ".0" if text.lstrip("-").isdigit() else text   # 2.0, not 2: it is a float
    if isinstance(v, (bool, int, np.integer, type(None))):
        return str(v)
    if isinstance(v, str):
        return repr(v)
    if isinstance(v, (list, tuple)):
        inner = ",".join(_value_text(x) for x in v)
        return f"({inner}{',' if len(v) == 1 else ''})" if isinstance(v, tuple) else f"[{inner}]"
    name = getattr(v, "name", None)              # a Variable, a DType, an optimizer ...
    if isinstance(name, str):
        return name
    if isinstance(v, Tensor):
        return f"<tensor {v.dtype.name}{list(v.shape)}>"
    return getattr(v, "__qualname__", None) or type(v).__name__   # a function: its name


# ---- the interpreter --------------------------------------------------------------------------
# A plan is a list of steps, one per node that does work; each step is a tuple
# (code, slot, fn, a, b, attrs), read by run() without any lookups:
_ONE, _TWO, _MANY, _READ, _PICK = range(5)   # fn(env[a]); fn(env[a], env[b]); fn(*env[a], **attrs);
                                             # env <- variable fn's value; env[a][b] (one of several outputs)


def _plan(graph, device):
    """Precompute every node's slot, its kernel on ``device`` and the slots of its arguments
    (constants are copied to the device here, once)."""
    slot = {node: i for i, node in enumerate(graph.nodes)}
    env = [None] * (len(graph.nodes) + len(graph.nodes))   # node slots, then one slot per multi-output call
    steps, groups = [], {}
    for node in graph.nodes:
        i = slot[node]
        if node.kind == "constant":
            env[i] = to_device(node.value, device)
        elif node.kind == "variable":
            steps.append((_READ, i, node.value, None, None, None))
        elif node.kind == "call":
            kernel = node.op._kernels.get(device) or node.op._load_kernel(device)
            ins = tuple(slot[x] for x in node.inputs)
            target = i
            if node.index is not None:    # one of several outputs: compute the call once, then pick
                key = (node.op, ins, tuple(sorted((k, id(v)) for k, v in node.attrs.items())))
                if key not in groups:
                    groups[key] = len(graph.nodes) + len(groups)
                    steps.append(_call_step(groups[key], kernel, ins, node.attrs))
                steps.append((_PICK, i, None, groups[key], node.index, None))
                continue
            steps.append(_call_step(target, kernel, ins, node.attrs))
    inputs = [slot[n] for n in graph.inputs]
    outputs = [slot[n] for n in graph.outputs]
    return env, steps, inputs, outputs


def _call_step(target, kernel, ins, attrs):
    if attrs:
        return (_MANY, target, kernel, ins, None, attrs)
    if len(ins) == 1:
        return (_ONE, target, kernel, ins[0], None, None)
    if len(ins) == 2:
        return (_TWO, target, kernel, ins[0], ins[1], None)
    return (_MANY, target, kernel, ins, None, {})


def run(graph, *inputs):
    """Execute ``graph`` on ``inputs`` (NumPy arrays or Tensors, one per placeholder); returns the
    outputs as a list of Tensors, on the device the graph ran on."""
    if recording.observed() or recording.tracer() is not None or recording.check_numerics:
        return Interpreter(graph).run(*inputs)   # a tape (or an outer trace) must see every op
    _check_inputs(graph, inputs)
    device = _device(graph, inputs)
    arrays = [x._value if isinstance(x, Tensor) else x for x in inputs]
    if device != CPU:
        arrays = [to_device(np.asarray(a), device) for a in arrays]    # (device arrays stay as they are)
    return [wrap(a, device) for a in run_arrays(graph, arrays, device)]


def _check_inputs(graph, inputs):
    if len(inputs) != len(graph.inputs):
        raise InvalidArgumentError(
            f"run: graph '{graph.name}' takes {len(graph.inputs)} inputs "
            f"({', '.join(n.name for n in graph.inputs)}), got {len(inputs)}.")


def _device(graph, inputs):
    """The device ``graph`` runs on: that of its tensor inputs and the variables it reads, which
    must agree; the current device (``with me.device``) if it has neither."""
    if graph._variable_devices is None:
        graph._variable_devices = {n.value._device for n in graph.nodes if n.kind == "variable"}
    devices = graph._variable_devices | {x._device for x in inputs if isinstance(x, Tensor)}
    if len(devices) == 1:
        return next(iter(devices))
    if not devices:
        return current_device()
    raise InvalidArgumentError(
        f"{graph.name}: the function's tensor arguments and variables live on different devices "
        f"({' and '.join(sorted(devices))}), but a graph runs on one; move them with .cpu() or .gpu() first.")


def run_arrays(graph, arrays, device=CPU):
    """The fast path of ``run``: arrays in, arrays out (NumPy arrays on the CPU, device arrays on
    a GPU), each node's kernel called straight from the precomputed plan (no Tensors, no tapes)."""
    plan = graph._plans.get(device)
    if plan is None:
        plan = graph._plans[device] = _plan(graph, device)
    template, steps, input_slots, output_slots = plan
    env = template.copy()
    for s, x in zip(input_slots, arrays):
        env[s] = x
    try:                # (free in Python 3.11+ while nothing is raised)
        for code, out, fn, a, b, attrs in steps:
            if code == _TWO:
                env[out] = fn(env[a], env[b])
            elif code == _ONE:
                env[out] = fn(env[a])
            elif code == _MANY:
                env[out] = fn(*[env[i] for i in a], **attrs)
            elif code == _READ:
                env[out] = fn._value
            else:
                env[out] = env[a][b]
    except _RUN_ERRORS as err:
        node = graph.nodes[out] if out < len(graph.nodes) else _group_node(graph, steps, out)
        raise _in_node(err, graph, node) from err
    return [env[s] for s in output_slots]


# The errors a kernel or an op's value check raises, told again with the node they came from.
_RUN_ERRORS = (InvalidArgumentError, ValueError, IndexError, TypeError, ZeroDivisionError)


def _group_node(graph, steps, slot):
    """The first node that picks an output of the multi-output call computed into ``slot``."""
    for code, out, _, a, _, _ in steps:
        if code == _PICK and a == slot:
            return graph.nodes[out]


def _in_node(err, graph, node):
    """``err`` (its type, the eager message) with the graph node that raised it, and its source line."""
    if node is None or "graph node" in str(err):
        return err
    where = f"in graph node {node.name} = {node.op.name if node.op else node.kind}(...) of '{graph.name}'"
    if node.source:
        where += f", traced from line {node.source[1]}: {node.source[2]}"
    try:
        return type(err)(f"{err} ({where})")
    except TypeError:         # an exception class that takes other arguments: keep it as it is
        return err


class Interpreter:
    """Runs a graph node by node, each through its eager Op, on Tensors: the interpreter to read,
    and to subclass (as torch.fx's ``Interpreter``).

        class Counter(Interpreter):
            def call(self, node, args):
                self.calls = getattr(self, "calls", 0) + 1
                return super().call(node, args)

        Counter(graph).run(x)

    ``run_node`` dispatches on the node's kind to ``constant``, ``variable`` or ``call``; override any
    of them. Because every call goes through the Op, an open GradientTape records the run as it
    would eager code. ``run(graph, ...)`` uses this class whenever a tape or a trace must see the
    ops; otherwise it takes the fast path, ``run_arrays``, which does the same work from a plan
    made once per graph and device: every node's kernel and argument slots looked up in advance,
    arrays in and out, no Tensors.
    """

    def __init__(self, graph):
        self.graph = graph

    def run(self, *inputs):
        """The graph's outputs (Tensors) for ``inputs`` (Tensors or NumPy arrays, one per placeholder)."""
        graph = self.graph
        _check_inputs(graph, inputs)
        self.device = _device(graph, inputs)
        self.env = {}                  # node -> its value
        self._multi = {}               # one run of each call with several outputs
        for node, x in zip(graph.inputs, inputs):
            self.env[node] = x if isinstance(x, Tensor) else place(np.asarray(x), self.device)
        for node in graph.nodes:
            if node.kind != "placeholder":
                self.env[node] = self.run_node(node)
        return [_plain(self.env[n]) for n in graph.outputs]

    def run_node(self, node):
        if node.kind == "call":
            try:
                return self.call(node, [self.env[i] for i in node.inputs])
            except _RUN_ERRORS as err:
                raise _in_node(err, self.graph, node) from err
        return getattr(self, node.kind)(node)

    def constant(self, node):
        return place(to_host(node.value), self.device)

    def variable(self, node):
        return node.value          # the Variable itself: a tape sees it and watches it

    def call(self, node, args):
        if node.index is None:
            return self.apply(node, args)
        # One of several outputs (``split``): the op runs once for all its siblings.
        key = (node.op, tuple(id(a) for a in args), tuple(sorted((k, id(v)) for k, v in node.attrs.items())))
        if key not in self._multi:
            self._multi[key] = self.apply(node, args)
        return self._multi[key][node.index]

    def apply(self, node, args):
        """Call the node's Op on ``args``. A cond or while node runs its subgraphs here op by op
        (``op.interpret``), so that a tape records the ops inside as it records eager code; while
        an outer trace inlines this graph, it is recorded as one node again."""
        interpret = getattr(node.op, "interpret", None)
        if interpret is not None:
            outer = recording.tracer()
            if outer is not None:      # inlined into an outer trace: the same node again, not its run
                return node.op.record_again(outer, args, node.attrs)
            return interpret(args, **node.attrs)
        return node.op(*args, **node.attrs)


def _plain(t):
    """A returned Variable becomes its current value, as on the fast path (in a trace: a read). Under
    a tape it is read with ``identity``, so that the tape links the value to the variable."""
    if not isinstance(t, Variable):
        return t
    outer = recording.tracer()
    if outer is not None:
        return outer.read(t)
    return identity(t) if recording.observed() else wrap(t._value, t._device)
