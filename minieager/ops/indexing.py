"""Indexing and gathering: ``t[1:, ::2]``, ``t[mask]``, ``me.gather``, ``me.one_hot``.

Reading some elements is linear, so the gradient is a "scatter": zeros of the input's shape
with the output gradient added back at the positions that were read (added, because an
index can appear twice).
"""
import numpy as np

from ..engine.errors import DTypeError, InvalidArgumentError
from ..engine.op import Op
from ..engine.tensor import Tensor
from . import _args
from ._axes import normalize_axis
from .creation import convert_to_tensor

newaxis = None


def _normalize_index(index, shape, op_name="getitem"):
    """NumPy-style index -> a tuple NumPy understands, with tensors turned into arrays."""
    if not isinstance(index, tuple):
        index = (index,)
    out = []
    for item in index:
        if isinstance(item, slice) and item.step is not None and _as_int(item.step) == 0:
            raise InvalidArgumentError(f"{op_name}: a slice step must not be 0, got {item} (tensor shape {tuple(shape)}).")
        if isinstance(item, Tensor):
            item = item._value
            if item.ndim == 0 and item.dtype.kind in "iu":
                item = int(item)
        elif isinstance(item, list):
            try:
                item = np.asarray(item)
            except ValueError:
                raise InvalidArgumentError(f"{op_name}: an index list must be rectangular, got {item!r:.80}.") from None
        if isinstance(item, np.ndarray) and item.dtype.kind not in "iub":
            raise InvalidArgumentError(f"{op_name}: index arrays must be ints or bools, got {item.dtype}.")
        out.append(item)
    index = tuple(out)
    try:
        np.empty(shape, dtype=np.bool_)[index]   # validate against the shape, cheaply (no data)
    except (IndexError, TypeError, ValueError, OverflowError) as err:
        raise InvalidArgumentError(f"{op_name}: {err} (tensor shape {tuple(shape)}).") from None
    return index


def _as_int(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _getitem_vjp(dy, x, out, index):
    return (_getitem_grad(dy, index=index, shape=tuple(x.shape)),)


_getitem = Op("getitem", ("x",), "x[index]", ("dy scattered back to the indexed positions",), vjp=_getitem_vjp)
_getitem_grad = Op("getitem_grad", ("dy",), "scatter(dy, index)", ("ddy[index]",),
                   vjp=lambda ddy, dy, out, index, shape: (_getitem(ddy, index=index),))


def getitem(tensor, index):
    """``tensor[index]`` with ints, slices (steps, negatives), ``...``, ``None``, masks and int arrays."""
    x = convert_to_tensor(tensor)
    return _getitem(x, index=_normalize_index(index, x._value.shape))


def boolean_mask(tensor, mask, name=None):
    """The elements (or rows) of ``tensor`` where the bool ``mask`` is True; mask's shape is a prefix of tensor's."""
    x, mask = convert_to_tensor(tensor), convert_to_tensor(mask)
    if not mask.dtype.is_bool:
        raise DTypeError(f"boolean_mask: mask must be a bool tensor, got {mask.dtype.name}. Compare first, e.g. x > 0.")
    if mask.ndim == 0 or tuple(x.shape[:mask.ndim]) != tuple(mask.shape):
        raise InvalidArgumentError(
            f"boolean_mask: mask's shape must match the first axes of the tensor's shape, got mask "
            f"{tuple(mask.shape)} for tensor {tuple(x.shape)}.")
    return _getitem(x, index=_normalize_index(mask, x._value.shape, "boolean_mask"))


def _gather_vjp(dy, params, indices, out, axis):
    return (_gather_grad(dy, indices, axis=axis, shape=tuple(params.shape)), None)


_gather = Op("gather", ("params", "indices"), "gather(params, indices)", ("dy added at the gathered rows", None),
             vjp=_gather_vjp)
_gather_grad = Op("gather_grad", ("dy", "indices"), "scatter_add(dy, indices)", ("gather(ddy, indices)", None),
                  vjp=lambda ddy, dy, indices, out, axis, shape: (_gather(ddy, indices, axis=axis), None))


def gather(params, indices, axis=0, name=None):
    """Rows (or slices along ``axis``) of ``params`` picked by integer ``indices``."""
    params = convert_to_tensor(params)
    try:
        indices = convert_to_tensor(indices)
    except InvalidArgumentError as err:
        raise InvalidArgumentError(f"gather: indices: {err}") from None
    if not indices.dtype.is_integer:
        raise DTypeError(f"gather: indices must be integers, got {indices.dtype.name}.")
    axis = normalize_axis(axis, params.ndim, "gather")
    n = params.shape[axis]
    values = indices._value
    if values.size and (values.min() < -n or values.max() >= n):
        bad = values[(values < -n) | (values >= n)].flat[0]
        raise InvalidArgumentError(
            f"gather: index {bad} is out of range for axis {axis} of size {n} (params shape {tuple(params.shape)}).")
    return _gather(params, indices, axis=axis)


_one_hot = Op("one_hot", ("indices",))


def one_hot(indices, depth, on_value=1.0, off_value=0.0, axis=-1, dtype=None, name=None):
    """A new last axis of size ``depth``: ``on_value`` at each index, ``off_value`` elsewhere."""
    from ..engine import dtypes
    indices = convert_to_tensor(indices)
    if not indices.dtype.is_integer:
        raise DTypeError(f"one_hot: indices must be integers, got {indices.dtype.name}.")
    dtype = _args.dtype(dtype, "one_hot") if dtype is not None else dtypes.float32
    depth = _args.integer(depth, "one_hot", "depth", minimum=0)
    result = _one_hot(indices, depth=depth, on_value=on_value, off_value=off_value, dtype=dtype)
    if axis not in (-1, indices.ndim):
        from .shape import transpose
        perm = list(range(indices.ndim))
        perm.insert(normalize_axis(axis, indices.ndim + 1, "one_hot"), indices.ndim)
        result = transpose(result, perm)
    return result


_where_indices = Op("where_indices", ("cond",))


def where_indices(condition):
    """The coordinates of the True elements, shape (n, rank), int64 (``me.where(cond)``)."""
    if not condition.dtype.is_bool:
        raise DTypeError(f"where: condition must be a bool tensor, got {condition.dtype.name}.")
    return _where_indices(condition)
