"""The Tensor: an immutable n-dimensional array that has already been computed.

In eager execution an op runs as soon as it is called and returns a Tensor holding the
result. A Tensor is a thin wrapper: a NumPy array (``_value``), the device it lives on,
and a stable id (a counter, so the tape debugger can name tensors the same way on every
run). All arithmetic goes through the ops in ``minieager/ops``, which is where gradients
are recorded; the operators below (``+``, ``@``, ``[]`` ...) only forward to them.
"""
import itertools

import numpy as np

from . import dtypes
from .device import CPU, is_host_array, to_device, to_host
from .errors import InvalidArgumentError

_next_id = itertools.count().__next__
_new_object = object.__new__
_BY_NUMPY = dtypes.BY_NUMPY   # numpy dtype -> DType


class TensorShape(tuple):
    """A tensor's shape: a tuple of ints (``t.shape == (2, 3)``) with TF's helper methods."""

    __slots__ = ()

    @property
    def rank(self):
        return len(self)

    def as_list(self):
        return list(self)

    def num_elements(self):
        return int(np.prod(self, dtype=np.int64))


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
        from ..ops.creation import constant   # the public way in: validates and converts
        t = constant(value, dtype=dtype)
        self._value, self._dtype, self._device, self._id = t._value, t._dtype, t._device, _next_id()

    # ---- what a tensor is -------------------------------------------------------------
    @property
    def shape(self):
        return TensorShape(self._value.shape)

    def get_shape(self):
        """The shape, as TF's ``Tensor.get_shape()`` (the same as ``.shape``)."""
        return TensorShape(self._value.shape)

    @property
    def dtype(self):
        return self._dtype

    @property
    def ndim(self):
        return self._value.ndim

    @property
    def device(self):
        return self._device

    @property
    def id(self):
        """A stable sequential id (used by the tape and the debugger; never Python's ``id()``)."""
        return self._id

    def numpy(self):
        """The value as a new NumPy array (copied from the GPU for a GPU tensor); changing it never
        changes the tensor."""
        value = self._value
        if type(value) is np.ndarray or is_host_array(value):   # the first test is the quick common case
            return np.array(value, copy=True)
        return to_host(value)

    def _host(self):
        """The value as a NumPy array to read, not to change: the array itself for a CPU tensor."""
        return to_host(self._value)

    def __array__(self, dtype=None, copy=None):
        view = self._host().view()
        view.flags.writeable = False   # np.asarray(t)[0] = 1 must not change an immutable tensor
        return view if dtype is None else view.astype(dtype)

    def cpu(self):
        """This tensor's value on the CPU (the tensor itself if it is there already).

        A copy that a GradientTape records, as any op: gradients flow back to this tensor's device.
        """
        return self if self._device == CPU else _shape.copy_to_device(self, CPU)

    def gpu(self, index=0):
        """This tensor's value on GPU ``index`` (itself if it is there already); recorded as ``cpu()`` is."""
        from .device import check_available
        name = f"/gpu:{int(index)}"
        check_available(name)
        return _shape.copy_to_device(self, name)

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

    # ---- operators: each one is an op (see minieager/ops) ---------------------------------
    def __getitem__(self, index):
        return _indexing.getitem(self, index)

    # + - * / // % ** and their reflected forms: bound to the op functions at the end of this
    # file, straight, with no method in between (an operator on small tensors is all overhead).

    def __matmul__(self, other):
        return _linalg.matmul(self, other)

    def __rmatmul__(self, other):
        return _linalg.matmul(other, self)

    def __neg__(self):
        return _ew.negative(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return _ew.abs(self)

    def __invert__(self):
        return _ew.logical_not(self)

    def __and__(self, other):
        return _ew.logical_and(self, other)

    def __rand__(self, other):
        return _ew.logical_and(other, self)

    def __or__(self, other):
        return _ew.logical_or(self, other)

    def __ror__(self, other):
        return _ew.logical_or(other, self)

    def __xor__(self, other):
        return _ew.logical_xor(self, other)

    def __rxor__(self, other):
        return _ew.logical_xor(other, self)

    def __eq__(self, other):
        if other is None:          # as in TensorFlow: `t == None` is False, not an elementwise op
            return False
        return _ew.equal(self, other)

    def __ne__(self, other):
        if other is None:
            return True
        return _ew.not_equal(self, other)

    def __lt__(self, other):
        return _ew.less(self, other)

    def __le__(self, other):
        return _ew.less_equal(self, other)

    def __gt__(self, other):
        return _ew.greater(self, other)

    def __ge__(self, other):
        return _ew.greater_equal(self, other)


# The ops need the Tensor class, so they are imported after it is defined.
from ..ops import elementwise as _ew, indexing as _indexing, linalg as _linalg, shape as _shape  # noqa: E402


def _reflected(name, op):
    """``other <op> tensor`` for Python numbers and arrays on the left: ``op(other, tensor)``."""
    def method(self, other):
        return op(other, self)
    method.__name__ = method.__qualname__ = f"__r{name}__"
    return method


for _name, _op in [("add", _ew.add), ("sub", _ew.subtract), ("mul", _ew.multiply), ("truediv", _ew.divide),
                   ("floordiv", _ew.floordiv), ("mod", _ew.mod), ("pow", _ew.pow)]:
    setattr(Tensor, f"__{_name}__", getattr(_op, "operator", _op))   # t + u  ->  me.add(t, u)
    setattr(Tensor, f"__r{_name}__", _reflected(_name, _op))  # 2 + t  ->  me.add(2, t)
