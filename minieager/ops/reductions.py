"""Reductions: sum, mean, max, ... over some axes (``axis`` an int, a tuple, or None for all).

The VJP of a reduction spreads the output gradient back over the elements that were reduced:
``reduce_sum`` copies it to every element, ``reduce_max`` gives it to the maxima (shared equally
at ties, as TensorFlow does).
"""
import math

import numpy as np

from ..engine import dtypes
from ..errors import DTypeError, InvalidArgumentError
from ..engine.abstract import AbstractArray, reduction, same
from ..engine.op import Op
from ..engine.tensor import Tensor
from . import elementwise as ew
from . import _args
from ._axes import kept_shape, normalize_axes, normalize_axis
from ._operands import check_float, check_not_bool
from .creation import convert_to_tensor
from .shape import _reshape_like as reshape_like
from .shape import broadcast_like, broadcast_to, concat, expand_dims, reshape, stop_gradient


def _grad_to_input_shape(dy, x, axis):
    """The output gradient reshaped with the reduced axes kept (size 1), then broadcast to x."""
    # With keepdims, or when the leading axes were reduced (all of them, or a batch axis), dy already
    # broadcasts against x as it is.
    x_shape = x._value.shape
    if dy._value.ndim != len(x_shape) and axis != tuple(range(len(axis))):
        dy = reshape(dy, tuple(-1 if n is None else n for n in kept_shape(x_shape, axis)))
    if None in x_shape:                # a size known only when the graph runs: x's own, then
        return broadcast_like(dy, x)
    return broadcast_to(dy, x_shape)


def _sum_vjp(dy, x, out, axis, keepdims):
    return (_grad_to_input_shape(dy, x, axis),)


def _extremum_grad(dy, x, out, kept_reduce):
    """dy (broadcast to x) shared among the elements equal to the max/min ``out`` (axes kept, size 1);
    ``kept_reduce(t, name)`` reduces t over the same axes, keeping them."""
    is_max = ew.cast(ew.equal(x, out), dy.dtype)
    return ew.divide(ew.multiply(dy, is_max), kept_reduce(is_max, "reduce_sum"))


def _prod_grad(dy, x, out, kept_reduce):
    # d(prod)/dx_i is the product of the other elements. out / x_i gives it when x_i != 0;
    # at a zero, the product of the others is the product of the non-zeros if x_i is the only
    # zero, else 0. (dy broadcast to x, out with the axes kept, kept_reduce: as _extremum_grad's.)
    is_zero = ew.equal(x, 0)
    nonzero_prod = kept_reduce(ew.where(is_zero, ew.ones_like(x), x), "reduce_prod")
    zeros = kept_reduce(ew.cast(is_zero, x.dtype), "reduce_sum")
    at_zero = ew.where(ew.equal(zeros, 1), nonzero_prod, ew.zeros_like(nonzero_prod))
    others = ew.where(is_zero, at_zero, ew.divide(out, ew.where(is_zero, ew.ones_like(x), x)))
    return ew.multiply(dy, others)


def _kept_vjp(grad):
    """max, min or prod's VJP from its ``grad`` rule: dy broadcast to x, out with the axes kept."""
    def vjp(dy, x, out, axis, keepdims):
        def kept_reduce(t, name):
            return _REDUCTIONS[name](t, axis=axis, keepdims=True)
        return (grad(_grad_to_input_shape(dy, x, axis), x, reshape(out, kept_shape(x.shape, axis)), kept_reduce),)
    return vjp


_reduce_sum = Op("reduce_sum", ("x",), "sum(x)", ("dy broadcast back to x's shape",), vjp=_sum_vjp,
                 shape_rule=reduction)
_reduce_max = Op("reduce_max", ("x",), "max(x)", ("dy to the max element(s), shared at ties",),
                 vjp=_kept_vjp(_extremum_grad),
                 shape_rule=reduction)
_reduce_min = Op("reduce_min", ("x",), "min(x)", ("dy to the min element(s), shared at ties",),
                 vjp=_kept_vjp(_extremum_grad),
                 shape_rule=reduction)
_reduce_prod = Op("reduce_prod", ("x",), "prod(x)", ("dy * product of the other elements",),
                  vjp=_kept_vjp(_prod_grad),
                  shape_rule=reduction)
_reduce_any = Op("reduce_any", ("x",), "any(x)", shape_rule=reduction)
_reduce_all = Op("reduce_all", ("x",), "all(x)", shape_rule=reduction)
_REDUCTIONS = {op.name: op for op in (_reduce_sum, _reduce_max, _reduce_min, _reduce_prod, _reduce_any, _reduce_all)}


# ---- reductions over given axes of a tensor whose rank is known only when the graph runs -------------
def _check_axes_now(x, reduction, axis):
    """The eager reduction's error for an axis out of range or named twice, now that x's rank is known."""
    normalize_axes(None if axis is None else list(axis), x.ndim, reduction)


def _reduce_at_run_vjp(dy, x, out, reduction, axis):
    def kept_reduce(t, name):
        return _reduce_at_run(t, reduction=name, axis=axis)
    dy = broadcast_like(dy, x)
    if reduction == "reduce_sum":
        return (dy,)
    return (_KEPT_GRADS[reduction](dy, x, out, kept_reduce),)


def _unknown_rank(x, *rest, **attrs):
    return AbstractArray(None, x.dtype)


_unknown_rank.any_rank = True
# ``reduction`` over ``axis`` (ints as given, or None: every axis), the axes kept: the kernel makes the axes
# non-negative once the rank is known; drop_axes then removes them for keepdims=False.
_reduce_at_run = Op("reduce_at_run", ("x",), "reduction(x) over axis, the axes kept",
                    ("dy broadcast back to x (at the max/min, or times the other elements)",),
                    vjp=_reduce_at_run_vjp, shape_rule=_unknown_rank, check=_check_axes_now)
_drop_axes = Op("drop_axes", ("x",), "x without the axes of size 1 named", ("dy with those axes back",),
                vjp=lambda dy, x, out, axis: (reshape_like(dy, x),), shape_rule=_unknown_rank)
_KEPT_GRADS = {"reduce_max": _extremum_grad, "reduce_min": _extremum_grad, "reduce_prod": _prod_grad}


def _given_axes(axis, op_name):
    """``axis`` as a tuple of ints as given (or None), for a tensor of unknown rank: checked on running."""
    if axis is None:
        return None
    if hasattr(axis, "numpy"):
        axis = axis.numpy().tolist()
    return tuple(_args.integers([axis] if isinstance(axis, (int, np.integer)) else axis, op_name, "axis"))


def _reduce_unknown_rank(name, x, axis, keepdims):
    """A reduction over given axes, or with keepdims, of a tensor whose rank is known only when the graph runs
    (TF's output: of unknown rank)."""
    axis = _given_axes(axis, name)
    kept = _reduce_at_run(x, reduction=name, axis=axis)
    return kept if keepdims else _drop_axes(kept, axis=axis)


def _reduce(op, x, axis, keepdims, numeric=True):
    x = convert_to_tensor(x)
    if numeric:
        check_not_bool(op.name, x)
    elif not x.dtype.is_bool:
        raise DTypeError(f"{op.name} works on bool tensors, got {x.dtype.name}. Compare first, e.g. x > 0.")
    if x._value.shape is None and (axis is not None or keepdims):
        return _reduce_unknown_rank(op.name, x, axis, keepdims)
    x = _every_axis_if_rank_unknown(x)
    axes = normalize_axes(axis, x._value.ndim, op.name)
    return op(x, axis=axes, keepdims=bool(keepdims))


# The number of elements a reduction takes, as a scalar of ``dtype``: a constant when the shape is
# known while tracing, this op when it is known only when the graph runs (``reduce_mean(unique(x).y)``).
_count = Op("count", ("x",), "the number of elements of x along axis",
            shape_rule=lambda x, axis, dtype: AbstractArray((), dtype.np_dtype),
            check=lambda x, axis, dtype: normalize_axes(list(axis), x.ndim, "reduce_mean"))
_count.shape_rule.any_rank = True      # (a scalar, whatever x's rank)


def _count_of(x, axes, dtype):
    sizes = [x._value.shape[a] for a in axes]
    if None in sizes and 0 not in sizes:
        return _count(x, axis=axes, dtype=dtype)
    return math.prod(0 if n is None else n for n in sizes)


def _every_axis_if_rank_unknown(x):
    """``x``, or, while tracing a tensor of unknown rank, ``x`` as one axis: reducing every axis of it
    (axis=None) gives a scalar whatever the rank, as TF's."""
    return x if x._value.shape is not None else reshape(x, [-1])


def reduce_sum(input_tensor, axis=None, keepdims=False, name=None):
    return _reduce(_reduce_sum, input_tensor, axis, keepdims)


def reduce_mean(input_tensor, axis=None, keepdims=False, name=None):
    """The mean. Of an integer tensor: the integer mean, truncated toward zero, as in TensorFlow
    (the mean of [-1, -2] is -1). The sum is taken in a wide type (int64; float32 for float16),
    so that neither a long float16 row nor many uint8 values overflow on the way."""
    x = convert_to_tensor(input_tensor)
    check_not_bool("reduce_mean", x)
    dtype = x.dtype
    count_type = dtypes.int64 if dtype.is_integer else dtype
    if x._value.shape is None and (axis is not None or keepdims):    # the rank is known only when it runs
        axes = _given_axes(axis, "reduce_mean")
        count = _count(x, axis=axes, dtype=count_type) if axes is not None else \
            _count(reshape(x, [-1]), axis=(0,), dtype=count_type)
    else:
        x = _every_axis_if_rank_unknown(x)
        axes = normalize_axes(axis, x._value.ndim, "reduce_mean")
        count = _count_of(x, axes, count_type)   # a Tensor if known only when it runs
    if dtype.is_integer:
        if isinstance(count, int) and count == 0 and \
                math.prod(n or 0 for i, n in enumerate(x._value.shape) if i not in axes) > 0:
            raise InvalidArgumentError(
                f"reduce_mean: the mean over an empty axis has no value in {dtype.name} (there is no integer NaN); "
                f"shape {tuple(x.shape)}, axis {list(axes)}. Cast to a float first for NaN, as NumPy gives.")
        total = reduce_sum(ew.cast(x, dtypes.int64), axis=axes, keepdims=keepdims)
        count = ew.maximum(count, 1) if isinstance(count, Tensor) else max(count, 1)
        mean = ew.multiply(ew.sign(total), ew.floordiv(ew.abs(total), count))   # truncates toward zero
        return ew.cast(mean, dtype)
    if dtype is dtypes.float16:
        return ew.cast(reduce_mean(ew.cast(x, dtypes.float32), axes, keepdims), dtype)
    return ew.divide(reduce_sum(x, axis=axes, keepdims=keepdims), count)


def reduce_max(input_tensor, axis=None, keepdims=False, name=None):
    return _reduce(_reduce_max, input_tensor, axis, keepdims)


def reduce_min(input_tensor, axis=None, keepdims=False, name=None):
    return _reduce(_reduce_min, input_tensor, axis, keepdims)


def reduce_prod(input_tensor, axis=None, keepdims=False, name=None):
    return _reduce(_reduce_prod, input_tensor, axis, keepdims)


def reduce_any(input_tensor, axis=None, keepdims=False, name=None):
    return _reduce(_reduce_any, input_tensor, axis, keepdims, numeric=False)


def reduce_all(input_tensor, axis=None, keepdims=False, name=None):
    return _reduce(_reduce_all, input_tensor, axis, keepdims, numeric=False)


def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """log(sum(exp(x))), computed stably by subtracting the max first (float16 in float32)."""
    x = convert_to_tensor(input_tensor)
    check_float("reduce_logsumexp", x)
    axes = normalize_axes(axis, x.ndim, "reduce_logsumexp")
    if x.dtype is dtypes.float16:
        return ew.cast(reduce_logsumexp(ew.cast(x, dtypes.float32), axes, keepdims), x.dtype)
    peak = stop_gradient(reduce_max(x, axis=axes, keepdims=True))
    peak = ew.where(ew.is_finite(peak), peak, ew.zeros_like(peak))
    result = ew.add(ew.log(reduce_sum(ew.exp(ew.subtract(x, peak)), axis=axes, keepdims=True)), peak)
    if not keepdims:
        result = reshape(result, tuple(n for i, n in enumerate(x.shape) if i not in axes))
    return result


def _variance(op_name, x, axis, keepdims):
    x = convert_to_tensor(x)
    check_float(op_name, x)   # TF refuses integers too ("Input must be either real or complex")
    axes = normalize_axes(axis, x._value.ndim, op_name)
    mean = reduce_mean(x, axis=axes, keepdims=True)
    return reduce_mean(ew.square(ew.subtract(x, mean)), axis=axes, keepdims=keepdims)


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """The population variance mean((x - mean(x))^2) over ``axis``, as tf.math.reduce_variance."""
    return _variance("reduce_variance", input_tensor, axis, keepdims)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt(reduce_variance(x)), the population standard deviation, as tf.math.reduce_std."""
    return ew.sqrt(_variance("reduce_std", input_tensor, axis, keepdims))


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt(sum(x^2)) over ``axis``. Of an integer tensor: an integer, truncated (TF gives 4 for
    [[1, 2, 3], [1, 1, 1]], whose norm is sqrt(17))."""
    x = convert_to_tensor(input_tensor)
    check_not_bool("reduce_euclidean_norm", x)
    axes = normalize_axes(axis, x._value.ndim, "reduce_euclidean_norm")
    if x.dtype is dtypes.float16:     # in float32, rounded once: squares overflow float16 from 256 on
        return ew.cast(reduce_euclidean_norm(ew.cast(x, dtypes.float32), axes, keepdims), x.dtype)
    squares = reduce_sum(ew.square(x), axis=axes, keepdims=keepdims)
    if x.dtype.is_integer:            # sqrt of the integer sum, truncated back (cast rounds toward zero)
        return ew.cast(ew.sqrt(ew.cast(squares, dtypes.float64)), x.dtype)
    return ew.sqrt(squares)


def count_nonzero(input, axis=None, keepdims=False, dtype=dtypes.int64, name=None):  # noqa: A002 (TF's name)
    """How many elements are not 0 (not False for bools; nan counts) over ``axis``, as int64 by default."""
    x = convert_to_tensor(input)
    axes = normalize_axes(axis, x._value.ndim, "count_nonzero")
    dtype = _args.dtype(dtype, "count_nonzero")
    nonzero = ew.cast(ew.not_equal(x, ew.zeros_like(x)), dtypes.int64)
    return ew.cast(reduce_sum(nonzero, axis=axes, keepdims=bool(keepdims)), dtype)


def _arg_rule(x, axis):
    """argmax/argmin: the axis removed, int64 indices."""
    return AbstractArray(x.shape[:axis] + x.shape[axis + 1:], np.int64)


_argmax, _argmin = Op("argmax", ("x",), shape_rule=_arg_rule), Op("argmin", ("x",), shape_rule=_arg_rule)


def _arg(op, x, axis, output_type):
    x = convert_to_tensor(x)
    check_not_bool(op.name, x)
    if x.ndim == 0:
        raise InvalidArgumentError(f"{op.name} needs a tensor of rank >= 1, got a scalar.")
    axis = normalize_axis(0 if axis is None else axis, x.ndim, op.name)
    if x._value.shape[axis] == 0:
        raise InvalidArgumentError(
            f"{op.name}: axis {axis} of shape {tuple(x.shape)} is empty: there is no "
            f"{'largest' if op is _argmax else 'smallest'} value to point to.")
    output_type = _args.dtype(output_type, op.name)
    if output_type not in (dtypes.int32, dtypes.int64):
        raise DTypeError(f"{op.name}: output_type must be me.int32 or me.int64, got {output_type.name}.")
    result = op(x, axis=axis)
    return result if output_type is dtypes.int64 else ew.cast(result, output_type)


def argmax(input, axis=None, output_type=dtypes.int64, name=None):  # noqa: A002 (TF's name)
    """Index of the largest value along ``axis`` (default 0; first one at ties)."""
    return _arg(_argmax, input, axis, output_type)


def argmin(input, axis=None, output_type=dtypes.int64, name=None):  # noqa: A002
    return _arg(_argmin, input, axis, output_type)


_cumsum = Op("cumsum", ("x",), "cumsum(x)", ("cumsum of dy in the other direction",),
             vjp=lambda dy, x, out, axis, exclusive, reverse: (
                 _cumsum(dy, axis=axis, exclusive=exclusive, reverse=not reverse),), shape_rule=same)


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    x = convert_to_tensor(x)
    check_not_bool("cumsum", x)
    return _cumsum(x, axis=normalize_axis(axis, x.ndim, "cumsum"), exclusive=bool(exclusive), reverse=bool(reverse))


def _shift_right(t, axis):
    """``t`` moved one place along ``axis``, a zero coming in at the start and the last element dropped."""
    from .indexing import getitem
    first = [slice(None)] * t.ndim
    first[axis] = slice(0, 1)
    rest = list(first)
    rest[axis] = slice(0, -1)     # (no size needed: it holds where the size is known only when the graph runs)
    return concat([ew.zeros_like(getitem(t, tuple(first))), getitem(t, tuple(rest))], axis=axis)


def _linear_recurrence_vjp(dy, a, b, out, axis, transpose):
    # h = b + a * shifted(h) is linear in b: its transpose (the other direction) carries dy back. a[r] met
    # h[r-1] (forward) or h[r] met a[r] through h[r-1] (transposed): a product with a shifted factor each.
    back = _linear_recurrence(a, dy, axis=axis, transpose=not transpose)
    da = back * _shift_right(out, axis) if not transpose else _shift_right(back, axis) * out
    return da, back


_linear_recurrence = Op(
    "linear_recurrence", ("a", "b"), "h = b + a * (h one place back along axis)",
    ("the recurrence run back over dy, times h one place back", "the recurrence run back over dy"),
    vjp=_linear_recurrence_vjp, shape_rule=lambda a, b, axis, transpose: b)


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """The running product along ``axis``, as TF's: [a, b, c] -> [a, ab, abc]; ``exclusive`` starts from 1
    ([1, a, ab]), ``reverse`` runs from the end ([abc, bc, c]).

    One pass of the recurrence h[i] = x[i] * h[i-1] (the op ``linear_recurrence``, h = b + a * h shifted,
    with b = x at the start and a = x after it). Its gradient runs the recurrence back over dy, so it
    never divides by x: exact at zeros (TF's divides), in O(n) time and memory, and differentiable again.
    """
    from .indexing import getitem
    x = convert_to_tensor(x)
    check_not_bool("cumprod", x)
    axis = normalize_axis(axis, x.ndim, "cumprod")
    if reverse:
        x = _reversed(x, axis)
    # x[:1] and x[1:] along axis need no size, so one trace serves every length (and an empty axis)
    head = getitem(x, (slice(None),) * axis + (slice(0, 1),))
    tail = getitem(x, (slice(None),) * axis + (slice(1, None),))
    out = _linear_recurrence(concat([ew.zeros_like(head), tail], axis), concat([head, ew.zeros_like(tail)], axis),
                             axis=axis, transpose=False)
    if exclusive:     # [1, a, ab]: the inclusive products one place on, a 1 first
        out = _shift_right(out, axis) + concat([ew.ones_like(head), ew.zeros_like(tail)], axis)
    return _reversed(out, axis) if reverse else out


def _reversed(t, axis):
    from .indexing import getitem
    return getitem(t, tuple(slice(None, None, -1) if i == axis else slice(None) for i in range(t.ndim)))


# ---- undoing broadcasting ------------------------------------------------------------------------
def _sum_to_like_rule(grad, like):
    return AbstractArray(like.shape, grad.dtype)


_sum_to_like_rule.any_rank = True
# unbroadcast where a rank is known only when the graph runs: the kernel sums grad down to like's shape then.
_sum_to_like = Op("sum_to_like", ("grad", "like"), "grad summed down to like's shape", ("ddy broadcast to grad", None),
                  vjp=lambda ddy, grad, like, out: (broadcast_like(ddy, grad), None), shape_rule=_sum_to_like_rule)


def unbroadcast(grad, shape, like=None):
    """Sum ``grad`` down to ``shape``: the one place that undoes broadcasting in the forward pass.

    ``(3, 1) + (4,)`` broadcast to ``(3, 4)``; the gradient of each input is the sum of the
    output gradient over the axes that input was stretched along. Where a rank is unknown while
    tracing, ``like`` (the input, of that shape) gives the shape when the graph runs.
    """
    grad_shape = grad._value.shape
    if (grad_shape is None or shape is None) and like is not None:
        return _sum_to_like(grad, like)
    if grad_shape == shape:
        return grad
    extra = len(grad_shape) - len(shape)
    if extra:   # leading axes the input did not have: summed away (no keepdims, so no reshape after)
        grad = reduce_sum(grad, axis=tuple(range(extra)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad_shape[i + extra] != 1)
    if stretched:
        grad = reduce_sum(grad, axis=stretched, keepdims=True)
    grad_shape = grad._value.shape
    if len(grad_shape) == len(shape) and all(n is None or n == g for g, n in zip(grad_shape, shape)):
        return grad        # (a dimension of ``shape`` unknown while tracing is the size grad has)
    return reshape(grad, shape)
