"""Normalising with statistics: moments, batch_normalization and l2_normalize, written as TF writes them.

All three are compositions of other ops; their gradients come from those ops.
"""
from ..engine import dtypes
from . import _args
from . import elementwise as ew
from ._axes import normalize_axes
from ._operands import check_broadcast, check_float, operands
from .creation import convert_to_tensor
from .reductions import reduce_mean, reduce_sum
from .shape import reshape, stop_gradient


def moments(x, axes, shift=None, keepdims=False, name=None):
    """(mean, variance) of x over ``axes``: mean(x) and mean((x - mean)^2). ``shift`` is accepted and
    unused, as in TF 2."""
    x = convert_to_tensor(x)
    check_float("moments", x)
    axes = normalize_axes(axes, x._value.ndim, "moments")
    if x.dtype is dtypes.float16:    # in float32, rounded once, as TF does
        mean, variance = moments(ew.cast(x, dtypes.float32), axes, keepdims=keepdims)
        return ew.cast(mean, x.dtype), ew.cast(variance, x.dtype)
    mean = reduce_mean(x, axis=axes, keepdims=True)
    # The variance's gradient through the mean is 0 (the deviations sum to 0): TF stops it there,
    # which spares the backward pass a reduction and changes no value.
    variance = reduce_mean(ew.squared_difference(x, stop_gradient(mean)), axis=axes, keepdims=True)
    if not keepdims:
        reduced = tuple(n for i, n in enumerate(x._value.shape) if i not in axes)
        mean, variance = reshape(mean, reduced), reshape(variance, reduced)
    return mean, variance


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) / sqrt(variance + variance_epsilon) * scale + offset, broadcasting every argument;
    ``offset`` and ``scale`` may be None (0 and 1)."""
    x = convert_to_tensor(x)
    check_float("batch_normalization", x)
    x, mean, variance = operands("batch_normalization", x, mean, variance)
    offset = None if offset is None else operands("batch_normalization", x, offset)[1]
    scale = None if scale is None else operands("batch_normalization", x, scale)[1]
    check_broadcast("batch_normalization", *[t for t in (x, mean, variance, offset, scale) if t is not None])
    epsilon = _args.number(variance_epsilon, "batch_normalization", "variance_epsilon")
    variance, epsilon = operands("batch_normalization", variance, epsilon)   # an error here if it does not fit
    # TF's order: one factor inv = scale / sqrt(variance + eps) and one shift, so that x is touched
    # by one multiply and one add.
    inv = ew.rsqrt(ew.add(variance, epsilon))
    if scale is not None:
        inv = ew.multiply(inv, scale)
    shift = ew.multiply(mean, inv)
    shift = ew.negative(shift) if offset is None else ew.subtract(offset, shift)
    return ew.add(ew.multiply(x, inv), shift)


def l2_normalize(x, axis=None, epsilon=1e-12, name=None):
    """x / sqrt(max(sum(x^2 over axis), epsilon)): unit L2 norm along ``axis`` (all axes if None);
    a zero vector stays zero."""
    x = convert_to_tensor(x)
    check_float("l2_normalize", x)
    axes = normalize_axes(axis, x._value.ndim, "l2_normalize")
    epsilon = _args.number(epsilon, "l2_normalize", "epsilon")
    square_sum, epsilon = operands("l2_normalize", reduce_sum(ew.square(x), axis=axes, keepdims=True), epsilon)
    return ew.multiply(x, ew.rsqrt(ew.maximum(square_sum, epsilon)))
