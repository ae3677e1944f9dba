"""Array ops that only rearrange elements: reverse, roll, slice, repeat, meshgrid, sequence_mask.

Each is a composition of slicing (``getitem``), ``concat``, ``gather``, ``reshape`` and
``broadcast_to``, so each gradient is theirs: moving elements is linear, and the gradient moves
the output gradient back (adding where one element was copied to several places).
"""
import builtins

import numpy as np

from ..engine import dtypes
from ..errors import DTypeError, InvalidArgumentError, OperatorNotAllowedInGraphError
from ..engine.tensor import place
from . import _args
from ._axes import normalize_axes, normalize_axis
from ._operands import operands
from .creation import convert_to_tensor
from .elementwise import cast, less
from .indexing import gather, getitem
from .shape import broadcast_to, concat, expand_dims, reshape


def reverse(tensor, axis, name=None):
    """``tensor`` with the order of its elements reversed along each axis in the list ``axis``."""
    x = convert_to_tensor(tensor)
    axes = normalize_axes(list(_args.integers(axis, "reverse", "axis")), x.ndim, "reverse")
    if not axes:
        return x
    return getitem(x, tuple(builtins.slice(None, None, -1 if i in axes else None) for i in builtins.range(x.ndim)))


def roll(input, shift, axis, name=None):  # noqa: A002 (TF's name)
    """Elements shifted ``shift`` places along ``axis``, those pushed off the end coming back at the start.

    ``shift`` and ``axis`` are ints or lists of one length; an axis named twice is shifted by the sum.
    """
    x = convert_to_tensor(input)
    shifts, axes = _args.int_or_ints(shift, "roll", "shift"), _args.int_or_ints(axis, "roll", "axis")
    if len(shifts) != len(axes):
        raise InvalidArgumentError(
            f"roll: shift and axis must have the same length (one shift per axis), got shift {list(shifts)} "
            f"and axis {list(axes)}.")
    totals = {}
    for s, a in zip(shifts, axes):
        a = normalize_axis(a, x.ndim, "roll")
        totals[a] = totals.get(a, 0) + s
    for a, s in sorted(totals.items()):
        n = x.shape[a]
        cut = n - s % n if n else 0
        if 0 < cut < n:    # the last s % n elements move to the front
            x = concat([getitem(x, _along(a, cut, None)), getitem(x, _along(a, 0, cut))], a)
    return x


def _along(axis, start, stop):
    """The index that takes ``start:stop`` on ``axis`` and every element of the axes before it."""
    return (builtins.slice(None),) * axis + (builtins.slice(start, stop),)


def slice(input_, begin, size, name=None):  # noqa: A001 (TF's name)
    """``size[i]`` elements from ``begin[i]`` on each axis ``i``; a size of -1 takes the rest of the axis."""
    x = convert_to_tensor(input_)
    begin = _args.integers(begin, "slice", "begin", minimum=0)
    size = _args.integers(size, "slice", "size", minimum=-1)
    shape = tuple(x.shape)
    if len(begin) != len(shape) or len(size) != len(shape):
        raise InvalidArgumentError(
            f"slice: begin and size must have one entry per axis of shape {shape}, got begin {list(begin)} and "
            f"size {list(size)}.")
    index = []
    for i, (b, s, n) in enumerate(zip(begin, size, shape)):
        end = n if s == -1 else b + s
        if b > n or end > n:
            raise InvalidArgumentError(
                f"slice: begin[{i}] + size[{i}] = {b} + {s} goes past the end of axis {i} (size {n}, shape "
                f"{shape}); use size -1 to take everything from begin to the end.")
        index.append(builtins.slice(b, end))
    return getitem(x, tuple(index))


def repeat(input, repeats, axis=None, name=None):  # noqa: A002
    """Each element repeated ``repeats`` times along ``axis`` (``repeats``: one count, or one per element).

    With ``axis=None`` the input is flattened first, as in TF and NumPy.
    """
    x = convert_to_tensor(input)
    if axis is None:
        x, axis = reshape(x, [-1]), 0
    axis = normalize_axis(axis, x.ndim, "repeat")
    counts = _args.int_or_ints(repeats, "repeat", "repeats", minimum=0)
    n = x.shape[axis]
    if len(counts) not in (1, n):
        raise InvalidArgumentError(
            f"repeat: repeats must be one count or one per element of axis {axis} (size {n}, shape "
            f"{tuple(x.shape)}), got {len(counts)} counts.")
    picks = np.repeat(np.arange(n, dtype=np.int64), counts)   # the element each output position copies
    return gather(x, place(picks, x._device), axis=axis)


def meshgrid(*args, indexing="xy", name=None):
    """Coordinate grids from 1-D tensors, as TF's (and NumPy's): N inputs give N tensors of N axes.

    ``indexing="xy"`` (Cartesian) puts the first input along axis 1 and the second along axis 0;
    ``"ij"`` (matrix) keeps the order. Inputs of another rank are flattened first, as in TF.
    """
    if indexing not in ("xy", "ij"):
        raise InvalidArgumentError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}.")
    if not args:
        return []
    tensors = operands("meshgrid", *args) if len(args) > 1 else [convert_to_tensor(args[0])]
    vectors = [reshape(t, [-1]) for t in tensors]
    axes = list(builtins.range(len(vectors)))
    if indexing == "xy" and len(vectors) > 1:
        axes[0], axes[1] = 1, 0
    shape = [0] * len(vectors)
    for v, a in zip(vectors, axes):
        shape[a] = v.shape[0]
    grids = []
    for v, a in zip(vectors, axes):
        along = [1] * len(vectors)
        along[a] = -1
        grids.append(broadcast_to(reshape(v, along), shape))
    return grids


def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool_, name=None):
    """``mask[..., j] = j < lengths[...]``: a new last axis of size ``maxlen`` (default: the largest length)."""
    lengths = convert_to_tensor(lengths)
    if not lengths.dtype.is_integer:
        raise DTypeError(f"sequence_mask: lengths must be integers, got {lengths.dtype.name}.")
    dtype = _args.dtype(dtype, "sequence_mask")
    if maxlen is None:
        if getattr(lengths, "_tracer", None) is not None:
            raise OperatorNotAllowedInGraphError(
                "sequence_mask: without maxlen the mask's length is the largest length, a value me.function does "
                "not know while it traces. Give maxlen=.")
        values = lengths._host()
        maxlen = max(int(values.max()), 0) if values.size else 0
    maxlen = _args.integer(maxlen, "sequence_mask", "maxlen", minimum=0)
    positions = place(np.arange(maxlen, dtype=np.int64), lengths._device)
    mask = less(positions, expand_dims(cast(lengths, dtypes.int64), -1))
    return mask if dtype is dtypes.bool_ else cast(mask, dtype)
