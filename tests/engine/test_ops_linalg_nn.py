"""matmul, tensordot, norm, softmax, log_softmax, conv2d and pooling against NumPy references
(conv2d and pooling against plain loops written the way TensorFlow defines them)."""
import math

import numpy as np
import pytest

import minieager as me

from .conftest import assert_tensor, random_array

InvalidArgumentError = me.errors.InvalidArgumentError


# ---- matmul --------------------------------------------------------------------------------------
@pytest.mark.parametrize("a_shape, b_shape", [
    ((1, 1), (1, 1)), ((2, 3), (3, 4)), ((5, 1), (1, 5)), ((4, 3, 5), (4, 5, 2)), ((3, 5), (2, 5, 4)),
    ((2, 1, 3, 4), (5, 4, 2)), ((0, 3), (3, 2)), ((64, 33), (33, 17))], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_matmul(a_shape, b_shape, dtype):
    a, b = random_array(a_shape, dtype, seed=1), random_array(b_shape, dtype, seed=2)
    expected = np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(dtype)
    assert_tensor(me.matmul(a, b), expected, dtype=dtype, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("transpose_b", [False, True])
@pytest.mark.parametrize("batch", [(), (3,)], ids=str)
def test_matmul_transpose_flags(transpose_a, transpose_b, batch):
    a = random_array(batch + ((4, 2) if transpose_a else (2, 4)), "float32", seed=3)
    b = random_array(batch + ((5, 4) if transpose_b else (4, 5)), "float32", seed=4)
    expected = np.matmul(np.swapaxes(a, -1, -2) if transpose_a else a, np.swapaxes(b, -1, -2) if transpose_b else b)
    assert_tensor(me.matmul(a, b, transpose_a=transpose_a, transpose_b=transpose_b), expected)


def test_matmul_of_the_guide():
    m = me.matmul([[2.0]], [[2.0]])
    assert_tensor(m, [[4.0]], dtype=me.float32)
    assert me.linalg.matmul is me.matmul


@pytest.mark.parametrize("a_shape, b_shape, axes", [
    ((3, 4), (4, 5), 1), ((2, 3, 4), (3, 4, 5), 2), ((3, 4), (5,), 0), ((2, 3, 4), (4, 3), ([1, 2], [1, 0])),
    ((3, 4, 2), (2, 3), (0, 1)), ((4,), (4,), 1)], ids=str)
def test_tensordot(a_shape, b_shape, axes):
    a, b = random_array(a_shape, "float32", seed=5), random_array(b_shape, "float32", seed=6)
    assert_tensor(me.tensordot(a, b, axes), np.tensordot(a.astype(np.float64), b, axes), rtol=1e-5, atol=1e-5)


def test_tensordot_size_mismatch():
    with pytest.raises(InvalidArgumentError, match="tensordot: axis 1 of a"):
        me.tensordot(np.ones((2, 3)), np.ones((4, 2)), 1)


@pytest.mark.parametrize("ord_", ["euclidean", 2, 1, np.inf])
@pytest.mark.parametrize("axis, keepdims", [(None, False), (0, False), (-1, True), ((0, 1), True)], ids=str)
def test_norm(ord_, axis, keepdims):
    x = random_array((3, 4), "float32", seed=7)
    p = 2 if ord_ == "euclidean" else ord_
    if p == np.inf:
        expected = np.max(np.abs(x), axis=axis, keepdims=keepdims)
    else:
        expected = np.sum(np.abs(x.astype(np.float64)) ** p, axis=axis, keepdims=keepdims) ** (1 / p)
    assert_tensor(me.norm(x, ord=ord_, axis=axis, keepdims=keepdims), expected, dtype=me.float32)


def test_norm_bad_ord():
    with pytest.raises(InvalidArgumentError, match="ord"):
        me.norm([1.0, 2.0], ord=3)


# ---- softmax -----------------------------------------------------------------------------------------
def _log_softmax(x, axis):
    x = x.astype(np.float64)
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


@pytest.mark.parametrize("shape, axis", [((5,), -1), ((3, 4), -1), ((3, 4), 0), ((2, 3, 4), 1), ((2, 1), -1)],
                         ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_and_log_softmax(shape, axis, dtype):
    x = random_array(shape, dtype, -10, 10)
    assert_tensor(me.nn.softmax(x, axis=axis), np.exp(_log_softmax(x, axis)), dtype=dtype)
    assert_tensor(me.nn.log_softmax(x, axis=axis), _log_softmax(x, axis), dtype=dtype)
    np.testing.assert_allclose(me.softmax(x, axis=axis).numpy().sum(axis=axis), 1.0, rtol=1e-5)


def test_softmax_is_stable_for_large_logits():
    x = np.array([[1000.0, 1000.0, -1000.0]], np.float32)
    assert_tensor(me.softmax(x), [[0.5, 0.5, 0.0]])
    assert_tensor(me.log_softmax(x), [[-math.log(2), -math.log(2), -2000 - math.log(2)]])


def test_softmax_needs_floats():
    with pytest.raises(InvalidArgumentError, match="floating-point"):
        me.softmax([1, 2, 3])


# ---- conv2d and pooling: NumPy loop references -------------------------------------------------------
def _same_padding(size, k, stride):
    """TensorFlow's SAME: output ceil(size / stride); the extra padding goes after (bottom/right)."""
    out = -(-size // stride)
    total = max((out - 1) * stride + k - size, 0)
    return out, total // 2


def _windows(x, kh, kw, strides, padding, fill):
    """Yield (i, j, window) over the NHWC input as TensorFlow's padding rule places the windows."""
    n, h, w, c = x.shape
    if padding == "VALID":
        oh, ow, top, left = (h - kh) // strides[0] + 1, (w - kw) // strides[1] + 1, 0, 0
    else:
        (oh, top), (ow, left) = _same_padding(h, kh, strides[0]), _same_padding(w, kw, strides[1])
    padded = np.full((n, h + 2 * kh, w + 2 * kw, c), fill, dtype=np.float64)
    padded[:, top:top + h, left:left + w] = x
    valid = np.zeros((h + 2 * kh, w + 2 * kw), bool)
    valid[top:top + h, left:left + w] = True
    for i in range(oh):
        for j in range(ow):
            rows, cols = slice(i * strides[0], i * strides[0] + kh), slice(j * strides[1], j * strides[1] + kw)
            yield i, j, oh, ow, padded[:, rows, cols, :], valid[rows, cols]


def conv2d_reference(x, w, strides, padding):
    kh, kw, _, cout = w.shape
    out = None
    for i, j, oh, ow, window, _ in _windows(x, kh, kw, strides, padding, 0.0):
        if out is None:
            out = np.zeros((x.shape[0], oh, ow, cout))
        for b in range(x.shape[0]):
            for o in range(cout):
                out[b, i, j, o] = np.sum(window[b] * w[:, :, :, o])
    return out


def pool_reference(x, k, strides, padding, kind):
    out = None
    for i, j, oh, ow, window, valid in _windows(x, k[0], k[1], strides, padding, -np.inf if kind == "max" else 0.0):
        if out is None:
            out = np.zeros((x.shape[0], oh, ow, x.shape[3]))
        if kind == "max":
            out[:, i, j, :] = window.max(axis=(1, 2))
        else:                                   # TF averages over the real (unpadded) elements only
            out[:, i, j, :] = window.sum(axis=(1, 2)) / valid.sum()
    return out


def _pair(value):
    """TF's spellings of a window size or stride: 2, (2, 3) or [1, 2, 3, 1] -> (height, width)."""
    if isinstance(value, int):
        return (value, value)
    return tuple(value[1:3]) if len(value) == 4 else tuple(value)


CONV_CASES = [  # input shape, filter shape, strides, padding
    ((1, 5, 5, 1), (3, 3, 1, 1), 1, "VALID"),
    ((2, 6, 7, 3), (3, 2, 3, 4), 1, "VALID"),
    ((2, 6, 7, 3), (3, 2, 3, 4), 1, "SAME"),
    ((1, 7, 7, 2), (3, 3, 2, 2), 2, "VALID"),
    ((1, 7, 8, 2), (3, 3, 2, 3), 2, "SAME"),
    ((2, 8, 8, 1), (2, 2, 1, 2), (2, 3), "SAME"),
    ((1, 6, 6, 2), (4, 4, 2, 1), [1, 2, 2, 1], "SAME"),
    ((3, 4, 4, 5), (1, 1, 5, 2), 1, "VALID"),
]


@pytest.mark.parametrize("x_shape, w_shape, strides, padding", CONV_CASES, ids=str)
def test_conv2d_against_a_loop(x_shape, w_shape, strides, padding):
    x, w = random_array(x_shape, "float32", seed=8), random_array(w_shape, "float32", seed=9)
    expected = conv2d_reference(x, w, _pair(strides), padding)
    result = me.nn.conv2d(x, w, strides=strides, padding=padding)
    assert_tensor(result, expected, dtype=me.float32, rtol=1e-4, atol=1e-4)
    assert me.conv2d is me.nn.conv2d


def test_conv2d_float64():
    x, w = random_array((1, 5, 5, 2), "float64"), random_array((3, 3, 2, 2), "float64")
    assert_tensor(me.conv2d(x, w, 1, "SAME"), conv2d_reference(x, w, (1, 1), "SAME"), dtype=me.float64)


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("x_shape, ksize, strides, padding", [
    ((1, 4, 4, 1), 2, 2, "VALID"), ((2, 5, 5, 3), 2, 2, "VALID"), ((2, 5, 5, 3), 2, 2, "SAME"),
    ((1, 6, 7, 2), 3, 1, "SAME"), ((1, 6, 7, 2), (3, 2), (2, 1), "VALID"),
    ((1, 5, 5, 1), [1, 3, 3, 1], [1, 2, 2, 1], "SAME"),
], ids=str)
def test_pooling_against_a_loop(kind, x_shape, ksize, strides, padding):
    x = random_array(x_shape, "float32", seed=10)
    expected = pool_reference(x, _pair(ksize), _pair(strides), padding, kind)
    op = me.nn.max_pool2d if kind == "max" else me.nn.avg_pool2d
    assert_tensor(op(x, ksize, strides, padding), expected, dtype=me.float32)


def test_pool_aliases():
    assert me.nn.max_pool is me.max_pool2d and me.nn.avg_pool is me.avg_pool2d


# (4, 8, 8, 16) has 4096 elements: the kernel's own loop; smaller inputs go to NumPy's add.
@pytest.mark.parametrize("shape", [(3, 5), (2, 3, 4), (4, 8, 8, 16), (1, 64, 128)], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32"])
def test_bias_add_adds_one_bias_per_channel(shape, dtype):
    value, bias = random_array(shape, dtype), random_array(shape[-1:], dtype)
    assert_tensor(me.nn.bias_add(value, bias), value + bias, dtype=dtype)


@pytest.mark.parametrize("value, bias, message", [
    (np.ones((2, 3), np.float32), np.ones(4, np.float32), r"bias 1-D with one entry per channel.*\(2, 3\).*\(4,\)"),
    (np.ones(3, np.float32), np.ones(3, np.float32), "value must be at least 2-D"),
    (np.ones((2, 3), np.float32), np.ones((1, 3), np.float32), r"got value \(2, 3\) and bias \(1, 3\)"),
    (np.ones((2, 3), bool), np.ones(3, bool), "bool tensors are not numbers"),
], ids=["channels", "rank", "bias-rank", "bool"])
def test_bias_add_errors(value, bias, message):
    with pytest.raises(InvalidArgumentError, match=message):
        me.nn.bias_add(value, bias)


def test_bias_add_only_channels_last():
    with pytest.raises(InvalidArgumentError, match="channels-last"):
        me.nn.bias_add(np.ones((1, 2, 2, 3), np.float32), np.ones(3, np.float32), data_format="NCHW")


@pytest.mark.parametrize("call, message", [
    (lambda: me.conv2d(np.ones((1, 5, 5, 2), np.float32), np.ones((3, 3, 3, 1), np.float32)),
     "has 2 channels but the filters expect 3"),
    (lambda: me.conv2d(np.ones((5, 5, 2), np.float32), np.ones((3, 3, 2, 1), np.float32)), "batch, height"),
    (lambda: me.conv2d(np.ones((1, 2, 2, 1), np.float32), np.ones((3, 3, 1, 1), np.float32)), "does not fit"),
    (lambda: me.conv2d(np.ones((1, 5, 5, 1), np.float32), np.ones((3, 3, 1, 1), np.float32), padding="FULL"),
     "SAME' or 'VALID"),
    (lambda: me.max_pool2d(np.ones((1, 2, 2, 1), np.float32), 3, 1), "does not fit"),
], ids=["channels", "rank", "too-small", "padding", "pool-too-small"])
def test_conv_and_pool_errors(call, message):
    with pytest.raises(InvalidArgumentError, match=message):
        call()
