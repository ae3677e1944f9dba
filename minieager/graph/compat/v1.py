"""TensorFlow 1 graphs on minieager's tracer: build with placeholders, run with a Session.

    x = me.compat.v1.placeholder(me.float32, shape=[1, 1])   # opens the default graph
    m = me.matmul(x, x)                                       # recorded, not run
    with me.compat.v1.Session() as sess:
        print(sess.run(m, feed_dict={x: [[2.0]]}))            # [[4.]]; leaving the block closes the graph

A graph is a ``Tracer`` left open: while it is, every op is recorded into it (as in TF 1, where
building the graph is all ops do) and ``me.executing_eagerly()`` is False. ``sess.run`` runs the
part of the graph that the fetches need, with the placeholders fed from ``feed_dict``, through
the same interpreter as ``me.function`` (graph.ir.run_arrays).
"""
import numpy as np

from ... import nest
from ...engine import dtypes, recording
from ...engine.abstract import compatible
from ...errors import FailedPreconditionError, InvalidArgumentError
from ...engine.tensor import Tensor
from ...autodiff.variable import Variable, assign_variable
from ...engine.tensor import wrap
from ...ops import random
from ...ops.creation import constant, fill
from ..effects import numpy_function
from ..ir import Graph as _IRGraph, run_arrays
from ..symbolic import SymbolicTensor
from ..tracing import Tracer

_default = None     # the default Graph while one is being built


class Graph:
    """A TF 1 graph being built: ``with me.compat.v1.Graph().as_default(): ...``."""

    def __init__(self):
        self.tracer = Tracer("graph")
        self.tracer.created_variables = _GraphVariables(self)   # each new variable gets its initializer op
        self._open = False
        self._by_name = {}          # get_variable's variables, by full name ("layer1/w")
        self._scopes = []           # variable_scope's (name, reuse) stack

    def _enter(self):
        if not self._open:
            self.tracer.__enter__()
            self._open = True

    def _exit(self):
        if self._open:
            self.tracer.__exit__(None, None, None)
            self._open = False

    def close(self):
        """Stop building: the graph's tensors can no longer be used in new ops (Session.run still runs it)."""
        self._exit()
        self.tracer.close()

    def as_default(self):
        return _AsDefault(self)

    @property
    def nodes(self):
        return list(self.tracer.nodes)

    def as_ir(self, fetches=None):
        """The graph built so far as me.function's IR (graph/ir.py): the nodes ``fetches`` need (by
        default every node, returning those nothing reads), ready to print, draw or run."""
        nodes = self.tracer.nodes
        if fetches is None:
            read = {i for n in nodes for i in n.inputs}
            outputs = [n for n in nodes if n not in read and n.kind != "placeholder"]
        else:
            outputs = [self.tracer.symbolic(f)._node for f in nest.flatten(fetches)]
        needed = _ancestors(outputs) if fetches is not None else set(nodes)
        return _IRGraph([n for n in nodes if n in needed], [n for n in self.tracer.placeholders if n in needed],
                        outputs, name="graph")

    def draw(self, fetches=None, title=None, direction="LR"):
        """The graph drawn in the tape debugger's visual language, as a me.function graph is."""
        return self.as_ir(fetches).draw(title, direction)

    def __str__(self):
        return str(self.as_ir())

    def __repr__(self):
        return f"<me.compat.v1.Graph: {len(self.tracer.nodes)} nodes>"


class _AsDefault:
    def __init__(self, graph):
        self.graph = graph

    def __enter__(self):
        global _default
        self._previous, _default = _default, self.graph
        self.graph._enter()
        return self.graph

    def __exit__(self, *exc):
        global _default
        self.graph._exit()
        _default = self._previous
        return False


class Operation:
    """A node of a TF 1 graph that is run for what it does, not for a value: a variable's
    ``initializer``, ``global_variables_initializer()``. ``sess.run(op)`` or ``op.run()`` (with the
    default session) runs its effect nodes and returns None."""

    def __init__(self, name, nodes, graph):
        self.name, self.nodes, self.graph = name, list(nodes), graph

    def run(self, feed_dict=None, session=None):
        return _session(session, "Operation.run").run(self, feed_dict)

    def __repr__(self):
        return f"<me.compat.v1.Operation '{self.name}': {len(self.nodes)} node(s)>"


class _GraphVariables(list):
    """The variables made while a graph is built. Each gets its ``initializer``: an ``assign_variable``
    node of the graph that sets the initial value again whenever it runs (TF 1's ``v.initializer``)."""

    def __init__(self, graph):
        super().__init__()
        self.graph = graph

    def append(self, variable):
        super().append(variable)
        initial = wrap(np.array(variable._value, copy=True), variable._device)
        assign_variable(initial, variable=variable)
        node = self.graph.tracer.nodes[-1]
        variable._initializer = Operation(f"{variable.name.split(':')[0]}/Assign", [node], self.graph)


def get_default_graph():
    """The graph that placeholders and ops are recorded into (opened on first use)."""
    global _default
    if _default is None or not _default._open:
        _default = Graph()
        _default._enter()
    return _default


def reset_default_graph():
    """Close the default graph; the next placeholder starts a new one."""
    global _default
    if _default is not None:
        _default.close()
    _default = None


def placeholder(dtype, shape=None, name=None):
    """A graph input, fed by ``sess.run(..., feed_dict={placeholder: value})``. Without a shape, ops
    that need one cannot be recorded (py_func can)."""
    graph = get_default_graph()
    return graph.tracer.placeholder(name or "Placeholder", None if shape is None else tuple(shape),
                                    dtypes.as_dtype(dtype))


def py_func(func, inp, Tout, stateful=True, name=None):
    """TF 1's ``tf.py_func``: call ``func`` on NumPy arrays every time the graph runs."""
    return numpy_function(func, inp, Tout, name=name)


# ---- variables ---------------------------------------------------------------------------------------
def _building():
    """The graph being built, or None (eager)."""
    return _default if _default is not None and _default._open else None


def global_variables():
    """The variables made in the default graph, in order (eagerly: none, as TF 2's)."""
    graph = _building()
    return list(graph.tracer.created_variables) if graph else []


def trainable_variables():
    return [v for v in global_variables() if v.trainable]


def global_variables_initializer():
    """In a graph: an Operation that sets every variable of the graph to its initial value (run it with
    ``sess.run(init)`` or ``init.run()``); as in TF 1, a session that reads a variable of the graph before
    running it (or the variable's own ``initializer``) raises FailedPreconditionError, and running it again
    resets the variables. Eagerly, None: a variable is initialized when it is made."""
    graph = _building()
    if graph is None:
        return None
    nodes = [node for v in graph.tracer.created_variables for node in v.initializer.nodes]
    return Operation("init", nodes, graph)


initialize_all_variables = global_variables_initializer


def local_variables_initializer():
    """An Operation that does nothing (minieager has no local variables); None eagerly."""
    graph = _building()
    return None if graph is None else Operation("init_1", [], graph)


def assign(ref, value, name=None):
    """TF 1's ``tf.assign``: a tensor whose running sets ``ref`` to ``value`` (and is that value)."""
    return assign_variable(ref._checked(value, "assign"), variable=ref)


def assign_add(ref, value, name=None):
    """TF 1's ``tf.assign_add``: a tensor whose running adds ``value`` to ``ref`` (and is the new value)."""
    return assign_variable(ref._current() + ref._checked(value, "assign_add"), variable=ref)


AUTO_REUSE = "auto_reuse"


class variable_scope:
    """``with variable_scope("layer1"):`` prefixes the names ``get_variable`` gives ("layer1/w");
    ``reuse=True`` returns the existing variables instead of making new ones, ``reuse=AUTO_REUSE``
    makes them the first time and returns them after."""

    def __init__(self, name_or_scope, default_name=None, values=None, initializer=None, reuse=None, **kwargs):
        self.name = name_or_scope or default_name
        self.reuse = reuse

    def __enter__(self):
        graph = get_default_graph()
        outer = graph._scopes[-1][1] if graph._scopes else None
        graph._scopes.append((self.name, self.reuse if self.reuse is not None else outer))
        self._graph = graph
        return self

    def __exit__(self, *exc):
        self._graph._scopes.pop()
        return False


def get_variable(name, shape=None, dtype=dtypes.float32, initializer=None, trainable=True, **kwargs):
    """TF 1's ``tf.get_variable``: the variable ``name`` of the current variable_scope, made with
    ``initializer`` (glorot uniform by default, as TF's) or, under ``reuse``, the existing one."""
    graph = get_default_graph()
    full = "/".join([scope for scope, _ in graph._scopes] + [name])
    reuse = graph._scopes[-1][1] if graph._scopes else None
    dtype = dtypes.as_dtype(dtype)
    existing = graph._by_name.get(full)
    if existing is not None:
        if not reuse:
            raise ValueError(f"Variable {full} already exists, disallowed. Did you mean to set reuse=True or "
                             f"reuse=me.compat.v1.AUTO_REUSE in variable_scope?")
        if shape is not None and tuple(shape) != tuple(existing.shape):
            raise ValueError(f"Trying to share variable {full}, but specified shape {tuple(shape)} and found shape "
                             f"{tuple(existing.shape)}.")
        return existing
    if reuse is True:
        raise ValueError(f"Variable {full} does not exist, or was not created with get_variable(). Did you mean to "
                         f"set reuse=me.compat.v1.AUTO_REUSE in variable_scope?")
    if initializer is None or callable(initializer):
        if shape is None:
            raise ValueError(f"Variable {full} did not get an initializer, so its `shape` argument must be specified.")
        make = initializer or glorot_uniform_initializer()
        value = lambda: make(tuple(shape), dtype)     # noqa: E731  (computed eagerly, outside the graph)
    else:
        value = constant(initializer, dtype=dtype)
    variable = Variable(value, trainable=trainable, name=full, dtype=dtype)
    graph._by_name[full] = variable
    return variable


class constant_initializer:
    def __init__(self, value=0):
        self.value = value

    def __call__(self, shape, dtype=dtypes.float32, **kwargs):
        return fill(list(shape), constant(self.value, dtype=dtype)) if np.ndim(self.value) == 0 else \
            constant(np.reshape(np.asarray(self.value), shape), dtype=dtype)


class zeros_initializer(constant_initializer):
    def __init__(self, dtype=None):
        super().__init__(0)


class ones_initializer(constant_initializer):
    def __init__(self, dtype=None):
        super().__init__(1)


class random_normal_initializer:
    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=dtypes.float32, **kwargs):
        return random.normal(list(shape), self.mean, self.stddev, dtype=dtype, seed=self.seed)


class random_uniform_initializer:
    def __init__(self, minval=-0.05, maxval=0.05, seed=None, dtype=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape, dtype=dtypes.float32, **kwargs):
        return random.uniform(list(shape), self.minval, self.maxval, dtype=dtype, seed=self.seed)


class glorot_uniform_initializer:
    """Uniform in +-sqrt(6 / (fan_in + fan_out)): get_variable's default, as TF's."""

    def __init__(self, seed=None, dtype=None):
        self.seed = seed

    def __call__(self, shape, dtype=dtypes.float32, **kwargs):
        receptive = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
        fan_in = shape[-2] * receptive if len(shape) > 1 else (shape[0] if shape else 1)
        fan_out = shape[-1] * receptive if len(shape) > 1 else (shape[0] if shape else 1)
        limit = float(np.sqrt(6.0 / max(1, fan_in + fan_out)))
        return random.uniform(list(shape), -limit, limit, dtype=dtype, seed=self.seed)


# ---- the default session: Tensor.eval(), Operation.run() -----------------------------------------------
_default_session = []     # the sessions opened with ``with``, innermost last


def get_default_session():
    return _default_session[-1] if _default_session else None


def _session(session, what):
    session = session or get_default_session()
    if session is None:
        raise ValueError(f"{what}: no default session is registered. Use `with me.compat.v1.Session() as sess:` or "
                         f"pass session=sess.")
    return session


def eval_tensor(tensor, feed_dict=None, session=None):
    """``tensor.eval()``: its value, computed by the default session (``sess.run(tensor, feed_dict)``)."""
    return _session(session, "Tensor.eval").run(tensor, feed_dict)


class Session:
    """Runs the default graph (or ``graph``): ``sess.run(fetches, feed_dict)``."""

    def __init__(self, target="", graph=None, config=None):
        self.graph = graph
        self._closed = False
        self._initialized = set()   # ids of the graph's variables this session has assigned (TF 1: per session)

    def __enter__(self):
        _default_session.append(self)
        return self

    def __exit__(self, *exc):
        if _default_session and _default_session[-1] is self:
            _default_session.pop()
        self.close()
        return False

    def as_default(self):
        return self

    def close(self):
        """Closing the session closes the default graph it ran (a new placeholder starts a new one)."""
        if not self._closed and self.graph is None:
            reset_default_graph()
        self._closed = True

    def run(self, fetches, feed_dict=None):
        """The values of ``fetches`` (a tensor or a nested list/tuple/dict of them) as NumPy arrays."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        flat = [fetches] if isinstance(fetches, Operation) else nest.flatten(fetches)
        graph = self.graph or _default
        feeds = dict(feed_dict or {})
        if graph is not None and graph._open:     # a variable of the graph is fetched as the graph's read of it
            flat = [graph.tracer.symbolic(f) if _made_in(graph, f) else f for f in flat]
        symbolic = [f for f in flat if isinstance(f, SymbolicTensor)]
        operations = [f for f in flat if isinstance(f, Operation)]
        if not symbolic and not operations:
            return nest.pack_sequence_as(fetches, [_eager_value(f) for f in flat])
        tracer = symbolic[0]._tracer if symbolic else operations[0].graph.tracer
        if graph is None or tracer is not graph.tracer or any(op.graph is not graph for op in operations):
            raise InvalidArgumentError("Session.run: the fetched tensors belong to another graph than this "
                                       "session's. Build them inside the same graph.")
        outputs = [tracer.symbolic(f)._node for f in flat if not isinstance(f, Operation)]
        needed = _ancestors(outputs + [node for op in operations for node in op.nodes])
        inputs = [n for n in tracer.placeholders if n in needed]
        fed = {}
        for key, value in feeds.items():
            if not isinstance(key, SymbolicTensor) or key._node.kind != "placeholder":
                raise InvalidArgumentError(f"Session.run: feed_dict keys must be placeholders, got {key!r}.")
            fed[key._node] = value
        arrays = []
        for node in inputs:
            if node not in fed:
                raise InvalidArgumentError(
                    f"Session.run: you must feed a value for placeholder '{node.name}' ({node.type_text}): "
                    f"feed_dict={{{node.name}: ...}}.")
            array = np.asarray(fed[node]._value if isinstance(fed[node], Tensor) else fed[node],
                               dtype=node.dtype.np_dtype)
            if not compatible(node.shape, array.shape):     # (None: any size)
                raise InvalidArgumentError(
                    f"Session.run: placeholder '{node.name}' has shape {node.shape}, but the value fed has "
                    f"shape {array.shape}.")
            arrays.append(array)
        graph_part = _IRGraph([n for n in tracer.nodes if n in needed], inputs, outputs, name="session_run")
        assigned = self._check_initialized(graph, graph_part.nodes)
        was_open = any(t is tracer for t in recording.this_thread.tracers)
        if was_open:             # py_func bodies run eagerly
            graph.tracer.__exit__(None, None, None)
        try:
            results = run_arrays(graph_part, arrays)
        finally:
            if was_open:
                graph.tracer.__enter__()
        self._initialized |= assigned
        results = iter(results)
        values = [None if isinstance(f, Operation) else np.array(next(results)) for f in flat]
        return values[0] if isinstance(fetches, Operation) else nest.pack_sequence_as(fetches, values)


    def _check_initialized(self, graph, nodes):
        """TF 1's rule: a variable made in the graph has no value in a session until that session assigns
        it (its initializer, global_variables_initializer(), or an assign): reading it before raises
        FailedPreconditionError. Returns the ids of the variables these nodes assign."""
        ours = {id(v) for v in graph.tracer.created_variables}
        assigned = set()
        for node in nodes:
            variable = node.value if node.kind == "variable" else node.attrs.get("variable")
            if id(variable) not in ours:
                continue
            if node.kind == "call":                    # assign_variable (assign_add reads the variable first)
                assigned.add(id(variable))
            elif id(variable) not in self._initialized and id(variable) not in assigned:
                name = variable.name.split(":")[0]
                raise FailedPreconditionError(
                    f"Attempting to use uninitialized value {name} (graph node {node.name}, a read of "
                    f"{variable.name}, as TF 1). Run its initializer in this session first: "
                    f"sess.run(me.compat.v1.global_variables_initializer()) or sess.run({name}.initializer).")
        return assigned


def _made_in(graph, value):
    """Whether ``value`` is a variable made while ``graph`` was built."""
    return isinstance(value, Variable) and any(v is value for v in graph.tracer.created_variables)


def _eager_value(t):
    return t.numpy() if isinstance(t, Tensor) else t


def _ancestors(nodes):
    seen, stack = set(), list(nodes)
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            stack.extend(node.inputs)
    return seen
