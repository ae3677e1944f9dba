"""Plain data across the sandbox's wall: JSON with arrays as base64 .npy, never pickles.

What crosses: None, bools, ints, floats (NaN and infinities included), strings, lists (tuples
become lists), dicts with string keys, and NumPy arrays of numbers or bools (a minieager Tensor
or Variable becomes its array). ``encode`` runs on the learner's side and refuses anything else;
``decode`` runs in the grader and rebuilds only those types, so a crafted document cannot make
the grader build an object of its choosing. Arrays load with ``allow_pickle=False``.
"""
import base64
import io
import json

import numpy as np

ARRAY_KEY = "__ndarray__"
_ARRAY_KINDS = "biufc"      # bool, signed, unsigned, float, complex: numbers only, never objects
MAX_DEPTH = 32


class WireError(ValueError):
    """A value that cannot cross the sandbox's wall (its type is not plain data)."""


def to_plain(value, depth=0):
    """``value`` as JSON-ready plain data; raises WireError for anything that is not plain data."""
    if depth > MAX_DEPTH:
        raise WireError(f"a value nested more than {MAX_DEPTH} levels deep")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    if isinstance(value, np.generic):
        return to_plain(value.item(), depth + 1) if value.dtype.kind in _ARRAY_KINDS else _refuse(value)
    if hasattr(value, "numpy") and callable(value.numpy) and not isinstance(value, np.ndarray):
        value = np.asarray(value.numpy())       # a minieager Tensor or Variable
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in _ARRAY_KINDS:
            raise WireError(f"an array of dtype {value.dtype} (only numbers and bools cross)")
        buffer = io.BytesIO()
        np.save(buffer, value.copy(order="C"), allow_pickle=False)   # (ascontiguousarray makes a 0-d array 1-d)
        return {ARRAY_KEY: base64.b64encode(buffer.getvalue()).decode("ascii")}
    if isinstance(value, (list, tuple)):
        return [to_plain(v, depth + 1) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise WireError("a dict whose keys are not all strings")
        if ARRAY_KEY in value:
            raise WireError(f"a dict with the reserved key {ARRAY_KEY!r}")
        return {k: to_plain(v, depth + 1) for k, v in value.items()}
    return _refuse(value)


def _refuse(value):
    raise WireError(f"a {type(value).__name__} (only numbers, strings, lists, dicts and arrays cross)")


def from_plain(data, depth=0):
    """Rebuild what ``to_plain`` made: lists stay lists, arrays come back as NumPy arrays."""
    if depth > MAX_DEPTH:
        raise WireError(f"a value nested more than {MAX_DEPTH} levels deep")
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):
        return [from_plain(v, depth + 1) for v in data]
    if isinstance(data, dict):
        if set(data) == {ARRAY_KEY} and isinstance(data[ARRAY_KEY], str):
            array = np.load(io.BytesIO(base64.b64decode(data[ARRAY_KEY], validate=True)), allow_pickle=False)
            if array.dtype.kind not in _ARRAY_KINDS:
                raise WireError(f"an array of dtype {array.dtype}")
            return array
        return {str(k): from_plain(v, depth + 1) for k, v in data.items()}
    raise WireError(f"unexpected JSON value of type {type(data).__name__}")


def dumps(value):
    return json.dumps(to_plain(value))


def loads(text):
    return from_plain(json.loads(text))


def roundtrip(value):
    """What the grader would receive for ``value``: check() uses it so learners see the same thing."""
    return from_plain(json.loads(json.dumps(to_plain(value))))
