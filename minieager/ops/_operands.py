"""Turning the arguments of an op into tensors of one dtype, as TensorFlow does.

The rules (README "dtypes" states them for learners):

- Two tensors of different dtypes never meet silently: ``me.constant(1.0) + me.constant(1)``
  raises an error naming both dtypes and ``me.cast`` (TF raises InvalidArgumentError too).
- A Python number, list or NumPy array next to a tensor converts to that tensor's dtype, if its
  values fit: ``x * 2`` stays float16 for a float16 ``x``; ``int_tensor * 2.0`` is int32, but
  ``int_tensor * 2.5`` raises (2.5 has no int32 value), as does ``uint8_tensor + 300``.
- With no tensor among the arguments, the first one sets the dtype (``me.add(1, 2)`` is int32).
"""
import numpy as np

from ..engine import dtypes
from ..engine.abstract import AbstractArray
from ..engine.abstract import broadcast_shapes as abstract_broadcast
from ..engine.convert import to_array
from ..engine.device import CPU
from ..engine.op import string_error
from ..engine.tensor import Tensor, place, wrap
from ..errors import DTypeError, InvalidArgumentError
from .creation import convert_to_tensor

_PYTHON_SCALARS = (bool, int, float, np.bool_, np.integer, np.floating)
_ORDINALS = ("first", "second", "third", "fourth")


def _fits(array, dtype):
    """Whether every value of ``array`` has an exact-enough value in ``dtype`` (no truncation, no overflow)."""
    kind = array.dtype.kind
    if kind == "O" or dtype.is_string:      # text and numbers never convert into each other here
        return kind == "O" and dtype.is_string
    if dtype.is_bool:
        return kind == "b"
    if kind == "b" or array.size == 0:
        return True
    if dtype.is_integer:
        if kind == "f" and not (np.all(np.isfinite(array)) and np.all(np.mod(array, 1) == 0)):
            return False
        return dtype.min <= array.min() and array.max() <= dtype.max
    finite = array[np.isfinite(array)] if kind == "f" else array   # inf and nan are floats of every width
    return finite.size == 0 or float(np.max(np.abs(finite))) <= float(dtype.max)


def _tensor_on(array, device):
    """A new tensor of ``array`` on ``device``: where a converted Python value is placed beside its tensor."""
    return wrap(array, device) if device == CPU else place(array, device)   # place copies it to a GPU


def _scalar_fits(value, dtype):
    """``_fits`` for one Python number, in plain Python (the common ``x * 2`` must stay cheap)."""
    if dtype.is_bool:
        return isinstance(value, (bool, np.bool_))
    if dtype.is_string:
        return False
    if isinstance(value, (float, np.floating)):
        if dtype.is_integer:
            return float(value).is_integer() and dtype.min <= value <= dtype.max
        return -dtype.max <= value <= dtype.max or value != value or abs(value) == float("inf")  # nan, inf fit
    return dtype.min <= value <= dtype.max if dtype.is_integer else -dtype.max <= value <= dtype.max


def _hint(array, dtype):
    if dtype.is_string or array.dtype.kind == "O":
        return ("Strings and numbers do not convert into each other implicitly: use me.strings.as_string(x) or "
                "me.strings.to_number(s)")
    if dtype.is_bool:
        return "Compare first (x != 0), or cast the tensor with me.cast(x, me.int32)"
    if dtype.is_floating or array.dtype.kind == "f":
        wider = "float64" if dtype in (dtypes.float32, dtypes.float64) else "float32"
        return f"Cast the tensor first, e.g. me.cast(x, me.{wider})"
    return f"Cast the tensor to a wider dtype first, e.g. me.cast(x, me.{'float64' if dtype is dtypes.int64 else 'int64'})"


def _convert_like(value, dtype, device, op_name, position=None):
    """``value`` (a Python number, list or NumPy array) as a tensor of ``dtype``, or a teaching error.

    ``position`` is the value's place among an op's arguments; None for a Variable's new value.
    """
    if isinstance(value, _PYTHON_SCALARS):
        if _scalar_fits(value, dtype):
            return _tensor_on(np.array(value, dtype.np_dtype), device)
        array, fits = np.asarray(value), False
    else:
        array, _ = to_array(value, op_name)
        fits = array.dtype == dtype.np_dtype or _fits(array, dtype)
    if not fits:
        shown = f"the value {value!r:.60}" if isinstance(value, _PYTHON_SCALARS) else \
            f"the {type(value).__name__} of dtype {array.dtype}" + (
                f" (values {array.min()}..{array.max()})" if array.size and array.dtype.kind != "O" else "")
        if position is not None:
            shown += f" (the {_ORDINALS[min(position, 3)]} argument)"
        whose = "the variable's dtype" if position is None else "the dtype of the tensor beside it"
        fix = (f"A variable's dtype never changes: make it with the dtype you need, e.g. me.Variable(..., "
               f"dtype=me.float32)" if position is None else _hint(array, dtype))
        raise InvalidArgumentError(
            f"{op_name}: {shown} does not fit in {dtype.name}, {whose}"
            + (f" (range {dtype.min}..{dtype.max})" if dtype.is_integer else "")
            + f". minieager, like TensorFlow, converts a Python value to the tensor's dtype and never "
            f"widens the tensor silently. {fix}.")
    if array.dtype != dtype.np_dtype:
        array = array.astype(dtype.np_dtype)
    elif array is value:
        array = np.array(array, copy=True)     # the tensor owns its memory
    return _tensor_on(array, device)


def mixed_dtypes_error(op_name, tensors):
    """The error for two tensors of different dtypes meeting in ``op_name`` (as TF, no promotion)."""
    a = tensors[0]
    i, b = next((i, t) for i, t in enumerate(tensors) if t._dtype is not a._dtype)
    wider = dtypes.wider(a._dtype, b._dtype)
    narrow = i if wider is a._dtype else 0
    return InvalidArgumentError(
        f"{op_name}: the {_ORDINALS[0]} argument is a {a.dtype.name} tensor but the {_ORDINALS[min(i, 3)]} "
        f"is {b.dtype.name}. minieager, like TensorFlow, never mixes dtypes in one op (it would hide "
        f"precision loss or overflow). Cast one of them first, e.g. me.cast(t, me.{wider.name}) on the "
        f"{_ORDINALS[min(narrow, 3)]} argument.")


def operands(op_name, *values):
    """``values`` as tensors of one dtype (see the module docstring), or a teaching error."""
    if len(values) == 2:        # the common cases, kept fast: tensor-tensor and tensor-number
        a, b = values
        if isinstance(a, Tensor):
            if isinstance(b, Tensor):
                if a._dtype is b._dtype:
                    return values
                raise mixed_dtypes_error(op_name, values)
            if isinstance(b, _PYTHON_SCALARS) and _scalar_fits(b, a._dtype):
                return a, _tensor_on(np.array(b, a._dtype.np_dtype), a._device)
        elif isinstance(b, Tensor) and isinstance(a, _PYTHON_SCALARS) and _scalar_fits(a, b._dtype):
            return _tensor_on(np.array(a, b._dtype.np_dtype), b._device), b
    anchor = next((v for v in values if isinstance(v, Tensor)), None)
    if anchor is None:      # no tensor: the first value decides (me.add(1, 2.5) raises, as tf.add does)
        try:
            anchor = convert_to_tensor(values[0])
        except InvalidArgumentError as err:   # the same teaching error, naming the op that was called
            raise type(err)(f"{op_name}: {str(err).removeprefix('constant: ')}") from None
        values = (anchor,) + values[1:]
    dtype, device = anchor._dtype, anchor._device
    tensors = [v if isinstance(v, Tensor) else _convert_like(v, dtype, device, op_name, i)
               for i, v in enumerate(values)]
    for t in tensors:
        if t._dtype is not dtype:
            raise mixed_dtypes_error(op_name, tensors)
    return tensors


def check_not_bool(op_name, *tensors):
    for t in tensors:
        if t._dtype.is_bool:
            raise DTypeError(
                f"{op_name}: bool tensors are not numbers. Cast first, e.g. me.cast(x, me.int32) or "
                f"me.cast(x, me.float32); for logic use me.logical_and / me.logical_or.")


def check_float(op_name, x):
    if not x._dtype.is_floating:
        if x._dtype.is_string:
            raise string_error(op_name)
        raise DTypeError(
            f"{op_name} needs a floating-point tensor, got {x.dtype.name} with shape {tuple(x.shape)}. "
            f"Cast it first: me.cast(x, me.float32).")


def broadcast_shape(*shapes):
    """The shape NumPy broadcasting gives ``shapes``, or None if they are incompatible.

    Each axis, counted from the right, must be equal in all shapes or 1 (a missing axis is 1).
    """
    try:
        if any(None in s for s in shapes):     # a dimension known only when the graph runs
            return abstract_broadcast("broadcast", *shapes)
        return np.broadcast_shapes(*shapes)
    except ValueError:     # (an InvalidArgumentError is one)
        return None


def check_broadcast(op_name, *tensors):
    """Raise a clear error when the shapes cannot broadcast (before any kernel runs)."""
    if type(tensors[0]._value) is AbstractArray or any(type(t._value) is AbstractArray for t in tensors):
        return abstract_broadcast(op_name, *[t._value.shape for t in tensors if t._value.shape is not None])
    try:
        if tensors[0]._device == CPU:
            return np.broadcast(*[t._value for t in tensors]).shape   # one C call, nothing copied
        return np.broadcast_shapes(*[t._value.shape for t in tensors])   # GPU arrays are not NumPy's
    except ValueError:
        shapes = " and ".join(str(tuple(t._value.shape)) for t in tensors)
        raise InvalidArgumentError(
            f"{op_name}: shapes {shapes} are incompatible for broadcasting. Each dimension must match "
            f"or be 1 (aligned from the right); reshape or expand_dims one of the inputs.") from None
