"""The Tensor: an immutable n-dimensional array that has already been computed.

In eager execution an op runs as soon as it is called and returns a Tensor holding the
result. A Tensor is a thin wrapper: a NumPy array (``_value``), the device it lives on,
and a stable id (a counter, so the tape debugger can name tensors the same way on every
run). All arithmetic goes through the ops in ``minieager/ops``, which is where gradients
are recorded; the operators (``+``, ``@``, ``[]`` ...) are installed onto the class from there
(``ops/operators.py``), so this module knows no op.
"""
import itertools

import numpy as np

from ..errors import InvalidArgumentError
from . import dtypes
from .convert import checked_array
from .device import CPU, current_device, full_name, is_host_array, to_device, to_host

_next_id = itertools.count().__next__
_new_object = object.__new__
_BY_NUMPY = dtypes.BY_NUMPY   # numpy dtype -> DType


class TensorShape(tuple):
    """A tensor's shape: a tuple of ints (``t.shape == (2, 3)``) with TF's helper methods. Inside
    me.function a dimension known only when the graph runs is None: ``(None, 784)``."""

    __slots__ = ()

    @property
    def rank(self):
        return len(self)

    ndims = rank

    def as_list(self):
        return list(self)

    def is_fully_defined(self):
        return None not in self

    def num_elements(self):
        """The number of elements; None if a dimension is unknown (as TF)."""
        return int(np.prod(self, dtype=np.int64)) if None not in self else None


class UnknownShape:
    """The shape of a traced tensor whose rank is unknown (a py_function given only a dtype), as
    TF's ``TensorShape(None)``: rank None, and no dimensions to list."""

    rank = ndims = None

    def as_list(self):
        raise ValueError("as_list() is not defined on an unknown TensorShape.")

    __iter__ = __len__ = as_list

    def is_fully_defined(self):
        return False

    def num_elements(self):
        return None

    def __eq__(self, other):
        return isinstance(other, UnknownShape)

    def __hash__(self):
        return hash(None)

    def __repr__(self):
        return "TensorShape(None)"

    def __str__(self):
        return "<unknown>"


UNKNOWN_SHAPE = UnknownShape()


def host_or_current_device(array):
    """Where a new tensor of ``array`` goes: the current device, but strings always stay on the CPU (as in TF,
    a GPU holds no string tensor)."""
    return CPU if array.dtype.kind == "O" else current_device()


def place(array, device):
    """A new Tensor on ``device`` from a host (NumPy) array, copied to the GPU if ``device`` is one."""
    return wrap(array if device == CPU else to_device(array, device), device)


def wrap(array, device=CPU):
    """A new Tensor around a freshly computed array (no copy, no checks): the fast path every op
    uses. ``array`` must not be changed afterwards; the tensor now owns it."""
    t = _new_object(Tensor)
    t._value = array
    try:
        t._dtype = _BY_NUMPY[array.dtype]
    except KeyError:
        t._dtype = dtypes.from_numpy(array.dtype)   # the error naming the unsupported dtype
    t._device = device
    t._id = _next_id()
    return t


class Tensor:
    """An immutable, already-computed array. Create one with ``me.constant`` or any op."""

    __slots__ = ("_value", "_dtype", "_device", "_id", "__weakref__")
    # NumPy should call our reflected operators (``np_array * tensor`` -> Tensor)
    # instead of treating the tensor as an array of objects.
    __array_priority__ = 100

    def __init__(self, value, dtype=None):
        """``me.Tensor(value, dtype)``: the tensor ``me.constant(value, dtype)`` makes."""
        array = np.asarray(checked_array(value, dtype, "constant"), order="C")
        t = place(array, host_or_current_device(array))
        self._value, self._dtype, self._device, self._id = t._value, t._dtype, t._device, t._id

    # ---- what a tensor is -------------------------------------------------------------
    @property
    def shape(self):
        shape = self._value.shape
        return TensorShape(shape) if shape is not None else UNKNOWN_SHAPE   # (None: a trace's unknown rank)

    def get_shape(self):
        """The shape, as TF's ``Tensor.get_shape()`` (the same as ``.shape``)."""
        return self.shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def ndim(self):
        return self._value.ndim

    @property
    def device(self):
        """Where the value lives, named as TF names it: ``"/job:localhost/replica:0/task:0/device:CPU:0"``
        (minieager itself keeps the short name, ``"/cpu:0"``, in ``_device``)."""
        return full_name(self._device)

    @property
    def id(self):
        """A stable sequential id (used by the tape and the debugger; never Python's ``id()``)."""
        return self._id

    def numpy(self):
        """The value as a new NumPy array (copied from the GPU for a GPU tensor); changing it never
        changes the tensor. A scalar tensor gives a NumPy scalar, as TF's numpy() does: ``np.float32(6.0)``,
        and a scalar string its bytes object, ``b'text'``."""
        value = self._value
        if type(value) is np.ndarray or is_host_array(value):   # the first test is the quick common case
            return value[()] if value.ndim == 0 else np.array(value, copy=True)
        array = to_host(value)
        return array[()] if array.ndim == 0 else array

    def _host(self):
        """The value as a NumPy array to read, not to change: the array itself for a CPU tensor."""
        return to_host(self._value)

    def __array__(self, dtype=None, copy=None):
        view = self._host().view()
        view.flags.writeable = False   # np.asarray(t)[0] = 1 must not change an immutable tensor
        return view if dtype is None else view.astype(dtype)

    # ---- printing ---------------------------------------------------------------------
    def _numpy_text(self, is_repr):
        value = self._host()
        text = str(value) if (not is_repr or value.ndim == 0) else repr(value)
        return "\n" + text if "\n" in text else text

    def __str__(self):
        return f"me.Tensor({self._numpy_text(False)}, shape={tuple(self.shape)}, dtype={self._dtype.name})"

    def __repr__(self):
        return f"<me.Tensor: shape={tuple(self.shape)}, dtype={self._dtype.name}, numpy={self._numpy_text(True)}>"

    def __format__(self, spec):
        if not spec:
            return str(self._host())   # "hello, {}".format(m) -> "hello, [[4.]]", as in TF
        return format(self._scalar("format"), spec)

    # ---- one-element tensors as Python numbers ------------------------------------------
    def _scalar(self, what):
        if self._value.size != 1:
            raise InvalidArgumentError(
                f"{what}() needs a tensor with exactly one element, but this one has shape "
                f"{tuple(self.shape)}. Reduce it first (me.reduce_any, me.reduce_sum, t[0], ...).")
        return self._host().reshape(()).item()

    def __bool__(self):
        return bool(self._scalar("bool"))

    def __int__(self):
        return int(self._scalar("int"))

    def __float__(self):
        return float(self._scalar("float"))

    def __index__(self):
        if not self._dtype.is_integer:
            raise TypeError(f"Only integer tensors can be used as an index; this one is {self._dtype.name}.")
        return int(self._scalar("__index__"))

    # ---- a sequence along the first axis ------------------------------------------------
    def __len__(self):
        if self._value.ndim == 0:
            raise TypeError("len() of a scalar tensor (shape ()) is not defined.")
        return self._value.shape[0]

    def __iter__(self):
        if self._value.ndim == 0:
            raise TypeError("Cannot iterate over a scalar tensor (shape ()).")
        for i in range(self._value.shape[0]):
            yield self[i]

    __hash__ = object.__hash__   # hashable by identity, even though == is elementwise

    # The operators (+ - * / @ [] == < ...) and cpu()/gpu() are each an op: minieager/ops/operators.py
    # installs them onto this class from above, so the Tensor itself imports no op.
