"""Linear algebra: matmul (2-D and batched), tensordot, norm, einsum, diag and diag_part, solve.

For ``out = a @ b`` the gradients are ``dy @ b^T`` for ``a`` and ``a^T @ dy`` for ``b``; the
transpose flags let the backward pass use them without copying a transposed matrix.
"""
import math
import string

import numpy as np

from ..engine.abstract import AbstractArray, broadcast_shapes
from ..engine.op import Op
from ..errors import InvalidArgumentError
from . import _args, elementwise as ew
from ._axes import normalize_axis
from ._operands import broadcast_shape, check_not_bool, operands
from .creation import convert_to_tensor
from .reductions import reduce_max, reduce_sum
from .shape import broadcast_to, reshape, transpose


def _matmul_vjp(dy, a, b, out, transpose_a, transpose_b, needs):
    # Each product is as costly as the forward one: compute only the gradients someone needs.
    need_a, need_b = needs
    if not transpose_a and not transpose_b:      # y = a @ b
        return (_mm(dy, b, False, True) if need_a else None), (_mm(a, dy, True, False) if need_b else None)
    if transpose_a and not transpose_b:          # y = a^T @ b
        return (_mm(b, dy, False, True) if need_a else None), (_mm(a, dy, False, False) if need_b else None)
    if not transpose_a and transpose_b:          # y = a @ b^T
        return (_mm(dy, b, False, False) if need_a else None), (_mm(dy, a, True, False) if need_b else None)
    return (_mm(b, dy, True, True) if need_a else None), (_mm(dy, a, True, True) if need_b else None)


def _matmul_rule(a, b, transpose_a, transpose_b):
    """(..., m, k) @ (..., k, n) -> (..., m, n), the batch axes broadcast (of unknown rank if a or b is)."""
    if a.shape is None or b.shape is None:
        return AbstractArray(None, a.dtype)
    m = a.shape[-1] if transpose_a else a.shape[-2]
    n = b.shape[-2] if transpose_b else b.shape[-1]
    return AbstractArray(broadcast_shapes("matmul", a.shape[:-2], b.shape[:-2]) + (m, n), a.dtype)


_matmul_rule.any_rank = True
# The shapes are checked before every product, eager or in a graph: a graph may learn a rank or a
# size only when it runs (TF: a product of unknown rank), and then raises the same errors.
_matmul = Op("matmul", ("a", "b"), "a @ b", ("dy @ b^T", "a^T @ dy"), vjp=_matmul_vjp, selective=True,
             shape_rule=_matmul_rule, check=lambda a, b, transpose_a, transpose_b: _check_matmul(
                 a.shape, b.shape, transpose_a, transpose_b))


def _mm(a, b, transpose_a, transpose_b):
    return _matmul(a, b, transpose_a=transpose_a, transpose_b=transpose_b)


def _check_matmul(shape_a, shape_b, transpose_a, transpose_b):
    """matmul's errors for shapes that cannot multiply (a None dimension: known only when the graph runs)."""
    shape_a, shape_b = tuple(shape_a), tuple(shape_b)
    if len(shape_a) < 2 or len(shape_b) < 2:
        raise InvalidArgumentError(
            f"matmul needs tensors of rank >= 2, got shapes {shape_a} and {shape_b}. "
            f"Use me.reshape(v, [1, -1]) to make a vector a row matrix.")
    k_a = shape_a[-2] if transpose_a else shape_a[-1]
    k_b = shape_b[-1] if transpose_b else shape_b[-2]
    if k_a != k_b and None not in (k_a, k_b):
        raise InvalidArgumentError(
            f"matmul: inner dimensions do not match: {shape_a}{'^T' if transpose_a else ''} @ "
            f"{shape_b}{'^T' if transpose_b else ''} multiplies {k_a} columns by {k_b} rows. "
            f"The last axis of a must equal the second-to-last axis of b.")
    if (len(shape_a) > 2 or len(shape_b) > 2) and broadcast_shape(shape_a[:-2], shape_b[:-2]) is None:
        raise InvalidArgumentError(
            f"matmul: batch dimensions {shape_a[:-2]} and {shape_b[:-2]} do not broadcast.")


def matmul(a, b, transpose_a=False, transpose_b=False, name=None):
    """Matrix product of the last two axes; leading (batch) axes broadcast."""
    a, b = operands("matmul", a, b)
    check_not_bool("matmul", a)
    return _matmul(a, b, transpose_a=bool(transpose_a), transpose_b=bool(transpose_b))


def tensordot(a, b, axes, name=None):
    """Sum products over ``axes`` of a and b (an int n: the last n of a with the first n of b)."""
    a, b = operands("tensordot", a, b)
    check_not_bool("tensordot", a)
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        n = _args.integer(axes, "tensordot", "axes", minimum=0)
        if n > min(a.ndim, b.ndim):
            raise InvalidArgumentError(
                f"tensordot: axes={n} sums over more axes than a {tuple(a.shape)} or b {tuple(b.shape)} has.")
        axes_a, axes_b = list(range(a.ndim - n, a.ndim)), list(range(n))
    else:
        if not isinstance(axes, (list, tuple)) or len(axes) != 2:
            raise InvalidArgumentError(
                f"tensordot: axes must be an int or a pair [axes of a, axes of b], got {axes!r:.80}.")
        pair = [list(x) if isinstance(x, (list, tuple)) else [x] for x in axes]   # each checked below
        axes_a = [normalize_axis(x, a.ndim, "tensordot", "axes[0]") for x in pair[0]]
        axes_b = [normalize_axis(x, b.ndim, "tensordot", "axes[1]") for x in pair[1]]
        if len(axes_a) != len(axes_b) or len(set(axes_a)) != len(axes_a) or len(set(axes_b)) != len(axes_b):
            raise InvalidArgumentError(
                f"tensordot: axes {pair[0]} of a and {pair[1]} of b must be as many, each axis named once.")
    for i, j in zip(axes_a, axes_b):
        if a.shape[i] != b.shape[j]:
            raise InvalidArgumentError(
                f"tensordot: axis {i} of a {tuple(a.shape)} has size {a.shape[i]} but axis {j} of b "
                f"{tuple(b.shape)} has size {b.shape[j]}.")
    free_a = [i for i in range(a.ndim) if i not in axes_a]
    free_b = [i for i in range(b.ndim) if i not in axes_b]
    k = math.prod(a.shape[i] for i in axes_a)
    a2 = reshape(transpose(a, free_a + axes_a), (math.prod(a.shape[i] for i in free_a), k))
    b2 = reshape(transpose(b, axes_b + free_b), (k, math.prod(b.shape[i] for i in free_b)))
    return reshape(matmul(a2, b2), [a.shape[i] for i in free_a] + [b.shape[i] for i in free_b])


def norm(tensor, ord="euclidean", axis=None, keepdims=False, name=None):  # noqa: A002 (TF's name)
    """The vector norm: 'euclidean' (2), 1, or np.inf, over ``axis`` (default: all elements)."""
    x = ew.convert_to_tensor(tensor)
    check_not_bool("norm", x)
    if ord in ("euclidean", 2, "fro"):
        return ew.sqrt(reduce_sum(ew.square(x), axis=axis, keepdims=keepdims))
    if ord == 1:
        return reduce_sum(ew.abs(x), axis=axis, keepdims=keepdims)
    if ord == np.inf:
        return reduce_max(ew.abs(x), axis=axis, keepdims=keepdims)
    raise InvalidArgumentError(f"norm: ord must be 'euclidean', 1, 2 or np.inf, got {ord!r}.")


# ---- einsum ---------------------------------------------------------------------------------------
def _parse_einsum(equation, n):
    """``equation`` in explicit form ("ij,jk->ik"): a list of input subscripts and the output's."""
    equation = equation.replace(" ", "")
    if "." in equation:
        raise InvalidArgumentError(f"einsum: ellipses ('...') are not supported in {equation!r}; name every axis.")
    inputs, arrow, output = equation.partition("->")
    subs = inputs.split(",")
    if len(subs) != n:
        raise InvalidArgumentError(f"einsum: the equation {equation!r} has {len(subs)} inputs but {n} tensors were given.")
    letters = "".join(subs)
    if not arrow:   # implicit form: the letters that appear once, in alphabetical order (as NumPy and TF)
        output = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    if not all(c.isalpha() for c in letters + output):
        raise InvalidArgumentError(f"einsum: subscripts must be letters, got {equation!r}.")
    return subs, output


def _einsum_vjp(dy, *inputs, out, equation):
    subs, output = _parse_einsum(equation, len(inputs))
    grads = []
    for k, x in enumerate(inputs):
        others = [s for j, s in enumerate(subs) if j != k]
        seen = set(output).union(*others)
        # letters summed away inside x alone come back by broadcasting; a repeated letter (a diagonal) once
        kept = "".join(c for i, c in enumerate(subs[k]) if c in seen and c not in subs[k][:i])
        grad = _einsum(dy, *[t for j, t in enumerate(inputs) if j != k],
                       equation=",".join([output] + others) + "->" + kept)
        if len(set(subs[k])) != len(subs[k]):
            grad = _onto_diagonals(grad, kept, subs[k], x.shape, equation)
        elif kept != subs[k]:
            grad = broadcast_to(reshape(grad, [n if c in seen else 1 for c, n in zip(subs[k], x.shape)]), x.shape)
        grads.append(grad)
    return tuple(grads)


def _onto_diagonals(grad, kept, sub, shape, equation):
    """``grad`` (one axis per letter of ``kept``) laid out as an input with subscripts ``sub`` whose letters
    repeat: a repeated letter's axes get ``grad`` on their diagonal (a product with the identity), and a letter
    missing from ``kept`` (summed inside that input alone) broadcasts (a product with ones)."""
    fresh = iter(c for c in string.ascii_letters if c not in equation)
    factors, letters, target = [], [], ""
    for c, n in zip(sub, shape):
        if n is None:
            raise InvalidArgumentError(f"einsum: the gradient of {equation!r} needs the size of axis {c!r}, "
                                       f"unknown while tracing; give the function an input_signature with it.")
        if c in target:                       # a repeat: a new letter tied to c by the identity
            letters.append(c + next(fresh))
            factors.append(convert_to_tensor(np.eye(n, dtype=grad.dtype.np_dtype)))
            target += letters[-1][1]
            continue
        target += c
        if c not in kept:
            letters.append(c)
            factors.append(convert_to_tensor(np.ones(n, dtype=grad.dtype.np_dtype)))
    return _einsum(grad, *factors, equation=",".join([kept] + letters) + "->" + target)


def _einsum_rule(*xs, equation):
    """Each output letter's size is that letter's size in the inputs."""
    subs, output = equation.split("->")
    sizes = {}
    for letters, x in zip(subs.split(","), xs):
        for c, n in zip(letters, x.shape):
            if sizes.get(c) is None:
                sizes[c] = n
    return AbstractArray(tuple(sizes[c] for c in output), xs[0].dtype)


_einsum = Op("einsum", ("x",), "einsum(equation, xs)", ("einsum of dy with the other inputs",), vjp=_einsum_vjp,
             shape_rule=_einsum_rule)


def einsum(equation, *inputs, name=None):
    """Sums of products named by subscripts: ``me.einsum("ij,jk->ik", a, b)`` is ``a @ b``; a letter repeated
    within one input walks its diagonal (``"ii->i"`` is the diagonal, ``"ii->"`` the trace)."""
    if not isinstance(equation, str):
        raise TypeError(f"einsum: the first argument is the equation, a string such as 'ij,jk->ik', got "
                        f"{type(equation).__name__} {equation!r:.40}. Write me.einsum(equation, *tensors).")
    if not inputs:
        raise InvalidArgumentError(f"einsum: the equation {equation!r} needs at least one tensor after it, got none.")
    tensors = operands("einsum", *inputs) if len(inputs) > 1 else [convert_to_tensor(inputs[0])]
    check_not_bool("einsum", *tensors)
    subs, output = _parse_einsum(equation, len(tensors))
    sizes = {}
    for s, t in zip(subs, tensors):
        if len(s) != t.ndim:
            raise InvalidArgumentError(f"einsum: subscripts {s!r} name {len(s)} axes but the tensor has shape {tuple(t.shape)}.")
        for c, n in zip(s, t.shape):
            if sizes.setdefault(c, n) != n and None not in (sizes[c], n):
                raise InvalidArgumentError(f"einsum: axis {c!r} has size {sizes[c]} in one input and {n} in another.")
    missing = set(output) - set(sizes)
    if missing or len(set(output)) != len(output):
        raise InvalidArgumentError(f"einsum: every output letter must appear once and in an input, got {output!r} "
                                   f"in {equation!r}.")
    return _einsum(*tensors, equation=",".join(subs) + "->" + output)


# ---- diagonals ------------------------------------------------------------------------------------
def _diag_part_rule(x):
    m, n = x.shape[-2:]
    return AbstractArray(x.shape[:-2] + (None if m is None or n is None else min(m, n),), x.dtype)


_diag = Op("diag", ("diagonal",), "matrix with the diagonal", ("diag_part(dy)",),
           vjp=lambda dy, d, out, shape: (_diag_part(dy),), shape_rule=lambda d, shape: AbstractArray(shape, d.dtype))
_diag_part = Op("diag_part", ("x",), "the main diagonal of x", ("matrix with dy on the diagonal",),
                vjp=lambda dy, x, out: (_diag(dy, shape=tuple(x.shape)),), shape_rule=_diag_part_rule)


def diag(diagonal, name=None, k=0):
    """Square matrices with ``diagonal`` (shape (..., n)) on their main diagonal: (..., n, n)."""
    diagonal = convert_to_tensor(diagonal)
    if k != 0:
        raise InvalidArgumentError("linalg.diag: only the main diagonal (k=0) is supported.")
    if diagonal.ndim < 1:
        raise InvalidArgumentError("linalg.diag: the diagonal must have rank >= 1, got a scalar.")
    n = diagonal.shape[-1]
    return _diag(diagonal, shape=tuple(diagonal.shape) + (n,))


def diag_part(input, name=None, k=0):  # noqa: A002 (TF's name)
    """The main diagonal of each matrix in ``input`` (..., m, n): shape (..., min(m, n))."""
    x = convert_to_tensor(input)
    if k != 0:
        raise InvalidArgumentError("linalg.diag_part: only the main diagonal (k=0) is supported.")
    if x.ndim < 2:
        raise InvalidArgumentError(f"linalg.diag_part: input must have rank >= 2, got shape {tuple(x.shape)}.")
    return _diag_part(x)


# ---- solving matrix @ x = rhs ---------------------------------------------------------------------
def _solve_vjp(dy, matrix, rhs, out, adjoint):
    # x = A^-1 b: d/db = A^-T dy, d/dA = -(A^-T dy) x^T.  With adjoint (x = A^-T b): d/db = A^-1 dy, d/dA = -x (A^-1 dy)^T.
    db = _matrix_solve(matrix, dy, adjoint=not adjoint)
    da = _mm(out, db, False, True) if adjoint else _mm(db, out, False, True)
    return ew.negative(da), db


def _solve_rule(matrix, rhs, adjoint):
    return AbstractArray(rhs.shape, matrix.dtype)


_matrix_solve = Op("matrix_solve", ("matrix", "rhs"), "matrix^-1 @ rhs",
                   ("-(matrix^-T @ dy) @ out^T", "matrix^-T @ dy"), vjp=_solve_vjp, shape_rule=_solve_rule)


def solve(matrix, rhs, adjoint=False, name=None):
    """x with ``matrix @ x = rhs`` (``tf.linalg.solve``): ``matrix`` is (..., M, M), ``rhs`` (..., M, K), the
    same batch axes; ``adjoint=True`` solves ``matrix^T @ x = rhs``. Differentiable in both."""
    a, b = operands("linalg.solve", matrix, rhs)
    if not a.dtype.is_floating:
        raise InvalidArgumentError(f"linalg.solve: the matrix is {a.dtype.name}; solving needs floats. Cast first: "
                                   f"me.cast(matrix, me.float32) (and the rhs).")
    shapes = f"matrix of shape {tuple(a.shape)} and rhs of shape {tuple(b.shape)}"
    if a.ndim != b.ndim or a.ndim < 2:
        hint = " For a vector rhs write rhs[:, None] (a column)." if b.ndim == a.ndim - 1 else ""
        raise InvalidArgumentError(f"linalg.solve: the matrix (..., M, M) and the rhs (..., M, K) must have the same "
                                   f"rank, at least 2; got {shapes}.{hint}")

    def differ(m, n):
        return m is not None and n is not None and m != n
    if differ(a.shape[-1], a.shape[-2]):
        raise InvalidArgumentError(f"linalg.solve: the matrix must be square (..., M, M); got {shapes}.")
    if any(differ(m, n) for m, n in zip(a.shape[:-2], b.shape[:-2])):
        raise InvalidArgumentError(f"linalg.solve: the matrix and the rhs must have the same batch axes (they do not "
                                   f"broadcast); got {shapes}.")
    if differ(a.shape[-1], b.shape[-2]):
        raise InvalidArgumentError(f"linalg.solve: the rhs must have M = {a.shape[-1]} rows, one per row of the "
                                   f"matrix; got {shapes}.")
    return _matrix_solve(a, b, adjoint=bool(adjoint))
