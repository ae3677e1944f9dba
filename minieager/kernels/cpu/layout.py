"""Layout kernels: ops that only move, copy or pick elements.

There is no arithmetic here for a loop to teach, and NumPy already does each of these with
one call at memory speed, so these kernels are thin NumPy wrappers. Tensors are immutable,
so a kernel may return a view of its input instead of a copy (``identity``, ``reshape``);
every array handed to a numba kernel is made contiguous where that kernel needs it.
"""
import numpy as np

from ...errors import InvalidArgumentError
from ..registry import register_kernel


@register_kernel("identity")
@register_kernel("stop_gradient")
def identity(x):
    return x


@register_kernel("check_segment_ids")
def check_segment_ids(ids, *data, num_segments):
    """The ids as they are: the op's work is its value check, which runs before this (ops/segments.py)."""
    return ids


@register_kernel("cast")
def cast(x, dtype):
    return x.astype(dtype.np_dtype)


@register_kernel("reshape")
def reshape(x, shape):
    try:
        return x.reshape(shape)
    except ValueError:    # sizes a graph learns only when it runs (None while tracing): eager's message
        raise InvalidArgumentError(
            f"reshape: cannot reshape a tensor of shape {x.shape} ({x.size} elements) into {tuple(shape)}. "
            f"The number of elements must stay the same.") from None


@register_kernel("transpose")
def transpose(x, perm):
    return np.asarray(np.transpose(x, perm), order="C")


@register_kernel("broadcast_to")
def broadcast_to(x, shape):
    return np.asarray(np.broadcast_to(x, shape), order="C")


@register_kernel("reshape_like")
def reshape_like(x, like):
    return x.reshape(like.shape)


@register_kernel("broadcast_like")
def broadcast_like(x, like):
    return np.ascontiguousarray(np.broadcast_to(x, like.shape))


@register_kernel("shape")
def shape(x, out_type):
    return np.asarray(x.shape, out_type.np_dtype)


@register_kernel("tile")
def tile(x, multiples):
    return np.tile(x, multiples)


@register_kernel("tile_grad")
def tile_grad(dy, x, multiples):
    """``dy`` summed over the copies ``tile`` made of ``x`` (whose shape a graph may know only now)."""
    interleaved = tuple(v for m, n in zip(multiples, x.shape) for v in (m, n))
    return np.ascontiguousarray(dy.reshape(interleaved).sum(axis=tuple(range(0, 2 * x.ndim, 2))))


@register_kernel("concat")
def concat(*xs, axis):
    return np.concatenate(xs, axis=axis)


@register_kernel("concat_grad")
def concat_grad(dy, *xs, axis, index):
    """The part of ``dy`` at ``xs[index]``'s place along ``axis`` (the sizes of ``xs`` read when the graph runs)."""
    start = sum(x.shape[axis] for x in xs[:index])
    piece = (slice(None),) * axis + (slice(start, start + xs[index].shape[axis]),)
    return np.ascontiguousarray(dy[piece])


def _piece(n, axis, spec, index):
    """Where piece ``index`` of ``split(.., spec)`` lies along an axis of size ``n``, as an index tuple. ``spec``
    is a number of equal pieces or a list of sizes with at most one -1; the op's check has vetted it."""
    sizes = [n // spec] * spec if isinstance(spec, int) else [n - sum(spec) - 1 if s == -1 else s for s in spec]
    start = sum(sizes[:index])
    return (slice(None),) * axis + (slice(start, start + sizes[index]),)


@register_kernel("split_piece")
def split_piece(x, axis, spec, index, op_name):
    """Piece ``index`` of ``split(x, spec, axis)``, its size worked out from ``x``'s when the graph runs."""
    return np.ascontiguousarray(x[_piece(x.shape[axis], axis, spec, index)])


@register_kernel("split_piece_grad")
def split_piece_grad(dy, x, axis, spec, index, op_name):
    """Zeros of ``x``'s shape with ``dy`` at the place of piece ``index``."""
    grad = np.zeros(x.shape, dy.dtype)
    grad[_piece(x.shape[axis], axis, spec, index)] = dy
    return grad


@register_kernel("pad")
def pad(x, paddings, constant_values):
    return np.pad(x, paddings, mode="constant", constant_values=constant_values)


@register_kernel("getitem")
def getitem(x, index):
    try:
        return np.asarray(x[index], dtype=x.dtype, order="C")   # (a string's element is bytes: keep it an object array)
    except IndexError as err:   # an index into a dimension known only when a graph runs: the eager op's error
        raise InvalidArgumentError(f"getitem: {err} (tensor shape {x.shape}).") from None


def _added_at(out, index, values):
    """``out`` (a new array this kernel owns) with ``values`` added at ``index``. Where an index
    repeats, each value is added in turn (``np.add.at``; ``out[index] += values`` would keep one)."""
    np.add.at(out, index, values)
    return out


def _scattered(shape, index, values):
    """Zeros of ``shape`` with ``values`` added at ``index``: the gradient of every op that reads by
    index (a read twice gets both gradients), and ``scatter_nd`` itself."""
    return _added_at(np.zeros(shape, values.dtype), index, values)


def _input_shape(like, shape):
    """The shape a gradient scatters into: the ``shape`` attribute, or, when a graph knew it only in
    part (``shape`` None), the shape of ``like``, the op's input itself (ops/indexing.scatter_shape)."""
    return like[0].shape if like else shape


@register_kernel("getitem_grad")
def getitem_grad(dy, *like, index, shape):
    """Zeros of the input's shape with ``dy`` added where ``x[index]`` read."""
    return _scattered(_input_shape(like, shape), index, dy)


@register_kernel("gather")
def gather(params, indices, axis):
    return np.take(params, indices, axis=axis)


@register_kernel("gather_grad")
def gather_grad(dy, indices, *like, axis, shape):
    """``dy`` added back where ``gather`` read: ``params[:, ..., indices]`` with ``axis`` slices before."""
    return _scattered(_input_shape(like, shape), (slice(None),) * axis + (indices,), dy)


@register_kernel("one_hot")
def one_hot(indices, depth, on_value, off_value, dtype):
    out = np.full(indices.shape + (depth,), off_value, dtype.np_dtype)
    valid = (indices >= 0) & (indices < depth)    # out-of-range indices give all-off rows, as in TF
    out[valid, indices[valid]] = on_value
    return out


@register_kernel("boolean_mask")
def boolean_mask(x, mask):
    return np.ascontiguousarray(x[mask])


@register_kernel("boolean_mask_grad")
def boolean_mask_grad(dy, mask):
    """Zeros of the masked tensor's shape with ``dy`` written back at the True places of ``mask``."""
    out = np.zeros(mask.shape + dy.shape[1:], dy.dtype)
    out[mask] = dy
    return out


@register_kernel("where_indices")
def where_indices(cond):
    return np.argwhere(cond).astype(np.int64)


def _coordinates(indices):
    """indices (..., k) -> a tuple of k index arrays, one per leading axis (NumPy's advanced indexing)."""
    return tuple(np.moveaxis(indices, -1, 0))


@register_kernel("gather_nd")
def gather_nd(params, indices):
    if indices.shape[-1] == 0:     # an index with no coordinates picks all of params (params[()] would drop the batch)
        return np.array(np.broadcast_to(params, indices.shape[:-1] + params.shape), order="C")
    return np.asarray(params[_coordinates(indices)], order="C")


@register_kernel("scatter_nd")
def scatter_nd(indices, updates, *like, shape):
    """Zeros of ``shape`` with ``updates`` added at ``indices`` (repeats add up, as in TF)."""
    depth = indices.shape[-1]
    # the sizes after the indexed axes are the updates' own (a graph may know them only now: None in shape)
    shape = tuple(_input_shape(like, shape)[:depth]) + updates.shape[indices.ndim - 1:]
    if depth == 0:     # each update is added to the whole output (gather_nd's gradient at depth 0)
        return np.array(updates.reshape((-1,) + tuple(shape)).sum(axis=0), order="C")
    return _scattered(shape, _coordinates(indices), updates)


@register_kernel("tensor_scatter_nd_update")
def tensor_scatter_nd_update(tensor, indices, updates):
    """A copy of ``tensor`` with ``updates`` written at ``indices``; of a repeated index the last update wins
    (chosen here: NumPy's own assignment order is not guaranteed)."""
    out = np.array(tensor, order="C", copy=True)
    k = indices.shape[-1]
    rows = indices.reshape(-1, k)
    if len(rows):
        position = np.ravel_multi_index(tuple(rows.T), tensor.shape[:k])
        _, from_end = np.unique(position[::-1], return_index=True)    # each position's last writer
        last = len(rows) - 1 - from_end
        out[tuple(rows[last].T)] = updates.reshape((len(rows),) + tensor.shape[k:])[last]
    return out


@register_kernel("tensor_scatter_nd_add")
def tensor_scatter_nd_add(tensor, indices, updates):
    """A copy of ``tensor`` with ``updates`` added at ``indices``, in order (repeats one by one)."""
    return _added_at(np.array(tensor, order="C", copy=True), _coordinates(indices), updates)


@register_kernel("take_along_axis")
def take_along_axis(x, indices, axis):
    return np.take_along_axis(x, indices, axis=axis)


@register_kernel("put_along_axis")
def put_along_axis(dy, indices, *like, axis, shape):
    """Zeros of ``shape`` with ``dy`` added back where ``take_along_axis`` read each element."""
    index = list(np.indices(indices.shape, sparse=True))
    index[axis] = indices
    return _scattered(_input_shape(like, shape), tuple(index), dy)


@register_kernel("argsort")
def argsort(x, axis, descending):
    """Stable in both directions, as TF: equal values keep their order (the lower index first)."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable").astype(np.int32)
    # A stable ascending sort of x reversed, read backwards, is descending with ties in index order.
    backwards = np.flip(np.argsort(np.flip(x, axis=axis), axis=axis, kind="stable"), axis=axis)
    return np.ascontiguousarray(x.shape[axis] - 1 - backwards).astype(np.int32)


@register_kernel("searchsorted")
def searchsorted(sorted_sequence, values, side, out_type):
    """np.searchsorted row by row: the rows are the leading axes the two arrays share."""
    count = int(np.prod(values.shape[:-1]))      # not -1: an empty axis leaves it ambiguous
    rows = sorted_sequence.reshape(count, sorted_sequence.shape[-1])
    wanted = values.reshape(count, values.shape[-1])
    out = np.empty(wanted.shape, out_type.np_dtype)
    for row, (sequence, targets) in enumerate(zip(rows, wanted)):
        out[row] = np.searchsorted(sequence, targets, side=side)
    return out.reshape(values.shape)


@register_kernel("unique")
def unique(x, out_idx):
    """The distinct values in order of first appearance (as TF, not sorted as np.unique), and where each x went."""
    values, first, inverse = np.unique(x, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return values[order], rank[inverse.reshape(-1)].astype(out_idx.np_dtype)


@register_kernel("diag")
def diag(d, shape):
    """A matrix of ``shape`` (..., m, n), zero but for ``d`` on its main diagonal."""
    out = np.zeros(shape, d.dtype)
    k = min(shape[-2:])
    out[..., np.arange(k), np.arange(k)] = d
    return out


@register_kernel("diag_part")
def diag_part(x):
    return np.ascontiguousarray(np.diagonal(x, axis1=-2, axis2=-1))


# ---- me.TensorArray: a buffer of shape (size,) + element shape (ops/tensor_array.py) ----------------
@register_kernel("tensor_array_zeros")
def tensor_array_zeros(size, element_shape, dtype, rows):
    """An array of ``size`` unwritten elements (zeros, or empty strings, as TF reads an element never
    written). A dimension of the element shape known only when the graph runs (None) is 0 here: such a
    buffer holds no numbers, and the first write replaces it (below)."""
    shape = (int(size),) + tuple(0 if d is None else d for d in element_shape)
    return np.full(shape, b"", object) if dtype.np_dtype == object else np.zeros(shape, dtype.np_dtype)


@register_kernel("tensor_array_scatter")
def tensor_array_scatter(buffer, indices, values, dynamic, what, into=None):
    """A new buffer with ``values`` at ``indices`` (one element for a scalar index), grown with zeros
    where an index is past the end (the check allows that only with ``dynamic``). ``into``: the buffer
    itself, which nothing else holds (ops/tensor_array.py), written in place."""
    if into is not None:
        into[indices] = values
        return into
    rows = max(buffer.shape[0], int(indices.max()) + 1) if indices.size else buffer.shape[0]
    element = values.shape[indices.ndim:]
    out = np.zeros((rows,) + element, buffer.dtype)
    if buffer.shape[1:] == element:       # (else the buffer holds no numbers: tensor_array_zeros)
        out[:buffer.shape[0]] = buffer
    out[indices] = values
    return out


@register_kernel("tensor_array_scatter_grad")
def tensor_array_scatter_grad(dy, like, indices):
    """The gradient a scatter sends to the buffer it wrote into: ``dy`` cut (or padded with zeros) to
    ``like``'s number of rows, zero at the rows the scatter overwrote."""
    rows = like.shape[0]
    out = np.zeros(like.shape, dy.dtype)
    if like.shape[1:] != dy.shape[1:]:    # the scatter replaced a buffer of no numbers: nothing flows back
        return out
    kept = min(rows, dy.shape[0])
    out[:kept] = dy[:kept]
    overwritten = indices[indices < rows]
    out[overwritten] = 0
    return out


@register_kernel("tensor_array_gather")
def tensor_array_gather(buffer, indices, what):
    return np.take(buffer, indices, axis=0)


@register_kernel("tensor_array_gather_grad")
def tensor_array_gather_grad(dy, like, indices):
    """Zeros of ``like``'s number of rows with ``dy`` added at the rows ``tensor_array_gather`` read."""
    return _scattered((like.shape[0],) + dy.shape[indices.ndim:], indices, dy)


@register_kernel("tensor_array_unstack")
def tensor_array_unstack(value, size, dynamic):
    """``value`` itself: its rows become the elements (the op's check compares their number with the size)."""
    return value
