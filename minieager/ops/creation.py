"""Making tensors from Python values, NumPy arrays and shapes.

Python floats become float32, Python ints int32 (int64 if they do not fit) and bools bool,
as in TensorFlow; NumPy arrays keep their dtype.
"""
import numpy as np

from ..engine import dtypes
from ..engine.device import current_device
from ..engine.errors import InvalidArgumentError
from ..engine.device import to_host
from ..engine.tensor import Tensor, place


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
        raise InvalidArgumentError(
            f"{op}: cannot make a tensor from {type(value).__name__} value {value!r:.80}: "
            f"expected numbers, bools, nested lists of them, NumPy arrays or tensors.")
    if array.dtype.kind in "US":
        raise InvalidArgumentError(f"{op}: minieager tensors hold numbers and bools, not strings ({value!r:.80}).")
    return array, _python_default_dtype(array)


def constant(value, dtype=None, shape=None, name=None):
    """A tensor holding ``value``; ``shape`` reshapes it or fills it from a scalar."""
    array, inferred = _to_array(value)
    dtype = dtypes.as_dtype(dtype) if dtype is not None else inferred
    if array.dtype != dtype.np_dtype:
        if dtype.is_integer and array.dtype.kind == "f" and not np.all(np.mod(array, 1) == 0):
            raise InvalidArgumentError(
                f"constant: {value!r:.80} has fractional values and cannot become {dtype.name} without "
                f"losing them. Use me.cast(x, me.{dtype.name}) if truncation is what you want.")
        array = array.astype(dtype.np_dtype)
    else:
        array = np.array(array, copy=True)     # the tensor owns its memory
    if shape is not None:
        shape = tuple(int(s) for s in shape)
        if array.size == 1:
            array = np.full(shape, array.reshape(()), dtype=dtype.np_dtype)
        elif array.size == int(np.prod(shape)):
            array = array.reshape(shape)
        else:
            raise InvalidArgumentError(
                f"constant: {array.size} values cannot fill shape {shape} "
                f"({int(np.prod(shape))} elements).")
    return place(np.asarray(array, order="C"), current_device())


def convert_to_tensor(value, dtype=None, name=None):
    """``value`` as a Tensor (tensors and variables are returned as they are)."""
    if isinstance(value, Tensor):
        if dtype is not None and dtypes.as_dtype(dtype) is not value._dtype:
            raise InvalidArgumentError(
                f"convert_to_tensor: asked for dtype {dtypes.as_dtype(dtype).name} but the tensor is "
                f"{value.dtype.name}. Use me.cast(x, me.{dtypes.as_dtype(dtype).name}) to change it.")
        return value
    return constant(value, dtype=dtype)


def _shape_tuple(shape, op):
    if isinstance(shape, Tensor):
        shape = shape.numpy().tolist()
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        shape = tuple(int(s) for s in shape)
    except TypeError:
        raise InvalidArgumentError(f"{op}: shape must be a list of ints, got {shape!r}.") from None
    if any(s < 0 for s in shape):
        raise InvalidArgumentError(f"{op}: shape {shape} has a negative dimension.")
    return shape


def zeros(shape, dtype=dtypes.float32, name=None):
    dtype = dtypes.as_dtype(dtype)
    return place(np.zeros(_shape_tuple(shape, "zeros"), dtype.np_dtype), current_device())


def ones(shape, dtype=dtypes.float32, name=None):
    dtype = dtypes.as_dtype(dtype)
    return place(np.ones(_shape_tuple(shape, "ones"), dtype.np_dtype), current_device())


def zeros_like(x, dtype=None, name=None):
    x = convert_to_tensor(x)
    dtype = x._dtype if dtype is None else dtypes.as_dtype(dtype)
    return place(np.zeros(x._value.shape, dtype.np_dtype), x._device)   # on x's device, as its ops are


def ones_like(x, dtype=None, name=None):
    x = convert_to_tensor(x)
    dtype = x._dtype if dtype is None else dtypes.as_dtype(dtype)
    return place(np.ones(x._value.shape, dtype.np_dtype), x._device)


def fill(dims, value, name=None):
    value = convert_to_tensor(value)
    return place(np.full(_shape_tuple(dims, "fill"), to_host(value._value), value.dtype.np_dtype),
                 current_device())


def eye(num_rows, num_columns=None, dtype=dtypes.float32, name=None):
    return place(np.eye(num_rows, num_columns, dtype=dtypes.as_dtype(dtype).np_dtype),
                 current_device())


def range(start, limit=None, delta=1, dtype=None, name=None):  # noqa: A001 (TF's name)
    """``me.range(5)`` -> [0 1 2 3 4]; like Python's range, but floats work too."""
    if limit is None:
        start, limit = 0, start
    values = [v.numpy().item() if isinstance(v, Tensor) else v for v in (start, limit, delta)]
    if values[2] == 0:
        raise InvalidArgumentError("range: delta must not be 0.")
    if dtype is None:
        dtype = dtypes.float32 if any(isinstance(v, float) for v in values) else dtypes.int32
    dtype = dtypes.as_dtype(dtype)
    return place(np.arange(*values, dtype=dtype.np_dtype), current_device())


def linspace(start, stop, num, name=None):
    start, stop = convert_to_tensor(start), convert_to_tensor(stop)
    if not start.dtype.is_floating:
        raise InvalidArgumentError(f"linspace: start and stop must be floats, got {start.dtype.name}.")
    return place(np.linspace(to_host(start._value), to_host(stop._value), int(num), dtype=start.dtype.np_dtype),
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
