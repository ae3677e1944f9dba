"""Layout kernels: ops that only move, copy or pick elements.

There is no arithmetic here for a loop to teach, and NumPy already does each of these with
one call at memory speed, so these kernels are thin NumPy wrappers. Tensors are immutable,
so a kernel may return a view of its input instead of a copy (``identity``, ``reshape``);
every array handed to a numba kernel is made contiguous where that kernel needs it.
"""
import numpy as np

from ..registry import register_kernel


@register_kernel("identity")
@register_kernel("stop_gradient")
def identity(x):
    return x


@register_kernel("cast")
def cast(x, dtype):
    return x.astype(dtype.np_dtype)


@register_kernel("reshape")
def reshape(x, shape):
    return x.reshape(shape)


@register_kernel("transpose")
def transpose(x, perm):
    return np.asarray(np.transpose(x, perm), order="C")


@register_kernel("broadcast_to")
def broadcast_to(x, shape):
    return np.asarray(np.broadcast_to(x, shape), order="C")


@register_kernel("tile")
def tile(x, multiples):
    return np.tile(x, multiples)


@register_kernel("concat")
def concat(*xs, axis):
    return np.concatenate(xs, axis=axis)


@register_kernel("pad")
def pad(x, paddings, constant_values):
    return np.pad(x, paddings, mode="constant", constant_values=constant_values)


@register_kernel("getitem")
def getitem(x, index):
    return np.asarray(x[index], order="C")


@register_kernel("getitem_grad")
def getitem_grad(dy, index, shape):
    """Zeros of the input's shape with ``dy`` added where ``x[index]`` read (np.add.at adds repeats)."""
    grad = np.zeros(shape, dy.dtype)
    np.add.at(grad, index, dy)
    return grad


@register_kernel("gather")
def gather(params, indices, axis):
    return np.take(params, indices, axis=axis)


@register_kernel("gather_grad")
def gather_grad(dy, indices, axis, shape):
    grad = np.zeros(shape, dy.dtype)
    moved = np.moveaxis(grad, axis, 0)            # a view: writes land in grad
    dy_moved = np.moveaxis(dy, tuple(range(axis, axis + indices.ndim)), tuple(range(indices.ndim)))
    np.add.at(moved, indices, dy_moved)
    return grad


@register_kernel("one_hot")
def one_hot(indices, depth, on_value, off_value, dtype):
    out = np.full(indices.shape + (depth,), off_value, dtype.np_dtype)
    valid = (indices >= 0) & (indices < depth)    # out-of-range indices give all-off rows, as in TF
    out[valid, indices[valid]] = on_value
    return out


@register_kernel("where_indices")
def where_indices(cond):
    return np.argwhere(cond).astype(np.int64)
