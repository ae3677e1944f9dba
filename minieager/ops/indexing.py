"""Indexing and gathering: ``t[1:, ::2]``, ``t[mask]``, ``me.gather``, ``me.one_hot``.

Reading some elements is linear, so the gradient is a "scatter": zeros of the input's shape
with the output gradient added back at the positions that were read (added, because an
index can appear twice).
"""
from typing import NamedTuple

import numpy as np

from ..engine import dtypes
from ..engine.abstract import AbstractArray
from ..engine.device import to_host
from ..engine.op import Op
from ..engine.tensor import Tensor, place
from ..errors import DTypeError, InvalidArgumentError, OperatorNotAllowedInGraphError
from . import _args
from ._axes import normalize_axis
from ._operands import check_not_bool, operands
from .creation import _shape_tuple, convert_to_tensor, zeros_like
from .elementwise import equal, where
from .shape import reshape, transpose

newaxis = None


class IndexedSlices(NamedTuple):
    """Rows of a larger tensor: ``values[i]`` is row ``indices[i]`` (``Variable.scatter_update`` takes one)."""
    values: object
    indices: object
    dense_shape: object = None


def _normalize_index(index, shape, op_name="getitem"):
    """NumPy-style index -> a tuple NumPy understands, with tensors turned into arrays."""
    if not isinstance(index, tuple):
        index = (index,)
    out = []
    for item in index:
        if isinstance(item, slice) and item.step is not None and _as_int(item.step) == 0:
            raise InvalidArgumentError(f"{op_name}: a slice step must not be 0, got {item} (tensor shape {tuple(shape)}).")
        if isinstance(item, Tensor):
            if getattr(item, "_tracer", None) is not None:   # a symbolic tensor of me.function: no value yet
                raise OperatorNotAllowedInGraphError(
                    "getitem: indexing with a tensor needs its value, but inside me.function the index is a "
                    "symbolic tensor (it has a value only when the graph runs). Use me.gather(x, indices) instead.")
            item = item._host()
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
        if None in shape:      # a dimension known when the graph runs: a large stand-in now; the kernel checks then
            big = int(2 ** (60 / shape.count(None)))           # (the stand-ins' product must fit an int64)
            probe = np.lib.stride_tricks.as_strided(np.empty(1, np.bool_), [big if d is None else d for d in shape],
                                                    [0] * len(shape))
        else:
            probe = np.empty(shape, dtype=np.bool_)
        probe[index]           # validate against the shape, cheaply (no data)
    except (IndexError, TypeError, ValueError, OverflowError) as err:
        raise InvalidArgumentError(f"{op_name}: {err} (tensor shape {tuple(shape)}).") from None
    return index


def _as_int(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def scatter_shape(x):
    """How a gradient that scatters into zeros of ``x``'s shape learns that shape: ``((), shape)``, the
    shape as an attribute, when every dimension is known; ``((x,), None)`` when one is known only
    when the graph runs (``None`` while tracing): then ``x`` is one more input of the gradient op (its
    ``like``), whose shape the kernel reads at run time."""
    shape = tuple(x.shape)
    return ((), shape) if None not in shape else ((x,), None)


def _scatter_rule(dy, like, shape):
    """The shape rule of such a gradient: zeros of ``shape``, or of ``like``'s shape."""
    return AbstractArray(like[0].shape if like else shape, dy.dtype)


def _getitem_vjp(dy, x, out, index):
    like, shape = scatter_shape(x)
    return (_getitem_grad(dy, *like, index=index, shape=shape),)


def _getitem_rule(x, index):
    """``x[index]``'s shape: NumPy's rules, found by indexing an array of x's shape that holds no data.
    With a dimension unknown until the graph runs, basic indexing (ints, slices, None, ...) only."""
    if None not in x.shape:
        probe = np.lib.stride_tricks.as_strided(np.zeros(1, x.dtype), x.shape, (0,) * x.ndim)
        return AbstractArray(probe[index].shape, x.dtype)
    shape, axes = [], iter(x.shape)
    items = list(index)
    if Ellipsis in [i for i in items if i is Ellipsis]:
        at = next(k for k, i in enumerate(items) if i is Ellipsis)
        named = sum(1 for i in items if i is not None and i is not Ellipsis)
        items[at:at + 1] = [slice(None)] * (x.ndim - named)
    for item in items:
        if item is None:
            shape.append(1)
        elif isinstance(item, slice):
            n = next(axes)
            shape.append(None if n is None else len(range(*item.indices(n))))
        elif isinstance(item, (int, np.integer)):
            next(axes)
        else:
            raise InvalidArgumentError(
                f"getitem: indexing with an array is not supported on a tensor whose shape {tuple(x.shape)} is "
                f"known only when the graph runs; use me.gather or me.boolean_mask.")
    return AbstractArray(tuple(shape) + tuple(axes), x.dtype)


_getitem = Op("getitem", ("x",), "x[index]", ("dy scattered back to the indexed positions",), vjp=_getitem_vjp,
              shape_rule=_getitem_rule)
_getitem_grad = Op("getitem_grad", ("dy",), "scatter(dy, index)", ("ddy[index]",),
                   vjp=lambda ddy, dy, *like, out, index, shape: (_getitem(ddy, index=index),) + (None,) * len(like),
                   shape_rule=lambda dy, *like, index, shape: _scatter_rule(dy, like, shape))


def getitem(tensor, index):
    """``tensor[index]`` with ints, slices (steps, negatives), ``...``, ``None``, masks and int arrays."""
    x = convert_to_tensor(tensor)
    items = index if isinstance(index, tuple) else (index,)
    if any(_symbolic_int(item) for item in items):
        return _getitem_at_symbolic(x, items)
    return _getitem(x, index=_normalize_index(index, x._value.shape))


def _symbolic_int(item):
    """A scalar int tensor of me.function's trace: an index known only when the graph runs."""
    return (isinstance(item, Tensor) and getattr(item, "_tracer", None) is not None and item.dtype.is_integer
            and item.ndim == 0)


def _getitem_at_symbolic(x, items):
    """``x[i]``, ``x[:, i]`` ... with ``i`` a symbolic int scalar (a graph loop's counter): the other items
    index as usual, then each symbolic one is a ``gather`` along its axis (checked when the graph runs)."""
    if any(item is None or item is Ellipsis or not (isinstance(item, (int, np.integer, slice)) or _symbolic_int(item))
           for item in items):
        raise OperatorNotAllowedInGraphError(
            "getitem: inside me.function a tensor index can be combined only with ints and slices (x[i], "
            "x[:, i]); for other indexing use me.gather(x, indices).")
    static = tuple(slice(None) if _symbolic_int(item) else item for item in items)
    out = x if all(item == slice(None) for item in static) else getitem(x, static)
    dropped = [k for k, item in enumerate(items) if isinstance(item, (int, np.integer))]
    for k in reversed([k for k, item in enumerate(items) if _symbolic_int(item)]):   # the last first: axes stay put
        out = gather(out, items[k], axis=k - sum(1 for d in dropped if d < k))
    return out


def _boolean_mask_rule(x, mask):
    """The True elements (rows) of x: how many is known only when the graph runs."""
    return AbstractArray((None,) + x.shape[mask.ndim:], x.dtype)


_boolean_mask_grad = Op("boolean_mask_grad", ("dy", "mask"), "zeros with dy at the True places of mask",
                        ("ddy[mask]", None), vjp=lambda ddy, dy, mask, out: (_boolean_mask(ddy, mask), None),
                        shape_rule=lambda dy, mask: AbstractArray(mask.shape + dy.shape[1:], dy.dtype))
_boolean_mask = Op("boolean_mask", ("x", "mask"), "x[mask]", ("dy put back at the True places of mask", None),
                   vjp=lambda dy, x, mask, out: (_boolean_mask_grad(dy, mask), None), shape_rule=_boolean_mask_rule)


def boolean_mask(tensor, mask, name=None):
    """The elements (or rows) of ``tensor`` where the bool ``mask`` is True; mask's shape is a prefix of tensor's."""
    x, mask = convert_to_tensor(tensor), convert_to_tensor(mask)
    if not mask.dtype.is_bool:
        raise DTypeError(f"boolean_mask: mask must be a bool tensor, got {mask.dtype.name}. Compare first, e.g. x > 0.")
    if mask.ndim == 0 or tuple(x.shape[:mask.ndim]) != tuple(mask.shape):
        raise InvalidArgumentError(
            f"boolean_mask: mask's shape must match the first axes of the tensor's shape, got mask "
            f"{tuple(mask.shape)} for tensor {tuple(x.shape)}.")
    return _boolean_mask(x, mask)


def _gather_vjp(dy, params, indices, out, axis):
    like, shape = scatter_shape(params)
    return (_gather_grad(dy, indices, *like, axis=axis, shape=shape), None)


def _gather_rule(params, indices, axis):
    """params' axis replaced by the indices' shape."""
    return AbstractArray(params.shape[:axis] + indices.shape + params.shape[axis + 1:], params.dtype)


def _check_gather(params, indices, axis):
    """A value check: every index picks a slice that exists along ``axis`` (negatives from the end)."""
    n, values = params.shape[axis], to_host(indices)
    if values.size and (values.min() < -n or values.max() >= n):
        bad = values[(values < -n) | (values >= n)].flat[0]
        raise InvalidArgumentError(
            f"gather: index {bad} is out of range for axis {axis} of size {n} (params shape {tuple(params.shape)}).")


_gather = Op("gather", ("params", "indices"), "gather(params, indices)", ("dy added at the gathered rows", None),
             vjp=_gather_vjp, shape_rule=_gather_rule, check=_check_gather)
_gather_grad = Op("gather_grad", ("dy", "indices"), "scatter_add(dy, indices)", ("gather(ddy, indices)", None),
                  vjp=lambda ddy, dy, indices, *like, out, axis, shape: (
                      (_gather(ddy, indices, axis=axis), None) + (None,) * len(like)),
                  shape_rule=lambda dy, indices, *like, axis, shape: _scatter_rule(dy, like, shape))


def gather(params, indices, axis=0, name=None):
    """Rows (or slices along ``axis``) of ``params`` picked by integer ``indices``."""
    return _checked_gather(params, indices, axis, "gather")


def _checked_gather(params, indices, axis, op_name):
    """``gather``, with its checks' errors naming ``op_name`` (gather, or embedding_lookup that calls it)."""
    params = convert_to_tensor(params)
    try:
        indices = convert_to_tensor(indices)
    except InvalidArgumentError as err:
        raise InvalidArgumentError(f"{op_name}: indices: {err}") from None
    if not indices.dtype.is_integer:
        raise DTypeError(f"{op_name}: indices must be integers, got {indices.dtype.name}.")
    axis = normalize_axis(axis, params.ndim, op_name)
    n = params.shape[axis]
    if getattr(indices, "_tracer", None) is None and n is not None:   # eagerly: the message names the op called
        values = indices._host()
        if values.size and (values.min() < -n or values.max() >= n):
            bad = values[(values < -n) | (values >= n)].flat[0]
            raise InvalidArgumentError(
                f"{op_name}: index {bad} is out of range for axis {axis} of size {n} (params shape "
                f"{tuple(params.shape)}).")
    return _gather(params, indices, axis=axis)     # and the kernel's check, on every run of a graph


_one_hot = Op("one_hot", ("indices",), shape_rule=lambda indices, depth, on_value, off_value, dtype: AbstractArray(
    indices.shape + (depth,), dtype.np_dtype))


def one_hot(indices, depth, on_value=1.0, off_value=0.0, axis=-1, dtype=None, name=None):
    """A new last axis of size ``depth``: ``on_value`` at each index, ``off_value`` elsewhere."""
    indices = convert_to_tensor(indices)
    if not indices.dtype.is_integer:
        raise DTypeError(f"one_hot: indices must be integers, got {indices.dtype.name}.")
    dtype = _args.dtype(dtype, "one_hot") if dtype is not None else dtypes.float32
    depth = _args.integer(depth, "one_hot", "depth", minimum=0)
    result = _one_hot(indices, depth=depth, on_value=on_value, off_value=off_value, dtype=dtype)
    if axis not in (-1, indices.ndim):
        perm = list(range(indices.ndim))
        perm.insert(normalize_axis(axis, indices.ndim + 1, "one_hot"), indices.ndim)
        result = transpose(result, perm)
    return result


# The coordinates of the True elements: how many there are is known only when the graph runs.
_where_indices = Op("where_indices", ("cond",), shape_rule=lambda cond: AbstractArray((None, cond.ndim), np.int64))


def where_indices(condition):
    """The coordinates of the True elements, shape (n, rank), int64 (``me.where(cond)``)."""
    if not condition.dtype.is_bool:
        raise DTypeError(f"where: condition must be a bool tensor, got {condition.dtype.name}.")
    return _where_indices(condition)


# ---- gather_nd and scatter_nd: each is the other's gradient ------------------------------------------
def _check_nd_indices(op_name, indices, shape):
    """indices (..., k) must be integers addressing the first k axes of ``shape``, in range."""
    if not indices.dtype.is_integer or indices.ndim < 1:
        raise InvalidArgumentError(
            f"{op_name}: indices must be an integer tensor of shape (..., k), got {indices.dtype.name} with "
            f"shape {tuple(indices.shape)}.")
    k = indices.shape[-1]
    if k is None:
        raise InvalidArgumentError(
            f"{op_name}: the number of coordinates per index (the last axis of indices {tuple(indices.shape)}) "
            f"must be known while the graph is built.")
    if k > len(shape):
        raise InvalidArgumentError(
            f"{op_name}: each index has {k} coordinates but the tensor has only {len(shape)} axes {tuple(shape)}.")
    return k     # the indices' values are checked with the kernel (_nd_indices_in_range), on every run


def _nd_indices_in_range(op_name, indices, shape):
    """A value check: each coordinate of ``indices`` (..., k) lies in its axis of ``shape``."""
    values = to_host(indices)
    for axis in range(values.shape[-1]):
        column, n = values[..., axis], shape[axis]
        if column.size and (column.min() < 0 or column.max() >= n):
            bad = column[(column < 0) | (column >= n)].flat[0]
            raise InvalidArgumentError(
                f"{op_name}: index {bad} in coordinate {axis} is out of range for a dimension of size {n} "
                f"(shape {tuple(shape)}). Indices must be in [0, {n}).")


def _gather_nd_vjp(dy, params, indices):
    like, shape = scatter_shape(params)
    return (_scatter_nd(indices, dy, *like, shape=shape), None)


_gather_nd = Op("gather_nd", ("params", "indices"), "params[indices]", ("scatter_nd(indices, dy)", None),
                vjp=lambda dy, params, indices, out: _gather_nd_vjp(dy, params, indices),
                shape_rule=lambda params, indices: AbstractArray(
                    indices.shape[:-1] + params.shape[indices.shape[-1]:], params.dtype),
                check=lambda params, indices: _nd_indices_in_range("gather_nd", indices, params.shape))
_scatter_nd = Op("scatter_nd", ("indices", "updates"), "zeros with updates added at indices",
                 (None, "gather_nd(dy, indices)"),
                 vjp=lambda dy, indices, updates, *like, out, shape: (None, _gather_nd(dy, indices)) + (None,) * len(like),
                 shape_rule=lambda indices, updates, *like, shape: _scatter_rule(updates, like, shape),
                 check=lambda indices, updates, *like, shape: _nd_indices_in_range(
                     "scatter_nd", indices, like[0].shape if like else shape))


def gather_nd(params, indices, batch_dims=0, name=None):
    """Slices of ``params`` at the coordinates in ``indices`` (shape (..., k)): ``params[i0, ..., ik-1]``."""
    params, indices = convert_to_tensor(params), convert_to_tensor(indices)
    if batch_dims != 0:
        raise InvalidArgumentError("gather_nd: batch_dims other than 0 is not supported; loop over the batch "
                                   "or add the batch coordinate to the indices.")
    _check_nd_indices("gather_nd", indices, params.shape)
    return _gather_nd(params, indices)


def scatter_nd(indices, updates, shape, name=None):
    """Zeros of ``shape`` with ``updates`` added at ``indices`` (repeated indices add up, as in TF)."""
    indices, updates = convert_to_tensor(indices), convert_to_tensor(updates)
    shape = _shape_tuple(shape, "scatter_nd")
    k = _check_nd_indices("scatter_nd", indices, shape)
    if k == 0:     # as TF, which raises here too ("Indices and updates specified for empty output shape")
        raise InvalidArgumentError(
            f"scatter_nd: each index needs at least one coordinate (indices of shape (..., k), k >= 1), got "
            f"indices of shape {tuple(indices.shape)}.")
    wanted = tuple(indices.shape[:-1]) + shape[k:]
    if tuple(updates.shape) != wanted:
        raise InvalidArgumentError(
            f"scatter_nd: updates must have shape indices.shape[:-1] + shape[{k}:] = {wanted}, got "
            f"{tuple(updates.shape)}.")
    return _scatter_nd(indices, updates, shape=shape)


def _tensor_scatter_update_vjp(dy, tensor, indices, updates, out):
    k, batch = indices.shape[-1], tuple(indices.shape[:-1])
    # What was overwritten had no say in the output; of a repeated index, only the update that was kept
    # (the last) did. Scattering each update's number and reading it back tells which one that was.
    numbers = place(np.arange(int(np.prod(batch)), dtype=np.int64).reshape(batch), dy._device)
    unset = place(np.full(tuple(tensor.shape[:k]), -1, np.int64), dy._device)
    kept = equal(_gather_nd(_tensor_scatter_update(unset, indices, numbers), indices), numbers)
    kept = reshape(kept, batch + (1,) * (tensor.ndim - k))
    return (_tensor_scatter_update(dy, indices, zeros_like(updates)), None,
            where(kept, _gather_nd(dy, indices), zeros_like(updates)))


_tensor_scatter_update = Op(
    "tensor_scatter_nd_update", ("tensor", "indices", "updates"), "tensor with updates written at indices",
    ("dy with zeros at indices", None, "gather_nd(dy, indices) for each update that was kept"),
    vjp=_tensor_scatter_update_vjp, shape_rule=lambda tensor, indices, updates: tensor,
    check=lambda tensor, indices, updates: _nd_indices_in_range("tensor_scatter_nd_update", indices, tensor.shape))


_tensor_scatter_add = Op(
    "tensor_scatter_nd_add", ("tensor", "indices", "updates"), "tensor with updates added at indices",
    ("dy", None, "gather_nd(dy, indices)"),
    vjp=lambda dy, tensor, indices, updates, out: (dy, None, _gather_nd(dy, indices)),
    shape_rule=lambda tensor, indices, updates: tensor,
    check=lambda tensor, indices, updates: _nd_indices_in_range("tensor_scatter_nd_add", indices, tensor.shape))


def _tensor_scatter_args(op_name, tensor, indices, updates):
    """The tensor, indices and updates of a tensor_scatter_nd_* op, checked: updates of the tensor's dtype
    and of shape indices.shape[:-1] + tensor.shape[k:], every index in range."""
    tensor, updates = operands(op_name, tensor, updates)
    try:
        indices = convert_to_tensor(indices)
    except InvalidArgumentError as err:
        raise InvalidArgumentError(f"{op_name}: indices: {err}") from None
    k = _check_nd_indices(op_name, indices, tuple(tensor.shape))
    if k == 0:
        raise InvalidArgumentError(
            f"{op_name}: each index needs at least one coordinate (indices of shape (..., k), k >= 1), got "
            f"indices of shape {tuple(indices.shape)}.")
    wanted = tuple(indices.shape[:-1]) + tuple(tensor.shape[k:])
    if tuple(updates.shape) != wanted:
        raise InvalidArgumentError(
            f"{op_name}: updates must have shape indices.shape[:-1] + tensor.shape[{k}:] = {wanted}, got "
            f"{tuple(updates.shape)} (tensor {tuple(tensor.shape)}, indices {tuple(indices.shape)}).")
    return tensor, indices, updates


def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """A copy of ``tensor`` with ``updates`` written at ``indices`` (shape (..., k): elements or slices).

    Of a repeated index the last update is kept (TF leaves that order unspecified).
    """
    return _tensor_scatter_update(*_tensor_scatter_args("tensor_scatter_nd_update", tensor, indices, updates))


def tensor_scatter_nd_add(tensor, indices, updates, name=None):
    """``tensor`` with ``updates`` added at ``indices``, one after the other as in TF (repeated indices add up).

    Not ``tensor + scatter_nd(...)``: that would sum the repeated updates first and round differently.
    """
    tensor, indices, updates = _tensor_scatter_args("tensor_scatter_nd_add", tensor, indices, updates)
    check_not_bool("tensor_scatter_nd_add", tensor)
    return _tensor_scatter_add(tensor, indices, updates)


def embedding_lookup(params, ids, max_norm=None, name=None):
    """Rows of the embedding matrix ``params`` for each id: ``me.gather(params, ids)``, as TF's."""
    if isinstance(params, (list, tuple)):
        if len(params) != 1:
            raise InvalidArgumentError("embedding_lookup: sharded params (a list of several tensors) are not "
                                       "supported; concatenate them into one matrix with me.concat.")
        params = params[0]
    if max_norm is not None:
        raise InvalidArgumentError("embedding_lookup: max_norm is not supported; clip the rows with "
                                   "me.clip_by_norm after the lookup.")
    return _checked_gather(params, ids, 0, "embedding_lookup")
