"""Checking and normalising ``axis`` arguments, once, for every op that takes one."""
import numpy as np

from ..engine.abstract import unknown_rank_error
from ..errors import InvalidArgumentError


def normalize_axis(axis, ndim, op_name, arg="axis"):
    """A single axis (may be negative) -> a non-negative int, or a clear error.

    Valid axes of a rank-``ndim`` tensor are ``-ndim .. ndim - 1``; a scalar (rank 0) has none.
    """
    if ndim is None:
        raise unknown_rank_error(op_name)
    if type(axis) is int and 0 <= axis < ndim:   # the common case, checked first
        return axis
    if hasattr(axis, "numpy") and np.ndim(axis.numpy()) == 0:
        axis = axis.numpy().item()
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
        raise InvalidArgumentError(f"{op_name}: {arg} must be an int, got {axis!r}.")
    if not -ndim <= axis < ndim:
        valid = f"valid: {-ndim} to {ndim - 1}" if ndim else "a scalar has no axes"
        raise InvalidArgumentError(
            f"{op_name}: {arg} {int(axis)} is out of range for a tensor of rank {ndim} ({valid}).")
    return int(axis) % ndim


def normalize_axes(axis, ndim, op_name):
    """None -> every axis; an int or a list of ints -> a sorted tuple of distinct non-negative axes."""
    if ndim is None:
        raise unknown_rank_error(op_name)
    if axis is None:
        return tuple(range(ndim))
    if hasattr(axis, "numpy"):
        axis = axis.numpy().tolist()
    if isinstance(axis, (list, tuple)):
        axes = [normalize_axis(a, ndim, op_name) for a in axis]
        if len(set(axes)) != len(axes):
            raise InvalidArgumentError(
                f"{op_name}: axis {list(axis)} names the same axis twice (rank {ndim}); list each axis once.")
        return tuple(sorted(axes))
    return (normalize_axis(axis, ndim, op_name),)


def kept_shape(shape, axes):
    """The shape of a keepdims=True reduction: reduced axes become 1."""
    return tuple(1 if i in axes else n for i, n in enumerate(shape))
