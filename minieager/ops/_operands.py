"""Turning the arguments of an op into tensors of one dtype.

A Python scalar next to a tensor is "weak": it takes the tensor's dtype (``x * 2`` stays
float16 for a float16 ``x``). A Python float next to an integer tensor makes both float32, so
nothing is silently truncated. Two tensors of different dtypes meet in the dtype given by the
promotion table in ``engine/dtypes.py``.
"""
import numpy as np

from ..engine import dtypes
from ..engine.errors import InvalidArgumentError
from ..engine.tensor import Tensor
from .creation import convert_to_tensor

_PYTHON_SCALARS = (bool, int, float, np.bool_, np.integer, np.floating)


def _weak_scalar(value, like, op_name):
    """The Python scalar ``value`` as a tensor of ``like``'s dtype (or float32, see above)."""
    dtype = like.dtype
    if isinstance(value, (float, np.floating)) and not dtype.is_floating:
        dtype = dtypes.float32
    elif isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and dtype.is_bool:
        dtype = dtypes.int32
    if dtype.is_integer and not (dtype.min <= value <= dtype.max):
        raise InvalidArgumentError(
            f"{op_name}: the Python number {value} does not fit in the tensor's dtype {dtype.name} "
            f"(range {dtype.min}..{dtype.max}). Cast the tensor to a wider dtype first.")
    return convert_to_tensor(np.asarray(value, dtype.np_dtype))


def cast_to(x, dtype):
    if x.dtype is dtype:
        return x
    from .elementwise import cast
    return cast(x, dtype)


def operands(op_name, *values):
    """Convert ``values`` to tensors of one common dtype (see the module docstring)."""
    if len(values) == 2 and type(values[0]) is type(values[1]) is Tensor and values[0]._dtype is values[1]._dtype:
        return values   # the common case, kept fast
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
        if t.dtype.is_bool:
            raise InvalidArgumentError(
                f"{op_name}: bool tensors are not numbers. Cast first, e.g. me.cast(x, me.int32) or "
                f"me.cast(x, me.float32); for logic use me.logical_and / me.logical_or.")


def check_float(op_name, x):
    if not x.dtype.is_floating:
        raise InvalidArgumentError(
            f"{op_name} needs a floating-point tensor, got {x.dtype.name} with shape {tuple(x.shape)}. "
            f"Cast it first: me.cast(x, me.float32).")


def check_broadcast(op_name, *tensors):
    """Raise a clear error when the shapes cannot broadcast (before any kernel runs)."""
    shapes = [t._value.shape for t in tensors]
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        raise InvalidArgumentError(
            f"{op_name}: shapes {' and '.join(str(tuple(s)) for s in shapes)} are incompatible for "
            f"broadcasting. Each dimension must match or be 1 (aligned from the right); reshape or "
            f"expand_dims one of the inputs.") from None
