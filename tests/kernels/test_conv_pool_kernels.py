"""conv2d (forward, backprop_input, backprop_filter) and pooling CPU kernels against NumPy loops.

The conv kernels build the im2col patch matrix in one of two memory layouts, chosen by the input's
channel count (transposed for few channels, row by row for many), so every case runs on both sides of
that threshold: 1 and 3 channels (transposed), 5 and 16 (rows). The references below are written
window by window in float64, independently of the kernels' im2col / col2im.
"""
import itertools
import math

import numpy as np
import pytest

import minieager.kernels.cpu  # noqa: F401  (registers the kernels)
from minieager.kernels.cpu import loops, nn as cpu_nn
from minieager.kernels.registry import get_kernel

RNG = np.random.default_rng(7)


def kernel(name):
    return get_kernel(name, "cpu")


def out_and_pad(size, k, stride, padding):
    """(output length, padding before) along one axis, by TensorFlow's documented rules (tf.nn,
    "Notes on padding"), written from the documentation and not from the kernels' _out_and_pad:

    VALID: ceil((size - k + 1) / stride) windows, no padding.
    SAME: ceil(size / stride) windows; padding in all ``max(k - stride, 0)`` when stride divides
    size, else ``max(k - size % stride, 0)``; the smaller half before (top, left), the extra one after.
    """
    if padding == "VALID":
        return math.ceil((size - k + 1) / stride), 0
    total = max(k - stride, 0) if size % stride == 0 else max(k - size % stride, 0)
    return math.ceil(size / stride), total // 2


def out_and_pads_by_search(size, k, stride, padding):
    """(output length, padding before, padding after) found by trying windows one by one: VALID
    keeps the windows that fit; SAME starts a window at every stride inside the input and pads the
    least that lets the last one fit, the larger half after."""
    if padding == "VALID":
        return sum(1 for start in range(0, size, stride) if start + k <= size), 0, 0
    out = sum(1 for _ in range(0, size, stride))
    total = next(p for p in itertools.count() if (out - 1) * stride + k <= size + p)
    before = max(b for b in range(total + 1) if b <= total - b)
    return out, before, total - before


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_the_padding_reference_agrees_with_a_search(padding):
    for size, k, stride in itertools.product(range(1, 14), range(1, 7), range(1, 6)):
        if padding == "VALID" and k > size:
            continue
        out, before, _ = out_and_pads_by_search(size, k, stride, padding)
        assert out_and_pad(size, k, stride, padding) == (out, before), (size, k, stride)


def test_the_classic_same_and_valid_example():
    """13 inputs, a window of 6, stride 5 (the usual illustration of TF's padding): SAME pads 1 before
    and 2 after for 3 outputs; VALID drops the last 2 inputs for 2 outputs."""
    assert out_and_pads_by_search(13, 6, 5, "SAME") == (3, 1, 2)
    assert out_and_pad(13, 6, 5, "SAME") == (3, 1)
    assert out_and_pad(13, 6, 5, "VALID") == (2, 0)


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_kernel_geometry_against_the_reference(padding):
    """The kernels' own (out_h, out_w, pad_top, pad_left), checked directly on many sizes."""
    for (h, w), (kh, kw), (sh, sw) in itertools.product([(1, 1), (5, 7), (8, 6), (13, 12)], [(1, 1), (3, 2), (6, 5)],
                                                        [(1, 1), (2, 3), (5, 4)]):
        if padding == "VALID" and (kh > h or kw > w):
            continue
        (oh, pt), (ow, pl) = out_and_pad(h, kh, sh, padding), out_and_pad(w, kw, sw, padding)
        assert cpu_nn._geometry((h, w), (kh, kw), (sh, sw), padding) == (oh, ow, pt, pl), ((h, w), (kh, kw), (sh, sw))


def windows(shape, k, strides, padding):
    """(i, j, rows, cols) of each window, as slices into the input padded by (pad_top, pad_left) before."""
    (oh, _), (ow, _) = (out_and_pad(shape[1], k[0], strides[0], padding),
                          out_and_pad(shape[2], k[1], strides[1], padding))
    for i, j in itertools.product(range(oh), range(ow)):
        yield i, j, slice(i * strides[0], i * strides[0] + k[0]), slice(j * strides[1], j * strides[1] + k[1])


def padded(x, k, strides, padding):
    """x in float64 inside a border of zeros wide enough for every window; and (pad_top, pad_left)."""
    n, h, w, c = x.shape
    pt, pl = out_and_pad(h, k[0], strides[0], padding)[1], out_and_pad(w, k[1], strides[1], padding)[1]
    xp = np.zeros((n, h + 2 * k[0], w + 2 * k[1], c))
    xp[:, pt:pt + h, pl:pl + w] = x
    return xp, pt, pl


def conv_reference(x, w, dy, strides, padding):
    """(y, dx, dw) of y = conv2d(x, w) and the loss sum(y * dy), one window at a time."""
    k = w.shape[:2]
    xp, pt, pl = padded(x, k, strides, padding)
    w = w.astype(np.float64)
    dxp, dw = np.zeros_like(xp), np.zeros(w.shape)
    y = np.zeros(dy.shape)
    for i, j, rows, cols in windows(x.shape, k, strides, padding):
        y[:, i, j] = np.einsum("nhwc,hwcf->nf", xp[:, rows, cols], w)
        dw += np.einsum("nhwc,nf->hwcf", xp[:, rows, cols], dy[:, i, j])
        dxp[:, rows, cols] += np.einsum("hwcf,nf->nhwc", w, dy[:, i, j])
    return y, dxp[:, pt:pt + x.shape[1], pl:pl + x.shape[2]], dw


def conv_output_shape(xs, ws, strides, padding):
    return (xs[0], out_and_pad(xs[1], ws[0], strides[0], padding)[0],
            out_and_pad(xs[2], ws[1], strides[1], padding)[0], ws[3])


TOL = {np.float64: dict(rtol=1e-10, atol=1e-10), np.float32: dict(rtol=1e-4, atol=1e-4),
       np.float16: dict(rtol=2e-2, atol=2e-2)}

CONV_SHAPES = [  # (input, filter): channels 1 and 3 use the transposed patch layout, 5, 8 and 16 the
    ((2, 7, 5, 1), (3, 3, 1, 4)),     # row layout
    ((1, 6, 7, 3), (3, 2, 3, 2)),
    ((3, 5, 6, 5), (2, 3, 5, 3)),
    ((1, 5, 5, 16), (3, 3, 16, 4)),
    ((4, 6, 3, 8), (4, 2, 8, 3)),     # a filter taller than it is wide, on images 3 pixels wide
    ((2, 9, 8, 6), (5, 4, 6, 2)),     # SAME pads 1 or 2 columns: windows reach 2 pixels into the border
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("strides", [(1, 1), (2, 2), (2, 1)], ids=str)
@pytest.mark.parametrize("padding", ["VALID", "SAME"])
@pytest.mark.parametrize("xs,ws", CONV_SHAPES, ids=str)
def test_conv2d_and_both_gradients_against_loops(xs, ws, padding, strides, dtype):
    x, w = RNG.uniform(-1, 1, xs).astype(dtype), RNG.uniform(-1, 1, ws).astype(dtype)
    dy = RNG.uniform(-1, 1, conv_output_shape(xs, ws, strides, padding)).astype(dtype)
    want_y, want_dx, want_dw = conv_reference(x, w, dy, strides, padding)

    y = kernel("conv2d")(x, w, strides=strides, padding=padding)
    dx = kernel("conv2d_backprop_input")(dy, w, input_shape=xs, strides=strides, padding=padding)
    dw = kernel("conv2d_backprop_filter")(x, dy, filter_shape=ws, strides=strides, padding=padding)
    for got, want in [(y, want_y), (dx, want_dx), (dw, want_dw)]:
        assert got.dtype == dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, **TOL[dtype])


def patch_bytes(xs, ws, dtype):
    oh, ow, _, _ = cpu_nn._geometry(xs[1:3], ws[:2], (1, 1), "SAME")
    return oh * ow * ws[0] * ws[1] * xs[3] * np.dtype(dtype).itemsize


@pytest.mark.parametrize("images_per_chunk", [1, 2])    # 5 images: 5 chunks, or 2 + 2 + 1
@pytest.mark.parametrize("xs,ws", [((5, 6, 5, 1), (3, 3, 1, 4)), ((5, 5, 6, 8), (3, 2, 8, 3))], ids=str)
def test_conv2d_over_the_batch_in_chunks(xs, ws, images_per_chunk, monkeypatch):
    """The kernels convolve a few images at a time; every way of splitting the batch gives one answer."""
    monkeypatch.setattr(cpu_nn, "_CHUNK_BYTES", images_per_chunk * patch_bytes(xs, ws, np.float64))
    monkeypatch.setattr(cpu_nn, "_MIN_CHUNKS", 1)
    assert cpu_nn._images_per_chunk(xs[0], patch_bytes(xs, ws, np.float64)) == images_per_chunk
    x, w = RNG.uniform(-1, 1, xs), RNG.uniform(-1, 1, ws)
    dy = RNG.uniform(-1, 1, conv_output_shape(xs, ws, (1, 1), "SAME"))
    want_y, want_dx, want_dw = conv_reference(x, w, dy, (1, 1), "SAME")
    y = kernel("conv2d")(x, w, strides=(1, 1), padding="SAME")
    dx = kernel("conv2d_backprop_input")(dy, w, input_shape=xs, strides=(1, 1), padding="SAME")
    dw = kernel("conv2d_backprop_filter")(x, dy, filter_shape=ws, strides=(1, 1), padding="SAME")
    for got, want in [(y, want_y), (dx, want_dx), (dw, want_dw)]:
        np.testing.assert_allclose(got, want, **TOL[np.float64])


def test_the_filter_gradient_has_a_share_per_chunk_while_the_shares_are_small():
    assert cpu_nn._share_groups(32, 9216) == 32                            # the guide's second layer
    assert cpu_nn._share_groups(32, cpu_nn._SHARES_BYTES // 4) == 4
    assert cpu_nn._share_groups(32, 3 * cpu_nn._SHARES_BYTES) == 1          # a big filter: one group
    assert cpu_nn._share_groups(1, 1) == 1


def test_a_chunk_is_about_chunk_bytes_and_the_batch_makes_enough_of_them():
    per_image = cpu_nn._CHUNK_BYTES // 3
    assert cpu_nn._images_per_chunk(1000, per_image) == 3                 # by the bytes
    small = cpu_nn._CHUNK_BYTES // 100
    assert cpu_nn._images_per_chunk(10 * cpu_nn._MIN_CHUNKS, small) == 10  # enough chunks to share
    assert cpu_nn._images_per_chunk(10 * cpu_nn._MIN_CHUNKS + 1, small) == 11
    assert cpu_nn._images_per_chunk(2, 10 * cpu_nn._CHUNK_BYTES) == 1      # never 0 images
    assert cpu_nn._images_per_chunk(1, 1) == 1


@pytest.mark.parametrize("groups", [4, 2])              # the filter gradient: a share per chunk, or per two
@pytest.mark.parametrize("channels", [1, 16])            # the transposed and the row layout
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_convolution_loops_give_the_same_bits_on_any_worker_count(channels, dtype, groups):
    """Each chunk is one product on one BLAS thread and the filter gradient's groups of chunks are
    summed in order, so 1, 2 or 3 workers (and so any thread count) compute the same bits."""
    xs, ws, (sh, sw), (pt, pl) = (7, 9, 8, channels), (3, 3, channels, 5), (2, 1), (1, 1)
    x, w = RNG.uniform(-1, 1, xs).astype(dtype), RNG.uniform(-1, 1, ws).astype(dtype)
    oh, ow, _, _ = cpu_nn._geometry(xs[1:3], ws[:2], (sh, sw), "SAME")
    dy = RNG.uniform(-1, 1, (xs[0], oh, ow, ws[3])).astype(dtype)
    bias = RNG.uniform(-1, 1, ws[3]).astype(dtype)
    per_chunk, k = 2, 9 * channels                        # 7 images: 4 chunks
    results = []
    for workers in (1, 2, 3):
        buffers = np.full((workers, per_chunk * oh * ow * k), np.nan, dtype)   # no stale number may leak through
        y = np.empty((xs[0], oh, ow, ws[3]), dtype)
        loops.conv.forward(x, w.reshape(k, -1), 3, 3, sh, sw, pt, pl, per_chunk, buffers, bias, True, y)
        dx = np.full(xs, np.nan, dtype)
        loops.conv.backprop_input(dy, w.reshape(k, -1).T, 3, 3, sh, sw, pt, pl, per_chunk, buffers, dx)
        dw = np.empty((k, ws[3]), dtype)
        loops.conv.backprop_filter(x, dy, 3, 3, sh, sw, pt, pl, per_chunk, buffers,
                                   np.full((groups, k, ws[3]), np.nan, dtype), dw)
        results.append((y, dx, dw))
    want_y, want_dx, want_dw = conv_reference(x, w, dy, (sh, sw), "SAME")
    np.testing.assert_allclose(results[0][0], np.maximum(want_y + bias, 0), **TOL[dtype])
    np.testing.assert_allclose(results[0][1], want_dx, **TOL[dtype])
    np.testing.assert_allclose(results[0][2].reshape(ws), want_dw, **TOL[dtype])
    for other in results[1:]:
        for got, first in zip(other, results[0]):
            np.testing.assert_array_equal(got, first)


@pytest.mark.parametrize("xs,ws", [CONV_SHAPES[0], CONV_SHAPES[3]], ids=str)
def test_conv2d_float16_is_computed_in_float32(xs, ws):
    x, w = RNG.uniform(-1, 1, xs).astype(np.float16), RNG.uniform(-1, 1, ws).astype(np.float16)
    dy = RNG.uniform(-1, 1, conv_output_shape(xs, ws, (1, 1), "SAME")).astype(np.float16)
    want_y, want_dx, want_dw = conv_reference(x, w, dy, (1, 1), "SAME")
    y = kernel("conv2d")(x, w, strides=(1, 1), padding="SAME")
    dx = kernel("conv2d_backprop_input")(dy, w, input_shape=xs, strides=(1, 1), padding="SAME")
    dw = kernel("conv2d_backprop_filter")(x, dy, filter_shape=ws, strides=(1, 1), padding="SAME")
    for got, want in [(y, want_y), (dx, want_dx), (dw, want_dw)]:
        assert got.dtype == np.float16
        np.testing.assert_allclose(got, want, **TOL[np.float16])


@pytest.mark.parametrize("channels", [1, 2, 4, 5])
@pytest.mark.parametrize("strides,padding", [((1, 1), "SAME"), ((2, 3), "SAME"), ((2, 1), "VALID")], ids=str)
@pytest.mark.parametrize("first,last", [(0, 3), (1, 3)], ids=str)
def test_both_patch_layouts_hold_the_same_matrix(channels, strides, padding, first, last):
    """patch_rows and patch_columns write the same numbers for images first..last-1, zeros in the
    padding included, and the rows are those of an im2col written here with np.pad."""
    x = RNG.uniform(1, 2, (3, 7, 6, channels)).astype(np.float32)   # no zeros: padding zeros stand out
    oh, ow, pt, pl = cpu_nn._geometry(x.shape[1:3], (3, 2), strides, padding)
    m, k = (last - first) * oh * ow, 6 * channels
    rows = np.full((m, k), np.nan, np.float32)
    cols = np.full((k, m), np.nan, np.float32)
    loops.conv.patch_rows(x, first, last, strides[0], strides[1], pt, pl, 3, 2, oh, ow, rows)
    loops.conv.patch_columns(x, first, last, strides[0], strides[1], pt, pl, 3, 2, oh, ow, cols)
    assert not np.isnan(rows).any() and not np.isnan(cols).any()     # every entry was written
    np.testing.assert_array_equal(rows, cols.T)
    xp = np.pad(x[first:last], ((0, 0), (pt, 3), (pl, 2), (0, 0)))
    want = np.stack([xp[:, i * strides[0]:i * strides[0] + 3, j * strides[1]:j * strides[1] + 2].reshape(last - first, -1)
                     for i in range(oh) for j in range(ow)], axis=1).reshape(m, k)
    np.testing.assert_array_equal(rows, want)
    if padding == "SAME":
        assert (rows == 0).any()


# ----------------------------------------------------------------------------- pooling
def pool_reference(x, k, strides, padding, dy):
    """(max, d max, avg, d avg): windows clipped to the input; the first maximum (row-major) gets dy."""
    n, h, w, c = x.shape
    (oh, pt), (ow, pl) = out_and_pad(h, k[0], strides[0], padding), out_and_pad(w, k[1], strides[1], padding)
    mx, avg = np.zeros((n, oh, ow, c)), np.zeros((n, oh, ow, c))
    dmx, davg = np.zeros(x.shape), np.zeros(x.shape)
    for i, j in itertools.product(range(oh), range(ow)):
        y0, x0 = i * strides[0] - pt, j * strides[1] - pl
        rows, cols = slice(max(y0, 0), min(y0 + k[0], h)), slice(max(x0, 0), min(x0 + k[1], w))
        window = x[:, rows, cols].astype(np.float64)
        mx[:, i, j] = window.max(axis=(1, 2))
        avg[:, i, j] = window.mean(axis=(1, 2))
        davg[:, rows, cols] += dy[:, i, j][:, None, None, :] / (window.shape[1] * window.shape[2])
        for b, ch in itertools.product(range(n), range(c)):
            r, q = np.unravel_index(np.argmax(window[b, :, :, ch]), window.shape[1:3])   # argmax: first max / nan
            dmx[b, rows.start + r, cols.start + q, ch] += dy[b, i, j, ch]
    return mx, dmx, avg, davg


POOL_CASES = [  # input shape, window, strides, padding
    ((1, 5, 7, 1), (2, 2), (2, 2), "VALID"),
    ((2, 5, 7, 1), (3, 3), (1, 1), "SAME"),
    ((2, 7, 5, 3), (3, 2), (2, 1), "SAME"),
    ((3, 6, 6, 16), (2, 2), (2, 2), "SAME"),
    ((1, 7, 7, 5), (3, 3), (2, 2), "VALID"),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("xs,k,strides,padding", POOL_CASES, ids=str)
def test_pools_and_their_gradients_against_loops(xs, k, strides, padding, dtype):
    x = RNG.integers(-3, 4, xs).astype(dtype)          # small integers: plenty of ties in each window
    n, h, w, c = xs
    dy_shape = (n, out_and_pad(h, k[0], strides[0], padding)[0], out_and_pad(w, k[1], strides[1], padding)[0], c)
    dy = RNG.uniform(-1, 1, dy_shape).astype(dtype)
    want_max, want_dmax, want_avg, want_davg = pool_reference(x, k, strides, padding, dy)
    tol = TOL[dtype]
    args = dict(ksize=k, strides=strides, padding=padding)
    np.testing.assert_array_equal(kernel("max_pool2d")(x, **args), want_max)
    np.testing.assert_allclose(kernel("max_pool2d_grad")(x, dy, **args), want_dmax, **tol)
    np.testing.assert_allclose(kernel("avg_pool2d")(x, **args), want_avg, **tol)
    np.testing.assert_allclose(kernel("avg_pool2d_grad")(dy, input_shape=xs, **args), want_davg, **tol)


def test_max_pool_nan_wins_and_gets_the_gradient():
    x = np.zeros((1, 4, 4, 2), np.float32)
    x[0, 1, 1, 0] = x[0, 0, 1, 0] = np.nan            # channel 0: two nans in the first window
    x[0, 0, 0, 0] = 5
    x[0, 2, 3, 1] = 7                                  # channel 1: an ordinary maximum
    dy = np.arange(1, 9, dtype=np.float32).reshape(1, 2, 2, 2)
    args = dict(ksize=(2, 2), strides=(2, 2), padding="VALID")
    y = kernel("max_pool2d")(x, **args)
    assert np.isnan(y[0, 0, 0, 0]) and y[0, 1, 1, 1] == 7
    dx = kernel("max_pool2d_grad")(x, dy, **args)
    assert dx[0, 0, 1, 0] == dy[0, 0, 0, 0] and dx[0, 1, 1, 0] == 0 and dx[0, 0, 0, 0] == 0   # the first nan
    assert dx[0, 2, 3, 1] == dy[0, 1, 1, 1]
    np.testing.assert_allclose(dx.sum(axis=(1, 2)), dy.sum(axis=(1, 2)))   # every dy lands somewhere once


@pytest.mark.parametrize("name,args,message", [
    ("conv2d", (np.ones((2, 5, 5, 3)), np.ones((3, 3, 4, 2))),
     "conv2d: the filter must have shape (3, 3, 3, 2) for these inputs, got (3, 3, 4, 2)."),
    ("conv2d_backprop_input", (np.ones((2, 3, 4, 2)), np.ones((3, 3, 3, 2)), (2, 5, 5, 3)),
     "conv2d_backprop_input: dy must have shape (2, 3, 3, 2) for these inputs, got (2, 3, 4, 2)."),
    ("conv2d_backprop_filter", (np.ones((2, 5, 5, 3)), np.ones((1, 3, 3, 2)), (3, 3, 3, 2)),
     "conv2d_backprop_filter: dy must have shape (2, 3, 3, 2) for these inputs, got (1, 3, 3, 2)."),
], ids=["conv2d", "backprop_input", "backprop_filter"])
def test_the_conv_kernels_check_their_shapes_before_the_loops_run(name, args, message):
    """The loops index by the shapes they are given; a kernel called with mismatched ones refuses."""
    from minieager.errors import InvalidArgumentError
    with pytest.raises(InvalidArgumentError) as info:
        kernel(name)(*args, strides=(1, 1), padding="VALID")
    assert str(info.value) == message
