"""Checking and normalising ``axis`` arguments, once, for every op that takes one."""
import numpy as np

from ..engine.errors import InvalidArgumentError


def normalize_axis(axis, ndim, op_name):
    """A single axis (may be negative) -> a non-negative int, or a clear error."""
    if type(axis) is int and 0 <= axis < ndim:   # the common case, checked first
        return axis
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
        if hasattr(axis, "numpy"):
            axis = int(axis)
        else:
            raise InvalidArgumentError(f"{op_name}: axis must be an int, got {axis!r}.")
    if not -ndim <= axis < max(ndim, 1):
        raise InvalidArgumentError(
            f"{op_name}: axis {axis} is out of range for a tensor of rank {ndim} "
            f"(valid: {-ndim} to {ndim - 1}).")
    return int(axis) % max(ndim, 1)


def normalize_axes(axis, ndim, op_name):
    """None -> every axis; an int or a list of ints -> a sorted tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if hasattr(axis, "numpy"):
        axis = axis.numpy().tolist()
    if isinstance(axis, (list, tuple)):
        axes = tuple(sorted({normalize_axis(a, ndim, op_name) for a in axis}))
    else:
        axes = (normalize_axis(axis, ndim, op_name),)
    return axes


def kept_shape(shape, axes):
    """The shape of a keepdims=True reduction: reduced axes become 1."""
    return tuple(1 if i in axes else n for i, n in enumerate(shape))
