"""``me.strings``: string tensors' own ops, as ``tf.strings`` (``length``, ``lower``, ``split``, ``to_number`` ...).

A string tensor (dtype ``me.string``) holds byte strings: Python ``bytes`` in a NumPy object array, so
``t.numpy()`` gives ``b'text'`` as TF's does; a Python ``str`` becomes its UTF-8 bytes. Its kernels are
NumPy over those objects (``kernels/cpu/strings.py``); no numba loop ever sees one.

Besides these, the ops that only move, pick or compare elements take strings too (``STRING_OPS`` below:
indexing, reshape, concat, gather, where, ``==`` ...); any other op refuses a string tensor with an error
naming it (``engine/op.py``). Strings have no gradient, so no tape ever watches one.

Where TF returns a RaggedTensor (``split`` or ``unicode_decode`` of a vector: rows of different
lengths), minieager, which has no ragged tensors, returns a Python list of 1-D tensors, one per element.
"""
import builtins

import numpy as np

from ..engine import dtypes
from ..engine.abstract import AbstractArray, broadcast, of, same
from ..engine.op import Op
from ..engine.tensor import Tensor
from ..errors import DTypeError, InvalidArgumentError
from . import indexing, shape, tensor_array
from . import elementwise as ew
from ._axes import normalize_axis
from ._operands import check_broadcast
from .creation import constant, convert_to_tensor

# The ops of other modules that take string tensors: they move, pick or compare elements and never
# compute with them (their kernels are NumPy indexing and copying).
STRING_OPS = (shape._identity, shape._stop_gradient, shape._reshape, shape._transpose, shape._broadcast_to,
              shape._tile, shape._concat, indexing._getitem, indexing._gather, indexing._gather_nd, ew._where,
              tensor_array._scatter, tensor_array._gather, tensor_array._unstack)
for _op in STRING_OPS:
    _op.strings = True


def _strings(x, op_name, arg="input"):
    """``x`` as a string tensor, or an error naming the op."""
    t = convert_to_tensor(x)
    if not t.dtype.is_string:
        raise DTypeError(f"strings.{op_name}: {arg} must be a string tensor, got {t.dtype.name}. "
                         f"me.strings.as_string(x) makes strings from numbers.")
    return t


def _op(name, shape_rule, inputs=("input",), formula=None):
    return Op(name, inputs, formula or f"{name}({', '.join(inputs)})", strings=True, shape_rule=shape_rule)


_STRING = dtypes.string.np_dtype
_length = _op("string_length", of(np.int32))
_lower = _op("string_lower", same)
_upper = _op("string_upper", same)
_strip = _op("string_strip", same)
_join = _op("string_join", broadcast, ("inputs",))
_reduce_join = _op("reduce_join",
                   lambda x, axis, separator: AbstractArray(x.shape[:axis] + x.shape[axis + 1:], x.dtype))
_to_number = _op("string_to_number", lambda x, np_dtype: AbstractArray(x.shape, np_dtype), ("string_tensor",))
_as_string = Op("as_string", ("input",), "as_string(input)",      # takes numbers: no string flag
                shape_rule=lambda x, precision, shortest: AbstractArray(x.shape, _STRING))
_regex_full_match = _op("regex_full_match", of(np.bool_))
_regex_replace = _op("regex_replace", same)


def length(input, unit="BYTE", name=None):  # noqa: A002 (TF's names)
    """The length of each string, in bytes (``unit="BYTE"``) or in Unicode characters (``"UTF8_CHAR"``)."""
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise InvalidArgumentError(f"strings.length: unit must be 'BYTE' or 'UTF8_CHAR', got {unit!r}.")
    t = _strings(input, "length")
    if unit == "UTF8_CHAR":
        _check_utf8(t, "length")
    return _length(t, unit=unit)


def lower(input, encoding="", name=None):  # noqa: A002
    """Each string in lower case: ASCII letters only, or every letter with ``encoding="utf-8"`` (as TF)."""
    t = _strings(input, "lower")
    if encoding:
        _check_utf8(t, "lower")
    return _lower(t, encoding=encoding)


def upper(input, encoding="", name=None):  # noqa: A002
    """Each string in upper case (see ``lower``)."""
    t = _strings(input, "upper")
    if encoding:
        _check_utf8(t, "upper")
    return _upper(t, encoding=encoding)


def strip(input, name=None):  # noqa: A002
    """Each string without leading and trailing whitespace."""
    return _strip(_strings(input, "strip"))


def join(inputs, separator="", name=None):
    """Elementwise: the strings of the tensors in the list ``inputs`` joined with ``separator`` (broadcasting)."""
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise InvalidArgumentError("strings.join: inputs must be a non-empty list of string tensors.")
    tensors = [_strings(x, "join", f"inputs[{i}]") for i, x in enumerate(inputs)]
    for t in tensors[1:]:
        if t._value.shape != tensors[0]._value.shape:
            check_broadcast("strings.join", tensors[0], t)
    return _join(*tensors, separator=_bytes(separator))


def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """The strings joined along ``axis`` (all of them when None): ``reduce_join(["a", "b"])`` is ``b"ab"``."""
    t = _strings(inputs, "reduce_join", "inputs")
    if axis is None:
        out = _reduce_join(shape.reshape(t, (-1,)), axis=0, separator=_bytes(separator))
        return shape.reshape(out, (1,) * t.ndim) if keepdims else out
    axis = normalize_axis(axis, t.ndim, "strings.reduce_join")
    out = _reduce_join(t, axis=axis, separator=_bytes(separator))
    return shape.expand_dims(out, axis) if keepdims else out


def split(input, sep=None, maxsplit=-1, name=None):  # noqa: A002
    """A scalar string split at ``sep`` (at runs of whitespace when None): a 1-D string tensor. For a vector,
    TF's RaggedTensor is a list here: one 1-D tensor per string."""
    t = _strings(input, "split")
    separator = None if sep is None else _bytes(sep)
    if separator == b"":
        raise InvalidArgumentError("strings.split: sep must not be empty; use me.strings.bytes_split.")

    def one(s):
        return constant(np.array(s.split(separator, maxsplit), dtype=object).reshape(-1), dtype=dtypes.string)
    return _per_string(t, one, "split")


def bytes_split(input, name=None):  # noqa: A002
    """Each string's bytes, as 1-byte strings (a list of 1-D tensors for a vector, as ``split``)."""
    t = _strings(input, "bytes_split")
    return _per_string(t, lambda s: constant(np.array([s[i:i + 1] for i in builtins.range(len(s))], dtype=object)
                                             .reshape(-1), dtype=dtypes.string), "bytes_split")


def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    """Each string's Unicode code points as int32 (a list of 1-D tensors for a vector, as ``split``)."""
    t = _strings(input, "unicode_decode")
    encoding = _encoding(input_encoding, "unicode_decode")
    if errors not in ("replace", "ignore", "strict"):
        raise InvalidArgumentError(f"strings.unicode_decode: errors must be 'replace', 'ignore' or 'strict', got {errors!r}.")

    def one(s):
        try:
            text = s.decode(encoding, errors)
        except UnicodeDecodeError as err:
            raise InvalidArgumentError(f"strings.unicode_decode: {s!r:.40} is not valid {input_encoding}: {err.reason}.") from None
        points = [replacement_char if c == "\ufffd" and errors == "replace" else ord(c) for c in text]
        return constant(np.array(points, np.int32).reshape(-1))
    return _per_string(t, one, "unicode_decode")


def unicode_split(input, input_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    """Each string cut into its characters, each a string of its encoded bytes (a list for a vector)."""
    t = _strings(input, "unicode_split")
    encoding = _encoding(input_encoding, "unicode_split")

    def one(s):
        try:
            chars = s.decode(encoding, errors)
        except UnicodeDecodeError as err:
            raise InvalidArgumentError(f"strings.unicode_split: {s!r:.40} is not valid {input_encoding}: {err.reason}.") from None
        return constant(np.array([c.encode(encoding) for c in chars], dtype=object).reshape(-1), dtype=dtypes.string)
    return _per_string(t, one, "unicode_split")


def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    """``tf.io.decode_raw``: each string's bytes read as numbers of ``out_type`` (a new last axis); every
    string must have the same length, a multiple of the dtype's size."""
    t = _strings(input_bytes, "decode_raw", "input_bytes")
    out = dtypes.as_dtype(out_type)
    if out.is_string:
        raise InvalidArgumentError("io.decode_raw: out_type must be a number dtype.")
    width = out.np_dtype.itemsize
    lengths = {len(s) for s in t._value.reshape(-1)}
    if fixed_length is not None:
        lengths = {int(fixed_length)}
    if len(lengths) > 1 or any(n % width for n in lengths):
        raise InvalidArgumentError(
            f"io.decode_raw: every string needs the same length, a multiple of {width} bytes for {out.name}; "
            f"got lengths {sorted(lengths)}.")
    np_type = out.np_dtype.newbyteorder("<" if little_endian else ">")
    n = lengths.pop() // width if lengths else 0
    rows = [np.frombuffer(s[:n * width], dtype=np_type, count=n) for s in t._value.reshape(-1)]
    array = np.array(rows, dtype=out.np_dtype).reshape(tuple(t.shape) + (n,))
    return constant(array)


def unicode_encode(input, output_encoding, name=None):  # noqa: A002
    """int32 code points (the last axis) as strings: the inverse of ``unicode_decode`` on a 1-D tensor."""
    t = convert_to_tensor(input)
    if not t.dtype.is_integer or t.ndim < 1:
        raise InvalidArgumentError("strings.unicode_encode: input must be integer code points of rank >= 1.")
    encoding = _encoding(output_encoding, "unicode_encode")
    rows = t.numpy().reshape(-1, t.shape[-1]) if t.shape[-1] else np.zeros((int(np.prod(t.shape[:-1])), 0), int)
    out = np.empty(len(rows), object)
    for i, row in enumerate(rows):
        out[i] = "".join(chr(int(c)) for c in row).encode(encoding)
    return constant(out.reshape(tuple(t.shape[:-1])), dtype=dtypes.string)


def to_number(string_tensor, out_type=dtypes.float32, name=None):
    """Each string parsed as a number of ``out_type`` (float32 by default), as TF's ``to_number``."""
    t = _strings(string_tensor, "to_number", "string_tensor")
    out = dtypes.as_dtype(out_type)
    if not (out.is_floating or out.is_integer):
        raise InvalidArgumentError(f"strings.to_number: out_type must be a number dtype, got {out.name}.")
    return _to_number(t, np_dtype=out.np_dtype)     # the kernel checks each value (known only when it runs)


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):  # noqa: A002
    """Numbers (or bools) as strings: ``as_string(3.5)`` is ``b"3.500000"``, as TF (``precision=`` digits after
    the point, ``shortest=True`` for the shortest form)."""
    t = convert_to_tensor(input)
    if t.dtype.is_string:
        return t
    if scientific or width != -1 or fill:
        raise InvalidArgumentError("strings.as_string: scientific, width and fill are not supported; format "
                                   "with Python on t.numpy() for those.")
    return _as_string(t, precision=int(precision), shortest=bool(shortest))


def format(template, inputs, placeholder="{}", summarize=3, name=None):  # noqa: A001 (TF's name)
    """A scalar string: ``template`` with each ``placeholder`` replaced by the next tensor of ``inputs``, printed
    as NumPy prints its value (``format("x = {}", [me.constant([1, 2])])`` is ``b"x = [1 2]"``)."""
    tensors = [convert_to_tensor(x) for x in (inputs if isinstance(inputs, (list, tuple)) else [inputs])]
    pieces = template.split(placeholder)
    if len(pieces) - 1 != len(tensors):
        raise InvalidArgumentError(
            f"strings.format: the template has {len(pieces) - 1} placeholders {placeholder!r} but {len(tensors)} "
            f"inputs were given.")
    text = pieces[0]
    for t, piece in zip(tensors, pieces[1:]):
        value = t._host()
        if t.dtype.is_string:      # as TF: each string in double quotes, ["a" "bc"]
            quoted = {"all": lambda b: '"' + b.decode("utf-8", "replace") + '"'}
            shown = np.array2string(value, formatter=quoted) if value.ndim else quoted["all"](value[()])
        else:
            shown = str(value) if value.ndim else str(value[()])
        text += shown + piece
    return constant(text, dtype=dtypes.string)


def regex_full_match(input, pattern, name=None):  # noqa: A002
    """Whether each whole string matches the regular expression ``pattern`` (Python's re syntax, close to RE2)."""
    t = _strings(input, "regex_full_match")
    return _regex_full_match(t, pattern=_pattern(pattern, "regex_full_match"))


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """Each string with the matches of ``pattern`` replaced by ``rewrite`` (``\\1`` names a group)."""
    t = _strings(input, "regex_replace")
    return _regex_replace(t, pattern=_pattern(pattern, "regex_replace"), rewrite=_bytes(rewrite),
                          replace_global=bool(replace_global))


# ---- helpers -------------------------------------------------------------------------------------
def _bytes(value):
    if isinstance(value, Tensor):
        value = value.numpy()
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


def _pattern(pattern, op_name):
    import re
    pattern = _bytes(pattern)
    try:
        re.compile(pattern)
    except re.error as err:
        raise InvalidArgumentError(f"strings.{op_name}: invalid regular expression {pattern!r}: {err}.") from None
    return pattern


def _encoding(name, op_name):
    normal = str(name).upper().replace("-", "")
    known = {"UTF8": "utf-8", "UTF16BE": "utf-16-be", "UTF32BE": "utf-32-be"}
    if normal not in known:
        raise InvalidArgumentError(f"strings.{op_name}: encoding must be 'UTF-8', 'UTF-16-BE' or 'UTF-32-BE', got {name!r}.")
    return known[normal]


def _check_utf8(t, op_name):
    for s in t._value.reshape(-1):
        try:
            s.decode("utf-8")
        except UnicodeDecodeError as err:
            raise InvalidArgumentError(f"strings.{op_name}: {s!r:.40} is not valid UTF-8 ({err.reason}).") from None


def _per_string(t, one, op_name):
    """``one(bytes)`` for a scalar; a list of ``one`` per element for a vector (TF: a RaggedTensor)."""
    if t.ndim == 0:
        return one(t._value[()])
    if t.ndim == 1:
        return [one(s) for s in t._value]
    raise InvalidArgumentError(f"strings.{op_name}: input must be a scalar or a vector of strings, got shape "
                               f"{tuple(t.shape)}.")


def __getattr__(name):
    from .._hints import missing
    raise missing(__name__, name)
