"""Making tensors from Python values, NumPy arrays and shapes.

Python floats become float32, Python ints int32 (int64 if they do not fit) and bools bool,
as in TensorFlow; NumPy arrays keep their dtype.
"""
import math

import numpy as np

from ..engine import dtypes
from ..engine.device import current_device
from ..engine.errors import DTypeError, InvalidArgumentError
from ..engine.device import to_host
from ..engine.tensor import Tensor, place
from . import _args


def _python_default_dtype(array):
    """NumPy guesses float64/int64 for Python numbers; TensorFlow (and we) use 32 bits."""
    if array.dtype == np.float64:
        return dtypes.float32
    if array.dtype.kind == "i":
        if array.size and (array.min() < np.iinfo(np.int32).min or array.max() > np.iinfo(np.int32).max):
            return dtypes.int64
        return dtypes.int32
    return dtypes.as_dtype(array.dtype)


def _to_array(value, op="constant"):
    if isinstance(value, Tensor):
        return to_host(value._value), value.dtype
    if isinstance(value, np.ndarray):
        return value, dtypes.as_dtype(value.dtype)
    if isinstance(value, np.generic):
        return np.asarray(value), dtypes.as_dtype(value.dtype)
    try:
        array = np.array(value)
    except ValueError as err:
        raise InvalidArgumentError(
            f"{op}: cannot make a tensor from a ragged nested list (rows of different lengths): {err}. "
            f"Every row must have the same length.") from None
    if array.dtype == object:
        if all(isinstance(v, int) for v in np.array(value, dtype=object).ravel()):
            raise InvalidArgumentError(
                f"{op}: {value!r:.80} holds integers outside int64's range "
                f"({np.iinfo(np.int64).min}..{np.iinfo(np.int64).max}); use floats (e.g. 1e20) for numbers that large.")
        raise InvalidArgumentError(
            f"{op}: cannot make a tensor from {type(value).__name__} value {value!r:.80}: "
            f"expected numbers, bools, nested lists of them, NumPy arrays or tensors.")
    if array.dtype.kind in "US":
        raise InvalidArgumentError(f"{op}: minieager tensors hold numbers and bools, not strings ({value!r:.80}).")
    return array, _python_default_dtype(array)


def constant(value, dtype=None, shape=None, name=None):
    """A tensor holding ``value``; ``shape`` reshapes it or fills it from a scalar."""
    array, inferred = _to_array(value)
    dtype = _args.dtype(dtype, "constant") if dtype is not None else inferred
    array = fit(array, dtype, "constant")
    if shape is not None:
        shape = _shape_tuple(shape, "constant")
        if array.size == 1:
            array = np.full(shape, array.reshape(()), dtype=dtype.np_dtype)
        elif array.size == math.prod(shape):
            array = array.reshape(shape)
        else:
            raise InvalidArgumentError(
                f"constant: {array.size} values cannot fill shape {shape} "
                f"({math.prod(shape)} elements).")
    return place(np.asarray(array, order="C"), current_device())


def fit(array, dtype, op):
    """A new array of ``dtype`` holding ``array``'s values, or an error if a value would change.

    Creation never wraps or truncates silently: 300 does not become 44 in uint8, 1e10 does not become
    -2147483648 in int32, 2.5 does not become 2, nan has no integer, and 1e40 does not become inf in
    float32. (``me.cast`` is the op that converts with wrapping and truncation, as in TF.)
    """
    if array.dtype == dtype.np_dtype:
        return np.array(array, copy=True)     # the tensor owns its memory
    if dtype.is_bool and array.dtype.kind != "b" and array.size:
        raise DTypeError(
            f"{op}: cannot convert the {array.dtype.name} value {array.flat[0].item()!r} to bool (as in TensorFlow, "
            f"numbers are not truth values here). Compare instead (x != 0), or use me.cast(x, me.bool), which "
            f"maps nonzero to True.")
    if dtype.is_integer and array.size:
        bad = None
        if array.dtype.kind == "f":
            if not np.isfinite(array).all():
                bad = array[~np.isfinite(array)].flat[0]
            elif not np.all(np.mod(array, 1) == 0):
                raise InvalidArgumentError(
                    f"{op}: {array.flat[np.argmax(np.mod(array, 1) != 0)].item()!r} has a fractional part and cannot "
                    f"become {dtype.name} without losing it. Use me.cast(x, me.{dtype.name}) if truncation is "
                    f"what you want.")
            else:   # float(max) + 1 is the first float above the range (2**31, 2**63, 256), exactly
                outside = (array < float(dtype.min)) | (array >= float(dtype.max) + 1)
                bad = array[outside].flat[0] if outside.any() else None
        elif array.dtype.kind in "iu":
            low, high = array.min().item(), array.max().item()
            bad = low if low < dtype.min else (high if high > dtype.max else None)
        if bad is not None:
            wider = "a float dtype (me.float64)" if dtype.name == "int64" else "a wider dtype (me.int64, me.float32)"
            raise InvalidArgumentError(
                f"{op}: the value {np.asarray(bad).item()!r} does not fit in {dtype.name} (range {dtype.min}.."
                f"{dtype.max}). Use {wider}, or me.cast(x, me.{dtype.name}) if wrapping around is what you want.")
    with np.errstate(over="ignore", invalid="ignore"):
        result = array.astype(dtype.np_dtype)
    if dtype.is_floating and array.dtype.kind in "fiu" and array.size:
        overflow = np.isinf(result) & np.isfinite(array)
        if overflow.any():
            raise InvalidArgumentError(
                f"{op}: the value {array[overflow].flat[0].item()!r} is too large for {dtype.name} (largest "
                f"{dtype.max}) and would become inf. Use a wider dtype (me.float32, me.float64).")
    return result


def convert_to_tensor(value, dtype=None, name=None):
    """``value`` as a Tensor (tensors and variables are returned as they are)."""
    if isinstance(value, Tensor):
        if dtype is not None and dtypes.as_dtype(dtype) is not value._dtype:
            raise InvalidArgumentError(
                f"convert_to_tensor: asked for dtype {dtypes.as_dtype(dtype).name} but the tensor is "
                f"{value.dtype.name}. Use me.cast(x, me.{dtypes.as_dtype(dtype).name}) to change it.")
        return value
    return constant(value, dtype=dtype)


def is_tensor(x):
    """Whether ``x`` is a tensor (a Variable too), not something an op would convert (a list, an array)."""
    return isinstance(x, Tensor)


def _shape_tuple(shape, op):
    """A shape argument (an int, a list of ints or an int tensor) as a tuple of non-negative ints."""
    return _args.integers([shape] if isinstance(shape, (int, np.integer)) else shape, op, "shape", minimum=0)


def zeros(shape, dtype=dtypes.float32, name=None):
    dtype = _args.dtype(dtype, "zeros")
    return place(np.zeros(_shape_tuple(shape, "zeros"), dtype.np_dtype), current_device())


def ones(shape, dtype=dtypes.float32, name=None):
    dtype = _args.dtype(dtype, "ones")
    return place(np.ones(_shape_tuple(shape, "ones"), dtype.np_dtype), current_device())


def zeros_like(x, dtype=None, name=None):
    x = convert_to_tensor(x)
    dtype = x._dtype if dtype is None else _args.dtype(dtype, "zeros_like")
    return place(np.zeros(x._value.shape, dtype.np_dtype), x._device)   # on x's device, as its ops are


def ones_like(x, dtype=None, name=None):
    x = convert_to_tensor(x)
    dtype = x._dtype if dtype is None else _args.dtype(dtype, "ones_like")
    return place(np.ones(x._value.shape, dtype.np_dtype), x._device)


def fill(dims, value, name=None):
    value = convert_to_tensor(value)
    if value.ndim != 0:
        raise InvalidArgumentError(f"fill: value must be a scalar, got a tensor of shape {tuple(value.shape)}.")
    return place(np.full(_shape_tuple(dims, "fill"), to_host(value._value), value.dtype.np_dtype),
                 current_device())


def eye(num_rows, num_columns=None, dtype=dtypes.float32, name=None):
    num_rows = _args.integer(num_rows, "eye", "num_rows", minimum=0)
    num_columns = num_rows if num_columns is None else _args.integer(num_columns, "eye", "num_columns", minimum=0)
    return place(np.eye(num_rows, num_columns, dtype=_args.dtype(dtype, "eye").np_dtype), current_device())


def range(start, limit=None, delta=1, dtype=None, name=None):  # noqa: A001 (TF's name)
    """``me.range(5)`` -> [0 1 2 3 4]; like Python's range, but floats work too."""
    if limit is None:
        start, limit = 0, start
    values = [v.numpy().item() if isinstance(v, Tensor) else v for v in (start, limit, delta)]
    for arg, v in zip(("start", "limit", "delta"), values):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not np.isfinite(v):
            raise InvalidArgumentError(f"range: {arg} must be a finite number, got {v!r}.")
    if values[2] == 0:
        raise InvalidArgumentError("range: delta must not be 0.")
    if dtype is None:
        dtype = dtypes.float32 if any(isinstance(v, float) for v in values) else dtypes.int32
    dtype = _args.dtype(dtype, "range")
    if dtype.is_floating:   # computed in the dtype itself, as NumPy does it
        return place(np.arange(*values, dtype=dtype.np_dtype), current_device())
    return place(fit(np.arange(*values), dtype, "range"), current_device())   # ints: never wrapped


def linspace(start, stop, num, name=None):
    start, stop = convert_to_tensor(start), convert_to_tensor(stop)
    if not start.dtype.is_floating:
        raise InvalidArgumentError(f"linspace: start and stop must be floats, got {start.dtype.name}.")
    num = _args.integer(num, "linspace", "num", minimum=0)
    return place(np.linspace(to_host(start._value), to_host(stop._value), num, dtype=start.dtype.np_dtype),
                 current_device())


def one_hot_flat(index, size, shape, dtype):
    """A tensor of ``shape`` that is 1 at flat position ``index`` (used to build Jacobians row by row)."""
    array = np.zeros(size, dtype.np_dtype)
    array[index] = 1
    return place(array.reshape(tuple(shape)), current_device())


def get_static_value(tensor, partial=False):
    """The value of ``tensor`` as a NumPy array: in eager execution every tensor's value is known.

    A Variable gives None, as in TF: its value can change, so it is not a static (constant) value.
    Anything that is not a tensor is returned as it is.
    """
    from ..autodiff.variable import Variable
    if isinstance(tensor, Variable):
        return None
    return tensor.numpy() if isinstance(tensor, Tensor) else tensor
