"""Convolution loops: the threads share the batch, and each one convolves its own images.

``nn.py``, one folder up, explains the method (im2col + one matrix product) and calls these.
Each loop below splits the batch into chunks of a few images (``per_chunk``) and gives every
thread a run of consecutive chunks (``prange`` over the workers). For each of its chunks a thread

1. copies the chunk's patches into its own buffer (``buffers[worker]``): the patch matrix,
2. multiplies it by the filter with ``np.dot``, which calls the BLAS (SciPy's, on this thread:
   the caller sets the BLAS to one thread), while the patches are still in this core's cache,
3. finishes the chunk: bias and relu (``forward``), folding the patch gradient back onto the
   input (``backprop_input``), or adding the chunk's product to its group's share of the filter
   gradient (``backprop_filter``, whose shares are added in order after the threads are done).

Why not the BLAS's own threads? A product of one chunk is small, and on two threads the BLAS
and numba handed each chunk's work back and forth: the guide CNN's training step ran about as
fast on two threads as on one. Here one parallel region covers the whole convolution. Measured
on two threads (the guide's second layer, batch 32): the forward pass 0.68 ms against 1.2-1.5 ms,
the filter gradient 1.0 ms against 1.6-2.1 ms (bench/RESULTS.md has the step).

The results do not depend on the thread count: every chunk is one product on one BLAS thread,
the chunks (and the filter gradient's groups of chunks) are the same on any count, and the sums
are made in one order.
(One exception, as for any matmul: when a single worker runs, for one image or images too big for
two buffers, the BLAS's own threads share each product; ``threads.chunk_workers`` says when.)

Two layouts of the patch matrix (``nn.py`` says why): row by row (``patch_rows``), and for inputs
with few channels transposed, one row per filter tap (``patch_columns``); ``np.dot`` reads either.
Padded positions are never read: the patch copies write 0 there.
"""
import numpy as np
import scipy.linalg.cython_blas  # noqa: F401 (the BLAS numba's np.dot calls: loaded now, so that its thread count is set)
from numba import njit, prange

from .... import machine
from . import scalar

machine.blas_library_loaded()

_kernel = njit(parallel=True, cache=True, error_model="numpy")

# Up to this many input channels the patch matrix is built transposed. Measured for conv2d plus
# backprop_filter on 32 28x28 images: the transposed layout is 3.1x faster with 1 channel, 2.0x
# with 2, 1.4x with 4, and 0.8x (slower) with 8.
FEW_CHANNELS = 4


@njit(inline="always")
def _chunks_of(worker, workers, n_chunks):
    """The run of chunks (or groups) ``worker`` of ``workers`` takes: [first, stop)."""
    return worker * n_chunks // workers, (worker + 1) * n_chunks // workers


@njit(error_model="numpy")
def patch_rows(x, first, last, sh, sw, pt, pl, kh, kw, oh, ow, col):
    """col[((n - first) * oh + i) * ow + j, (di * kw + dj) * C + c] = x[n, i*sh + di - pt, j*sw + dj - pl, c]
    (or 0 in the padding) for images first..last-1: their patch matrix, one row per output pixel.

    In NHWC the KW pixels of one window row lie side by side, each with its C channels, so inside the
    image each (di) row of a patch is one contiguous run of KW*C numbers, copied by one simple loop;
    only windows that overlap the padding go number by number. (The test ``0 <= x0`` also tells LLVM
    that the indices are not negative, so it drops numba's negative-index wraparound and vectorises
    the copy: 1.6-1.9x faster than number by number.)
    """
    _, h, w, n_c = x.shape
    rows = x.reshape(x.shape[0], h, w * n_c)            # one image row: w pixels x C channels
    runs = col.reshape(col.shape[0], kh, kw * n_c)      # one window row of a patch: kw pixels x C channels
    for q in range(last - first):
        n = first + q
        for i in range(oh):
            for j in range(ow):
                r = (q * oh + i) * ow + j
                x0 = j * sw - pl                        # the window's first column
                for di in range(kh):
                    y = i * sh + di - pt
                    if 0 <= y < h and 0 <= x0 and x0 + kw <= w:   # the whole window row is inside
                        for t in range(kw * n_c):
                            runs[r, di, t] = rows[n, y, x0 * n_c + t]
                        continue
                    for dj in range(kw):                # at the border: 0 in the padding
                        xx = x0 + dj
                        inside = 0 <= y < h and 0 <= xx < w
                        for c in range(n_c):
                            runs[r, di, dj * n_c + c] = x[n, y, xx, c] if inside else 0


@njit(error_model="numpy")
def patch_columns(x, first, last, sh, sw, pt, pl, kh, kw, oh, ow, col_t):
    """The same numbers as ``patch_rows``, transposed: col_t[(di * kw + dj) * C + c, pixel].

    One row per filter tap, holding that tap's input value for every output pixel of the chunk. The
    innermost loop walks along an image row, so with one channel it is a long unit-stride copy
    instead of ``patch_rows``' one-number runs.
    """
    _, h, w, n_c = x.shape
    taps = col_t.reshape(kh, kw, n_c, last - first, oh, ow)
    for di in range(kh):
        for dj in range(kw):
            for c in range(n_c):
                for q in range(last - first):
                    n = first + q
                    for i in range(oh):
                        y = i * sh + di - pt
                        for j in range(ow):
                            xx = j * sw + dj - pl
                            inside = 0 <= y < h and 0 <= xx < w
                            taps[di, dj, c, q, i, j] = x[n, y, xx, c] if inside else 0


def forward(x, w_matrix, kh, kw, sh, sw, pt, pl, per_chunk, buffers, bias, relu, out):
    """out (N, OH, OW, F) = x's patch matrix @ w_matrix (KH*KW*C, F); then + bias (F,) and relu if
    asked (no bias: ``bias.size == 0``), each chunk right after its product, while it is in the
    cache, with bias_add's and relu's own formulas: it rounds as those ops do one after the other."""
    n_img, _, _, n_c = x.shape
    _, oh, ow, f = out.shape
    k, pixels = kh * kw * n_c, oh * ow
    out_rows = out.reshape(n_img * pixels, f)
    n_chunks = (n_img + per_chunk - 1) // per_chunk
    workers = buffers.shape[0]
    for worker in prange(workers):
        first_chunk, stop_chunk = _chunks_of(worker, workers, n_chunks)
        for chunk in range(first_chunk, stop_chunk):
            first, last = chunk * per_chunk, min(chunk * per_chunk + per_chunk, n_img)
            m = (last - first) * pixels
            rows = out_rows[first * pixels:last * pixels]
            # One branch per layout: numba types a C-ordered and an F-ordered matrix apart, so each
            # gets its own np.dot call (one helper returning either would not compile).
            if n_c <= FEW_CHANNELS:
                col_t = buffers[worker, :k * m].reshape(k, m)
                patch_columns(x, first, last, sh, sw, pt, pl, kh, kw, oh, ow, col_t)
                np.dot(col_t.T, w_matrix, rows)
            else:
                col = buffers[worker, :m * k].reshape(m, k)
                patch_rows(x, first, last, sh, sw, pt, pl, kh, kw, oh, ow, col)
                np.dot(col, w_matrix, rows)
            if bias.size > 0:
                for r in range(m):
                    for c in range(f):
                        v = scalar.add(rows[r, c], bias[c])
                        rows[r, c] = scalar.relu(v) if relu else v


# It inlines two formulas: named with their digest, as the elementwise loops are, so that numba's
# disk cache compiles it again when a formula changes (see scalar.py).
forward.__qualname__ = f"forward_{scalar.DIGEST}"
forward = _kernel(forward)


@_kernel
def backprop_input(dy, w_matrix_t, kh, kw, sh, sw, pt, pl, per_chunk, buffers, dx):
    """dx (N, H, W, C) from dy (N, OH, OW, F): each chunk's patch gradient dy @ w_matrix_t (F, KH*KW*C)
    is added back onto the input positions its entries came from (the adjoint of ``patch_rows``;
    overlapping patches add up). A chunk's images belong to one thread, so the adds never race."""
    n_img, h, w, n_c = dx.shape
    _, oh, ow, f = dy.shape
    k, pixels = kh * kw * n_c, oh * ow
    dy_rows = dy.reshape(n_img * pixels, f)
    dx_rows = dx.reshape(n_img, h, w * n_c)
    n_chunks = (n_img + per_chunk - 1) // per_chunk
    workers = buffers.shape[0]
    for worker in prange(workers):
        first_chunk, stop_chunk = _chunks_of(worker, workers, n_chunks)
        for chunk in range(first_chunk, stop_chunk):
            first, last = chunk * per_chunk, min(chunk * per_chunk + per_chunk, n_img)
            m = (last - first) * pixels
            dcol = buffers[worker, :m * k].reshape(m, k)
            np.dot(dy_rows[first * pixels:last * pixels], w_matrix_t, dcol)
            runs = dcol.reshape(m, kh, kw * n_c)
            for q in range(last - first):
                n = first + q
                for y in range(h):
                    for t in range(w * n_c):
                        dx_rows[n, y, t] = 0
                for i in range(oh):
                    for j in range(ow):
                        r = (q * oh + i) * ow + j
                        x0 = j * sw - pl
                        for di in range(kh):
                            y = i * sh + di - pt
                            if 0 <= y < h and 0 <= x0 and x0 + kw <= w:
                                for t in range(kw * n_c):
                                    dx_rows[n, y, x0 * n_c + t] += runs[r, di, t]
                                continue
                            for dj in range(kw):
                                xx = x0 + dj
                                if 0 <= y < h and 0 <= xx < w:
                                    for c in range(n_c):
                                        dx[n, y, xx, c] += runs[r, di, dj * n_c + c]


@_kernel
def backprop_filter(x, dy, kh, kw, sh, sw, pt, pl, per_chunk, buffers, shares, dw):
    """dw (KH*KW*C, F) = x's patch matrix^T @ dy. The chunks are split into ``len(shares)`` groups
    of consecutive chunks; each group's products are added up, in chunk order, in ``shares[group]``
    by the thread that takes the group, and after the threads are done the shares are added in
    group order. The groups depend on the shapes alone, so the bits are the same on any count."""
    n_img, _, _, n_c = x.shape
    _, oh, ow, f = dy.shape
    k, pixels = kh * kw * n_c, oh * ow
    dy_rows = dy.reshape(n_img * pixels, f)
    n_chunks = (n_img + per_chunk - 1) // per_chunk
    n_groups = shares.shape[0]
    workers = buffers.shape[0]
    for worker in prange(workers):
        product = np.empty((k, f), dw.dtype)
        first_group, stop_group = _chunks_of(worker, workers, n_groups)
        for group in range(first_group, stop_group):
            first_chunk, stop_chunk = _chunks_of(group, n_groups, n_chunks)
            for chunk in range(first_chunk, stop_chunk):
                first, last = chunk * per_chunk, min(chunk * per_chunk + per_chunk, n_img)
                m = (last - first) * pixels
                into = shares[group] if chunk == first_chunk else product
                if n_c <= FEW_CHANNELS:
                    col_t = buffers[worker, :k * m].reshape(k, m)
                    patch_columns(x, first, last, sh, sw, pt, pl, kh, kw, oh, ow, col_t)
                    np.dot(col_t, dy_rows[first * pixels:last * pixels], into)
                else:
                    col = buffers[worker, :m * k].reshape(m, k)
                    patch_rows(x, first, last, sh, sw, pt, pl, kh, kw, oh, ow, col)
                    np.dot(col.T, dy_rows[first * pixels:last * pixels], into)
                if chunk != first_chunk:
                    for a in range(k):
                        for b in range(f):
                            shares[group, a, b] += product[a, b]
    for a in range(k):
        for b in range(f):
            dw[a, b] = shares[0, a, b]
    for group in range(1, n_groups):
        for a in range(k):
            for b in range(f):
                dw[a, b] += shares[group, a, b]
