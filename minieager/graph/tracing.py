"""The tracer: records the ops a Python function calls into a ``Graph``.

While a ``Tracer`` is open it sits in its thread's ``engine.recording.this_thread.tracers``;
``Op.__call__`` checks for one first (one ``if`` on the eager path while nothing is traced) and
hands every call to ``Tracer.call`` instead of running it. Each thread traces on its own stack, so
two threads may trace two functions (or run one) at once. The tracer turns the inputs into nodes (a symbolic tensor is already one, a
Variable becomes a ``variable`` read, any other tensor a ``constant``), appends a ``call`` node,
and returns symbolic tensors for its outputs.

Shapes and dtypes by abstract evaluation: each symbolic tensor carries an ``AbstractArray``
(dtype and shape, no values; engine/abstract.py) in ``_value``, and the tracer learns each op's
outputs from the op's shape rule (``Op.shape_rule``), never by running a kernel. A dimension may be
unknown (``None``: a placeholder ``[None, 784]``, the length of ``unique``'s result); it is known
when the graph runs. The op functions still run while tracing, so their static checks (dtypes,
ranks, known sizes) raise the eager errors then; the checks that need values (``Op.check``: indices
in range, no integer division by zero) run with the kernel every time the graph runs.

Gradient tapes opened *inside* the traced function see each call as they would eagerly, so
``tape.gradient`` records the backward ops into the same graph. Tapes open *outside* are
paused while tracing: they record the graph's ops when it runs instead.
"""
import itertools
import linecache
import os
import sys

from ..autodiff.variable import Variable
from ..engine import recording
from ..engine.abstract import AbstractArray, abstract, unknown_rank_error
from ..engine.device import CPU
from ..engine.dtypes import BY_NUMPY
from ..errors import InaccessibleTensorError, InvalidArgumentError
from ..engine.tensor import Tensor, _next_id
from .ir import Graph, Node
from .symbolic import NoValue, SymbolicTensor
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # .../minieager


class Tracer:
    """Records one graph. ``parent`` is the enclosing tracer for a branch or loop body (me.cond,
    me.while_loop): tensors of the parent become extra placeholders, listed in ``captures`` as
    (outer tensor or variable, inner placeholder) pairs."""

    def __init__(self, name, parent=None):
        self.name, self.parent = name, parent
        self.nodes, self.placeholders, self.captures = [], [], []
        self.recorder = GraphRecorder()   # every differentiable call, for me.gradients
        self._calls = itertools.count()
        self._constants = {}      # id(tensor) -> (tensor, its symbolic node): one node per constant tensor
        self._reads = {}          # id(variable) -> (variable, its symbolic value now)
        self._names = set()
        self._made = []           # every symbolic tensor made, for close()
        self.created_variables = []   # Variables made while tracing (me.function allows them on its first trace)

    # ---- opening and closing -----------------------------------------------------------------
    def __enter__(self):
        # Tapes opened outside the function must not record the trace (they record the graph's run).
        self._paused = recording.set_observers([self.recorder])
        recording.add_tracer(self)
        return self

    def __exit__(self, *exc):
        recording.remove_tracer(self)
        recording.set_observers(self._paused)
        return False

    def close(self):
        """The trace is over: its symbolic tensors drop their abstract values and refuse any further use."""
        for t in self._made:
            t._value = NoValue.trace_over(t._node.name, self.name)
        self._made = []
        self.recorder.records = []      # me.gradients builds into an open trace only

    def graph(self, outputs):
        """The recorded graph, returning the symbolic tensors (or tensors, variables) ``outputs``."""
        out_nodes = [self.symbolic(t)._node for t in outputs]
        return Graph(self.nodes, self.placeholders, out_nodes, name=self.name)

    # ---- nodes ----------------------------------------------------------------------------
    def _unique(self, base):
        name, n = base, 0
        while name in self._names:
            n += 1
            name = f"{base}_{n}"
        self._names.add(name)
        return name

    def _add(self, node, value):
        self.nodes.append(node)
        t = object.__new__(SymbolicTensor)
        t._value, t._dtype, t._device, t._id = value, node.dtype, CPU, _next_id()
        t._node, t._tracer = node, self
        self._made.append(t)
        return t

    def placeholder(self, name, shape, dtype):
        """A new argument of the graph (a None dimension, or a None shape: known only when it runs)."""
        name = self._unique(name)
        node = Node("placeholder", name, shape=shape, dtype=dtype)
        t = self._add(node, AbstractArray(shape, dtype.np_dtype))
        self.placeholders.append(node)
        return t

    def symbolic(self, t):
        """The symbolic tensor standing for ``t`` in this graph (making a node for it if needed)."""
        if type(t) is SymbolicTensor:
            if t._tracer is self:
                return t
            return self._capture(t)
        if isinstance(t, Variable):
            return self.read(t)
        if not isinstance(t, Tensor):
            raise TypeError(f"me.function: expected a tensor, got {type(t).__name__} ({t!r}).")
        entry = self._constants.get(t._id)
        if entry is None:
            node = Node("constant", self._unique(f"c{len(self._constants)}"), shape=t._value.shape,
                        dtype=t._dtype, value=t._value, source=_user_source())
            entry = self._constants[t._id] = (t, self._add(node, abstract(t._value)))
        return entry[1]

    def _capture(self, t):
        """A symbolic tensor of an enclosing graph used in a branch or loop body: an extra placeholder,
        fed with the outer value when the cond or while node runs."""
        tracer = self.parent
        while tracer is not None and tracer is not t._tracer:
            tracer = tracer.parent
        if tracer is None:
            raise InaccessibleTensorError(
                f"Tensor '{t._node.name}' belongs to the trace of '{t._tracer.name}', so it cannot be used in "
                f"'{self.name}': a symbolic tensor cannot leave the function (or branch, or loop body) that "
                f"made it. Return it from that function instead, or pass it as an argument.")
        for outer, inner in self.captures:
            if outer is t:
                return inner
        inner = self.placeholder(f"{t._node.name.lstrip('%')}_in", t._node.shape, t._dtype)
        self.captures.append((t, inner))
        return inner

    def read(self, variable):
        """The variable's value at this point of the program: a ``variable`` node read when the graph
        runs (one per variable until an effect may have assigned it: then a new read)."""
        entry = self._reads.get(variable._id)
        if entry is None:
            base = variable.name.split(":")[0].replace("/", "_")
            node = Node("variable", self._unique(base), shape=variable._value.shape, dtype=variable._dtype,
                        value=variable, source=_user_source())
            entry = self._reads[variable._id] = (variable, self._add(node, abstract(variable._value)))
        return entry[1]

    def forget_reads(self, variable=None):
        """After an effect that may assign ``variable`` (None: any variable), later reads must read again."""
        if variable is None:
            self._reads.clear()
        else:
            self._reads.pop(variable._id, None)

    # ---- ops ----------------------------------------------------------------------------------
    def call(self, op, inputs, attrs):
        """Record one op call (Op.__call__ sends every call here while this tracer is open)."""
        if "into" in attrs:          # temporary elision writes over an operand: never while tracing
            attrs = {k: v for k, v in attrs.items() if k != "into"}
        symbols = [self.symbolic(t) for t in inputs]
        return self.record(op, inputs, attrs, self.abstract(op, symbols, attrs), symbols=symbols)

    def effect(self, op, inputs, attrs):
        """Record a call of an EffectOp (assign, print, py_function ...): its kernel does not run now;
        its shape rule says what it will return, ``op.traced`` what it changes."""
        symbols = [self.symbolic(t) for t in inputs]
        results = self.abstract(op, symbols, attrs)
        outputs = self.record(op, inputs, attrs, results, symbols=symbols, effect=True)
        op.traced(self, attrs, outputs if op.num_outputs > 1 else (outputs,))
        return outputs

    def abstract(self, op, symbols, attrs):
        """The outputs' AbstractArrays (a tuple, one per output) by the op's shape rule."""
        inputs = [s._value for s in symbols]
        for s, x in zip(symbols, inputs):
            if x.shape is None and not (getattr(op.shape_rule, "any_rank", False) or getattr(op, "effect", False)):
                raise unknown_rank_error(op.name, f"tensor '{s._node.name}'")
        try:
            result = op.abstract(*inputs, **attrs)
        except InvalidArgumentError as err:
            where = _user_source(3)
            at = f", line {where[1]}: {where[2]}" if where else ""
            raise type(err)(f"{err} (while tracing '{self.name}'{at})") from None
        return (result,) if op.num_outputs == 1 else tuple(result)

    def record(self, op, inputs, attrs, results, symbols=None, effect=False):
        """Append the call's node(s), with ``results`` (one AbstractArray per output, None for an
        effect that returns nothing) giving shapes and dtypes; tapes opened inside the function see
        the call as they would eagerly."""
        if symbols is None:
            symbols = [self.symbolic(t) for t in inputs]
        source = _user_source()
        in_nodes = tuple(s._node for s in symbols)
        outputs = []
        for i, r in enumerate(results):
            name = f"%{next(self._calls)}"
            if r is None:                                       # an effect that returns nothing
                shape, dtype = (), None
            else:
                shape, dtype = r.shape, BY_NUMPY[r.dtype]
            node = Node("call", name, op=op, inputs=in_nodes, shape=shape, dtype=dtype,
                        index=None if op.num_outputs == 1 else i, source=source, effect=effect)
            node.attrs = attrs           # as given: multi-output siblings share one attrs dict
            outputs.append(self._add(node, r))
        outputs = tuple(outputs)
        if not effect:
            for observer in recording.this_thread.observers:   # tapes opened inside the function (tape.gradient)
                observer._observe(op, inputs, outputs, attrs)
        return outputs[0] if op.num_outputs == 1 else outputs


class GraphRecorder:
    """A tape that watches everything: each differentiable call recorded into one graph, as the tuple a
    GradientTape keeps, so that ``me.gradients`` plays them backwards with the tape's own ``backward``
    (a trace has no variable versions to check: its ops run in program order)."""

    def __init__(self):
        self.records = []

    def _observe(self, op, inputs, outputs, attrs):
        if op.vjp is not None:
            self.records.append((op, inputs, outputs, attrs, ()))


def _user_source(depth=2):
    """(filename, line number, line) of the innermost caller outside the minieager package."""
    frame = sys._getframe(depth)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
    if frame is None:
        return None
    filename, lineno = frame.f_code.co_filename, frame.f_lineno
    return (filename, lineno, linecache.getline(filename, lineno).strip())
