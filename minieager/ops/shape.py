"""Shape ops: they move or copy elements without doing arithmetic on them.

Their gradients move the output gradient back the same way: the VJP of ``reshape`` is a
reshape back, of ``transpose`` the inverse transpose, of ``concat`` a split.
"""
import math

import numpy as np

from ..engine import recording
from ..engine.abstract import AbstractArray, same
from ..engine.device import to_device
from ..engine.op import NO_ATTRS, Op
from ..engine.tensor import Tensor, wrap
from ..errors import InvalidArgumentError
from . import _args
from ._axes import normalize_axes, normalize_axis
from ._operands import broadcast_shape, operands
from .creation import constant, convert_to_tensor, zeros_like

# ---- copies -------------------------------------------------------------------------------------
_identity = Op("identity", ("x",), "x", ("dy",), vjp=lambda dy, x, out: (dy,), shape_rule=same)
_stop_gradient = Op("stop_gradient", ("x",), "x", shape_rule=same)   # no vjp: the tape does not record it


def identity(input, name=None):  # noqa: A002 (TF's name)
    return _identity(convert_to_tensor(input))


def identity_n(input, name=None):  # noqa: A002
    """A list of the identities of the tensors in the list ``input``, as TF's ``identity_n``."""
    if not isinstance(input, (list, tuple)):
        raise InvalidArgumentError(f"identity_n: input must be a list of tensors, got {type(input).__name__}.")
    return [identity(t) for t in input]


def stop_gradient(input, name=None):  # noqa: A002
    """The same values, but gradients do not flow through: a constant as far as tapes know."""
    return _stop_gradient(convert_to_tensor(input))


# A copy to another device is an op too: the tape records it, and its gradient is the copy of dy
# back to the input's device (TensorFlow records ``x.gpu()`` the same way). It cannot run through
# ``Op.__call__``, which puts every output on its inputs' device, so it calls the tapes itself.
_copy = Op("copy", ("x",), "x on another device", ("dy copied back to x's device",),
           vjp=lambda dy, x, out: (copy_to_device(dy, x._device),), shape_rule=same)


def copy_to_device(x, device):
    """``x``'s value on the canonical ``device`` ("/cpu:0", "/gpu:0"): ``x`` itself if it is there."""
    if x._device == device:
        return x
    if recording.tracer() is not None:
        raise InvalidArgumentError(
            f"Cannot copy a tensor to {device} inside me.function: graphs run on one device. Place the "
            f"function's arguments and variables on {device} before calling it.")
    out = wrap(to_device(x._value, device), device)
    if recording.observing:
        recording.record(_copy, (x,), (out,), NO_ATTRS)
    return out


# ---- reshaping --------------------------------------------------------------------------------
def _reshape_rule(x, shape):
    """The new shape; a -1 left in it (the tensor's size was unknown while tracing) is unknown too."""
    return AbstractArray(tuple(None if n == -1 else n for n in shape), x.dtype)


_reshape_rule.any_rank = True     # the new shape does not depend on x's (of unknown rank, as TF's)


def _as_reshape_target(shape):
    """A shape with at most one unknown (None) dimension as reshape takes it: the unknown one -1."""
    return tuple(-1 if n is None else n for n in shape)


def _reshape_vjp(dy, x, out, shape):
    x_shape = x._value.shape
    if x_shape is None or x_shape.count(None) > 1:    # known only when the graph runs: x's shape then
        return (_reshape_like(dy, x),)
    return (reshape(dy, _as_reshape_target(x_shape)),)


_reshape = Op("reshape", ("x",), "reshape(x)", ("reshape(dy, x.shape)",), vjp=_reshape_vjp, shape_rule=_reshape_rule)
# ``x`` reshaped to the shape of ``like``: reshape's gradient where that shape is known only when the graph runs.
_reshape_like = Op("reshape_like", ("x", "like"), "reshape(x, like.shape)", ("reshape(dy, x.shape)", None),
                   vjp=lambda dy, x, like, out: (_reshape_like(dy, x), None),
                   shape_rule=lambda x, like: AbstractArray(like.shape, x.dtype))
_reshape_like.shape_rule.any_rank = True


def reshape(tensor, shape, name=None):
    """The same elements in a new shape; one dimension may be -1 (inferred)."""
    x = convert_to_tensor(tensor)
    shape = _args.integers([shape] if isinstance(shape, (int, np.integer)) else shape, "reshape", "shape", minimum=-1)
    size = x._value.size
    if shape.count(-1) > 1:
        raise InvalidArgumentError(f"reshape: only one dimension can be -1, got shape {shape}.")
    if size is None:       # tracing with an unknown dimension: a -1 is worked out when the graph runs
        return _reshape(x, shape=shape)
    if -1 in shape:
        known = math.prod(s for s in shape if s != -1)
        if known == 0 or size % known:
            raise InvalidArgumentError(
                f"reshape: cannot reshape a tensor of shape {tuple(x.shape)} ({size} elements) into "
                f"{shape}: {size} is not a multiple of {known}.")
        shape = tuple(size // known if s == -1 else s for s in shape)
    if math.prod(shape) != size:
        raise InvalidArgumentError(
            f"reshape: cannot reshape a tensor of shape {tuple(x.shape)} ({size} elements) into "
            f"{shape} ({math.prod(shape)} elements). The number of elements must stay the same.")
    if shape == x._value.shape:
        return x
    return _reshape(x, shape=shape)


def expand_dims(input, axis, name=None):  # noqa: A002
    x = convert_to_tensor(input)
    shape = x._value.shape
    axis = normalize_axis(axis, len(shape) + 1, "expand_dims")
    return reshape(x, _as_reshape_target(shape[:axis] + (1,) + shape[axis:]))


def squeeze(input, axis=None, name=None):  # noqa: A002
    x = convert_to_tensor(input)
    axes = tuple(i for i, n in enumerate(x.shape) if n == 1) if axis is None else normalize_axes(
        axis, x.ndim, "squeeze")
    for a in axes:
        if x.shape[a] != 1:
            raise InvalidArgumentError(
                f"squeeze: axis {a} of shape {tuple(x.shape)} has size {x.shape[a]}, not 1.")
    return reshape(x, _as_reshape_target(tuple(n for i, n in enumerate(x.shape) if i not in axes)))


def _transpose_vjp(dy, x, out, perm):
    return (transpose(dy, tuple(np.argsort(perm))),)


_transpose = Op("transpose", ("x",), "transpose(x, perm)", ("transpose(dy, inverse perm)",), vjp=_transpose_vjp,
                shape_rule=lambda x, perm: AbstractArray(tuple(x.shape[p] for p in perm), x.dtype))


def transpose(a, perm=None, name=None):
    """Permute the axes (default: reverse them)."""
    x = convert_to_tensor(a)
    perm = tuple(reversed(range(x.ndim))) if perm is None else _args.permutation(perm, x.ndim, "transpose")
    if perm == tuple(range(x.ndim)):
        return x
    return _transpose(x, perm=perm)


# ---- broadcasting and tiling ---------------------------------------------------------------------
def _broadcast_to_vjp(dy, x, out, shape):
    from .reductions import unbroadcast  # reductions builds on shape's ops
    return (unbroadcast(dy, x.shape),)


_broadcast_to = Op("broadcast_to", ("x",), "broadcast_to(x, shape)", ("sum of dy over the broadcast axes",),
                   vjp=_broadcast_to_vjp, shape_rule=lambda x, shape: AbstractArray(shape, x.dtype))


# ``x`` broadcast to the shape of ``like``: what broadcast_to does when the shape is known only when
# the graph runs (the gradient of a reduction over a batch of unknown size).
def _broadcast_like_rule(x, like):
    return AbstractArray(like.shape, x.dtype)


_broadcast_like_rule.any_rank = True     # like's rank may be unknown too: the output's is then unknown
_broadcast_like = Op("broadcast_like", ("x", "like"), "broadcast_to(x, like.shape)",
                     ("sum of dy over the broadcast axes", None),
                     vjp=lambda dy, x, like, out: (_broadcast_to_vjp(dy, x, out, None)[0], None),
                     shape_rule=_broadcast_like_rule)


def broadcast_like(x, like):
    """``x`` broadcast to ``like``'s shape, also where that shape has dimensions known only at run time."""
    x, like = convert_to_tensor(x), convert_to_tensor(like)
    known = x._value.shape is not None and None not in x._value.shape
    return x if known and x._value.shape == like._value.shape else _broadcast_like(x, like)


def broadcast_to(input, shape, name=None):  # noqa: A002
    x = convert_to_tensor(input)
    shape, x_shape = _args.integers(shape, "broadcast_to", "shape", minimum=0), x._value.shape
    if broadcast_shape(x_shape, shape) != shape:   # None when they do not broadcast at all
        raise InvalidArgumentError(f"broadcast_to: cannot broadcast shape {x_shape} to {shape}.")
    if shape == x_shape:
        return x
    return _broadcast_to(x, shape=shape)


def _tile_vjp(dy, x, out, multiples):
    from .reductions import reduce_sum
    if None in x.shape:       # a size known only when the graph runs: the gradient op reads x's shape then
        return (_tile_grad(dy, x, multiples=multiples),)
    interleaved = tuple(v for m, n in zip(multiples, x.shape) for v in (m, n))
    summed = reduce_sum(reshape(dy, interleaved), axis=tuple(range(0, 2 * x.ndim, 2)))
    return (summed,)


def _tile_rule(x, multiples):
    return AbstractArray(tuple(0 if m == 0 else None if n is None else n * m for n, m in zip(x.shape, multiples)),
                         x.dtype)


_tile = Op("tile", ("x",), "tile(x, multiples)", ("sum of dy over the copies",), vjp=_tile_vjp, shape_rule=_tile_rule)
_tile_grad = Op("tile_grad", ("dy", "x"), "dy summed over the copies of x", ("tile(ddy, multiples)", None),
                vjp=lambda ddy, dy, x, out, multiples: (_tile(ddy, multiples=multiples), None),
                shape_rule=lambda dy, x, multiples: AbstractArray(x.shape, dy.dtype))


def tile(input, multiples, name=None):  # noqa: A002
    x = convert_to_tensor(input)
    multiples = _args.integers(multiples, "tile", "multiples", minimum=0)
    if len(multiples) != x.ndim:
        raise InvalidArgumentError(
            f"tile: multiples {multiples} must have one entry per axis of shape {tuple(x.shape)}.")
    return _tile(x, multiples=multiples)


# ---- joining and splitting ---------------------------------------------------------------------
def _concat_vjp(dy, *inputs, out, axis):
    from .indexing import getitem
    if any(x.shape[axis] is None for x in inputs):   # sizes known only when the graph runs: read them then
        return tuple(_concat_grad(dy, *inputs, axis=axis, index=i) for i in range(len(inputs)))
    grads, start = [], 0
    for x in inputs:
        index = (slice(None),) * axis + (slice(start, start + x.shape[axis]),)
        grads.append(getitem(dy, index))
        start += x.shape[axis]
    return tuple(grads)


def _concat_rule(*xs, axis):
    """Sizes along ``axis`` add up; on the other axes they agree (an unknown one takes a known one's)."""
    sizes = [x.shape[axis] for x in xs]
    shape = []
    for i, dims in enumerate(zip(*[x.shape for x in xs])):
        known = {d for d in dims if d is not None}
        if i == axis:
            shape.append(None if None in sizes else sum(sizes))
        else:
            shape.append(known.pop() if len(known) == 1 else None)
    return AbstractArray(shape, xs[0].dtype)


_concat = Op("concat", ("x",), "concat(xs, axis)", ("dy sliced at x's place along axis",), vjp=_concat_vjp,
              shape_rule=_concat_rule)


def _concat_grad_vjp(ddy, dy, *xs, out, axis, index):
    """ddy put back at xs[index]'s place, zeros elsewhere (the other xs give the sizes)."""
    parts = [ddy if i == index else zeros_like(x, dtype=ddy.dtype) for i, x in enumerate(xs)]
    return (concat(parts, axis),) + (None,) * len(xs)


# concat's gradient for one input when a size along axis is known only when the graph runs.
_concat_grad = Op("concat_grad", ("dy", "x"), "dy at xs[index]'s place along axis",
                  ("ddy at xs[index]'s place, zeros elsewhere", None), vjp=_concat_grad_vjp,
                  shape_rule=lambda dy, *xs, axis, index: AbstractArray(
                      dy.shape[:axis] + (xs[index].shape[axis],) + dy.shape[axis + 1:], dy.dtype))


def concat(values, axis, name=None):
    """Join tensors along an existing axis."""
    if isinstance(values, Tensor) or not values:
        raise InvalidArgumentError(
            f"concat: values must be a non-empty list of tensors, got {values!r:.80}.")
    tensors = operands("concat", *values) if len(values) > 1 else [convert_to_tensor(values[0])]
    ndim = tensors[0].ndim
    if ndim == 0:
        raise InvalidArgumentError("concat: scalars cannot be joined along an axis; use me.stack to make a vector.")
    axis = normalize_axis(axis, ndim, "concat")
    for t in tensors:
        if t.ndim != ndim or any(a != b for i, (a, b) in enumerate(zip(t.shape, tensors[0].shape)) if i != axis):
            raise InvalidArgumentError(
                f"concat: along axis {axis} every shape must match except on that axis; got "
                f"{', '.join(str(tuple(t.shape)) for t in tensors)}.")
    return _concat(*tensors, axis=axis)


def stack(values, axis=0, name=None):
    """Join tensors of one shape along a new axis."""
    if isinstance(values, Tensor) or not values:
        raise InvalidArgumentError(f"stack: values must be a non-empty list of tensors, got {values!r:.80}.")
    tensors = operands("stack", *values) if len(values) > 1 else [convert_to_tensor(values[0])]
    if not tensors:
        raise InvalidArgumentError("stack: needs at least one tensor.")
    for t in tensors:
        if t.shape != tensors[0].shape:
            raise InvalidArgumentError(
                f"stack: every tensor must have the same shape; got "
                f"{', '.join(str(tuple(t.shape)) for t in tensors)}.")
    axis = normalize_axis(axis, tensors[0].ndim + 1, "stack")
    return concat([expand_dims(t, axis) for t in tensors], axis)


def _check_piece(x, axis, spec, index, op_name):
    """The eager op's error when the axis, whose size the graph learns only now, does not fit ``spec``."""
    _args.split_sizes(spec, x.shape[axis], op_name, axis)


def _check_piece_grad(dy, x, axis, spec, index, op_name):
    _check_piece(x, axis, spec, index, op_name)


def _piece_rule(x, axis, spec, index, op_name):
    size = None if isinstance(spec, int) or -1 in spec else spec[index]
    size = None if size == -1 else size
    return AbstractArray(x.shape[:axis] + (size,) + x.shape[axis + 1:], x.dtype)


# split, unstack and top_k along an axis whose size is known only when the graph runs: one piece, cut when it
# runs (op_name: the op whose error a size that does not fit raises).
_split_piece = Op("split_piece", ("x",), "piece index of split(x, spec, axis)", ("dy at the piece's place",),
                  vjp=lambda dy, x, out, **attrs: (_split_piece_grad(dy, x, **attrs),),
                  shape_rule=_piece_rule, check=_check_piece)
_split_piece_grad = Op("split_piece_grad", ("dy", "x"), "zeros of x's shape, dy at the piece's place",
                       ("the piece of ddy", None),
                       vjp=lambda ddy, dy, x, out, **attrs: (_split_piece(ddy, **attrs), None),
                       shape_rule=lambda dy, x, **attrs: AbstractArray(x.shape, dy.dtype), check=_check_piece_grad)


def split_pieces(x, spec, axis, op_name):
    """``x`` cut along ``axis`` as ``split`` does (``spec``: a number of equal pieces or a list of sizes);
    where the size of that axis is known only when the graph runs, each piece is cut then."""
    from .indexing import getitem
    if x.shape[axis] is None:
        count = spec if isinstance(spec, int) else len(spec)
        return [_split_piece(x, axis=axis, spec=spec, index=i, op_name=op_name) for i in range(count)]
    pieces, start = [], 0
    for size in _args.split_sizes(spec, x.shape[axis], op_name, axis):
        pieces.append(getitem(x, (slice(None),) * axis + (slice(start, start + size),)))
        start += size
    return pieces


def split(value, num_or_size_splits, axis=0, name=None):
    """Cut a tensor into pieces along ``axis``: a number of equal pieces, or a list of sizes."""
    x = convert_to_tensor(value)
    axis = normalize_axis(axis, x.ndim, "split")
    return split_pieces(x, _split_spec(num_or_size_splits), axis, "split")


def _split_spec(num_or_size_splits):
    """split's second argument as an int or a tuple of ints (an attribute of a graph node)."""
    spec = _args._as_python(num_or_size_splits)
    if not isinstance(spec, (list, tuple)):
        return _args.integer(spec, "split", "num_or_size_splits", minimum=1)
    sizes = tuple(_args.integers(spec, "split", "size_splits", minimum=-1))
    if sizes.count(-1) > 1:
        raise InvalidArgumentError(f"split: at most one size can be -1 (inferred), got {list(sizes)}.")
    return sizes


def unstack(value, num=None, axis=0, name=None):
    """The tensors along ``axis``, as TF's. Where that axis's size is known only when the graph runs, give
    ``num`` (as TF asks); a graph then raises when the size it meets is not ``num``."""
    from .indexing import getitem
    x = convert_to_tensor(value)
    axis = normalize_axis(axis, x.ndim, "unstack")
    n = x.shape[axis]
    if num is None and n is None:    # TF 2.21: ValueError "Cannot infer argument `num` from shape (None,)"
        raise InvalidArgumentError(
            f"unstack: the size of axis {axis} of its input (shape {tuple(x.shape)}) is known only when the graph "
            f"runs, so the number of tensors is not known while it is built. Give num= (a graph then checks that "
            f"the size is num), or give that dimension a size in the input_signature.")
    num = n if num is None else num
    num = _args.integer(num, "unstack", "num", minimum=0)
    if n is not None and n != num:
        raise InvalidArgumentError(f"unstack: num={num}, but axis {axis} of shape {tuple(x.shape)} has size {n}.")
    at = (slice(None),) * axis
    if n is None:     # pieces of size 1, each checked when the graph runs, then their axis dropped
        return [getitem(piece, at + (0,)) for piece in split_pieces(x, (1,) * num, axis, "unstack")]
    return [getitem(x, at + (i,)) for i in range(n)]


def _pad_vjp(dy, x, out, paddings, constant_values):
    from .indexing import getitem
    # slice(before, -after) needs no size, so it holds where a size is known only when the graph runs
    return (getitem(dy, tuple(slice(before, -after if after else None) for before, after in paddings)),)


_pad = Op("pad", ("x",), "pad(x)", ("dy with the padding cut off",), vjp=_pad_vjp,
           shape_rule=lambda x, paddings, constant_values: AbstractArray(
               tuple(None if n is None else n + a + b for n, (a, b) in zip(x.shape, paddings)), x.dtype))


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    x = convert_to_tensor(tensor)
    if str(mode).upper() != "CONSTANT":
        raise InvalidArgumentError(f"pad: only mode='CONSTANT' is supported, got {mode!r}.")
    pairs = paddings.numpy().tolist() if isinstance(paddings, Tensor) else paddings
    try:
        paddings = tuple(_args.integers(pair, "pad", "paddings", minimum=0) for pair in pairs)
    except (InvalidArgumentError, TypeError):
        paddings = None
    if paddings is None or len(paddings) != x.ndim or any(len(pair) != 2 for pair in paddings):
        raise InvalidArgumentError(
            f"pad: paddings must be one non-negative [before, after] pair per axis of shape "
            f"{tuple(x.shape)}, got {pairs!r:.80}.")
    return _pad(x, paddings=paddings, constant_values=constant_values)


# ---- facts about shapes -------------------------------------------------------------------------
# The shape as a tensor when it is known only when the graph runs (me.shape(x)[0]: the batch size).
_shape = Op("shape", ("x",), "the shape of x",
            shape_rule=lambda x, out_type: AbstractArray((x.ndim,), out_type.np_dtype))


def shape(input, out_type=None, name=None):  # noqa: A002
    x = convert_to_tensor(input)
    out_type = _args.dtype(out_type or "int32", "shape")
    if None in x._value.shape:
        return _shape(x, out_type=out_type)
    return constant(list(x.shape), dtype=out_type)


def size(input, out_type=None, name=None):  # noqa: A002
    from .reductions import _count
    x = convert_to_tensor(input)
    out_type = _args.dtype(out_type or "int32", "size")
    if x._value.size is None:
        return _count(x, axis=tuple(range(x.ndim)), dtype=out_type)
    return constant(x._value.size, dtype=out_type)


def rank(input, name=None):  # noqa: A002
    return constant(convert_to_tensor(input).ndim)
