"""Segment sums: ``me.math.unsorted_segment_sum`` and ``me.math.segment_sum``.

Summing rows into numbered segments is ``scatter_nd`` with one coordinate per row, so the
gradient of each row is the gradient of its segment (``gather_nd``), and nothing new is needed.
"""
from ..engine import dtypes
from ..engine.abstract import same
from ..engine.device import to_host
from ..engine.op import Op
from ..errors import DTypeError, InvalidArgumentError, OperatorNotAllowedInGraphError
from . import _args
from ._operands import check_not_bool
from .creation import convert_to_tensor
from .elementwise import less, where
from .indexing import _scatter_nd, getitem
from .shape import expand_dims


def _check_segment_ids(ids, *data, num_segments):
    """A value check: every id names one of the num_segments segments (a negative id drops its row); with
    ``data`` (where a graph learns its shape only when it runs), ids of the shape of data's first axes."""
    if data:
        _check_ids_shape("unsorted_segment_sum", data[0].shape, ids.shape)
    values = to_host(ids)
    if values.size and values.max() >= num_segments:
        raise InvalidArgumentError(
            f"unsorted_segment_sum: segment id {values.max()} is out of range for num_segments={num_segments} "
            f"(ids must be below it; a negative id drops its row).")


# The ids as they are, after the value check above: it runs with the graph, every time.
_checked_segment_ids = Op("check_segment_ids", ("segment_ids",), "segment_ids", shape_rule=same,
                          check=_check_segment_ids)


def _segment_ids(op_name, data, segment_ids):
    try:
        ids = convert_to_tensor(segment_ids)
    except InvalidArgumentError as err:
        raise InvalidArgumentError(f"{op_name}: segment_ids: {err}") from None
    if ids.dtype not in (dtypes.int32, dtypes.int64):
        raise DTypeError(f"{op_name}: segment_ids must be int32 or int64, got {ids.dtype.name}.")
    _check_ids_shape(op_name, data.shape, ids.shape)
    return ids


def _check_ids_shape(op_name, data_shape, ids_shape):
    """segment_ids of the shape of data's first axes (None, known only when the graph runs, fits any size)."""
    ids_shape, first = tuple(ids_shape), tuple(data_shape[:len(ids_shape)])
    if len(first) != len(ids_shape) or any(None not in (a, b) and a != b for a, b in zip(first, ids_shape)):
        raise InvalidArgumentError(
            f"{op_name}: the shape of segment_ids must be the first axes of data's shape, got segment_ids "
            f"{ids_shape} for data {tuple(data_shape)}.")


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """``out[s] = sum of data[i] where segment_ids[i] == s``, for s in [0, num_segments), as TF's.

    ``segment_ids`` has the shape of data's first axes, in any order; a negative id drops its row.
    Segments no row names are zeros.
    """
    data = convert_to_tensor(data)
    check_not_bool("unsorted_segment_sum", data)
    ids = _segment_ids("unsorted_segment_sum", data, segment_ids)
    num_segments = _args.integer(num_segments, "unsorted_segment_sum", "num_segments", minimum=0)
    unknown = None in tuple(data.shape[:ids.ndim]) + tuple(ids.shape)     # checked again when the graph runs
    ids = _checked_segment_ids(ids, *([data] if unknown else []), num_segments=num_segments)
    # Dropped rows go to one extra segment, cut off at the end: no id is read on the host to do it.
    ids = where(less(ids, 0), num_segments, ids)
    rest = tuple(data.shape[ids.ndim:])
    summed = _scatter_nd(expand_dims(ids, -1), data, shape=(num_segments + 1,) + rest)
    return getitem(summed, slice(0, num_segments))


def segment_sum(data, segment_ids, name=None):
    """``out[s] = sum of data[i] where segment_ids[i] == s``, as TF's: ``segment_ids`` is 1-D, one id per row
    of data, sorted and non-negative; there are ``segment_ids[-1] + 1`` segments."""
    data = convert_to_tensor(data)
    check_not_bool("segment_sum", data)
    ids = _segment_ids("segment_sum", data, segment_ids)
    if ids.ndim != 1:
        raise InvalidArgumentError(
            f"segment_sum: segment_ids must be 1-D (one id per row of data), got shape {tuple(ids.shape)}.")
    if getattr(ids, "_tracer", None) is not None:
        raise OperatorNotAllowedInGraphError(
            "segment_sum: the number of segments is the last id, a value me.function does not know while it "
            "traces. Use me.math.unsorted_segment_sum(data, segment_ids, num_segments) with a known count.")
    values = ids._host()
    if values.size and values.min() < 0:
        raise InvalidArgumentError(f"segment_sum: segment ids must be non-negative, got {values.min()}.")
    if values.size > 1 and (values[1:] < values[:-1]).any():
        at = int((values[1:] < values[:-1]).argmax()) + 1
        raise InvalidArgumentError(
            f"segment_sum: segment ids must be sorted, but id {values[at]} at position {at} comes after "
            f"{values[at - 1]}. For ids in any order use me.math.unsorted_segment_sum.")
    num_segments = int(values[-1]) + 1 if values.size else 0
    return unsorted_segment_sum(data, ids, num_segments)
