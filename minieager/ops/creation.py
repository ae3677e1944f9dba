"""Making tensors from Python values, NumPy arrays and shapes.

Python floats become float32, Python ints int32 (int64 if they do not fit) and bools bool,
as in TensorFlow; NumPy arrays keep their dtype.
"""
import math

import numpy as np

from ..engine import dtypes
from ..engine.convert import checked_array, fit
from ..engine.device import current_device, to_host
from ..engine.op import names_memory_errors
from ..engine.tensor import Tensor, host_or_current_device, place
from ..errors import DTypeError, InvalidArgumentError
from . import _args


@names_memory_errors("constant")
def constant(value, dtype=None, shape=None, name=None):
    """A tensor holding ``value``; ``shape`` reshapes it or fills it from a scalar."""
    array = checked_array(value, dtype, "constant")
    if shape is not None:
        shape = _shape_tuple(shape, "constant")
        if array.size == 1:
            array = np.full(shape, array.reshape(()), dtype=array.dtype)
        elif array.size == math.prod(shape):
            array = array.reshape(shape)
        else:
            raise InvalidArgumentError(
                f"constant: {array.size} values cannot fill shape {shape} "
                f"({math.prod(shape)} elements).")
    return place(np.asarray(array, order="C"), host_or_current_device(array))


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


@names_memory_errors("zeros")
def _zeros_array(shape, dtype):
    """Zeros of ``dtype``; for strings the empty string, as TF's ``zeros(..., tf.string)``."""
    return np.full(shape, b"", dtype=object) if dtype.is_string else np.zeros(shape, dtype.np_dtype)


def _no_string_ones(dtype, op):
    if dtype.is_string:
        raise DTypeError(f"{op}: strings have no 1; make string tensors with me.constant or me.fill.")


def zeros(shape, dtype=dtypes.float32, name=None):
    dtype = _args.dtype(dtype, "zeros", strings=True)
    array = _zeros_array(_shape_tuple(shape, "zeros"), dtype)
    return place(array, host_or_current_device(array))


@names_memory_errors("ones")
def ones(shape, dtype=dtypes.float32, name=None):
    dtype = _args.dtype(dtype, "ones")
    return place(np.ones(_shape_tuple(shape, "ones"), dtype.np_dtype), current_device())


@names_memory_errors("zeros_like")
def zeros_like(x, dtype=None, name=None):
    x = convert_to_tensor(x)
    dtype = x._dtype if dtype is None else _args.dtype(dtype, "zeros_like", strings=True)
    if _known_only_when_run(x):
        return _filled_like(x, _zeros_array((), dtype))
    return place(_zeros_array(x._value.shape, dtype), x._device)   # on x's device, as its ops are


@names_memory_errors("ones_like")
def ones_like(x, dtype=None, name=None):
    x = convert_to_tensor(x)
    dtype = x._dtype if dtype is None else _args.dtype(dtype, "ones_like")
    if dtype.is_string:
        raise DTypeError("ones_like: strings have no 1; make string tensors with me.constant or me.fill.")
    if _known_only_when_run(x):
        return _filled_like(x, np.ones((), dtype.np_dtype))
    return place(np.ones(x._value.shape, dtype.np_dtype), x._device)


def _known_only_when_run(x):
    """Whether ``x``'s shape has a size (or its rank) known only when a graph runs (a traced tensor of an
    input_signature with None in it)."""
    shape = x._value.shape
    return shape is None or None in shape


def _filled_like(x, value):
    """``value`` (a scalar array) broadcast to ``x``'s shape when the graph runs."""
    from .shape import broadcast_like   # shape's ops build on creation's
    return broadcast_like(place(value, x._device), x)


@names_memory_errors("fill")
def fill(dims, value, name=None):
    value = convert_to_tensor(value)
    if value.ndim != 0:
        raise InvalidArgumentError(f"fill: value must be a scalar, got a tensor of shape {tuple(value.shape)}.")
    return place(np.full(_shape_tuple(dims, "fill"), value._host(), value.dtype.np_dtype),
                 current_device())


@names_memory_errors("eye")
def eye(num_rows, num_columns=None, dtype=dtypes.float32, name=None):
    num_rows = _args.integer(num_rows, "eye", "num_rows", minimum=0)
    num_columns = num_rows if num_columns is None else _args.integer(num_columns, "eye", "num_columns", minimum=0)
    return place(np.eye(num_rows, num_columns, dtype=_args.dtype(dtype, "eye").np_dtype), current_device())


@names_memory_errors("range")
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


@names_memory_errors("linspace")
def linspace(start, stop, num, name=None):
    """``num`` evenly spaced values from ``start`` to ``stop`` (both included). Integer ends give float64, as
    TF's ``linspace(-2, 2, 5)``; a float end gives its dtype (a Python float: float32)."""
    start, stop = convert_to_tensor(start), convert_to_tensor(stop)
    for t in (start, stop):
        if not (t.dtype.is_floating or t.dtype.is_integer) or t.ndim != 0:
            raise InvalidArgumentError(
                f"linspace: start and stop must be number scalars, got {t.dtype.name} of shape {tuple(t.shape)}.")
    floats = [t.dtype for t in (start, stop) if t.dtype.is_floating]
    if len(set(floats)) > 1:
        raise InvalidArgumentError(f"linspace: start is {start.dtype.name} but stop is {stop.dtype.name}; cast one.")
    dtype = floats[0] if floats else dtypes.float64
    num = _args.integer(num, "linspace", "num", minimum=0)
    return place(np.linspace(start._host(), stop._host(), num, dtype=dtype.np_dtype),
                 current_device())


def one_hot_flat(index, size, shape, dtype):
    """A tensor of ``shape`` that is 1 at flat position ``index`` (used to build Jacobians row by row)."""
    array = np.zeros(size, dtype.np_dtype)
    array[index] = 1
    return place(array.reshape(tuple(shape)), current_device())
