"""``me.Variable``: the one mutable kind of tensor.

A Variable holds a value that ``assign``, ``assign_add`` and ``assign_sub`` replace. It is a
Tensor, so every op and operator accepts it. It lives as long as its Python object: there is
no global collection of variables.

Each assignment bumps a version number. A tape remembers the version of every variable an
op read; if the variable changes before ``tape.gradient`` plays that op backwards, the
gradient would silently use the new value, so the tape raises instead.
"""
import collections
import itertools

import numpy as np

from ..engine import dtypes
from ..engine.device import CPU, to_device, to_host
from ..engine.errors import InvalidArgumentError
from ..engine.tensor import Tensor, wrap, _next_id
from ..ops.creation import convert_to_tensor
from ..ops.elementwise import add, subtract
from ..ops.shape import identity

_name_counts = collections.defaultdict(itertools.count)


def _unique_name(base):
    """"Variable:0", then "Variable_1:0", "Variable_2:0"... as TensorFlow names them."""
    n = next(_name_counts[base])
    return f"{base}:0" if n == 0 else f"{base}_{n}:0"


def _broadcasts_to(shape, target):
    try:
        return np.broadcast_shapes(tuple(shape), tuple(target)) == tuple(target)
    except ValueError:
        return False


class Variable(Tensor):
    """A mutable tensor: ``v = me.Variable(1.0); v.assign_add(2.0)``."""

    __slots__ = ("_name", "_trainable", "_version")

    def __init__(self, initial_value, trainable=True, name=None, dtype=None):
        if callable(initial_value):          # Keras initializers pass a thunk
            initial_value = initial_value()
        if dtype is not None and not isinstance(initial_value, Tensor):
            # Straight to the requested dtype: Variable(0.1, dtype=float64) must not pass through float32.
            from ..ops.creation import constant
            initial_value = constant(initial_value, dtype=dtype)
        value = convert_to_tensor(initial_value)
        if dtype is not None and dtypes.as_dtype(dtype) != value.dtype:
            from ..ops.elementwise import cast
            value = cast(value, dtype)
        # A NumPy value is copied (the caller may still hold it); a GPU array comes from an op or
        # a copy, and no tensor's array is ever written to, so it can be shared.
        self._value = np.array(value._value, copy=True) if value._device == CPU else value._value
        self._dtype = value._dtype
        self._device = value._device
        self._id = _next_id()
        self._name = _unique_name(name or "Variable")
        self._trainable = bool(trainable)
        self._version = 0

    @property
    def name(self):
        return self._name

    @property
    def trainable(self):
        return self._trainable

    def read_value(self):
        """The current value as a new, immutable Tensor (read on the tape like any op)."""
        return identity(self)

    value = read_value

    # ---- changing the value -------------------------------------------------------------
    def _checked(self, value, method, broadcast=False):
        """``value`` as a tensor of this variable's dtype and shape (or one that broadcasts to it)."""
        new = convert_to_tensor(value, dtype=self._dtype if not isinstance(value, Tensor) else None)
        if new._dtype is not self._dtype:
            raise InvalidArgumentError(
                f"{method} to Variable '{self._name}': the value has dtype {new.dtype.name} but the variable "
                f"is {self._dtype.name}. Cast it first: me.cast(value, me.{self._dtype.name}).")
        if new._value.shape != self._value.shape and not (broadcast and _broadcasts_to(new.shape, self.shape)):
            raise InvalidArgumentError(
                f"{method} to Variable '{self._name}': the value has shape {tuple(new.shape)} but the variable "
                f"has shape {tuple(self.shape)}. A variable's shape never changes.")
        if new._device != self._device:   # a CPU value for a GPU variable (or back): copied over, as in TF
            new = wrap(to_device(to_host(new._value), self._device), self._device)
        return new

    def _snapshot(self):
        # The current value as a plain Tensor: an update is not an op on the variable for tapes to record.
        return wrap(self._value, self._device)

    def _set(self, array):
        # A new array, not an in-place write: tensors read from the old value stay unchanged. ``array``
        # always comes from a Tensor, and a tensor's array is never written to, so it can be shared.
        self._value = array
        self._version += 1
        return self

    def assign(self, value, read_value=True):
        """Replace the value (same shape and dtype). Returns the variable."""
        return self._set(self._checked(value, "assign")._value)

    def assign_add(self, delta, read_value=True):
        """``v.assign(v + delta)`` (delta of the variable's dtype and shape). Returns the variable."""
        return self._set(add(self._snapshot(), self._checked(delta, "assign_add", broadcast=True))._value)

    def assign_sub(self, delta, read_value=True):
        """``v.assign(v - delta)`` (delta of the variable's dtype and shape). Returns the variable."""
        return self._set(subtract(self._snapshot(), self._checked(delta, "assign_sub", broadcast=True))._value)

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
