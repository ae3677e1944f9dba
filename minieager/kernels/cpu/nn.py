"""Neural-network kernels: bias_add, NHWC convolution and pooling, softmax and the fused cross-entropy.

Convolution is "im2col + one matrix product". im2col copies every (KH, KW, C) input patch into one
row of a patch matrix P (one row per output pixel, KH*KW*C columns), so that the convolution is
``P @ w.reshape(KH*KW*C, F)`` and BLAS does the arithmetic. Its two gradients are matrix products
too: ``dw = P^T @ dy`` (BLAS reads P transposed where it lies; nothing is copied) and
``dP = dy @ w^T``, which ``col2im`` folds back onto the input (overlapping patches add up).

Why: BLAS does these multiply-adds several times faster than a loop we could write, so our loops
only move numbers. P is KH*KW (9) times bigger than the input, and the speed of the copy depends on
how long the contiguous runs are, so P is built in one of two layouts:

* many channels: ``im2col`` writes P row by row; its innermost loop copies one window row, the
  KW pixels of which NHWC keeps next to each other with their C channels: a run of KW*C numbers.
* few channels (C <= 4: grayscale or RGB images going into a first layer): runs of 1 to 4 numbers
  cost more in loop overhead than in copying, so ``im2col_transposed`` writes P^T (one row per
  filter tap, copied along image rows) and ``_patches`` returns its transpose as a view. np.matmul
  passes either memory order to BLAS as a flag, so the callers are the same for both.

``conv2d_backprop_input`` always uses the row layout: few channels usually means a first layer,
whose input gradient is never needed (its VJP skips it).

All three run over the batch a few images at a time (``_chunks``), about 1 MB of patch matrix per
chunk, so that the patches are still in the cache when BLAS reads them.

Measured for the guide's CNN (batch 32, float32; layer 1 is 28x28x1 -> 26x26x16, layer 2 is
26x26x16 -> 24x24x16), one thread, best of 25, milliseconds (OpenBLAS 0.3.31, Haswell kernels),
before chunking:

    layer 1 conv2d                 0.24   (im2col_transposed 0.10, matmul 0.13; 0.76 with im2col)
    layer 1 backprop_filter        0.27   (0.86 with im2col)
    layer 2 conv2d                 2.1    (im2col 0.57, matmul 1.43)
    layer 2 backprop_filter        2.0    (im2col 0.57, matmul 1.54)
    layer 2 backprop_input         1.9    (matmul 1.2, col2im 0.7)

so the matrix products are most of the time and the copies about a third; the few-channel layout
made the first layer's two calls 3x faster. Chunking, measured on two threads in pairs (each
call with and without it, alternately, 40 times): layer 2 conv2d 0.76-0.84x the time,
backprop_input 0.57-0.84x, backprop_filter 0.87-1.0x; a whole training step 0.83-0.85x. Copying
window rows as runs (rather than pixel by pixel) then took layer 2's im2col from 0.47 to 0.28 ms
and col2im from 0.29 to 0.20 ms (one thread, 32 images).

Padding follows TensorFlow: "VALID" uses only full windows; "SAME" gives ceil(in / stride)
outputs and pads ``pad_total = max((out - 1) * stride + k - in, 0)``, ``pad_total // 2`` before.

The loops named here (``im2col``, ``col2im``, pooling, softmax and the cross-entropies) are in
``loops/nn.py``; this module shapes their inputs and outputs and calls them.
"""
import numpy as np

from ...errors import InvalidArgumentError
from ..registry import register_kernel
from . import loops
from .broadcast import SMALL_SIZE, downcast, upcast
from .thread_choice import kind_of
from .threads import blas_called, blas_products, use_threads_for


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
# Up to this many input channels the patch matrix is built transposed. Measured for conv2d plus
# backprop_filter on 32 28x28 images: the transposed layout is 3.1x faster with 1 channel, 2.0x
# with 2, 1.4x with 4, and 0.8x (slower) with 8.
_FEW_CHANNELS = 4


def _patches(x, k_hw, strides, padding):
    """im2col: the (N*OH*OW, KH*KW*C) patch matrix of ``x``, one row per output pixel.

    With few channels it is a transposed view of what im2col_transposed built. np.matmul hands
    either memory order straight to BLAS (as a transpose flag), so callers need not care.
    """
    n, h, w, c = x.shape
    (kh, kw), (sh, sw) = k_hw, strides
    oh, ow, pt, pl = _geometry((h, w), k_hw, strides, padding)
    x = np.ascontiguousarray(x)
    use_threads_for(n * oh * ow * kh * kw * c, splits=n)
    if c <= _FEW_CHANNELS:
        col_t = np.empty((kh, kw, c, n, oh, ow), x.dtype)
        loops.nn.im2col_transposed(x, sh, sw, pt, pl, col_t)
        return col_t.reshape(kh * kw * c, n * oh * ow).T
    col = np.empty((n, oh, ow, kh, kw, c), x.dtype)
    loops.nn.im2col(x, sh, sw, pt, pl, col)
    return col.reshape(n * oh * ow, kh * kw * c)


# The batch is convolved a few images at a time, so that a chunk's patch matrix is still in the
# CPU's cache when the matrix product reads it: built for the whole batch (10 MB for the guide's
# second layer), it went out to memory and back, which on this machine cost as much as the
# arithmetic. About 4 MB per chunk: with 1 MB (one core's L2 cache) the guide CNN's step ran
# ~11 small products per convolution, and on two threads each one's hand-over between the BLAS and
# numba threads cost more than the second core gave back (the step took 1.07x its one-thread
# time). Measured in that step, in one process, alternating (ms, traced / eager):
#   1 MB: 1 thread 6.35 / 6.89, 2 threads 6.73 / 7.33;  4 MB: 6.18 / 6.82, 5.46 / 6.23;
#   16 MB (the whole batch): 6.42 / 7.44, 5.27 / 6.13.
_CHUNK_BYTES = 4 << 20


def _chunks(n_images, patch_bytes_per_image):
    """Slices of the batch, each a few images whose patch matrix is about _CHUNK_BYTES."""
    step = max(1, _CHUNK_BYTES // max(patch_bytes_per_image, 1))
    return [slice(start, min(start + step, n_images)) for start in range(0, n_images, step)]


def _patch_bytes(out_hw, k_hw, channels, dtype):
    return out_hw[0] * out_hw[1] * k_hw[0] * k_hw[1] * channels * np.dtype(dtype).itemsize


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
    x, w = upcast(x), upcast(w)
    kh, kw, c, f = w.shape
    oh, ow, _, _ = _geometry(x.shape[1:3], (kh, kw), strides, padding)
    w_matrix = w.reshape(kh * kw * c, f)
    out = np.empty((x.shape[0], oh, ow, f), np.result_type(x, w))
    with blas_products(kind_of("conv2d", x.shape, w.shape, strides, padding, relu)):
        for images in _chunks(x.shape[0], _patch_bytes((oh, ow), (kh, kw), c, x.dtype)):
            rows = out[images].reshape(-1, f)
            np.matmul(_patches(x[images], (kh, kw), strides, padding), w_matrix, out=rows)
            blas_called()
            if bias is not None:
                use_threads_for(rows.size, splits=rows.shape[0])
                loops.nn.bias_relu_rows(rows, bias, relu)
    return downcast(out, dtype)


@register_kernel("conv2d_backprop_input", "cpu")
def conv2d_backprop_input(dy, w, input_shape, strides, padding):
    """d conv2d / dx: dy (N, OH, OW, F), w (KH, KW, C, F) -> (N, H, W, C).

    dP = dy @ w^T comes out row by row, so col2im reads the row layout whatever C is.
    """
    dtype = dy.dtype
    dy, w = upcast(dy), upcast(w)
    kh, kw, c, f = w.shape
    n, oh, ow, _ = dy.shape
    input_shape = (n,) + tuple(input_shape[1:])   # the batch from dy: a graph may know it only now
    w_matrix_t = w.reshape(kh * kw * c, f).T
    _, _, pt, pl = _geometry(tuple(input_shape[1:3]), (kh, kw), strides, padding)
    dx = np.zeros(tuple(input_shape), np.result_type(dy, w))
    with blas_products(kind_of("conv2d_backprop_input", dy.shape, w.shape, strides, padding)):
        for images in _chunks(n, _patch_bytes((oh, ow), (kh, kw), c, dx.dtype)):
            dcol = dy[images].reshape(-1, f) @ w_matrix_t
            blas_called()
            dx_chunk = dx[images]
            use_threads_for(dcol.size, splits=dx_chunk.shape[0])
            loops.nn.col2im(dcol.reshape(dx_chunk.shape[0], oh, ow, kh, kw, c), strides[0], strides[1], pt, pl,
                            dx_chunk)
    return downcast(dx, dtype)


@register_kernel("conv2d_backprop_filter", "cpu")
def conv2d_backprop_filter(x, dy, filter_shape, strides, padding):
    """d conv2d / dw: x (N, H, W, C), dy (N, OH, OW, F) -> (KH, KW, C, F); the chunks' sum."""
    dtype = x.dtype
    x, dy = upcast(x), upcast(dy)
    kh, kw, c, f = filter_shape
    n, oh, ow, _ = dy.shape
    dw = np.zeros((kh * kw * c, f), np.result_type(x, dy))
    with blas_products(kind_of("conv2d_backprop_filter", x.shape, dy.shape, strides, padding)):
        for images in _chunks(n, _patch_bytes((oh, ow), (kh, kw), c, x.dtype)):
            dw += _patches(x[images], (kh, kw), strides, padding).T @ dy[images].reshape(-1, f)
            blas_called()
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
