"""Abstract values: what graph mode knows about a tensor before it runs (its dtype and shape).

An ``AbstractArray`` has a ``shape`` and a ``dtype`` and no values. Each ``Op`` carries a *shape
rule* (``Op(..., shape_rule=...)``, beside its kernel name and its gradient rule): given the
abstract values of its inputs and its attributes, the rule says the dtype and shape of each output.
``me.function`` traces with these rules alone (TF calls them shape functions, JAX abstract
evaluation); no kernel runs while a function is traced.

A dimension may be ``None``: known only when the graph runs (a batch of any size, the number of
distinct values ``unique`` finds). The listing prints it as ``?``: ``float32[?,784]``.

The rules shared by many ops live here (same shape, broadcasting, reductions); the others sit
next to their op.
"""
import math

import numpy as np

from ..errors import InvalidArgumentError


class AbstractArray:
    """The dtype (a NumPy dtype, as an array's) and shape (ints, ``None`` where unknown) of an array.
    The shape itself is ``None`` when even the rank is unknown (a ``py_function`` given only a dtype).

    It answers what op functions ask an array about its form (``shape``, ``ndim``, ``dtype``,
    ``size``) and nothing about values.
    """

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = None if shape is None else tuple(None if d is None else int(d) for d in shape)
        self.dtype = np.dtype(dtype)

    @property
    def ndim(self):
        return None if self.shape is None else len(self.shape)

    @property
    def size(self):
        """The number of elements; None if a dimension is unknown (unless another one is 0)."""
        if self.shape is None:
            return None
        if 0 in self.shape:
            return 0
        return None if None in self.shape else math.prod(self.shape)

    @property
    def fully_defined(self):
        return self.shape is not None and None not in self.shape

    def __eq__(self, other):
        return isinstance(other, AbstractArray) and (self.shape, self.dtype) == (other.shape, other.dtype)

    def __hash__(self):
        return hash((self.shape, self.dtype))

    def __repr__(self):
        return f"AbstractArray({shape_text(self.shape)}, {self.dtype})"


def abstract(x):
    """The abstract value of an array (a NumPy or device array), or ``x`` if it is one already."""
    return x if isinstance(x, AbstractArray) else AbstractArray(x.shape, x.dtype)


def shape_text(shape):
    """``[?,784]``: a shape as the listing prints it (``[...]``: not even the rank is known)."""
    if shape is None:
        return "[...]"
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def compatible(shape, other):
    """Whether an array of shape ``other`` (ints) fits ``shape`` (``None`` matches any size or rank)."""
    if shape is None:
        return True
    return len(shape) == len(other) and all(a is None or a == b for a, b in zip(shape, other))


def relaxed(shape, other):
    """The most specific shape both fit: dimensions that differ become None (TF's reduce_retracing)."""
    if shape is None or other is None or len(shape) != len(other):
        return None
    return tuple(a if a == b else None for a, b in zip(shape, other))


def unknown_rank_error(op_name, tensor="a tensor"):
    return InvalidArgumentError(
        f"{op_name}: {tensor} has no known rank while the graph is built, and {op_name} needs one. Give it a "
        f"shape: me.compat.v1.placeholder(dtype, shape=[None, ...]), or Tout=me.TensorSpec(shape, dtype) "
        f"for a py_function.")


# ---- rules shared by many ops --------------------------------------------------------------------
def same(x, *rest, **attrs):
    """The output has the first input's shape and dtype (exp, relu, cumsum, softmax ...)."""
    return x


same.any_rank = True    # a rule that works when the rank is unknown too


def broadcast_shapes(op_name, *shapes):
    """NumPy broadcasting with unknown dimensions: per axis from the right, sizes must be equal or
    1; an unknown size against 1 or against itself stays unknown, against n it is n."""
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for axis in range(-ndim, 0):
        sizes = {s[axis] for s in shapes if len(s) >= -axis} - {1}
        known = sizes - {None}
        if len(known) > 1:
            raise InvalidArgumentError(
                f"{op_name}: shapes {' and '.join(str(tuple(s)) for s in shapes)} are incompatible for "
                f"broadcasting. Each dimension must match or be 1 (aligned from the right); reshape or "
                f"expand_dims one of the inputs.")
        out.append(known.pop() if known else None if None in sizes else 1)
    return tuple(out)


def _broadcast_all(arrays):
    if any(a.shape is None for a in arrays):
        return None                      # an unknown rank broadcast: unknown rank
    return broadcast_shapes("broadcast", *[a.shape for a in arrays])


def broadcast(a, *rest, **attrs):
    """Elementwise with broadcasting (add, multiply, where's x and y): the broadcast shape, a's dtype."""
    return AbstractArray(_broadcast_all((a,) + rest), a.dtype)


def broadcast_bool(a, b, **attrs):
    """Comparisons and logic: the broadcast shape, bool."""
    return AbstractArray(_broadcast_all((a, b)), np.bool_)


def where(cond, x, y, **attrs):
    """``where(cond, x, y)``: the three broadcast, x's dtype."""
    return AbstractArray(_broadcast_all((cond, x, y)), x.dtype)


broadcast.any_rank = broadcast_bool.any_rank = where.any_rank = True


def reduction(x, axis, keepdims, **attrs):
    """sum, max, any ... over ``axis`` (a tuple): those axes removed, or kept as 1."""
    if keepdims:
        shape = tuple(1 if i in axis else n for i, n in enumerate(x.shape))
    else:
        shape = tuple(n for i, n in enumerate(x.shape) if i not in axis)
    return AbstractArray(shape, x.dtype)


def of(dtype):
    """A rule for an op whose output has its input's shape and the fixed ``dtype`` (isnan -> bool)."""
    def rule(x, *rest, **attrs):
        return AbstractArray(x.shape, dtype)
    rule.any_rank = True
    return rule


def dtype_attr(x, *rest, dtype, **attrs):
    """The input's shape, the dtype named by the ``dtype`` attribute (cast)."""
    return AbstractArray(x.shape, dtype.np_dtype)


dtype_attr.any_rank = True
