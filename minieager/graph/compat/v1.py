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
from ...errors import InvalidArgumentError
from ...engine.tensor import Tensor
from ..effects import numpy_function
from ..ir import Graph as _IRGraph, run_arrays
from ..symbolic import SymbolicTensor
from ..tracing import Tracer

_default = None     # the default Graph while one is being built


class Graph:
    """A TF 1 graph being built: ``with me.compat.v1.Graph().as_default(): ...``."""

    def __init__(self):
        self.tracer = Tracer("graph")
        self._open = False

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


# In eager execution a variable holds its value from the moment it is made, so the initializers
# TF 1 graphs had to run are no-ops, as in TF 2's eager mode (both return None; sess.run(None) is None).
def global_variables_initializer():
    """Does nothing and returns None: variables are initialized when they are created."""
    return None


def local_variables_initializer():
    """Does nothing and returns None: variables are initialized when they are created."""
    return None


initialize_all_variables = global_variables_initializer


class Session:
    """Runs the default graph (or ``graph``): ``sess.run(fetches, feed_dict)``."""

    def __init__(self, target="", graph=None, config=None):
        self.graph = graph
        self._closed = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self):
        """Closing the session closes the default graph it ran (a new placeholder starts a new one)."""
        if not self._closed and self.graph is None:
            reset_default_graph()
        self._closed = True

    def run(self, fetches, feed_dict=None):
        """The values of ``fetches`` (a tensor or a nested list/tuple/dict of them) as NumPy arrays."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        flat = nest.flatten(fetches)
        graph = self.graph or _default
        feeds = dict(feed_dict or {})
        symbolic = [f for f in flat if isinstance(f, SymbolicTensor)]
        if not symbolic:
            return nest.pack_sequence_as(fetches, [_eager_value(f) for f in flat])
        tracer = symbolic[0]._tracer
        if graph is None or tracer is not graph.tracer:
            raise InvalidArgumentError("Session.run: the fetched tensors belong to another graph than this "
                                       "session's. Build them inside the same graph.")
        outputs = [tracer.symbolic(f)._node for f in flat]
        needed = _ancestors(outputs)
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
        was_open = tracer in recording.tracers
        if was_open:             # py_func bodies run eagerly
            graph.tracer.__exit__(None, None, None)
        try:
            results = run_arrays(graph_part, arrays)
        finally:
            if was_open:
                graph.tracer.__enter__()
        return nest.pack_sequence_as(fetches, [np.array(r) for r in results])


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
