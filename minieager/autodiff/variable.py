"""``me.Variable``: the one mutable kind of tensor.

A Variable holds a value that ``assign``, ``assign_add`` and ``assign_sub`` replace, whole or in
part (``v[0].assign(x)``, ``v.scatter_update(...)``). It is a Tensor, so every op and operator
accepts it. It lives as long as its Python object: there is no global collection of variables.

As in TensorFlow, an update keeps the variable's dtype and shape: the new value must have exactly
the variable's shape (no broadcasting: TF's "shapes must be equal"), except along dimensions the
constructor's ``shape=`` left as None. Names are kept as given: every unnamed variable is
"Variable:0" and two variables named "w" are both "w:0", as in TF eager (checkpoints key
variables by the object graph, never by name).

Each assignment bumps a version number. A tape remembers the version of every variable an
op read; if the variable changes before ``tape.gradient`` plays that op backwards, the
gradient would silently use the new value, so the tape raises instead.
"""
import numpy as np

from ..engine import dtypes
from ..engine.device import CPU, to_device, to_host
from ..engine.op import EffectOp
from ..engine.recording import outside_traces, tracer
from ..engine.tensor import Tensor, _new_object, _next_id, wrap
from ..errors import InvalidArgumentError
from ..kernels.registry import register_kernel
from ..ops._operands import _convert_like
from ..ops.creation import constant, convert_to_tensor
from ..ops.elementwise import add, cast, subtract
from ..ops.indexing import _normalize_index, getitem
from ..ops.shape import identity


def _shape_text(shape):
    return "[" + ", ".join("None" if d is None else str(d) for d in shape) + "]"


class Variable(Tensor):
    """A mutable tensor: ``v = me.Variable(1.0); v.assign_add(2.0)``.

    shape        the shape every later value must have; None entries may change (``shape=[None]``
                 makes a vector whose length ``assign`` may change). Default: the initial value's.
    constraint   a function applied to the variable after each optimizer update (as Keras does),
                 e.g. ``lambda w: me.clip_by_value(w, -1.0, 1.0)``.
    """

    __slots__ = ("_name", "_trainable", "_version", "_shape_spec", "_constraint", "_initializer")

    def __init__(self, initial_value, trainable=True, name=None, dtype=None, shape=None, constraint=None):
        if callable(initial_value):          # Keras initializers pass a thunk
            with outside_traces():           # inside me.function too, it runs eagerly, once
                initial_value = initial_value()
        if dtype is not None and not isinstance(initial_value, Tensor):
            # Straight to the requested dtype: Variable(0.1, dtype=float64) must not pass through float32.
            initial_value = constant(initial_value, dtype=dtype)
        value = convert_to_tensor(initial_value)
        if hasattr(value, "_tracer") and tracer() is not None:    # a symbolic tensor of me.function: no value yet
            raise InvalidArgumentError(
                "me.Variable: the initial value is a symbolic tensor of a function me.function is tracing, so "
                "it has no value yet. Create the variable outside the function (or from a constant or an "
                "initializer on its first call) and assign to it inside.")
        if dtype is not None and dtypes.as_dtype(dtype) != value.dtype:
            value = cast(value, dtype)
        if constraint is not None and not callable(constraint):
            raise TypeError(f"Variable: constraint must be a function of the variable, got {type(constraint).__name__}.")
        self._shape_spec = tuple(value._value.shape) if shape is None else tuple(
            None if d is None else int(d) for d in shape)
        self._name = f"{name or 'Variable'}:0"
        if not self._shape_matches(value._value.shape):
            raise InvalidArgumentError(
                f"Variable '{self._name}': the initial value has shape {list(value.shape)}, which does not "
                f"match shape={_shape_text(self._shape_spec)}.")
        # A NumPy value is copied (the caller may still hold it); a GPU array comes from an op or
        # a copy, and no tensor's array is ever written to, so it can be shared.
        self._value = np.array(value._value, copy=True) if value._device == CPU else value._value
        self._dtype = value._dtype
        self._device = value._device
        self._id = _next_id()
        self._trainable = bool(trainable)
        self._version = 0
        self._constraint = constraint
        self._initializer = None
        tracing = tracer()
        if tracing is not None:      # made while me.function traces: the function keeps count (its rule, TF's)
            tracing.created_variables.append(self)

    @property
    def name(self):
        return self._name

    @property
    def trainable(self):
        return self._trainable

    @property
    def constraint(self):
        return self._constraint

    @property
    def initializer(self):
        """None eagerly: a variable is initialized when it is made (TF eager gives None too). Made while a
        me.compat.v1 graph is built: the Operation that sets its initial value (graph/compat/v1.py)."""
        return self._initializer

    def read_value(self):
        """The current value as a new, immutable Tensor (read on the tape like any op)."""
        return identity(self)

    value = read_value

    # ---- changing the value -------------------------------------------------------------
    def _shape_matches(self, shape):
        return len(shape) == len(self._shape_spec) and all(
            want is None or want == got for want, got in zip(self._shape_spec, shape))

    def _converted(self, value, method):
        """``value`` as a tensor of this variable's dtype: Python values convert where they fit."""
        if not isinstance(value, Tensor):
            return _convert_like(value, self._dtype, self._device, f"{method} to Variable '{self._name}'")
        if value._dtype is not self._dtype:
            raise InvalidArgumentError(
                f"{method} to Variable '{self._name}': the value has dtype {value.dtype.name} but the variable "
                f"is {self._dtype.name}. Cast it first: me.cast(value, me.{self._dtype.name}).")
        if value._device != self._device and not hasattr(value, "_tracer"):
            # A CPU value for a GPU variable (or back): copied over, as in TF. (A symbolic tensor of
            # me.function has no device yet: its graph runs on its variables' device.)
            value = wrap(to_device(to_host(value._value), self._device), self._device)
        return value

    def _checked(self, value, method):
        new = self._converted(value, method)
        shape = new._value.shape
        exact = method != "assign"      # only assign may change a None dimension of shape=
        if not (shape == self._value.shape if exact else self._shape_matches(shape)):
            wanted = list(self._value.shape) if exact else _shape_text(self._shape_spec)
            raise InvalidArgumentError(
                f"{method}: cannot update Variable '{self._name}' with shape {wanted} using a value with shape "
                f"{list(shape)}: shapes must be equal (as in TensorFlow, nothing is broadcast). "
                f"A variable's shape never changes; reshape or broadcast the value first (me.broadcast_to).")
        return new

    def _snapshot(self):
        # The current value as a plain Tensor: an update is not an op on the variable for tapes to record.
        return wrap(self._value, self._device)

    def _set(self, array, read_value=True):
        # A new array, not an in-place write: tensors read from the old value stay unchanged. ``array``
        # always comes from a Tensor or a fresh copy, and a tensor's array is never written to, so it
        # can be shared.
        self._value = array
        self._version += 1
        return self if read_value else None

    def _current(self):
        """The value an update starts from. Eagerly, a plain tensor (an update is not an op on the
        variable for tapes to record); while me.function traces, what the graph reads at this point."""
        tracing = tracer()
        return tracing.read(self) if tracing is not None else self._snapshot()

    def assign(self, value, read_value=True):
        """Replace the value (same dtype and shape). Returns the variable (None with read_value=False)."""
        assign_variable(self._checked(value, "assign"), variable=self)
        return self if read_value else None

    def assign_add(self, delta, read_value=True):
        """``v.assign(v + delta)``, delta of the variable's dtype and shape."""
        assign_variable(add(self._current(), self._checked(delta, "assign_add")), variable=self)
        return self if read_value else None

    def assign_sub(self, delta, read_value=True):
        """``v.assign(v - delta)``, delta of the variable's dtype and shape."""
        assign_variable(subtract(self._current(), self._checked(delta, "assign_sub")), variable=self)
        return self if read_value else None

    # ---- changing part of the value -------------------------------------------------------
    def __getitem__(self, index):
        """``v[index]``: a Tensor, as for any tensor, that also has ``.assign`` (``v[0].assign(x)``)."""
        read = getitem(self, index)
        part = _new_object(VariableSlice)   # the same tensor (same id, so tapes know it) plus where it came from
        part._value, part._dtype, part._device, part._id = read._value, read._dtype, read._device, read._id
        part._variable, part._index = self, _normalize_index(index, self._value.shape)
        return part

    def _assign_at(self, index, value, method):
        """Write ``value`` at ``index`` (a NumPy index); it must have the indexed part's shape exactly."""
        new = self._converted(value, method)
        part_shape = np.empty(self._value.shape, np.bool_)[index].shape
        if new._value.shape != part_shape:
            raise InvalidArgumentError(
                f"{method}: the indexed part of Variable '{self._name}' has shape {list(part_shape)} but the value "
                f"has shape {list(new.shape)}. They must be equal, as in TensorFlow.")
        array = to_host(self._value).copy()    # a part written on the host (a GPU variable: one round trip)
        array[index] = new._host()             # (a symbolic value of a trace says it has none yet)
        return to_device(array, self._device)

    def scatter_update(self, sparse_delta, use_locking=False, name=None):
        """Replace the rows ``sparse_delta.indices`` with ``sparse_delta.values`` (a ``me.IndexedSlices``)."""
        indices = convert_to_tensor(sparse_delta.indices)
        if not indices.dtype.is_integer or indices.ndim != 1:
            raise InvalidArgumentError(
                f"scatter_update: indices must be a 1-D integer tensor, got {indices.dtype.name} with shape "
                f"{list(indices.shape)}.")
        index = _normalize_index((indices,), self._value.shape)
        return self._set(self._assign_at(index, sparse_delta.values, "scatter_update"), True)

    def scatter_nd_update(self, indices, updates, name=None):
        """Write ``updates`` at the coordinates in ``indices`` (shape (..., k): k leading coordinates each)."""
        indices = convert_to_tensor(indices)
        k = indices.shape[-1] if indices.ndim else 0
        if not indices.dtype.is_integer or indices.ndim < 1 or not 1 <= k <= self.ndim:
            raise InvalidArgumentError(
                f"scatter_nd_update: indices must be integers of shape (..., k) with 1 <= k <= {self.ndim} (the "
                f"variable's rank), got {indices.dtype.name} with shape {list(indices.shape)}.")
        index = _normalize_index(tuple(indices._value[..., i] for i in range(k)), self._value.shape)
        return self._set(self._assign_at(index, updates, "scatter_nd_update"), True)

    # ---- mistakes worth a clear message ----------------------------------------------------
    def _no_inplace(self, op, method):
        raise TypeError(
            f"'v {op}= x' would make v a new Tensor and leave the Variable unchanged (a classic bug). "
            f"Use v.{method}(x) to update the variable in place.")

    def __iadd__(self, other):
        self._no_inplace("+", "assign_add")

    def __isub__(self, other):
        self._no_inplace("-", "assign_sub")

    def __imul__(self, other):
        self._no_inplace("*", "assign(v * x)")

    def __itruediv__(self, other):
        self._no_inplace("/", "assign(v / x)")

    def __repr__(self):
        return (f"<me.Variable '{self._name}' shape={tuple(self.shape)} dtype={self._dtype.name}, "
                f"numpy={self._numpy_text(True)}>")

    __str__ = __repr__
    __hash__ = Tensor.__hash__


class VariableSlice(Tensor):
    """``v[index]`` read from a Variable: a plain Tensor value that can also write back (``v[1:3].assign(x)``)."""

    __slots__ = ("_variable", "_index")

    def assign(self, value, read_value=True):
        """Write ``value`` (the slice's shape and the variable's dtype) into the variable; returns the variable."""
        variable = self._variable
        return variable._set(variable._assign_at(self._index, value, "assign"), read_value)


# ---- the one door every whole-value update goes through ----------------------------------------
@register_kernel("assign_variable")
def _assign_kernel(value, variable):
    variable._set(to_device(value, variable._device))   # in a graph run on a GPU: from a host copy
    return value


def _assigned(tracer, attrs, outputs):
    # Later reads read the variable again, after the assignment (a new ``variable`` node): what they
    # get is the assigned value, and an outer tape sees them read the Variable, as eager code does.
    tracer.forget_reads(attrs["variable"])


# ``variable := value``: eagerly it runs at once; inside me.function it is a node of the graph.
assign_variable = EffectOp("assign_variable", ("value",), "variable := value",
                           shape_rule=lambda value, variable: value, traced=_assigned)


def read_as_tensor(value, dtype=None, dtype_hint=None, name=None):
    """``me.convert_to_tensor``: ``value`` as a Tensor. A Variable is read (a new Tensor holding its current
    value, on the tape like any read, as TF's ``convert_to_tensor(variable)``), never returned itself: the
    result stays the same when the variable is assigned later. ``dtype_hint`` is the dtype for a Python
    value when ``dtype`` is not given (TF's argument)."""
    if isinstance(value, Variable):
        value = value.read_value()
    elif dtype is None and dtype_hint is not None and not isinstance(value, Tensor):
        try:
            return convert_to_tensor(value, dtype=dtype_hint)
        except InvalidArgumentError:     # a hint, not a demand: 2.5 with an int hint stays float
            pass
    return convert_to_tensor(value, dtype=dtype)
