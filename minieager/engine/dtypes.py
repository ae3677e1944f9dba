"""dtypes: the element types a Tensor can hold, and how they mix.

A ``DType`` wraps a NumPy dtype and prints like TensorFlow's (``float32``).

Dtypes never mix silently: two tensors of different dtypes in one op are an error, as in
TensorFlow, and a Python value next to a tensor takes the tensor's dtype if it fits
(``ops/_operands.py`` has the rules). ``wider`` only picks the dtype an error message
suggests casting to, in this order::

    bool < uint8 < int32 < int64 < float16 < float32 < float64

the later of the two, except int64 with float16, where float32 (float16 cannot hold
int64's range).
"""
import numpy as np

from ..errors import InvalidArgumentError


class DType:
    """An element type. Compare with ``==`` to a DType, a NumPy dtype or a name."""

    __slots__ = ("name", "np_dtype", "is_floating", "is_integer", "is_bool", "is_string", "min", "max")

    def __init__(self, name, np_dtype):
        self.name = name
        self.np_dtype = np.dtype(np_dtype)
        # Plain attributes, not properties: the tape asks "is this floating?" for every recorded tensor.
        self.is_floating = self.np_dtype.kind == "f"
        self.is_integer = self.np_dtype.kind in "iu"
        self.is_bool = self.np_dtype.kind == "b"
        self.is_string = self.np_dtype.kind == "O"     # a string tensor holds Python bytes objects, as TF's numpy()
        # The range as plain Python numbers: converting a Python value next to a tensor checks it each time.
        info = np.finfo(self.np_dtype) if self.is_floating else np.iinfo(self.np_dtype) if self.is_integer else None
        self.min, self.max = (None, None) if info is None else (info.min.item() if self.is_floating else int(info.min),
                                                               info.max.item() if self.is_floating else int(info.max))

    @property
    def as_numpy_dtype(self):
        return self.np_dtype.type

    def __eq__(self, other):
        try:
            return self is as_dtype(other)
        except (TypeError, InvalidArgumentError):
            return NotImplemented

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f"me.{self.name}"

    def __str__(self):
        return f"<dtype: '{self.name}'>"      # as TF prints a dtype (``print(x.dtype)``); ``.name`` is "float32"

    def __reduce__(self):
        return (as_dtype, (self.name,))


float16 = DType("float16", np.float16)
float32 = DType("float32", np.float32)
float64 = DType("float64", np.float64)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
bool_ = DType("bool", np.bool_)

# Strings: byte strings (UTF-8 for text), held as a NumPy object array of Python ``bytes``. Only the ops
# that move or compare elements, and me.strings, take them (see engine/op.py); they are not numbers,
# so they are left out of ALL and of ``wider``.
string = DType("string", object)

ALL = (bool_, uint8, int32, int64, float16, float32, float64)
_BY_NAME = {d.name: d for d in ALL + (string,)}
BY_NUMPY = {d.np_dtype: d for d in ALL + (string,)}   # the lookup every new tensor does (tensor.wrap)
_RANK = {d: i for i, d in enumerate(ALL)}

# NumPy dtypes we accept by converting to the nearest supported one.
_NUMPY_FALLBACK = {
    np.dtype(np.int8): int32, np.dtype(np.int16): int32, np.dtype(np.uint16): int32,
    np.dtype(np.uint32): int64, np.dtype(np.uint64): int64,
}


def from_numpy(np_dtype):
    """The DType of a NumPy dtype (the fast path every new tensor takes)."""
    found = BY_NUMPY.get(np_dtype)
    return found if found is not None else as_dtype(np_dtype)


def as_dtype(value):
    """Turn a DType, NumPy dtype, Python type or name (``"float32"``) into a DType."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        try:
            return _BY_NAME[value]
        except KeyError:
            raise InvalidArgumentError(
                f"Unknown dtype name {value!r}. Known dtypes: {', '.join(_BY_NAME)}.") from None
    if value is float:
        return float32
    if value is int:
        return int32
    if value is bool:
        return bool_
    if value is str or value is bytes:
        return string
    try:
        np_dtype = np.dtype(value)
    except TypeError:
        raise InvalidArgumentError(
            f"Cannot interpret {value!r} as a dtype. Use me.float32, me.int32, ... "
            f"or one of the names {', '.join(_BY_NAME)}.") from None
    if np_dtype in BY_NUMPY:
        return BY_NUMPY[np_dtype]
    if np_dtype in _NUMPY_FALLBACK:
        return _NUMPY_FALLBACK[np_dtype]
    raise InvalidArgumentError(
        f"dtype {np_dtype} is not supported by minieager. Supported: {', '.join(_BY_NAME)}.")


def wider(a, b):
    """The dtype to suggest casting ``a`` and ``b`` to (see the order above)."""
    if a is b:
        return a
    if a is string or b is string:    # no number dtype holds text (nor the other way round)
        return string
    lo, hi = sorted((a, b), key=_RANK.__getitem__)
    if lo is int64 and hi is float16:
        return float32
    return hi
