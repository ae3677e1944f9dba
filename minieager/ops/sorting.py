"""Sorting: ``me.sort``, ``me.argsort`` and ``me.unique``.

``sort`` is ``take_along_axis(x, argsort(x))``: picking elements is linear, so its gradient puts
each output gradient back where its element came from (``put_along_axis``), and the gradient
of that is picking again. ``argsort`` and ``unique`` return indices and have no gradient, as in TF.
"""
from typing import NamedTuple

from ..engine import dtypes
from ..engine.errors import InvalidArgumentError
from ..engine.op import Op
from ._axes import normalize_axis
from ._operands import check_not_bool
from .creation import convert_to_tensor

_take_along = Op("take_along_axis", ("x", "indices"), "x picked along axis at indices",
                 ("dy put back along axis at indices", None),
                 vjp=lambda dy, x, indices, out, axis: (_put_along(dy, indices, axis=axis, shape=tuple(x.shape)), None))
_put_along = Op("put_along_axis", ("dy", "indices"), "zeros with dy added along axis at indices",
                ("ddy picked along axis at indices", None),
                vjp=lambda ddy, dy, indices, out, axis, shape: (_take_along(ddy, indices, axis=axis), None))
_argsort = Op("argsort", ("values",))
_unique = Op("unique", ("x",), num_outputs=2)


def _direction(op_name, direction):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise InvalidArgumentError(f"{op_name}: direction must be 'ASCENDING' or 'DESCENDING', got {direction!r}.")
    return direction == "DESCENDING"


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The int32 indices that sort ``values`` along ``axis`` (ties keep their order when ascending)."""
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
