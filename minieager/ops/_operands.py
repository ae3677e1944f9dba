"""Turning the arguments of an op into tensors of one dtype.

A Python scalar next to a tensor is "weak": it takes the tensor's dtype (``x * 2`` stays
float16 for a float16 ``x``). A Python float next to an integer tensor makes both float32, so
nothing is silently truncated. Two tensors of different dtypes meet in the dtype given by the
promotion table in ``engine/dtypes.py``.
"""
import numpy as np

from ..engine import dtypes
from ..engine.errors import DTypeError, InvalidArgumentError
from ..engine.tensor import Tensor, wrap
from .creation import convert_to_tensor

_PYTHON_SCALARS = (bool, int, float, np.bool_, np.integer, np.floating)


def _weak_scalar(value, like, op_name):
    """The Python scalar ``value`` as a tensor of ``like``'s dtype (or float32, see above)."""
    dtype = like._dtype
    if isinstance(value, (float, np.floating)):
        if not dtype.is_floating:
            dtype = dtypes.float32
    elif not isinstance(value, (bool, np.bool_)):
        if dtype.is_bool:
            dtype = dtypes.int32
        if dtype.is_integer and not (dtype.min <= value <= dtype.max):
            raise InvalidArgumentError(
                f"{op_name}: the Python number {value} does not fit in the tensor's dtype {dtype.name} "
                f"(range {dtype.min}..{dtype.max}). Cast the tensor to a wider dtype first.")
    return wrap(np.array(value, dtype.np_dtype), like._device)


def cast_to(x, dtype):
    if x.dtype is dtype:
        return x
    from .elementwise import cast
    return cast(x, dtype)


def operands(op_name, *values):
    """Convert ``values`` to tensors of one common dtype (see the module docstring)."""
    if len(values) == 2:        # the common cases, kept fast: tensor-tensor and tensor-scalar
        a, b = values
        if isinstance(a, Tensor):
            if isinstance(b, Tensor):
                if a._dtype is b._dtype:
                    return values
            elif isinstance(b, _PYTHON_SCALARS):
                b = _weak_scalar(b, a, op_name)
                return (a, b) if a._dtype is b._dtype else (cast_to(a, b._dtype), b)
        elif isinstance(b, Tensor) and isinstance(a, _PYTHON_SCALARS):
            a = _weak_scalar(a, b, op_name)
            return (a, b) if a._dtype is b._dtype else (a, cast_to(b, a._dtype))
    anchor = next((v for v in values if isinstance(v, Tensor)), None)
    tensors = []
    for v in values:
        if isinstance(v, Tensor):
            tensors.append(v)
        elif anchor is not None and isinstance(v, _PYTHON_SCALARS):
            tensors.append(_weak_scalar(v, anchor, op_name))
        else:
            tensors.append(convert_to_tensor(v))
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = dtypes.promote(dtype, t.dtype, op_name)
    return [cast_to(t, dtype) for t in tensors]


def check_not_bool(op_name, *tensors):
    for t in tensors:
        if t._dtype.is_bool:
            raise DTypeError(
                f"{op_name}: bool tensors are not numbers. Cast first, e.g. me.cast(x, me.int32) or "
                f"me.cast(x, me.float32); for logic use me.logical_and / me.logical_or.")


def check_float(op_name, x):
    if not x._dtype.is_floating:
        raise DTypeError(
            f"{op_name} needs a floating-point tensor, got {x.dtype.name} with shape {tuple(x.shape)}. "
            f"Cast it first: me.cast(x, me.float32).")


def broadcast_shape(*shapes):
    """The shape NumPy broadcasting gives ``shapes``, or None if they are incompatible.

    Each axis, counted from the right, must be equal in all shapes or 1 (a missing axis is 1).
    """
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        return None


def check_broadcast(op_name, *tensors):
    """Raise a clear error when the shapes cannot broadcast (before any kernel runs)."""
    try:
        return np.broadcast(*[t._value for t in tensors]).shape   # one C call, nothing copied
    except ValueError:
        shapes = " and ".join(str(tuple(t._value.shape)) for t in tensors)
        raise InvalidArgumentError(
            f"{op_name}: shapes {shapes} are incompatible for broadcasting. Each dimension must match "
            f"or be 1 (aligned from the right); reshape or expand_dims one of the inputs.") from None
