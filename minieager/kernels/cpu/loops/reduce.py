"""Reduction loops: sums, products, max/min, argmax/argmin and cumsum.

Every loop gets its input as a 3-D array ``(outer, reduced, inner)`` (``reduce.py``, one folder
up, explains how it gets there) and reduces the middle axis.

The loops run ``prange`` over ``outer``. With ``inner == 1`` (reducing the last axes) each row is
summed into one scalar; otherwise a row of ``inner`` accumulators, allocated inside the prange
loop so each thread has its own, is updated by a contiguous, vectorised inner loop.

max and min of whole rows (``inner == 1``, which includes reducing all axes) work differently,
because one running maximum is a chain of dependent compares, one element at a time:

* ``BLOCK`` running maxima side by side take a row ``BLOCK`` elements at a time, and
  ``running[k] = max(running[k], piece[b * BLOCK + k])`` over k is a loop LLVM turns into vector
  compares and selects. What is left after the last whole block is a short scalar tail. (With 16
  or 32 running values LLVM unrolls that loop into scalar code instead; 64 vectorises but spends
  its time entering the short loop; 256 doubles the scalar work per row, the tail and combining
  the running maxima, which shows on many short rows. 128 is the middle.)
* with fewer rows than threads (one row when reducing all axes), rows are cut into pieces so
  that every thread gets one; the piece maxima are then combined.
* the max is written as a select, ``v if (v > m) | (v != v) else m``, and not as
  ``if v > m or v != v: m = v``, whose branch stops vectorisation; ``v != v`` makes nan win,
  as in NumPy.

Measured on a (1000, 1000) float32 array, 2 threads: reduce_max over all axes takes 50 us, as
NumPy, where one thread running the scalar loop took 330-540 us; over the last axis (1000 rows)
200 us, from 300 us (NumPy: 115 us; its rows are still short enough for the tails to matter).

Accuracy: float32 (and float16) sums and products accumulate in float64 and integers in int64,
then are cast back to the input dtype (an int32 sum wraps like TensorFlow's). NumPy uses pairwise
summation in the input dtype instead; a float64 accumulator is both simpler and, for float32,
more accurate. float64 sums accumulate in float64: ``fastmath={"reassoc"}`` lets LLVM split the
sum over several vector lanes (a few partial sums, which is also a little more accurate than one
running sum). "reassoc" alone still honours nan and inf, unlike full fastmath.
"""
import numpy as np
from numba import njit, prange

_kernel = njit(parallel=True, cache=True, error_model="numpy")
_sum_kernel = njit(parallel=True, cache=True, error_model="numpy", fastmath={"reassoc"})


@_sum_kernel
def reduce_sum(x, zero, out):
    outer, reduced, inner = x.shape
    for p in prange(outer):
        if inner == 1:
            acc = zero
            for r in range(reduced):
                acc += x[p, r, 0]
            out[p, 0] = acc
        else:
            accs = np.full(inner, zero)
            for r in range(reduced):
                for q in range(inner):
                    accs[q] += x[p, r, q]
            out[p, :] = accs


@_sum_kernel
def reduce_prod(x, one, out):
    outer, reduced, inner = x.shape
    for p in prange(outer):
        if inner == 1:
            acc = one
            for r in range(reduced):
                acc *= x[p, r, 0]
            out[p, 0] = acc
        else:
            accs = np.full(inner, one)
            for r in range(reduced):
                for q in range(inner):
                    accs[q] *= x[p, r, q]
            out[p, :] = accs


# ----------------------------------------------------------------------------- max / min
BLOCK = 128   # running maxima (minima) side by side in a row reduction; see the module docstring


@njit(inline="always")
def _larger(m, v):
    """max(m, v) where nan wins, as in NumPy: v != v only for nan, and a nan m is kept.

    ``|`` rather than ``or``: both comparisons are always made, so LLVM can use a vector select
    instead of a branch per element.
    """
    return v if (v > m) | (v != v) else m


@njit(inline="always")
def _smaller(m, v):
    return v if (v < m) | (v != v) else m


@njit(inline="always")
def _extreme(m, v, largest):
    """The larger of m and v if ``largest``, else the smaller. ``largest`` is the same for a whole
    kernel call, so LLVM hoists the test out of the loop and vectorises both versions."""
    return _larger(m, v) if largest else _smaller(m, v)


@_kernel
def max_min(x, largest, out):
    """out[p, q] = max (min) over r of x[p, r, q], for inner > 1: a row of running maxima."""
    outer, reduced, inner = x.shape
    for p in prange(outer):
        out[p, :] = x[p, 0, :]
        for r in range(1, reduced):
            for q in range(inner):
                out[p, q] = _extreme(out[p, q], x[p, r, q], largest)


@_kernel
def max_min_rows(x, parts, largest, out):
    """out[p] = max (min) of row x[p], each row cut into ``parts`` pieces that the threads share."""
    rows, n = x.shape
    piece_best = np.empty((rows, parts), x.dtype)
    for t in prange(rows * parts):
        p, s = t // parts, t % parts
        piece = x[p, n * s // parts:n * (s + 1) // parts]
        blocks = len(piece) // BLOCK
        m = piece[0]
        if blocks > 0:
            running = piece[:BLOCK].copy()   # BLOCK running maxima, one per position in a block
            for b in range(1, blocks):
                for k in range(BLOCK):
                    running[k] = _extreme(running[k], piece[b * BLOCK + k], largest)
            for k in range(BLOCK):
                m = _extreme(m, running[k], largest)
        for i in range(blocks * BLOCK, len(piece)):
            m = _extreme(m, piece[i], largest)
        piece_best[p, s] = m
    for p in range(rows):
        m = piece_best[p, 0]
        for s in range(1, parts):
            m = _extreme(m, piece_best[p, s], largest)
        out[p] = m


# ----------------------------------------------------------------------------- argmax / argmin
@_kernel
def arg_extreme(x, largest, out):
    """Index of the first largest (smallest) value along axis 1 of (outer, n, inner); a nan wins."""
    outer, n, inner = x.shape
    for p in prange(outer):
        for q in range(inner):
            best, where = x[p, 0, q], 0
            for r in range(1, n):
                v = x[p, r, q]
                beats = v > best if largest else v < best
                if beats or (v != v and best == best):
                    best, where = v, r
            out[p, q] = where


# ----------------------------------------------------------------------------- cumsum
@_kernel
def cumsum(x, zero, exclusive, reverse, out):
    outer, n, inner = x.shape
    for p in prange(outer):
        accs = np.full(inner, zero)
        for step in range(n):
            r = n - 1 - step if reverse else step
            for q in range(inner):
                if exclusive:
                    out[p, r, q] = accs[q]
                    accs[q] += x[p, r, q]
                else:
                    accs[q] += x[p, r, q]
                    out[p, r, q] = accs[q]


# ----------------------------------------------------------------------------- linear recurrence
@_kernel
def linear_recurrence(a, b, transpose, out):
    """h[r] = b[r] + a[r] * h[r-1] along the middle axis, from h[0] = b[0] (cumprod is one: b = x at 0 and
    a = x after it); ``transpose``: h[r] = b[r] + a[r+1] * h[r+1] from the end, the same map transposed
    (its gradient). a[0] is never read, so an inf there cannot make 0 * inf."""
    outer, n, inner = b.shape
    for p in prange(outer):
        for step in range(n):
            r = n - 1 - step if transpose else step
            for q in range(inner):
                if step == 0:
                    out[p, r, q] = b[p, r, q]
                elif transpose:
                    out[p, r, q] = b[p, r, q] + a[p, r + 1, q] * out[p, r + 1, q]
                else:
                    out[p, r, q] = b[p, r, q] + a[p, r, q] * out[p, r - 1, q]
