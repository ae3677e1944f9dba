"""Sorting: ``me.sort``, ``me.argsort``, ``me.math.top_k``, ``me.searchsorted`` and ``me.unique``.

``sort`` is ``take_along_axis(x, argsort(x))``: picking elements is linear, so its gradient puts
each output gradient back where its element came from (``put_along_axis``), and the gradient
of that is picking again; ``top_k`` is the first k of a descending sort. ``argsort``,
``searchsorted`` and ``unique`` return indices and have no gradient, as in TF.
"""
from typing import NamedTuple

import numpy as np

from ..engine import dtypes
from ..errors import InvalidArgumentError
from ..engine.abstract import AbstractArray
from ..engine.op import Op
from . import _args
from ._axes import normalize_axis
from ._operands import check_not_bool, operands
from .creation import convert_to_tensor
from .elementwise import cast
from .indexing import _scatter_rule, getitem, scatter_shape
from .shape import _split_piece


def _take_along_vjp(dy, x, indices, out, axis):
    like, shape = scatter_shape(x)
    return (_put_along(dy, indices, *like, axis=axis, shape=shape), None)


_take_along = Op("take_along_axis", ("x", "indices"), "x picked along axis at indices",
                 ("dy put back along axis at indices", None), vjp=_take_along_vjp,
                 shape_rule=lambda x, indices, axis: AbstractArray(indices.shape, x.dtype))
_put_along = Op("put_along_axis", ("dy", "indices"), "zeros with dy added along axis at indices",
                ("ddy picked along axis at indices", None),
                vjp=lambda ddy, dy, indices, *like, out, axis, shape: (
                    (_take_along(ddy, indices, axis=axis), None) + (None,) * len(like)),
                shape_rule=lambda dy, indices, *like, axis, shape: _scatter_rule(dy, like, shape))
_argsort = Op("argsort", ("values",), shape_rule=lambda x, axis, descending: AbstractArray(x.shape, np.int32))
_searchsorted = Op("searchsorted", ("sorted_sequence", "values"),
                   shape_rule=lambda seq, values, side, out_type: AbstractArray(values.shape, out_type.np_dtype))
# unique: how many distinct values there are is known only when the graph runs.
_unique = Op("unique", ("x",), num_outputs=2, shape_rule=lambda x, out_idx: (
    AbstractArray((None,), x.dtype), AbstractArray(x.shape, out_idx.np_dtype)))


def _direction(op_name, direction):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise InvalidArgumentError(f"{op_name}: direction must be 'ASCENDING' or 'DESCENDING', got {direction!r}.")
    return direction == "DESCENDING"


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The int32 indices that sort ``values`` along ``axis``; ties keep their order in both directions, as in TF."""
    values = convert_to_tensor(values)
    check_not_bool("argsort", values)
    descending = _direction("argsort", direction)
    if values.ndim == 0:
        raise InvalidArgumentError("argsort: a scalar has nothing to sort; give a tensor of rank >= 1.")
    return _argsort(values, axis=normalize_axis(axis, values.ndim, "argsort"), descending=descending)


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """``values`` sorted along ``axis``; the gradient goes back to each element's original place."""
    values = convert_to_tensor(values)
    order = argsort(values, axis, direction)
    return _take_along(values, order, axis=normalize_axis(axis, values.ndim, "sort"))


class TopK(NamedTuple):
    values: object    # the k largest entries of each row, largest first
    indices: object   # where each of them is in its row


def top_k(input, k=1, sorted=True, index_type=dtypes.int32, name=None):  # noqa: A002 (TF's names)
    """The ``k`` largest entries along the last axis and their indices, as TF's ``tf.math.top_k``.

    Equal values come lower index first. ``sorted=False`` allows any order in TF; here the
    result is always sorted. ``values`` is differentiable: its gradient goes back to the entries picked.
    """
    x = convert_to_tensor(input)
    check_not_bool("top_k", x)
    if x.ndim == 0:
        raise InvalidArgumentError("top_k: input must have rank >= 1 (k is taken along the last axis), got a scalar.")
    k = _args.integer(k, "top_k", "k", minimum=0)
    n = x.shape[-1]
    if n is not None and k > n:
        raise InvalidArgumentError(
            f"top_k: k must be at most the size {n} of the last axis (shape {tuple(x.shape)}), got {k}.")
    index_type = _args.dtype(index_type, "top_k")
    if index_type not in (dtypes.int32, dtypes.int64):
        raise InvalidArgumentError(f"top_k: index_type must be me.int32 or me.int64, got {index_type.name}.")
    indices = argsort(x, direction="DESCENDING")
    if n is None:     # the first k, cut when the graph runs: a k past the size raises then
        indices = _split_piece(indices, axis=x.ndim - 1, spec=(k, -1), index=0, op_name="top_k")
    else:
        indices = getitem(indices, (Ellipsis, slice(0, k)))
    values = _take_along(x, indices, axis=x.ndim - 1)
    return TopK(values, indices if index_type is dtypes.int32 else cast(indices, index_type))


def searchsorted(sorted_sequence, values, side="left", out_type=dtypes.int32, name=None):
    """For each value, where it would go in its row of ``sorted_sequence`` (along the last axis) to keep
    the row sorted: the first such place (``side="left"``) or the last (``"right"``), as TF's.

    The two tensors share every axis but the last: ``sorted_sequence`` (..., m), ``values`` (..., k)
    gives (..., k) indices in [0, m]. A row that is not sorted gives meaningless indices, as in TF.
    """
    sorted_sequence, values = operands("searchsorted", sorted_sequence, values)
    check_not_bool("searchsorted", sorted_sequence)
    if side not in ("left", "right"):
        raise InvalidArgumentError(f"searchsorted: side must be 'left' or 'right', got {side!r}.")
    out_type = _args.dtype(out_type, "searchsorted")
    if out_type not in (dtypes.int32, dtypes.int64):
        raise InvalidArgumentError(f"searchsorted: out_type must be me.int32 or me.int64, got {out_type.name}.")
    seq_shape, value_shape = tuple(sorted_sequence.shape), tuple(values.shape)
    if not seq_shape or not value_shape or seq_shape[:-1] != value_shape[:-1]:
        raise InvalidArgumentError(
            f"searchsorted: sorted_sequence and values must have rank >= 1 and the same shape but for the last "
            f"axis, got {seq_shape} and {value_shape}.")
    return _searchsorted(sorted_sequence, values, side=side, out_type=out_type)


class Unique(NamedTuple):
    y: object       # the distinct values, in order of first appearance
    idx: object     # for each element of x, its position in y


def unique(x, out_idx=dtypes.int32, name=None):
    """The distinct values of the 1-D ``x`` in order of first appearance, and each element's index into them."""
    x = convert_to_tensor(x)
    if x.ndim != 1:
        raise InvalidArgumentError(f"unique: x must be 1-D (as in TF), got shape {tuple(x.shape)}. "
                                   f"Flatten it first: me.reshape(x, [-1]).")
    out_idx = dtypes.as_dtype(out_idx)
    if out_idx not in (dtypes.int32, dtypes.int64):
        raise InvalidArgumentError(f"unique: out_idx must be me.int32 or me.int64, got {out_idx.name}.")
    return Unique(*_unique(x, out_idx=out_idx))
