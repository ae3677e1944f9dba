"""Neural-network loops: bias_add, im2col and col2im for convolution, pooling, softmax, cross-entropy.

``nn.py``, one folder up, explains the convolution's layouts and chunking and calls these.
All loops run ``prange`` over the batch (or the rows): each image is written by one thread, so
the ``+=`` of ``col2im`` and of the pooling gradients never races. Padded positions are never
read: im2col writes 0 there, and pooling windows are clipped to the input (max ignores them,
avg divides by the number of real elements, as TF does).

The softmax family computes in float64 and calls ``vexp``, a polynomial: compiled with
``fastmath={"contract"}``, each of its multiply-adds is one FMA instruction (see vecmath.py).
"""
import numpy as np
from numba import njit, prange

from . import scalar
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


def bias_relu_rows(x, bias, relu):
    """In place: x[r, c] += bias[c], then relu if asked. The epilogue of graph mode's fused_conv2d,
    with bias_add's and relu's own formulas, so it rounds as those two ops do one after the other."""
    rows, channels = x.shape
    for r in prange(rows):
        for c in range(channels):
            v = scalar.add(x[r, c], bias[c])
            x[r, c] = scalar.relu(v) if relu else v


# It inlines two formulas: named with their digest, as the elementwise loops are, so that numba's
# disk cache compiles it again when a formula changes (see scalar.py).
bias_relu_rows.__qualname__ = f"bias_relu_rows_{scalar.DIGEST}"
bias_relu_rows = _kernel(bias_relu_rows)


# ----------------------------------------------------------------------------- convolution
@_kernel
def im2col(x, sh, sw, pt, pl, col):
    """col[n, i, j, di, dj, c] = x[n, i*sh + di - pt, j*sw + dj - pl, c], or 0 in the padding.

    The patch matrix row by row. In NHWC the KW pixels of one window row lie side by side, each
    with its C channels, so inside the image each (di) row of a patch is one contiguous run of
    KW*C numbers, copied by one simple loop. Only windows that overlap the padding go number by
    number. (The test ``0 <= x0`` also tells LLVM that the indices are not negative, so it drops
    numba's negative-index wraparound and vectorises the copy: 1.6-1.9x faster than number by number.)
    """
    n_img, h, w, n_c = x.shape
    _, oh, ow, kh, kw, _ = col.shape
    rows = x.reshape(n_img, h, w * n_c)                  # one image row: w pixels x C channels
    runs = col.reshape(n_img, oh, ow, kh, kw * n_c)      # one window row: kw pixels x C channels
    for n in prange(n_img):
        for i in range(oh):
            for j in range(ow):
                x0 = j * sw - pl                         # the window's first column
                for di in range(kh):
                    y = i * sh + di - pt
                    if 0 <= y < h and 0 <= x0 and x0 + kw <= w:   # the whole window row is inside
                        for t in range(kw * n_c):
                            runs[n, i, j, di, t] = rows[n, y, x0 * n_c + t]
                        continue
                    for dj in range(kw):                 # at the border: 0 in the padding
                        xx = x0 + dj
                        inside = 0 <= y < h and 0 <= xx < w
                        for c in range(n_c):
                            col[n, i, j, di, dj, c] = x[n, y, xx, c] if inside else 0


@_kernel
def im2col_transposed(x, sh, sw, pt, pl, col_t):
    """col_t[di, dj, c, n, i, j] = x[n, i*sh + di - pt, j*sw + dj - pl, c], or 0 in the padding.

    The same numbers as im2col, transposed: one row per filter tap (di, dj, c), holding that tap's
    input value for every output pixel. The innermost loop walks along an image row, so with one
    channel it is a long unit-stride copy instead of im2col's one-number runs.
    """
    n_img, h, w, n_c = x.shape
    kh, kw, _, _, oh, ow = col_t.shape
    for n in prange(n_img):
        for di in range(kh):
            for dj in range(kw):
                for c in range(n_c):
                    for i in range(oh):
                        y = i * sh + di - pt
                        for j in range(ow):
                            xx = j * sw + dj - pl
                            inside = 0 <= y < h and 0 <= xx < w
                            col_t[di, dj, c, n, i, j] = x[n, y, xx, c] if inside else 0


@_kernel
def col2im(col, sh, sw, pt, pl, dx):
    """The adjoint of im2col: add every patch entry back onto the input position it came from.

    Run by run where the window row is inside the image, as im2col copies them.
    """
    n_img, h, w, n_c = dx.shape
    _, oh, ow, kh, kw, _ = col.shape
    rows = dx.reshape(n_img, h, w * n_c)
    runs = col.reshape(n_img, oh, ow, kh, kw * n_c)
    for n in prange(n_img):
        for i in range(oh):
            for j in range(ow):
                x0 = j * sw - pl
                for di in range(kh):
                    y = i * sh + di - pt
                    if 0 <= y < h and 0 <= x0 and x0 + kw <= w:
                        for t in range(kw * n_c):
                            rows[n, y, x0 * n_c + t] += runs[n, i, j, di, t]
                        continue
                    for dj in range(kw):
                        xx = x0 + dj
                        if 0 <= y < h and 0 <= xx < w:
                            for c in range(n_c):
                                dx[n, y, xx, c] += col[n, i, j, di, dj, c]


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
