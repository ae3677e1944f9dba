"""``me.function``: trace a Python function into a graph once per input signature, then run the graph.

    @me.function
    def step(x, y):
        ...
    step(x, y)      # first call with these shapes/dtypes: trace (run `step` on symbolic tensors), then run
    step(x2, y2)    # same signature: run the recorded graph, Python is not called again

The signature of a call is each tensor argument's shape and dtype plus the value of every other
argument (Python numbers, strings, objects by identity; variables by identity, since they are
captured by reference). A new signature traces again, as ``tf.function`` does. A shape may have
unknown dimensions (None): ``input_signature=[me.TensorSpec([None, 784])]`` traces once for every
batch size, and ``reduce_retracing=True`` retraces a changed shape once, with the dimensions that
changed unknown; a graph with unknown dimensions serves every call whose shapes fit it.
"""
import functools
import inspect
import logging
import threading

import numpy as np

from .. import nest
from ..autodiff.variable import Variable
from ..engine import recording
from ..engine.abstract import compatible, relaxed
from ..engine.spec import TensorSpec
from ..engine.tensor import UNKNOWN_SHAPE, Tensor, TensorShape
from ..errors import InvalidArgumentError
from ..ops.creation import constant, convert_to_tensor
from . import passes
from .ir import Graph, run
from .autograph import convert_for_tracing
from .passes.cse import freeze
from .tracing import Tracer

_run_eagerly = False
logger = logging.getLogger("minieager")
# TF's rule for its retracing warning: when RETRACING_WARNING_THRESHOLD of the calls in the last
# RETRACING_HISTORY or so traced, at most RETRACING_WARNINGS times per function.
RETRACING_WARNING_THRESHOLD, RETRACING_HISTORY, RETRACING_WARNINGS = 5, 10, 2


def run_functions_eagerly(run_eagerly):
    """``me.config.run_functions_eagerly(True)``: every ``me.function`` calls its Python function
    directly (no tracing), so ``print`` and a debugger see real values. For debugging only."""
    global _run_eagerly
    _run_eagerly = bool(run_eagerly)


def functions_run_eagerly():
    return _run_eagerly


class ConcreteFunction:
    """One trace of a function: ``graph`` (the Graph recorded), ``inputs`` (its placeholder nodes),
    ``outputs`` (the nodes it returns) and ``structured_outputs``. Call it with the tensor arguments,
    in order: ``concrete(x, y)``."""

    def __init__(self, graph, output_structure, name, input_signature=None, outputs=None):
        self.graph = graph
        self.run_graph = graph        # the graph that runs (the optimisation passes may replace it)
        self.pass_reports = []        # one PassReport per optimisation pass that made run_graph
        self._structure = output_structure
        self._outputs = outputs       # the structure with the traced (symbolic) output tensors
        self.structured_input_signature = input_signature   # (args, kwargs): TensorSpecs and Python values
        self.captured = []            # symbolic tensors of an enclosing trace it reads: its last inputs
        self.name = name

    @property
    def inputs(self):
        return list(self.graph.inputs)

    @property
    def outputs(self):
        return list(self.graph.outputs)

    @property
    def fused_kernels(self):
        """The generated kernels of the fused nodes that run (``print(k.source)`` shows one)."""
        return passes.fused_kernels(self.run_graph)

    @property
    def structured_outputs(self):
        """What the function returned, with the graph's (symbolic) tensors, as TF's."""
        return self._outputs if self._outputs is not None else self._structure

    def _map_outputs(self, fn):
        nodes = iter(self.graph.outputs)
        return nest.pack_sequence_as(self._structure, [None if leaf is None else fn(next(nodes))
                                                       for leaf in nest.flatten(self._structure)])

    @property
    def output_shapes(self):
        """The shape of each output (TensorShape), in the structure the function returned."""
        return self._map_outputs(lambda node: UNKNOWN_SHAPE if node.shape is None else TensorShape(node.shape))

    @property
    def output_dtypes(self):
        """The dtype of each output, in the structure the function returned."""
        return self._map_outputs(lambda node: node.dtype)

    @property
    def variables(self):
        """The variables the graph reads (its captured variables), as TF's ConcreteFunction.variables."""
        found = []
        for graph in _graphs(self.graph):
            for node in graph.nodes:
                if node.kind == "variable" and all(node.value is not v for v in found):
                    found.append(node.value)
        return tuple(found)

    @property
    def trainable_variables(self):
        return tuple(v for v in self.variables if v.trainable)

    def pretty_printed_signature(self):
        """Inputs and outputs, in TF's words: ``x (POSITIONAL_OR_KEYWORD): TensorSpec(...)``."""
        args, kwargs = self.structured_input_signature or ((), {})
        lines = ["Input Parameters:"]
        for name, kind, value in self._parameters:
            lines.append(f"  {name} ({kind}): {_literal(value)}")
        lines.append("Output Type:")
        lines.append("  " + _output_type(self._map_outputs(lambda node: TensorSpec(node.shape, node.dtype))))
        captured = self.variables
        lines.append("Captures:")
        lines.extend([f"  {v.name}: {v.dtype.name}{list(v.shape)}" for v in captured] or ["  None"])
        return "\n".join(lines)

    def __call__(self, *tensors):
        inputs = self.graph.inputs[:len(self.graph.inputs) - len(self.captured)]
        if len(tensors) != len(inputs):
            raise InvalidArgumentError(
                f"ConcreteFunction '{self.name}' takes {len(inputs)} tensor arguments "
                f"({', '.join(n.name for n in inputs)}), got {len(tensors)}.")
        flat = []
        for node, t in zip(inputs, tensors):
            t = convert_to_tensor(t, dtype=node.dtype if not isinstance(t, Tensor) else None)
            if t._dtype is not node.dtype or not compatible(node.shape, tuple(t._value.shape)):
                raise InvalidArgumentError(
                    f"ConcreteFunction '{self.name}': argument '{node.name}' must be {node.type_text}, got "
                    f"{t.dtype.name}{list(t.shape)}. Call the me.function itself to trace for new shapes.")
            flat.append(t)
        return self._call_flat(flat)

    def _call_flat(self, tensors):
        # Called inside another function's trace, the graph is inlined as traced, so that the outer
        # function's passes see (and optimise) all of it.
        outputs = iter(run(self.graph if recording.tracer() is not None else self.run_graph, *tensors, *self.captured))
        return nest.pack_sequence_as(self._structure, [None if leaf is None else next(outputs)
                                                       for leaf in nest.flatten(self._structure)])

    def __repr__(self):
        return f"<ConcreteFunction {self.name}({', '.join(n.name + ': ' + n.type_text for n in self.inputs)})>"


def _tensor_types(args):
    """``((shape, dtype), ...)`` of ``args`` if each is a plain Tensor (no Variable), else None."""
    types = []
    for a in args:
        if type(a) is not Tensor:
            return None
        types.append((a._value.shape, a._dtype))
    return tuple(types)


class Function:
    """What ``me.function(f)`` returns: call it like ``f``."""

    def __init__(self, python_function, input_signature=None, optimize=True, name=None, autograph=True,
                 reduce_retracing=False):
        if not callable(python_function):
            raise TypeError(f"me.function wraps a Python function, got {type(python_function).__name__}.")
        self.python_function = python_function
        self.input_signature = None if input_signature is None else self._check_signature(input_signature)
        self.optimize = optimize
        self.reduce_retracing = bool(reduce_retracing)
        self.autograph = autograph   # trace the AutoGraph-converted function (graph/autograph)
        self._traced_function = None
        self.name = name or getattr(python_function, "__name__", "function")
        self._signature = inspect.signature(python_function)
        params = self._signature.parameters.values()
        positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        # Calls that pass exactly this many tensors may take the fast path of _call (-1: never).
        self._plain_arity = len(params) if all(p.kind in positional for p in params) else -1
        self._concrete = {}          # call signature -> ConcreteFunction
        self._by_tensor_types = {}   # ((shape, dtype) per argument) -> ConcreteFunction: the fast path of _call
        self._general = []           # the signatures with unknown dimensions: each serves many shapes
        self._keep = []              # objects whose id() is part of a signature stay alive
        self._tracing_history = []   # TF's retracing detector: calls per trace, most recent last
        self._warnings = 0
        self._traced = False         # traced at least once (variables may be created on the first trace only)
        self._lock = threading.RLock()   # one thread traces it at a time (as tf.function); running needs no lock
        functools.update_wrapper(self, python_function)

    @staticmethod
    def _check_signature(signature):
        specs = list(signature)
        for s in nest.flatten(specs):
            if not isinstance(s, TensorSpec):
                raise TypeError(f"me.function: input_signature must be a list of me.TensorSpec, got "
                                f"{type(s).__name__} ({s!r}).")
        return specs

    def __get__(self, instance, owner):
        # A decorated method: bind the instance (one trace per instance, as the instance is a Python argument).
        if instance is None:
            return self
        return BoundFunction(self, instance)

    # ---- calling -------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        return self._call(args, kwargs)

    def _call(self, args, kwargs, instance=()):
        if _run_eagerly:
            return self.python_function(*instance, *args, **kwargs)
        # The fast path: a call with only plain tensors, one per parameter, whose shapes and dtypes
        # an earlier call had, runs that call's trace without building its signature (~10 us of
        # Python, 5% of a fused 1e6-element chain). Any other call takes the general path below.
        fast = (not kwargs and not instance and len(args) == self._plain_arity
                and self.input_signature is None and _tensor_types(args))
        if fast:
            concrete = self._by_tensor_types.get(fast)
            if concrete is not None:
                self._called_without_tracing()
                return concrete._call_flat(args)
        concrete, tensors = self._concrete_for(args, kwargs, instance)
        if fast and not concrete.captured and len(tensors) == len(args):
            # (a key found once always finds this trace again: a new trace is only made for a
            # signature no existing trace serves)
            self._by_tensor_types[fast] = concrete
        return concrete._call_flat(tensors)

    def get_concrete_function(self, *args, **kwargs):
        """The ConcreteFunction for these arguments (tensors or me.TensorSpec), tracing if needed."""
        return self._get_concrete(args, kwargs)

    def _get_concrete(self, args, kwargs, instance=()):
        if not args and not kwargs and self.input_signature is not None:
            args = tuple(self.input_signature)
        return self._concrete_for(args, kwargs, instance)[0]

    def experimental_get_tracing_count(self):
        """How many times the Python function has been traced."""
        return len(self._concrete)

    # ---- signatures -------------------------------------------------------------------------
    def _bind(self, args, kwargs):
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.name}(): {e}") from None
        bound.apply_defaults()
        return bound

    def _concrete_for(self, args, kwargs, instance=()):
        """``instance``: ``(obj,)`` for a method called as ``obj.method(...)`` (the input_signature
        describes the arguments after it)."""
        specs = []
        if self.input_signature is not None:
            args = self._check_against_signature(args, kwargs, len(instance))
            kwargs, specs = {}, [None] * len(instance) + list(self.input_signature)
        args = tuple(instance) + tuple(args)
        bound = self._bind(args, kwargs)
        leaves, key_parts, tensors = [], [], []
        for index, (pname, value) in enumerate(bound.arguments.items()):
            flat = nest.flatten(value)
            structure = _structure_key(value)
            spec = specs[index] if index < len(specs) and len(flat) == 1 else None
            parts = []
            for i, leaf in enumerate(flat):
                leaf_name = pname if len(flat) == 1 and not isinstance(value, (list, tuple, dict)) else f"{pname}_{i}"
                kind, part, leaf = self._leaf(leaf, spec)
                parts.append(part)
                leaves.append((leaf_name, kind, leaf))
                if kind == "tensor" and isinstance(leaf, Tensor):
                    tensors.append(leaf)
            key_parts.append((pname, structure, tuple(parts)))
        key = tuple(key_parts)
        concrete = self._concrete.get(key) or self._general_for(key)
        if concrete is None:
            with self._lock:          # another thread may have traced this signature while we waited
                concrete = self._concrete.get(key) or self._general_for(key)
                if concrete is None:
                    return self._trace_new(bound, leaves, key), tensors
        self._called_without_tracing()
        return concrete, tensors

    def _trace_new(self, bound, leaves, key):
        if self.reduce_retracing:
            key = self._relaxed(key)
        concrete = self._trace(bound, leaves, key)
        if concrete.captured:         # one that reads an enclosing trace's tensors is good for that call only
            return concrete
        self._concrete[key] = concrete
        if _has_unknown_dims(key):
            self._general.append(key)
        self._called_with_tracing()
        return concrete

    def _general_for(self, key):
        """The trace whose signature has unknown dimensions that this call's shapes fit, if any."""
        for general in self._general:
            if _fits(general, key):
                return self._concrete[general]
        return None

    def _relaxed(self, key):
        """``reduce_retracing``: the signature with each tensor dimension that differs from an earlier
        trace's (same arguments otherwise) made unknown, as TF does; a changed rank, an unknown rank."""
        for earlier in reversed(list(self._concrete)):
            merged = _merge(earlier, key)
            if merged is not None:
                return merged
        return key

    def _leaf(self, leaf, spec=None):
        """(kind, its part of the signature, the leaf to pass on) for one flattened argument; a tensor
        that an input_signature ``spec`` describes is keyed by the spec's shape (None: any size)."""
        if isinstance(leaf, Variable):
            self._keep.append(leaf)
            return "variable", ("variable", id(leaf)), leaf
        if isinstance(leaf, Tensor):
            shape = spec.shape if spec is not None else tuple(leaf._value.shape)
            return "tensor", ("tensor", shape, leaf._dtype.name), leaf
        if isinstance(leaf, TensorSpec):
            return "tensor", ("tensor", leaf.shape, leaf.dtype.name), leaf
        if isinstance(leaf, np.ndarray):
            leaf = constant(leaf)
            return "tensor", ("tensor", tuple(leaf._value.shape), leaf._dtype.name), leaf
        if isinstance(leaf, (bool, int, float, complex)) and not isinstance(leaf, np.generic):
            # floats by their bits (f(x, -0.0) is not f(x, 0.0)), every nan one value (no retrace per nan)
            return "number", ("python", type(leaf).__name__, freeze(leaf)), leaf
        try:
            hash(leaf)
            return "python", ("python", type(leaf).__name__, leaf), leaf
        except TypeError:
            self._keep.append(leaf)
            return "python", ("object", id(leaf)), leaf

    def _check_against_signature(self, args, kwargs, skip=0):
        if kwargs:
            args = tuple(self._bind((None,) * skip + tuple(args), kwargs).args)[skip:]
        specs = self.input_signature
        if len(args) != len(specs):
            raise TypeError(f"{self.name}() was declared with input_signature of {len(specs)} tensors "
                            f"({', '.join(map(repr, specs))}), but got {len(args)} arguments.")
        names = list(self._signature.parameters)[skip:]
        checked = []
        for i, (spec, arg) in enumerate(zip(specs, args)):
            arg_name = names[i] if i < len(names) else f"args[{i}]"
            if isinstance(spec, TensorSpec) and isinstance(arg, TensorSpec):
                checked.append(arg)
                continue
            if not isinstance(arg, Tensor):
                arg = convert_to_tensor(arg, dtype=spec.dtype)
            if arg.dtype is not spec.dtype:
                raise InvalidArgumentError(
                    f"{self.name}(): argument '{arg_name}' must have dtype {spec.dtype.name} (input_signature "
                    f"{spec}), got {arg.dtype.name}. Cast it first: me.cast({arg_name}, me.{spec.dtype.name}).")
            if not spec.is_compatible_with(arg):
                raise InvalidArgumentError(
                    f"{self.name}(): argument '{arg_name}' must have shape {spec.shape} (rank "
                    f"{len(spec.shape)}, input_signature {spec}), got shape {tuple(arg.shape)} (rank {arg.ndim}).")
            checked.append(arg)
        return tuple(checked)

    # ---- TF's retracing warning --------------------------------------------------------------
    def _called_without_tracing(self):
        if not self._tracing_history:
            self._tracing_history.append(0)
        self._tracing_history[-1] += 1

    def _called_with_tracing(self):
        history = self._tracing_history
        history.append(1)
        while sum(history) - history[0] > RETRACING_HISTORY:    # forget calls older than the history
            history.pop(0)
        if len(history) >= RETRACING_WARNING_THRESHOLD and self._warnings < RETRACING_WARNINGS:
            self._warnings += 1
            logger.warning(
                f"{len(history)} out of the last {sum(history)} calls to me.function '{self.name}' traced it "
                f"again. Tracing is slow; each new signature (a new shape, dtype, or Python value among the "
                f"arguments) traces anew. Pass numbers that change as tensors (me.constant(3.0)): a tensor's "
                f"value is not part of the signature, only its shape and dtype; give changing shapes as None: "
                f"input_signature=[me.TensorSpec([None, ...])] or reduce_retracing=True.")

    # ---- tracing ----------------------------------------------------------------------------
    def _trace(self, bound, leaves, key):
        """Trace once; as tf.function, a function may create variables on its first trace only. If it
        did, it is traced again at once, which must create none (a function that makes a Variable on
        every call would otherwise make a new one for each new signature)."""
        first = not self._traced
        self._traced = True
        concrete, created = self._trace_once(bound, leaves, key)
        if created and first:
            concrete, created = self._trace_once(bound, leaves, key)
        if created:
            raise ValueError(
                f"me.function '{self.name}' created a me.Variable ('{created[0].name}') on a call after its first: "
                f"as tf.function, it only supports variables created once, on the first call. Create the variable "
                f"outside the function, or only if it does not exist yet (if self.v is None: self.v = "
                f"me.Variable(...)).")
        return concrete

    def pretty_printed_concrete_signatures(self, verbose=True):
        """Each trace's inputs and outputs, as TF's ``Function.pretty_printed_concrete_signatures()``."""
        return "\n\n".join(c.pretty_printed_signature() for c in self._concrete.values())

    def _trace_once(self, bound, leaves, key):
        original, bound = bound, self._signature.bind(*bound.args, **bound.kwargs)   # a copy: may trace twice
        # Traced inside another trace (or a compat.v1 graph), it may read that graph's tensors: captures.
        tracer = Tracer(self.name, parent=recording.tracer())
        shapes = iter([part[1] for _, _, parts in key for part in parts if part[0] == "tensor"])
        with tracer:
            args = []
            for leaf_name, kind, leaf in leaves:
                if kind == "tensor":      # its shape as the signature has it (None: known when it runs)
                    leaf = tracer.placeholder(leaf_name, next(shapes), leaf.dtype)
                args.append(leaf)
            it = iter(args)
            for pname in bound.arguments:
                bound.arguments[pname] = nest.pack_sequence_as(
                    bound.arguments[pname], [next(it) for _ in nest.flatten(bound.arguments[pname])])
            result = self._function_to_trace()(*bound.args, **bound.kwargs)
            flat_out = []
            for leaf in nest.flatten(result):
                if leaf is None:
                    continue
                if isinstance(leaf, (bool, int, float, np.ndarray, np.generic)):
                    leaf = convert_to_tensor(leaf)
                if not isinstance(leaf, Tensor):
                    raise TypeError(
                        f"me.function '{self.name}' returned a {type(leaf).__name__} ({leaf!r}): a traced function "
                        f"can return tensors, variables, Python numbers and None, in lists, tuples and dicts, since "
                        f"only tensors are computed when the graph runs. Return a tensor, or compute that value "
                        f"outside the function.")
                flat_out.append(leaf)
            graph = tracer.graph(flat_out)
            symbols = iter([tracer.symbolic(t) for t in flat_out])
        created = tracer.created_variables
        tracer.close()
        structure = nest.pack_sequence_as(result, [None if leaf is None else 0 for leaf in nest.flatten(result)])
        outputs = nest.pack_sequence_as(result, [None if leaf is None else next(symbols)
                                                 for leaf in nest.flatten(result)])
        given = original
        parameters = [(name, str(self._signature.parameters[name].kind.name),
                       nest.map_structure(_spec_of, value) if isinstance(value, (list, tuple, dict))
                       else _spec_of(value)) for name, value in given.arguments.items()]
        positional = tuple(value for name, _, value in parameters
                           if self._signature.parameters[name].kind.name in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD"))
        keywords = {name: value for name, kind, value in parameters if kind == "KEYWORD_ONLY"}
        concrete = ConcreteFunction(graph, structure, self.name, input_signature=(positional, keywords),
                                    outputs=outputs)
        concrete._parameters = parameters
        concrete.captured = [outer for outer, _ in tracer.captures]
        if self.optimize:   # the optimisation passes (graph/passes); concrete.graph stays as traced
            concrete.run_graph, concrete.pass_reports = passes.optimize(graph)
        return concrete, created

    def _function_to_trace(self):
        if not self.autograph:
            return self.python_function
        if self._traced_function is None:
            self._traced_function = convert_for_tracing(self.python_function)
        return self._traced_function

    def __repr__(self):
        return f"<me.function {self.name}: {len(self._concrete)} trace(s)>"


def _graphs(graph):
    """``graph`` and every subgraph of its cond/while nodes, depth first."""
    yield graph
    for node in graph.nodes:
        for value in node.attrs.values():
            if isinstance(value, Graph):
                yield from _graphs(value)


def _literal(value):
    if isinstance(value, TensorSpec):
        return repr(value)
    return f"Literal[{value!r}]"


def _output_type(structure):
    if isinstance(structure, dict):
        return "Dict[" + ", ".join(f"[{k!r}, {_output_type(v)}]" for k, v in structure.items()) + "]"
    if isinstance(structure, tuple):
        return "Tuple[" + ", ".join(_output_type(v) for v in structure) + "]"
    if isinstance(structure, list):
        return "List[" + ", ".join(_output_type(v) for v in structure) + "]"
    return "None" if structure is None else repr(structure)


def _spec_of(leaf):
    if isinstance(leaf, TensorSpec):
        return leaf
    if isinstance(leaf, Tensor) and not isinstance(leaf, Variable):
        return TensorSpec(tuple(leaf._value.shape), leaf.dtype)
    return leaf
def _tensor_parts(key):
    """((argument, leaf), part) for every leaf of a signature."""
    return [((pname, structure, i), part) for pname, structure, parts in key for i, part in enumerate(parts)]


def _has_unknown_dims(key):
    return any(part[0] == "tensor" and (part[1] is None or None in part[1]) for _, part in _tensor_parts(key))


def _fits(general, key):
    """Whether the call signature ``key`` fits ``general``: the same but for the sizes general leaves unknown."""
    a, b = _tensor_parts(general), _tensor_parts(key)
    return len(a) == len(b) and all(
        where == other_where and (part == other or (part[0] == other[0] == "tensor" and part[2] == other[2]
                                                   and compatible(part[1], other[1])))
        for (where, part), (other_where, other) in zip(a, b))


def _merge(earlier, key):
    """``key`` with every tensor dimension that differs from ``earlier``'s unknown, or None if they differ
    in anything but tensor shapes."""
    a, b = _tensor_parts(earlier), _tensor_parts(key)
    if len(a) != len(b) or any(w != v or (p != q and not (p[0] == q[0] == "tensor" and p[2] == q[2]))
                               for (w, p), (v, q) in zip(a, b)):
        return None
    merged = iter([("tensor", relaxed(p[1], q[1]), p[2]) if p != q else p for (_, p), (_, q) in zip(a, b)])
    return tuple((pname, structure, tuple(next(merged) for _ in parts)) for pname, structure, parts in key)


class BoundFunction:
    """``obj.method`` for an ``@me.function`` method: calls it with ``obj`` first; the method's
    ``input_signature`` describes the arguments after ``self``. Everything else is the Function's."""

    def __init__(self, function, instance):
        self.function, self.instance = function, instance

    def __call__(self, *args, **kwargs):
        return self.function._call(args, kwargs, (self.instance,))

    def get_concrete_function(self, *args, **kwargs):
        return self.function._get_concrete(args, kwargs, (self.instance,))

    def __getattr__(self, name):
        return getattr(self.function, name)

    def __repr__(self):
        return f"<bound me.function {self.function.name} of {type(self.instance).__name__}>"


def _structure_key(value):
    """A hashable picture of a nested argument's structure (the leaves are keyed apart)."""
    if isinstance(value, dict):
        return ("dict", tuple((k, _structure_key(value[k])) for k in sorted(value)))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_structure_key(v) for v in value))
    return "."


def function(func=None, input_signature=None, optimize=True, autograph=True, jit_compile=None,
             reduce_retracing=False, experimental_relax_shapes=None, name=None):
    """``@me.function`` or ``me.function(f, input_signature=[...])``: see the module docstring.
    ``optimize=False`` runs the graph as traced (the optimisation passes are skipped).
    ``autograph=True`` (as in TF) traces the function with its Python ``if``/``while``/``for`` on tensors
    converted to me.cond / me.while_loop (see graph/autograph); ``autograph=False`` traces it as written.
    ``reduce_retracing=True`` (TF's older name: ``experimental_relax_shapes``) traces a shape that
    changed once more with the changed dimensions unknown, and reuses that graph.
    ``jit_compile`` is accepted so that TensorFlow code runs, and has no effect."""
    relax = bool(reduce_retracing or experimental_relax_shapes)
    if func is None:
        return lambda f: Function(f, input_signature=input_signature, optimize=optimize, name=name,
                                  autograph=autograph, reduce_retracing=relax)
    return Function(func, input_signature=input_signature, optimize=optimize, name=name, autograph=autograph,
                    reduce_retracing=relax)
