"""Checking the non-tensor arguments of ops (sizes, strides, window sizes, perms, split sizes ...).

Every op checks its arguments here, before any kernel runs, so that a kernel (a numba loop
that trusts its inputs) never sees a size that would make it read or write out of bounds.
Each check raises ``InvalidArgumentError`` with one message shape::

    <op>: <argument> must be <what it needs>, got <what it got>.

Axes have their own module, ``_axes.py``.
"""
import numpy as np

from ..engine.convert import dtype_argument
from ..errors import DTypeError, InvalidArgumentError

_INT32_MAX = 2**31 - 1


def _as_python(value):
    """A Tensor (or NumPy value) as a Python int/float/list, so that ints are recognised."""
    if hasattr(value, "numpy"):
        value = value.numpy()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


def integer(value, op_name, arg, minimum=None):
    """``value`` as a Python int (not a bool or a float), at least ``minimum`` if given."""
    value = _as_python(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgumentError(f"{op_name}: {arg} must be an int, got {value!r}.")
    if minimum is not None and value < minimum:
        need = {0: "non-negative", 1: "positive"}.get(minimum, f"at least {minimum}")
        raise InvalidArgumentError(f"{op_name}: {arg} must be {need}, got {value}.")
    return value


def number(value, op_name, arg):
    """``value`` as a Python float: an int or a float (or a 0-d tensor of one), not a bool."""
    value = _as_python(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidArgumentError(f"{op_name}: {arg} must be a number, got {value!r:.80}.")
    return float(value)


def integers(values, op_name, arg, minimum=None):
    """A list of ints (one int is not a list), each checked like ``integer``."""
    values = _as_python(values)
    if not isinstance(values, (list, tuple)):
        raise InvalidArgumentError(f"{op_name}: {arg} must be a list of ints, got {values!r}.")
    values = [_as_python(v) for v in values]   # NumPy ints (np.argsort's) and int tensors count as ints
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) or (minimum is not None and v < minimum):
            need = {0: "non-negative ints", 1: "positive ints", -1: "non-negative ints (or one -1)"}.get(
                minimum, "ints")
            raise InvalidArgumentError(f"{op_name}: {arg} must be a list of {need}, got {list(values)}.")
    return tuple(values)


def int_or_ints(value, op_name, arg, minimum=None):
    """One int or a list of ints, as a tuple of ints (one int gives a tuple of one)."""
    value = _as_python(value)
    return integers([value] if isinstance(value, int) and not isinstance(value, bool) else value, op_name, arg, minimum)


def window_pair(value, op_name, arg):
    """A 2-D window size or stride: TF accepts 2, [2, 2] or [1, 2, 2, 1]. Both must be >= 1."""
    raw = _as_python(value)
    values = integers([raw] if isinstance(raw, (int, bool)) else raw, op_name, arg)
    if len(values) == 1:
        values = values * 2
    elif len(values) == 4 and values[0] == values[3] == 1:
        values = values[1:3]
    elif len(values) != 2:
        raise InvalidArgumentError(
            f"{op_name}: {arg} must be an int, [h, w] or [1, h, w, 1], got {list(values)}.")
    if min(values) < 1 or max(values) > _INT32_MAX:   # TF keeps them in int32; so do the loops' index sums
        raise InvalidArgumentError(
            f"{op_name}: {arg} must be positive (from 1 to {_INT32_MAX} on each axis), got {list(values)}.")
    return tuple(values)


def padding(value, op_name):
    name = str(value).upper()
    if name not in ("SAME", "VALID"):
        raise InvalidArgumentError(f"{op_name}: padding must be 'SAME' or 'VALID', got {value!r}.")
    return name


def permutation(perm, ndim, op_name):
    """``perm`` as a tuple that names each of the ``ndim`` axes exactly once (negatives count from the end)."""
    perm = integers(perm, op_name, "perm")
    if len(perm) != ndim or sorted(p % ndim if -ndim <= p < ndim else -1 for p in perm) != list(range(ndim)):
        raise InvalidArgumentError(
            f"{op_name}: perm {list(perm)} is not a permutation of the {ndim} axes: it must name each of "
            f"{list(range(ndim))} exactly once (negative axes count from the end).")
    return tuple(p % ndim for p in perm)


def split_sizes(num_or_size_splits, n, op_name, axis):
    """The sizes of the pieces ``split`` cuts an axis of length ``n`` into."""
    spec = _as_python(num_or_size_splits)
    if not isinstance(spec, (list, tuple)):
        num = integer(spec, op_name, "num_or_size_splits", minimum=1)
        if n % num:
            raise InvalidArgumentError(
                f"{op_name}: axis {axis} has size {n}, which does not divide into {num} equal pieces; "
                f"give a list of sizes instead.")
        return [n // num] * num
    sizes = list(integers(spec, op_name, "size_splits", minimum=-1))
    if sizes.count(-1) > 1:
        raise InvalidArgumentError(f"{op_name}: at most one size can be -1 (inferred), got {sizes}.")
    if -1 in sizes:
        rest = n - (sum(sizes) + 1)
        if rest < 0:
            raise InvalidArgumentError(
                f"{op_name}: sizes {sizes} already add up to more than the size {n} of axis {axis}.")
        sizes[sizes.index(-1)] = rest
    if sum(sizes) != n:
        raise InvalidArgumentError(
            f"{op_name}: sizes {sizes} add up to {sum(sizes)}, but axis {axis} has size {n}.")
    return sizes


def dtype(value, op_name, strings=False):
    """A dtype argument (``me.float32``, ``"int32"`` ...) as a DType. ``me.string`` only where ``strings``:
    an op that makes numbers (ones, eye, cast, one_hot, random ...) cannot make text."""
    result = dtype_argument(value, op_name)
    if result.is_string and not strings:
        raise DTypeError(f"{op_name}: dtype must be a number or bool dtype, got string. me.strings.as_string turns "
                         f"numbers into strings.")
    return result
