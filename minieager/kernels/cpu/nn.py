"""Neural-network kernels: bias_add, NHWC convolution and pooling, softmax and the fused cross-entropy.

Convolution is "im2col + one matrix product". im2col copies every (KH, KW, C) input patch into one
row of a patch matrix P (one row per output pixel, KH*KW*C columns), so that the convolution is
``P @ w.reshape(KH*KW*C, F)`` and BLAS does the arithmetic. Its two gradients are matrix products
too: ``dw = P^T @ dy`` (BLAS reads P transposed where it lies; nothing is copied) and
``dP = dy @ w^T``, which is folded back onto the input (col2im: overlapping patches add up).

Why: BLAS does these multiply-adds several times faster than a loop we could write, so our loops
only move numbers. P is KH*KW (9) times bigger than the input, and the speed of the copy depends on
how long the contiguous runs are, so P is built in one of two layouts:

* many channels: P row by row; the innermost loop copies one window row, the KW pixels of which
  NHWC keeps next to each other with their C channels: a run of KW*C numbers.
* few channels (C <= 4: grayscale or RGB images going into a first layer): runs of 1 to 4 numbers
  cost more in loop overhead than in copying, so P^T is written (one row per filter tap, copied
  along image rows). BLAS reads either memory order (a transpose flag), so the products are the same.

``conv2d_backprop_input`` always uses the row layout: few channels usually means a first layer,
whose input gradient is never needed (its VJP skips it).

All three run over the batch a few images at a time (a chunk: about 512 KB of patch matrix, so
that the patches are still in the core's cache when BLAS reads them), and the threads share the
chunks: each thread builds its chunk's patches, multiplies them on its own one-thread BLAS and
finishes the chunk (``loops/conv.py`` has the loops and the measurements).

Measured for the guide's CNN (batch 32, float32; layer 1 is 28x28x1 -> 26x26x16, layer 2 is
26x26x16 -> 24x24x16), one thread, best of 25, milliseconds (OpenBLAS 0.3.31, Haswell kernels),
before chunking:

    layer 1 conv2d                 0.24   (im2col_transposed 0.10, matmul 0.13; 0.76 with im2col)
    layer 1 backprop_filter        0.27   (0.86 with im2col)
    layer 2 conv2d                 2.1    (im2col 0.57, matmul 1.43)
    layer 2 backprop_filter        2.0    (im2col 0.57, matmul 1.54)
    layer 2 backprop_input         1.9    (matmul 1.2, col2im 0.7)

so the matrix products are most of the time and the copies about a third; the few-channel layout
made the first layer's two calls 3x faster. Copying window rows as runs (rather than pixel by
pixel) then took layer 2's im2col from 0.47 to 0.28 ms and col2im from 0.29 to 0.20 ms.

Padding follows TensorFlow: "VALID" uses only full windows; "SAME" gives ceil(in / stride)
outputs and pads ``pad_total = max((out - 1) * stride + k - in, 0)``, ``pad_total // 2`` before.

The loops are in ``loops/conv.py`` (convolutions) and ``loops/nn.py`` (pooling, softmax and the
cross-entropies); this module shapes their inputs and outputs and calls them.
"""
import numpy as np

from ...errors import InvalidArgumentError
from ..registry import register_kernel
from . import loops
from .broadcast import SMALL_SIZE, downcast, upcast
from .thread_choice import kind_of
from .threads import chunk_workers, use_threads_for


def _out_and_pad(size, k, stride, padding):
    """Output length and padding before, along one spatial axis."""
    if padding == "VALID":
        return (size - k) // stride + 1, 0
    out = -(-size // stride)
    return out, max((out - 1) * stride + k - size, 0) // 2


def _geometry(in_hw, k_hw, strides, padding):
    """(out_h, out_w, pad_top, pad_left) of a window ``k_hw`` sliding over ``in_hw``."""
    oh, pt = _out_and_pad(in_hw[0], k_hw[0], strides[0], padding)
    ow, pl = _out_and_pad(in_hw[1], k_hw[1], strides[1], padding)
    return oh, ow, pt, pl


# ----------------------------------------------------------------------------- bias
@register_kernel("bias_add", "cpu")
def bias_add(x, bias):
    """x (..., C) + bias (C,).

    NumPy's broadcast add runs its inner loop once per position over only C numbers (16 for the
    guide's CNN), so on a conv layer's output it took 125 us where this loop takes 30 (one thread,
    (32, 26, 26, 16) float32). Tiny inputs stay on NumPy, whose call costs less.
    """
    if x.size < SMALL_SIZE:
        return np.add(x, bias)
    xc, b = np.ascontiguousarray(upcast(x)), upcast(bias)
    out = np.empty_like(xc)
    rows = xc.size // xc.shape[-1]
    use_threads_for(xc.size, splits=rows)
    loops.nn.bias_add_rows(xc.reshape(rows, -1), b, out.reshape(rows, -1))
    return downcast(out, x.dtype)


# ----------------------------------------------------------------------------- convolution
# The batch is convolved a few images at a time, so that a chunk's patch matrix is still in the
# CPU's cache when the matrix product reads it: built for the whole batch (10 MB for the guide's
# second layer), it went out to memory and back, which on this machine cost as much as the
# arithmetic. The threads share the chunks (loops/conv.py), so a chunk fits in one core's L2 cache
# (1-2 MB on current CPUs) with room for the filter and its output, and a batch makes at least
# _MIN_CHUNKS of them, so that the threads get even shares. Measured on the guide CNN's training
# step, two threads, in one process, alternating (ms, traced / eager): 1 MB and 4 chunks 4.41 /
# 5.32 (layer 2: 11 chunks of 3 images, 5 for one thread and 6 for the other), 768 KB 3.92 / 4.94
# (16 chunks of 2), 512 KB and 8 chunks 3.95-4.00 / 4.70, 256 KB 3.99 / 4.68, 2 MB 4.40 / 5.09.
_CHUNK_BYTES = 1 << 19
_MIN_CHUNKS = 8


def _images_per_chunk(n_images, patch_bytes_per_image):
    """How many images make a chunk: about _CHUNK_BYTES of patch matrix, but small enough for the
    batch to make _MIN_CHUNKS chunks to share (one image at least). It depends on the shapes alone,
    never on the thread count: the filter gradient's sum is split by chunks (loops/conv.py)."""
    by_bytes = _CHUNK_BYTES // max(patch_bytes_per_image, 1)
    return max(1, min(by_bytes, -(-n_images // _MIN_CHUNKS)))


def _conv_plan(name, x_shape, w_shape, dtypes, strides, padding, kind_shapes):
    """What the three convolution kernels share: the compute dtype (float16 computes in float32),
    the geometry (OH, OW, pad_top, pad_left), images per chunk, the chunk count and the
    ThreadChoice kind."""
    compute = np.result_type(*[np.float32 if d == np.float16 else d for d in dtypes])
    kh, kw, c, _ = w_shape
    oh, ow, pt, pl = _geometry(x_shape[1:3], (kh, kw), strides, padding)
    per_chunk = _images_per_chunk(x_shape[0], oh * ow * kh * kw * c * compute.itemsize)
    chunks = -(-x_shape[0] // per_chunk)
    return compute, (oh, ow, pt, pl), per_chunk, chunks, kind_of(name, *kind_shapes, strides, padding)


def _check_shape(kernel, what, got, want):
    """The loops trust their shapes (a wrong one would index past an array): checked before each call."""
    if tuple(got) != tuple(want):
        raise InvalidArgumentError(f"{kernel}: {what} must have shape {tuple(want)} for these inputs, got {tuple(got)}.")


# The filter gradient is summed in groups of chunks, one share of the gradient per group
# (loops/conv.py): at most this many bytes of shares. A big filter (3x3x512x512: 9.4 MB) makes one
# group, whose products the BLAS's threads share; the guide's (3x3x16x16: 9 KB) one group per chunk.
_SHARES_BYTES = 16 << 20


def _share_groups(chunks, share_bytes):
    """How many groups of chunks the filter gradient is summed in (it depends on the shapes alone)."""
    return max(1, min(chunks, _SHARES_BYTES // share_bytes))


def _buffer_size(per_chunk, out_hw, w_shape):
    """The numbers in one chunk's patch matrix (a worker's buffer)."""
    kh, kw, c, _ = w_shape
    return per_chunk * out_hw[0] * out_hw[1] * kh * kw * c


@register_kernel("conv2d", "cpu")
def conv2d(x, w, strides, padding):
    """x (N, H, W, C) * w (KH, KW, C, F) -> (N, OH, OW, F)."""
    return _convolve(x, w, strides, padding)


@register_kernel("fused_conv2d", "cpu")
def fused_conv2d(x, w, bias, strides, padding, activation):
    """relu(conv2d(x, w) + bias) (or without relu: ``activation`` "relu" or None), the same numbers as
    the three ops one after another: each chunk of the output gets its bias and relu right after its
    matrix product, while it is still in the cache (graph mode's ``fused_conv2d``; float32/float64)."""
    return _convolve(x, w, strides, padding, bias, activation == "relu")


def _convolve(x, w, strides, padding, bias=None, relu=False):
    dtype = x.dtype
    kh, kw, c, f = w.shape
    compute, (oh, ow, pt, pl), per_chunk, chunks, kind = _conv_plan(
        "conv2d", x.shape, w.shape, (x.dtype, w.dtype), strides, padding, (x.shape, w.shape, relu))
    _check_shape("conv2d", "the filter", w.shape, (kh, kw, x.shape[3], f))
    x = np.ascontiguousarray(x, compute)
    w_matrix = np.ascontiguousarray(w, compute).reshape(kh * kw * c, f)
    bias = np.zeros(0, compute) if bias is None else np.ascontiguousarray(bias, compute)
    out = np.empty((x.shape[0], oh, ow, f), compute)
    if out.size == 0 or w_matrix.size == 0:      # nothing to multiply (an empty batch, or C == 0)
        out[...] = 0
        if bias.size:
            out[...] = np.maximum(bias, 0) if relu else bias
    else:
        size = _buffer_size(per_chunk, (oh, ow), w.shape)
        with chunk_workers(kind, chunks, size * compute.itemsize) as workers:
            loops.conv.forward(x, w_matrix, kh, kw, strides[0], strides[1], pt, pl, per_chunk,
                               np.empty((workers, size), compute), bias, relu, out)
    return downcast(out, dtype)


@register_kernel("conv2d_backprop_input", "cpu")
def conv2d_backprop_input(dy, w, input_shape, strides, padding):
    """d conv2d / dx: dy (N, OH, OW, F), w (KH, KW, C, F) -> (N, H, W, C).

    dP = dy @ w^T comes out row by row, so the fold back onto the input reads the row layout
    whatever C is."""
    dtype = dy.dtype
    kh, kw, c, f = w.shape
    input_shape = (dy.shape[0],) + tuple(input_shape[1:])   # the batch from dy: a graph may know it only now
    compute, (oh, ow, pt, pl), per_chunk, chunks, kind = _conv_plan(
        "conv2d_backprop_input", input_shape, w.shape, (dy.dtype, w.dtype), strides, padding, (dy.shape, w.shape))
    _check_shape("conv2d_backprop_input", "dy", dy.shape, (input_shape[0], oh, ow, f))
    _check_shape("conv2d_backprop_input", "the filter", w.shape, (kh, kw, input_shape[3], f))
    dy = np.ascontiguousarray(dy, compute)
    w_matrix_t = np.ascontiguousarray(w, compute).reshape(kh * kw * c, f).T
    dx = np.empty(input_shape, compute)
    if dy.size == 0 or dx.size == 0:
        dx[...] = 0
    else:
        size = _buffer_size(per_chunk, dy.shape[1:3], w.shape)
        with chunk_workers(kind, chunks, size * compute.itemsize) as workers:
            loops.conv.backprop_input(dy, w_matrix_t, kh, kw, strides[0], strides[1], pt, pl, per_chunk,
                                      np.empty((workers, size), compute), dx)
    return downcast(dx, dtype)


@register_kernel("conv2d_backprop_filter", "cpu")
def conv2d_backprop_filter(x, dy, filter_shape, strides, padding):
    """d conv2d / dw: x (N, H, W, C), dy (N, OH, OW, F) -> (KH, KW, C, F): each chunk's share,
    added in chunk order."""
    dtype = x.dtype
    kh, kw, c, f = filter_shape
    compute, (oh, ow, pt, pl), per_chunk, chunks, kind = _conv_plan(
        "conv2d_backprop_filter", x.shape, filter_shape, (x.dtype, dy.dtype), strides, padding, (x.shape, dy.shape))
    _check_shape("conv2d_backprop_filter", "dy", dy.shape, (x.shape[0], oh, ow, f))
    _check_shape("conv2d_backprop_filter", "filter_shape", filter_shape, (kh, kw, x.shape[3], f))
    x = np.ascontiguousarray(x, compute)
    dy = np.ascontiguousarray(dy, compute)
    dw = np.zeros((kh * kw * c, f), compute)
    if x.size and dy.size and dw.size:
        groups = _share_groups(chunks, dw.nbytes)
        size = _buffer_size(per_chunk, dy.shape[1:3], filter_shape)
        with chunk_workers(kind, groups, size * compute.itemsize) as workers:
            loops.conv.backprop_filter(x, dy, kh, kw, strides[0], strides[1], pt, pl, per_chunk,
                                       np.empty((workers, size), compute), np.empty((groups,) + dw.shape, compute), dw)
    return downcast(dw.reshape(tuple(filter_shape)), dtype)


# ----------------------------------------------------------------------------- pooling
def _pool_geometry(in_shape, ksize, strides, padding):
    oh, ow, pt, pl = _geometry(in_shape[1:3], ksize, strides, padding)
    return (in_shape[0], oh, ow, in_shape[3]), (ksize[0], ksize[1], strides[0], strides[1], pt, pl)


def _pool_forward(x, ksize, strides, padding, loop_name):
    """One window reduction per output element, by the loop ``loops.nn.<loop_name>`` (max or mean)."""
    out_shape, geo = _pool_geometry(x.shape, ksize, strides, padding)
    xc = np.ascontiguousarray(upcast(x))
    out = np.empty(out_shape, xc.dtype)
    use_threads_for(xc.size, splits=xc.shape[0])
    getattr(loops.nn, loop_name)(xc, *geo, out)
    return downcast(out, x.dtype)


def _pool_backward(dy, input_shape, ksize, strides, padding, loop_name, *x):
    """``dy`` sent back through each window into a zero gradient of the input's shape; the max loop
    also reads the input ``x`` (to find each window's winner)."""
    _, geo = _pool_geometry(input_shape, ksize, strides, padding)
    x = tuple(np.ascontiguousarray(upcast(a)) for a in x)
    dyc = np.ascontiguousarray(upcast(dy))
    dx = np.zeros(input_shape, dyc.dtype)
    use_threads_for(dx.size, splits=dx.shape[0])
    getattr(loops.nn, loop_name)(*x, dyc, *geo, dx)
    return downcast(dx, dy.dtype)


@register_kernel("max_pool2d", "cpu")
def max_pool2d(x, ksize, strides, padding):
    return _pool_forward(x, ksize, strides, padding, "max_pool")


@register_kernel("avg_pool2d", "cpu")
def avg_pool2d(x, ksize, strides, padding):
    return _pool_forward(x, ksize, strides, padding, "avg_pool")


@register_kernel("max_pool2d_grad", "cpu")
def max_pool2d_grad(x, dy, ksize, strides, padding):
    return _pool_backward(dy, x.shape, ksize, strides, padding, "max_pool_grad", x)


@register_kernel("avg_pool2d_grad", "cpu")
def avg_pool2d_grad(dy, input_shape, ksize, strides, padding):
    input_shape = (dy.shape[0],) + tuple(input_shape[1:])   # the batch from dy (a graph's may be unknown)
    return _pool_backward(dy, input_shape, ksize, strides, padding, "avg_pool_grad")


# ----------------------------------------------------------------------------- softmax family
def _softmax(x, axis, log):
    """Move ``axis`` last (a copy only if it is not last already), run the row kernel, move it back."""
    if x.size == 0:    # no rows, or rows of no numbers: nothing to normalise (the loop reads x[r, 0])
        return x.copy()
    xc = np.ascontiguousarray(np.moveaxis(upcast(x), axis, -1))
    out = np.empty_like(xc)
    use_threads_for(xc.size, splits=xc.size // max(xc.shape[-1], 1))
    loops.nn.softmax_rows(xc.reshape(-1, xc.shape[-1]), log, out.reshape(-1, xc.shape[-1]))
    return downcast(np.ascontiguousarray(np.moveaxis(out, -1, axis)), x.dtype)


@register_kernel("softmax", "cpu")
def softmax(x, axis):
    return _softmax(x, axis, False)


@register_kernel("log_softmax", "cpu")
def log_softmax(x, axis):
    return _softmax(x, axis, True)


def _xent_outputs(loss, backprop, dtype, mean):
    """(loss (N,), backprop), or with ``mean`` (the mean loss as a 0-d array, backprop), in ``dtype``."""
    if mean:   # summed in float64, as reduce_mean does; an empty batch gives nan, as reduce_mean does
        loss = np.asarray(loss.sum(dtype=np.float64) / loss.size if loss.size else np.nan, loss.dtype)
    return downcast(loss, dtype), downcast(backprop, dtype)


@register_kernel("softmax_cross_entropy", "cpu")
def softmax_cross_entropy(logits, labels, mean=False):
    """logits, labels (N, C) -> (loss (N,), backprop (N, C)); labels are probabilities per row.

    With ``mean``: the batch's mean loss, and backprop divided by N (its gradient).
    """
    x, y = np.ascontiguousarray(upcast(logits)), np.ascontiguousarray(upcast(labels))
    loss, backprop = np.empty(x.shape[0], x.dtype), np.empty_like(x)
    use_threads_for(x.size, splits=x.shape[0])
    loops.nn.softmax_xent(x, y, 1.0 / max(len(x), 1) if mean else 1.0, loss, backprop)
    return _xent_outputs(loss, backprop, logits.dtype, mean)


@register_kernel("sparse_softmax_cross_entropy", "cpu")
def sparse_softmax_cross_entropy(logits, labels, mean=False):
    """logits (N, C), integer labels (N,) in [0, C) -> (loss (N,), backprop (N, C)); ``mean`` as above."""
    classes = logits.shape[1]
    if labels.size and (labels.min() < 0 or labels.max() >= classes):
        # Checked here as well as in the op: in a me.function graph the labels are known only now,
        # and the loop below would index outside the row.
        bad = labels[(labels < 0) | (labels >= classes)].flat[0]
        raise InvalidArgumentError(
            f"sparse_softmax_cross_entropy_with_logits: received a label value of {bad} which is outside the "
            f"valid range of [0, {classes}). Labels must be class indices for logits with {classes} classes.")
    x = np.ascontiguousarray(upcast(logits))
    loss, backprop = np.empty(x.shape[0], x.dtype), np.empty_like(x)
    use_threads_for(x.size, splits=x.shape[0])
    loops.nn.sparse_softmax_xent(x, np.ascontiguousarray(labels), 1.0 / max(len(x), 1) if mean else 1.0,
                                 loss, backprop)
    return _xent_outputs(loss, backprop, logits.dtype, mean)
