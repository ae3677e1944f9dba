"""Clipping by norm, for gradients that grow too large."""
from . import elementwise as ew
from .creation import constant, convert_to_tensor
from .linalg import norm
from .reductions import reduce_sum


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """``t`` scaled down so that its L2 norm (over ``axes``) is at most ``clip_norm``."""
    t = convert_to_tensor(t)
    length = norm(t, axis=axes, keepdims=True)
    return ew.multiply(t, ew.divide(clip_norm, ew.maximum(length, clip_norm)))


def global_norm(t_list, name=None):
    present = [convert_to_tensor(t) for t in t_list if t is not None]
    return ew.sqrt(sum((reduce_sum(ew.square(t)) for t in present), constant(0.0, dtype=present[0].dtype)))


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scale every tensor by one factor so their joint L2 norm is at most ``clip_norm``.

    Returns ``(clipped_list, global_norm)``; None entries stay None.
    """
    total = global_norm(t_list) if use_norm is None else convert_to_tensor(use_norm)
    scale = ew.divide(clip_norm, ew.maximum(total, clip_norm))
    return [None if t is None else ew.multiply(t, ew.cast(scale, convert_to_tensor(t).dtype)) for t in t_list], total
