"""String kernels: NumPy over object arrays of Python ``bytes`` (how a string tensor holds its elements).

No numba here: a numba loop cannot take Python objects, and string ops are about text, not speed.
Each kernel maps one Python function over the elements (``_each``) or works on whole arrays.
"""
import re

import numpy as np

from ...errors import InvalidArgumentError
from ..registry import register_kernel


def _each(fn, array, dtype=object):
    """``fn`` applied to every element of ``array``: a new array of ``dtype`` and ``array``'s shape."""
    out = np.empty(array.shape, dtype)
    flat_out, flat_in = out.reshape(-1), array.reshape(-1)
    for i, v in enumerate(flat_in):
        flat_out[i] = fn(v)
    return out


@register_kernel("string_equal")
def string_equal(a, b):
    return np.asarray(np.equal(a, b), dtype=np.bool_)


@register_kernel("string_not_equal")
def string_not_equal(a, b):
    return np.asarray(np.not_equal(a, b), dtype=np.bool_)


@register_kernel("string_length")
def string_length(x, unit):
    if unit == "UTF8_CHAR":
        return _each(lambda s: len(s.decode("utf-8")), x, np.int32)
    return _each(len, x, np.int32)


@register_kernel("string_lower")
def string_lower(x, encoding):
    if encoding:       # TF: with an encoding, every letter; without, ASCII letters only
        return _each(lambda s: s.decode(encoding).lower().encode(encoding), x)
    return _each(bytes.lower, x)


@register_kernel("string_upper")
def string_upper(x, encoding):
    if encoding:
        return _each(lambda s: s.decode(encoding).upper().encode(encoding), x)
    return _each(bytes.upper, x)


@register_kernel("string_strip")
def string_strip(x):
    return _each(bytes.strip, x)


@register_kernel("string_join")
def string_join(*xs, separator):
    shape = np.broadcast_shapes(*(x.shape for x in xs))
    parts = [np.broadcast_to(x, shape).reshape(-1) for x in xs]
    out = np.empty(shape, object)
    flat = out.reshape(-1)
    for i in range(flat.size):
        flat[i] = separator.join(p[i] for p in parts)
    return out


@register_kernel("reduce_join")
def reduce_join(x, axis, separator):
    moved = np.moveaxis(x, axis, -1)
    out = np.empty(moved.shape[:-1], object)
    flat, rows = out.reshape(-1), moved.reshape(-1, moved.shape[-1])
    for i in range(flat.size):
        flat[i] = separator.join(rows[i])
    return out


@register_kernel("string_to_number")
def string_to_number(x, np_dtype):
    """Each string parsed as a number; the values are checked here, where they are known (inside
    me.function only when the graph runs)."""
    floating = np.dtype(np_dtype).kind == "f"
    info = None if floating else np.iinfo(np_dtype)

    def convert(s):
        try:
            value = float(s) if floating else int(s)
        except ValueError:
            raise InvalidArgumentError(f"strings.to_number: StringToNumberOp could not correctly convert string: "
                                       f"{s!r:.60} to {np.dtype(np_dtype).name}.") from None
        if info is not None and not info.min <= value <= info.max:
            raise InvalidArgumentError(f"strings.to_number: {s!r:.60} is out of range for {np.dtype(np_dtype).name}.")
        return value
    return _each(convert, x, np_dtype)


@register_kernel("as_string")
def as_string(x, precision, shortest):
    if x.dtype.kind == "b":
        return _each(lambda v: b"true" if v else b"false", x)
    if x.dtype.kind == "f":
        if precision >= 0:
            return _each(lambda v: f"{v:.{precision}f}".encode(), x)
        if shortest:
            return _each(lambda v: f"{v:g}".encode(), x)
        return _each(lambda v: f"{v:f}".encode(), x)
    return _each(lambda v: str(int(v)).encode(), x)


@register_kernel("regex_full_match")
def regex_full_match(x, pattern):
    compiled = re.compile(pattern.encode() if isinstance(pattern, str) else pattern)
    return _each(lambda s: compiled.fullmatch(s) is not None, x, np.bool_)


@register_kernel("regex_replace")
def regex_replace(x, pattern, rewrite, replace_global):
    compiled = re.compile(pattern.encode() if isinstance(pattern, str) else pattern)
    # TF's rewrite names groups \1; Python's re does too
    rewrite = rewrite.encode() if isinstance(rewrite, str) else rewrite
    return _each(lambda s: compiled.sub(rewrite, s, count=0 if replace_global else 1), x)
