"""How Python values become tensors' arrays: TensorFlow's conversion rules, in one place.

Python floats become float32, Python ints int32 (int64 if they do not fit) and bools bool, as in
TensorFlow; NumPy arrays and tensors keep their dtype. A value is never changed on the way in:
``fit`` refuses 300 in uint8 or 2.5 in int32 with an error that names the cast to write.
``me.Tensor(value)`` and ``me.constant`` (``ops/creation.py``) both convert through here.
"""
import numpy as np

from ..errors import DTypeError, InvalidArgumentError
from . import dtypes


def dtype_argument(value, op_name):
    """``value`` (``me.float32``, ``"int32"``, ``np.uint8`` ...) as a DType; the error names the op."""
    try:
        return dtypes.as_dtype(value)
    except InvalidArgumentError as err:
        raise InvalidArgumentError(f"{op_name}: {err}") from None


def checked_array(value, dtype=None, op="constant"):
    """A new host array of ``value`` in ``dtype`` (or the dtype ``value`` implies), checked by ``fit``."""
    array, inferred = to_array(value, op)
    return fit(array, inferred if dtype is None else dtype_argument(dtype, op), op)


def python_default_dtype(array):
    """NumPy guesses float64/int64 for Python numbers; TensorFlow (and we) use 32 bits."""
    if array.dtype == np.float64:
        return dtypes.float32
    if array.dtype.kind == "i":
        if array.size and (array.min() < np.iinfo(np.int32).min or array.max() > np.iinfo(np.int32).max):
            return dtypes.int64
        return dtypes.int32
    return dtypes.as_dtype(array.dtype)


def to_array(value, op="constant"):
    """``value`` as a NumPy array, and the DType it becomes when no dtype is asked for.

    Arrays keep their dtype: NumPy arrays and scalars, tensors (a GPU tensor is copied to the host)
    and anything else that converts itself (``__array__``). Python values take TF's defaults.
    """
    if hasattr(value, "__array__"):
        array = np.asarray(value)
        if array.dtype.kind in "USO":
            return _strings(array, value, op), dtypes.string
        return array, dtypes.as_dtype(array.dtype)
    if isinstance(value, (str, bytes)):
        return _strings(np.array(value, dtype=object), value, op), dtypes.string
    try:
        array = np.array(value)
    except ValueError as err:
        raise InvalidArgumentError(
            f"{op}: cannot make a tensor from a ragged nested list (rows of different lengths; NumPy says: "
            f"{str(err).rstrip('.')}). Every row must have the same length: pad the short rows (minieager has no "
            f"ragged tensors).") from None
    if array.dtype.kind in "US" or (array.dtype == object and array.size and all(
            isinstance(v, (str, bytes)) for v in array.ravel())):
        return _strings(np.array(value, dtype=object), value, op), dtypes.string
    if array.dtype == object:
        if all(isinstance(v, int) for v in np.array(value, dtype=object).ravel()):
            raise InvalidArgumentError(
                f"{op}: {value!r:.80} holds integers outside int64's range "
                f"({np.iinfo(np.int64).min}..{np.iinfo(np.int64).max}); use floats (e.g. 1e20) for numbers that large.")
        raise InvalidArgumentError(
            f"{op}: cannot make a tensor from {type(value).__name__} value {value!r:.80}: "
            f"expected numbers, bools, nested lists of them, NumPy arrays or tensors.")
    return array, python_default_dtype(array)


def _strings(array, value, op):
    """A string tensor's array: an object array of ``bytes`` (str is encoded as UTF-8), as TF's ``numpy()``."""
    array = np.array(array, dtype=object) if array.dtype != object else array.copy()
    flat = array.reshape(-1)
    for i, v in enumerate(flat):
        if isinstance(v, str):
            flat[i] = v.encode("utf-8")
        elif isinstance(v, np.bytes_):
            flat[i] = bytes(v)
        elif not isinstance(v, bytes):
            raise InvalidArgumentError(
                f"{op}: cannot make a tensor from {value!r:.80}: it mixes strings with {type(v).__name__} "
                f"values. A string tensor holds only strings (me.strings.as_string turns numbers into strings).")
    return array


def fit(array, dtype, op):
    """A new array of ``dtype`` holding ``array``'s values, or an error if a value would change.

    Creation never wraps or truncates silently: 300 does not become 44 in uint8, 1e10 does not become
    -2147483648 in int32, 2.5 does not become 2, nan has no integer, and 1e40 does not become inf in
    float32. (``me.cast`` is the op that converts with wrapping and truncation, as in TF.)
    """
    if dtype.is_string or array.dtype == object:
        if not (dtype.is_string and array.dtype == object):
            raise DTypeError(
                f"{op}: cannot make a {dtype.name} tensor from {array.dtype.name if array.dtype != object else 'string'} "
                f"values: strings and numbers do not convert into each other here. Use me.strings.to_number(s) "
                f"or me.strings.as_string(x).")
        return array.copy()
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
