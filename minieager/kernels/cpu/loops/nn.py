"""Neural-network loops: bias_add, pooling, softmax, cross-entropy (the convolutions are in conv.py).

All loops run ``prange`` over the batch (or the rows): each image is written by one thread, so
the ``+=`` of the pooling gradients never races. Pooling windows are clipped to the input (max
ignores the padding, avg divides by the number of real elements, as TF does).

The softmax family computes in float64 and calls ``vexp``, a polynomial: compiled with
``fastmath={"contract"}``, each of its multiply-adds is one FMA instruction (see vecmath.py).
"""
import numpy as np
from numba import njit, prange

from .vecmath import vexp

_kernel = njit(parallel=True, cache=True, error_model="numpy")
_math_kernel = njit(parallel=True, cache=True, error_model="numpy", fastmath={"contract"})


# ----------------------------------------------------------------------------- bias
@_kernel
def bias_add_rows(x, bias, out):
    """out[r, c] = x[r, c] + bias[c]: every position (row) gets the row of channel biases."""
    rows, channels = x.shape
    for r in prange(rows):
        for c in range(channels):
            out[r, c] = x[r, c] + bias[c]


# ----------------------------------------------------------------------------- pooling
@njit(inline="always")
def _window(i, stride, pad, k, size):
    """[start, stop) of output position i's window along one axis, clipped to the input."""
    start = i * stride - pad
    return max(start, 0), min(start + k, size)


@_kernel
def max_pool(x, kh, kw, sh, sw, pt, pl, out):
    n_img, h, w, n_c = x.shape
    _, oh, ow, _ = out.shape
    for n in prange(n_img):
        for i in range(oh):
            y0, y1 = _window(i, sh, pt, kh, h)
            for j in range(ow):
                x0, x1 = _window(j, sw, pl, kw, w)
                for c in range(n_c):
                    out[n, i, j, c] = x[n, y0, x0, c]
                for y in range(y0, y1):
                    for xx in range(x0, x1):
                        for c in range(n_c):
                            v = x[n, y, xx, c]
                            if v > out[n, i, j, c] or v != v:   # v != v: nan wins, as in reduce_max
                                out[n, i, j, c] = v


@_kernel
def max_pool_grad(x, dy, kh, kw, sh, sw, pt, pl, dx):
    """Each dy goes to the first maximum of its window (row-major order), as in TensorFlow.

    Like max_pool, the scan keeps channels innermost (contiguous in NHWC), so it tracks the best
    value and its position for all C channels of a window at once.
    """
    n_img, h, w, n_c = x.shape
    _, oh, ow, _ = dy.shape
    for n in prange(n_img):
        best = np.empty(n_c, x.dtype)            # scratch, one set per image (allocated inside prange)
        best_y = np.empty(n_c, np.int64)
        best_x = np.empty(n_c, np.int64)
        for i in range(oh):
            y0, y1 = _window(i, sh, pt, kh, h)
            for j in range(ow):
                x0, x1 = _window(j, sw, pl, kw, w)
                for c in range(n_c):
                    best[c], best_y[c], best_x[c] = x[n, y0, x0, c], y0, x0
                for y in range(y0, y1):
                    for xx in range(x0, x1):
                        for c in range(n_c):
                            v = x[n, y, xx, c]
                            if v > best[c] or (v != v and best[c] == best[c]):   # the first nan wins
                                best[c], best_y[c], best_x[c] = v, y, xx
                for c in range(n_c):
                    dx[n, best_y[c], best_x[c], c] += dy[n, i, j, c]


@_kernel
def avg_pool(x, kh, kw, sh, sw, pt, pl, out):
    n_img, h, w, n_c = x.shape
    _, oh, ow, _ = out.shape
    for n in prange(n_img):
        acc = np.empty(n_c, np.float64)
        for i in range(oh):
            y0, y1 = _window(i, sh, pt, kh, h)
            for j in range(ow):
                x0, x1 = _window(j, sw, pl, kw, w)
                acc[:] = 0
                for y in range(y0, y1):
                    for xx in range(x0, x1):
                        for c in range(n_c):
                            acc[c] += x[n, y, xx, c]
                count = (y1 - y0) * (x1 - x0)   # real elements only: padding is not averaged in
                for c in range(n_c):
                    out[n, i, j, c] = acc[c] / count


@_kernel
def avg_pool_grad(dy, kh, kw, sh, sw, pt, pl, dx):
    n_img, h, w, n_c = dx.shape
    _, oh, ow, _ = dy.shape
    for n in prange(n_img):
        for i in range(oh):
            y0, y1 = _window(i, sh, pt, kh, h)
            for j in range(ow):
                x0, x1 = _window(j, sw, pl, kw, w)
                count = (y1 - y0) * (x1 - x0)
                for y in range(y0, y1):
                    for xx in range(x0, x1):
                        for c in range(n_c):
                            dx[n, y, xx, c] += dy[n, i, j, c] / count


# ----------------------------------------------------------------------------- softmax family
@njit(inline="always")
def _exp_shifted_row(x, r, e):
    """e[r, k] = exp(x[r, k] - max(x[r])); returns their sum and the row's logsumexp.

    Subtracting the row max first means exp never overflows (the largest term is exactly 1).
    ``e`` is the caller's output array: each exp is computed once and kept there, with no
    scratch buffer to allocate per row.
    """
    n = x.shape[1]
    m = np.float64(x[r, 0])
    for k in range(1, n):
        m = max(m, x[r, k])
    for k in range(n):                  # no running sum in this loop, so LLVM vectorises it
        e[r, k] = vexp(x[r, k] - m)
    total = _row_sum(e, r)
    return total, m + np.log(total)


@njit(cache=True, fastmath={"reassoc"})
def _row_sum(e, r):
    """Sum of row r. "reassoc" lets LLVM keep several partial sums in a vector register instead
    of adding one number at a time; it is kept out of vexp, whose rounding trick it would break."""
    total = 0.0
    for k in range(e.shape[1]):
        total += e[r, k]
    return total


@_math_kernel
def softmax_rows(x, log, out):
    """Softmax (or log-softmax) of each row."""
    rows, n = x.shape
    for r in prange(rows):
        total, lse = _exp_shifted_row(x, r, out)
        for k in range(n):
            out[r, k] = x[r, k] - lse if log else out[r, k] / total


@_math_kernel
def softmax_xent(logits, labels, scale, loss, backprop):
    """loss = sum(labels * (logsumexp - logits)), backprop = (softmax - labels) * scale; one pass per row."""
    rows, n = logits.shape
    for r in prange(rows):
        total, lse = _exp_shifted_row(logits, r, backprop)
        row_loss = 0.0
        for k in range(n):
            backprop[r, k] = (backprop[r, k] / total - labels[r, k]) * scale
            row_loss += labels[r, k] * (lse - logits[r, k])
        loss[r] = row_loss


@_math_kernel
def sparse_softmax_xent(logits, labels, scale, loss, backprop):
    """loss = logsumexp - logits[label], backprop = (softmax - one_hot(label)) * scale."""
    rows, n = logits.shape
    for r in prange(rows):
        total, lse = _exp_shifted_row(logits, r, backprop)
        for k in range(n):
            backprop[r, k] = backprop[r, k] / total * scale
        backprop[r, labels[r]] -= scale
        loss[r] = lse - logits[r, labels[r]]
