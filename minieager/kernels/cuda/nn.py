"""Neural-network kernels on the GPU: convolution by im2col + matmul, pooling, softmax, cross-entropy.

Convolution (NHWC images, HWCF filters) is the CPU's plan (kernels/cpu/nn.py) on the device:
``im2col`` copies every input patch into one row of a patch matrix P (one thread per element of
P), and the convolution is ``P @ w.reshape(KH*KW*C, F)`` with the matmul kernel. Its gradients
are matrix products too: ``dw = P^T @ dy`` and ``dP = dy @ w^T``, which ``col2im`` folds back onto
the input. col2im is written as a gather: one thread per INPUT element adds up the patch entries
that came from it, so no two threads write the same number (no atomics, the same sum every run).

Pooling: one thread per output element scans its window; the gradients are gathers again, one
thread per input element visiting the windows that contain it. A max-pool window sends its dy to
its first maximum (row-major), as on the CPU and in TensorFlow.

Softmax and the fused cross-entropy: one block per row; the row's max and its sum of
exponentials are block reductions (reduce.block_reduce), so a row of any length takes one launch.

Padding follows TensorFlow, as the CPU kernels do ("SAME": ceil(in / stride) outputs,
``pad_total // 2`` before); the geometry comes from the CPU module so both agree by construction.
"""
import math

import numpy as np
from numba import cuda, float64

from ...errors import InvalidArgumentError
from ..cpu.nn import _geometry
from ..registry import _lookup, register_kernel
from .elementwise import BINARY, UNARY, contiguous_strides, launch_map, launch_zip, transpose_array
from .host import float_kernel
from .matmul import matmul_arrays
from .memory import copy_to_device, empty, launch
from .reduce import MAX, MAX_THREADS, SUM, block_reduce, reduce_2d, threads_for


# ----------------------------------------------------------------------------- convolution
@cuda.jit(cache=True)
def im2col(x, kh, kw, sh, sw, pt, pl, oh, ow, patches):
    """patches[(n, i, j), (di, dj, c)] = x[n, i*sh + di - pt, j*sw + dj - pl, c], 0 in the padding."""
    _, h, w, n_c = x.shape
    width = patches.shape[1]
    for e in range(cuda.grid(1), patches.size, cuda.gridsize(1)):
        p, q = e // width, e % width
        n, ij = p // (oh * ow), p % (oh * ow)
        i, j = ij // ow, ij % ow
        di, rest = q // (kw * n_c), q % (kw * n_c)
        dj, c = rest // n_c, rest % n_c
        y, xx = i * sh + di - pt, j * sw + dj - pl
        patches[p, q] = x[n, y, xx, c] if 0 <= y < h and 0 <= xx < w else 0


@cuda.jit(device=True)
def nhwc_position(e, h, w, n_c):
    """(n, y, x, c) of the e-th element of a C-contiguous (N, H, W, C) array: one thread's element."""
    n, rest = e // (h * w * n_c), e % (h * w * n_c)
    y, rest = rest // (w * n_c), rest % (w * n_c)
    return n, y, rest // n_c, rest % n_c


@cuda.jit(cache=True)
def col2im(patches, kh, kw, sh, sw, pt, pl, oh, ow, dx):
    """dx[n, y, x, c] = the sum of the patch entries copied from (n, y, x, c): the gather of im2col."""
    _, h, w, n_c = dx.shape
    for e in range(cuda.grid(1), dx.size, cuda.gridsize(1)):
        n, y, xx, c = nhwc_position(e, h, w, n_c)
        acc = 0.0
        for di in range(kh):
            if (y + pt - di) % sh == 0:               # some output row i has y = i*sh + di - pt
                i = (y + pt - di) // sh
                if 0 <= i < oh:
                    for dj in range(kw):
                        if (xx + pl - dj) % sw == 0:
                            j = (xx + pl - dj) // sw
                            if 0 <= j < ow:
                                acc += patches[(n * oh + i) * ow + j, (di * kw + dj) * n_c + c]
        dx[n, y, xx, c] = acc


def _patches(x, k_hw, strides, padding):
    oh, ow, pt, pl = _geometry(x.shape[1:3], k_hw, strides, padding)
    patches = empty((x.shape[0] * oh * ow, k_hw[0] * k_hw[1] * x.shape[3]), x.dtype)
    if patches.size:
        im2col[launch(patches.size)](x, k_hw[0], k_hw[1], strides[0], strides[1], pt, pl, oh, ow,
                                                  patches)
    return patches, (oh, ow)


def conv2d(x, w, strides, padding):
    kh, kw, c, f = w.shape
    patches, (oh, ow) = _patches(x, (kh, kw), strides, padding)
    return matmul_arrays(patches, w.reshape(kh * kw * c, f)).reshape(x.shape[0], oh, ow, f)


def conv2d_backprop_filter(x, dy, filter_shape, strides, padding):
    kh, kw, c, f = filter_shape
    patches, _ = _patches(x, (kh, kw), strides, padding)
    return matmul_arrays(patches, dy.reshape(-1, f), transpose_a=True).reshape(tuple(filter_shape))


def conv2d_backprop_input(dy, w, input_shape, strides, padding):
    input_shape = (dy.shape[0],) + tuple(input_shape[1:])   # the batch from dy (a graph's may be unknown)
    kh, kw, c, f = w.shape
    n, oh, ow, _ = dy.shape
    oh_, ow_, pt, pl = _geometry(tuple(input_shape)[1:3], (kh, kw), strides, padding)
    d_patches = matmul_arrays(dy.reshape(n * oh * ow, f), w.reshape(kh * kw * c, f), transpose_b=True)
    dx = empty(tuple(input_shape), dy.dtype)
    if dx.size:
        col2im[launch(dx.size)](d_patches, kh, kw, strides[0], strides[1], pt, pl, oh, ow, dx)
    return dx


register_kernel("conv2d", "gpu")(float_kernel(conv2d, _lookup("conv2d", "cpu")))
register_kernel("conv2d_backprop_filter", "gpu")(float_kernel(conv2d_backprop_filter,
                                                              _lookup("conv2d_backprop_filter", "cpu")))
register_kernel("conv2d_backprop_input", "gpu")(float_kernel(conv2d_backprop_input,
                                                             _lookup("conv2d_backprop_input", "cpu")))


def bias_add(x, bias):
    """x (..., C) + bias (C,): the zip kernel's broadcasting does it (bias read with stride 0 elsewhere)."""
    return launch_zip(BINARY["add"], x, bias, x.dtype)


register_kernel("bias_add", "gpu")(float_kernel(bias_add, _lookup("bias_add", "cpu")))


def fused_conv2d(x, w, bias, strides, padding, activation):
    """Graph mode's conv2d + bias_add (+ relu): the three GPU kernels one after another (the CPU
    kernel's gain, a pass over data still in the cache, has no counterpart here)."""
    out = bias_add(conv2d(x, w, strides, padding), bias)
    return launch_map(UNARY["relu"], out, out.shape, contiguous_strides(out.shape), out.dtype) if activation else out


register_kernel("fused_conv2d", "gpu")(float_kernel(fused_conv2d, _lookup("fused_conv2d", "cpu")))


# ----------------------------------------------------------------------------- pooling
@cuda.jit(device=True)
def window(i, stride, pad, k, size):
    """[start, stop) of output position i's window along one axis, clipped to the input."""
    start = i * stride - pad
    return max(start, 0), min(start + k, size)


@cuda.jit(cache=True)
def pool(x, is_max, kh, kw, sh, sw, pt, pl, out):
    """out[n, i, j, c] = the max (``is_max``) or mean of x over the window of (i, j), channel c."""
    _, h, w, n_c = x.shape
    _, oh, ow, _ = out.shape
    for e in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        n, i, j, c = nhwc_position(e, oh, ow, n_c)
        y0, y1 = window(i, sh, pt, kh, h)
        x0, x1 = window(j, sw, pl, kw, w)
        best, total = x[n, y0, x0, c], 0.0
        for y in range(y0, y1):
            for xx in range(x0, x1):
                v = x[n, y, xx, c]
                total += v
                if v > best or v != v:                # nan wins, as in reduce_max
                    best = v
        out[n, i, j, c] = best if is_max else total / ((y1 - y0) * (x1 - x0))   # padding is not averaged in


@cuda.jit(device=True)
def first_max_at(x, n, c, y0, y1, x0, x1, y, xx):
    """Whether (y, xx) holds the first maximum (row-major; the first nan wins) of the window."""
    by, bx, best = y0, x0, x[n, y0, x0, c]
    for yy in range(y0, y1):
        for xj in range(x0, x1):
            v = x[n, yy, xj, c]
            if v > best or (v != v and best == best):
                by, bx, best = yy, xj, v
    return by == y and bx == xx


@cuda.jit(cache=True)
def pool_grad(x, dy, is_max, kh, kw, sh, sw, pt, pl, dx):
    """dx[n, y, x, c] = the dy of every window containing (y, x) that sends it gradient: a gather."""
    _, h, w, n_c = dx.shape
    _, oh, ow, _ = dy.shape
    for e in range(cuda.grid(1), dx.size, cuda.gridsize(1)):
        n, y, xx, c = nhwc_position(e, h, w, n_c)
        acc = 0.0
        # the outputs whose window [i*sh - pt, i*sh - pt + kh) holds y
        for i in range(max(0, (y + pt - kh) // sh + 1), min(oh, (y + pt) // sh + 1)):
            y0, y1 = window(i, sh, pt, kh, h)
            for j in range(max(0, (xx + pl - kw) // sw + 1), min(ow, (xx + pl) // sw + 1)):
                x0, x1 = window(j, sw, pl, kw, w)
                if is_max:
                    if first_max_at(x, n, c, y0, y1, x0, x1, y, xx):
                        acc += dy[n, i, j, c]
                else:
                    acc += dy[n, i, j, c] / ((y1 - y0) * (x1 - x0))
        dx[n, y, xx, c] = acc


def _pool_args(shape, ksize, strides, padding):
    oh, ow, pt, pl = _geometry(tuple(shape)[1:3], ksize, strides, padding)
    return (shape[0], oh, ow, shape[3]), (ksize[0], ksize[1], strides[0], strides[1], pt, pl)


def _pool(is_max):
    def kernel(x, ksize, strides, padding):
        out_shape, geo = _pool_args(x.shape, ksize, strides, padding)
        out = empty(out_shape, x.dtype)
        if out.size:
            pool[launch(out.size)](x, is_max, *geo, out)
        return out
    return kernel


def max_pool2d_grad(x, dy, ksize, strides, padding):
    _, geo = _pool_args(x.shape, ksize, strides, padding)
    dx = empty(x.shape, dy.dtype)
    if dx.size:
        pool_grad[launch(dx.size)](x, dy, True, *geo, dx)
    return dx


def avg_pool2d_grad(dy, input_shape, ksize, strides, padding):
    input_shape = (dy.shape[0],) + tuple(input_shape[1:])
    _, geo = _pool_args(tuple(input_shape), ksize, strides, padding)
    dx = empty(tuple(input_shape), dy.dtype)
    if dx.size:
        pool_grad[launch(dx.size)](dy, dy, False, *geo, dx)   # x is not read for averages
    return dx


for _name, _kernel in [("max_pool2d", _pool(True)), ("avg_pool2d", _pool(False)),
                       ("max_pool2d_grad", max_pool2d_grad), ("avg_pool2d_grad", avg_pool2d_grad)]:
    register_kernel(_name, "gpu")(float_kernel(_kernel, _lookup(_name, "cpu")))


# ----------------------------------------------------------------------------- softmax family
@cuda.jit(device=True)
def row_logsumexp(x, row, t, threads, shared):
    """(max, log(sum(exp(x[row] - max)))) of one row, by the whole block: two block reductions."""
    peak = -math.inf
    for k in range(t, x.shape[1], threads):
        v = x[row, k]
        if v > peak or v != v:
            peak = v
    peak = block_reduce(MAX, shared, t, threads, peak)
    total = 0.0
    for k in range(t, x.shape[1], threads):
        total += math.exp(x[row, k] - peak)
    total = block_reduce(SUM, shared, t, threads, total)
    return peak, math.log(total)


@cuda.jit(cache=True)
def softmax_rows(x, log, out):
    """out[row] = softmax (or log_softmax) of x[row]; one block per row. Subtracting the row's max
    first means exp never overflows (the largest term is exactly 1)."""
    shared = cuda.shared.array(MAX_THREADS, float64)
    row, t, threads = cuda.blockIdx.x, cuda.threadIdx.x, cuda.blockDim.x
    peak, log_total = row_logsumexp(x, row, t, threads, shared)
    for k in range(t, x.shape[1], threads):
        z = x[row, k] - peak - log_total
        out[row, k] = z if log else math.exp(z)


@cuda.jit(cache=True)
def softmax_xent_rows(x, labels, sparse, scale, loss, backprop):
    """Per row: loss = logsumexp(x) - sum(y * x), backprop = (softmax(x) - y) * scale, where y is the
    row of ``labels`` (probabilities) or, if ``sparse``, one-hot at ``labels[row]``."""
    shared = cuda.shared.array(MAX_THREADS, float64)
    row, t, threads = cuda.blockIdx.x, cuda.threadIdx.x, cuda.blockDim.x
    peak, log_total = row_logsumexp(x, row, t, threads, shared)
    part = 0.0
    for k in range(t, x.shape[1], threads):
        y = (1.0 if labels[row, 0] == k else 0.0) if sparse else labels[row, k]
        z = x[row, k] - peak - log_total             # log softmax
        if not sparse or y != 0.0:                   # -sum(y * log_softmax) = the cross-entropy; a sparse row
            part -= y * z                            # adds its label's term only, as the CPU: no 0 * -inf = nan
        backprop[row, k] = (math.exp(z) - y) * scale
    part = block_reduce(SUM, shared, t, threads, part)
    if t == 0:
        loss[row] = part


def _rows(x, axis):
    """x with ``axis`` moved last, as (rows, C): a copy only if it is not last already."""
    if axis != x.ndim - 1:
        perm = [i for i in range(x.ndim) if i != axis] + [axis]
        x = transpose_array(x, perm)
    columns = x.shape[-1]
    return x, x.reshape(x.size // columns if columns else 0, columns)


def _softmax(log):
    def kernel(x, axis):
        moved, rows = _rows(x, axis)
        out = empty(rows.shape, x.dtype)
        if rows.shape[0] and rows.shape[1]:
            softmax_rows[rows.shape[0], threads_for(rows.shape[1])](rows, log, out)
        out = out.reshape(moved.shape)
        if axis != x.ndim - 1:                           # move the axis back
            perm = list(range(axis)) + [x.ndim - 1] + list(range(axis, x.ndim - 1))
            out = transpose_array(out, perm)
        return out
    return kernel


register_kernel("softmax", "gpu")(float_kernel(_softmax(False), _lookup("softmax", "cpu")))
register_kernel("log_softmax", "gpu")(float_kernel(_softmax(True), _lookup("log_softmax", "cpu")))


def _xent(sparse):
    def kernel(logits, labels, mean=False):
        n, n_c = logits.shape
        if sparse and n:
            # In a me.function graph the labels are known only now: check them as the CPU kernel does (a copy of
            # n integers), or a label outside [0, n_c) would match no class and give a loss of 0.
            host = labels.copy_to_host()
            if host.min() < 0 or host.max() >= n_c:
                bad = host[(host < 0) | (host >= n_c)].flat[0]
                raise InvalidArgumentError(
                    f"sparse_softmax_cross_entropy_with_logits: received a label value of {bad} which is outside "
                    f"the valid range of [0, {n_c}). Labels must be class indices for logits with {n_c} classes.")
        loss, backprop = empty((n,), np.float64), empty((n, n_c), logits.dtype)
        if sparse:
            labels = labels.reshape(n, 1)
        if n:
            softmax_xent_rows[n, threads_for(n_c)](logits, labels, sparse, 1.0 / n if mean else 1.0, loss, backprop)
        if mean:   # the batch's mean, summed in float64 as on the CPU (an empty batch gives nan there too)
            loss = reduce_2d(SUM, loss.reshape(1, n), 1.0 / n) if n else copy_to_device(np.array([np.nan]))
        # the float64 losses back to the logits' dtype (a cast, as a map)
        loss = launch_map(UNARY["identity"], loss, loss.shape, (1,) if loss.ndim else (), logits.dtype)
        return loss.reshape(()) if mean else loss, backprop
    return kernel


register_kernel("softmax_cross_entropy", "gpu")(float_kernel(_xent(False), _lookup("softmax_cross_entropy", "cpu")))
register_kernel("sparse_softmax_cross_entropy", "gpu")(
    float_kernel(_xent(True), _lookup("sparse_softmax_cross_entropy", "cpu")))
