"""Matrix multiplication (and solving matrix @ x = rhs): one call to NumPy, which hands the work to BLAS / LAPACK.

A blocked, vectorised GEMM is what makes matmul fast, and OpenBLAS has one tuned for this CPU;
a numba triple loop reaches a small fraction of it. Measured for (1000, 1000) float32 on this
2-core machine: np.matmul 8.5 ms (236 GFLOP/s), np.dot inside @njit 8.9 ms (225 GFLOP/s): the
same kind of BLAS call behind an extra layer (and SciPy's BLAS besides), so the plain call stays.

``np.matmul`` also loops over broadcast batch axes ``(..., M, K) @ (..., K, N)``, and a transpose
flag is a free ``swapaxes`` view that BLAS reads in place (no copied transpose).
float16 has no BLAS routine (NumPy's fallback loop is ~100x slower), so it computes in float32.
Integer matmul has no BLAS either; NumPy's integer loop is used as is.
"""
import numpy as np

from ...errors import InvalidArgumentError
from ..registry import register_kernel
from .broadcast import downcast, upcast
from .thread_choice import kind_of
from .threads import blas_products, blas_threads

# OpenBLAS computes a product of M * N * K multiply-adds up to this on one thread, whatever its
# thread count (SMP_THRESHOLD_MIN * GEMM_MULTITHREAD_THRESHOLD in its interface/gemm.c).
_ONE_THREAD_WORK = 65536 * 4


@register_kernel("matmul", "cpu")
def matmul(a, b, transpose_a=False, transpose_b=False):
    dtype = a.dtype
    a, b = upcast(a), upcast(b)
    if transpose_a:
        a = np.swapaxes(a, -1, -2)
    if transpose_b:
        b = np.swapaxes(b, -1, -2)
    # As many BLAS threads as the neighbours leave free, or one where this kind of product ran
    # faster on one lately; after it, the BLAS threads spin for a while (threads.py). A product
    # OpenBLAS runs on one thread whatever its count is not timed (that would add ~2.5 us, half
    # the time of a (2, 2) @ (2, 2) call), and wakes none of its threads, so none spin after it.
    if a.shape[-2] * a.shape[-1] * b.shape[-1] <= _ONE_THREAD_WORK:
        blas_threads()
        out = np.matmul(a, b)
    else:
        with blas_products(kind_of("matmul", a.shape, b.shape, transpose_a, transpose_b)):
            out = np.matmul(a, b)
    return downcast(out, dtype)


@register_kernel("einsum", "cpu")
def einsum(*operands, equation):
    """NumPy's einsum (``optimize`` picks a good order of pairwise products, often through BLAS)."""
    return np.asarray(np.einsum(equation, *operands, optimize=len(operands) > 1), order="C")   # (0-d stays 0-d)


@register_kernel("matrix_solve", "cpu")
def matrix_solve(matrix, rhs, adjoint=False):
    """x with ``matrix @ x = rhs`` (``adjoint``: ``matrix^T @ x = rhs``), batch by batch: NumPy's solve, an
    LU factorisation by LAPACK. float16 computes in float32, as matmul does."""
    dtype = matrix.dtype
    a, b = upcast(matrix), upcast(rhs)
    if adjoint:
        a = np.swapaxes(a, -1, -2)
    try:
        x = np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        raise InvalidArgumentError(
            f"linalg.solve: the matrix is not invertible (singular: a pivot of its LU factorisation is 0), "
            f"shape {matrix.shape}. No x solves matrix @ x = rhs exactly; to regularise it, add a small "
            f"multiple of the identity (matrix + eps * me.eye(n)), as TF's advanced_autodiff guide does.") from None
    return np.ascontiguousarray(downcast(x, dtype))
