"""Shape and indexing ops against NumPy, and convolution and pooling against written-out loops.

Shape ops only move numbers, so they must match NumPy bit for bit. conv2d is checked against a
direct sum over each window of the zero-padded input (TensorFlow's padding rule, spelled out
below), max/avg pooling against windows clipped to the input (padding is never a value).
"""
import itertools

import numpy as np
import pytest
from hypothesis import given, strategies as st

import minieager as me

from ._util import FLOATS, INTS, arrays, assert_same, examples, path, shapes, tensor  # noqa: F401


@examples(30)
@given(data=st.data())
def test_shape_ops(path, data):
    dtype = data.draw(st.sampled_from(FLOATS + INTS + (np.bool_,)))
    shape = data.draw(shapes(path, min_dims=1))
    x = data.draw(arrays(shape, dtype))
    t = tensor(x, data.draw(st.booleans()))
    perm = data.draw(st.permutations(range(x.ndim)))
    assert_same(me.transpose(t, perm).numpy(), np.transpose(x, perm))
    assert_same(me.reshape(t, [-1]).numpy(), x.reshape(-1))
    multiples = data.draw(st.lists(st.integers(0, 2), min_size=x.ndim, max_size=x.ndim))
    assert_same(me.tile(t, multiples).numpy(), np.tile(x, multiples))
    pads = data.draw(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=x.ndim, max_size=x.ndim))
    if dtype != np.bool_:
        assert_same(me.pad(t, pads).numpy(), np.pad(x, pads))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    assert_same(me.concat([t, t], axis).numpy(), np.concatenate([x, x], axis))
    assert_same(me.stack([t, t], axis).numpy(), np.stack([x, x], axis))
    n = x.shape[axis]
    cuts = sorted(data.draw(st.lists(st.integers(0, n), max_size=3)))
    sizes = list(np.diff([0] + cuts + [n]))
    for got, want in zip(me.split(t, sizes, axis), np.split(x, cuts, axis)):
        assert_same(got.numpy(), want)
    target = tuple(data.draw(st.integers(1, 2)) if s == 1 else s for s in x.shape)
    assert_same(me.broadcast_to(t, target).numpy(), np.broadcast_to(x, target))


@st.composite
def slice_index(draw, shape):
    """Ints, slices (any bounds, nonzero steps) and newaxis for the leading axes, maybe a trailing ``...``."""
    index, axis = [], 0
    while axis < len(shape) and draw(st.booleans()):
        n = shape[axis]
        kind = draw(st.sampled_from(["int", "slice", "newaxis"] if n else ["slice", "newaxis"]))
        if kind == "newaxis":   # takes no axis of the tensor
            index.append(None)
            continue
        if kind == "int":
            index.append(draw(st.integers(-n, n - 1)))
        else:
            bound = st.none() | st.integers(-n - 2, n + 2)
            index.append(slice(draw(bound), draw(bound), draw(st.none() | st.integers(-3, 3).filter(bool))))
        axis += 1
    if draw(st.booleans()):
        index.append(Ellipsis)
    return tuple(index)


@examples(40)
@given(data=st.data())
def test_getitem_gather_boolean_mask(path, data):
    dtype = data.draw(st.sampled_from(FLOATS + INTS))
    x = data.draw(arrays(data.draw(shapes(path, min_dims=1)), dtype))
    t = tensor(x, data.draw(st.booleans()))
    index = data.draw(slice_index(x.shape))
    assert_same(t[index].numpy(), x[index], 0, str(index))
    mask = x != x.flat[0] if x.size else np.zeros(x.shape, bool)
    assert_same(me.boolean_mask(t, mask).numpy(), x[mask])
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    n = x.shape[axis]
    if n:
        indices = np.asarray(data.draw(st.lists(st.integers(-n, n - 1), max_size=5)), np.int64)
        assert_same(me.gather(t, indices, axis=axis).numpy(), np.take(x, indices, axis=axis))


def _reference_conv(x, w, strides, padding):
    """Direct convolution: each output is the sum over its window of the zero-padded input."""
    n, h, wd, c = x.shape
    kh, kw, _, f = w.shape
    (sh, sw), pads = strides, []
    for size, k, s in ((h, kh, sh), (wd, kw, sw)):
        out = (size - k) // s + 1 if padding == "VALID" else -(-size // s)
        total = 0 if padding == "VALID" else max((out - 1) * s + k - size, 0)
        pads.append((out, total // 2, total - total // 2))
    (oh, pt, pb), (ow, pl, pr) = pads
    xp = np.pad(x.astype(np.float64), ((0, 0), (pt, pb), (pl, pr), (0, 0)))
    y = np.zeros((n, oh, ow, f))
    for i, j in itertools.product(range(oh), range(ow)):
        window = xp[:, i * sh:i * sh + kh, j * sw:j * sw + kw, :]
        y[:, i, j, :] = np.tensordot(window, w.astype(np.float64), axes=3)
    return y


def _reference_pool(x, k, strides, padding, kind):
    n, h, wd, c = x.shape
    geometry = []
    for size, kk, s in ((h, k[0], strides[0]), (wd, k[1], strides[1])):
        out = (size - kk) // s + 1 if padding == "VALID" else -(-size // s)
        before = 0 if padding == "VALID" else max((out - 1) * s + kk - size, 0) // 2
        geometry.append((out, before))
    (oh, pt), (ow, pl) = geometry
    y = np.zeros((n, oh, ow, c))
    for i, j in itertools.product(range(oh), range(ow)):
        y0, x0 = i * strides[0] - pt, j * strides[1] - pl
        win = x[:, max(y0, 0):min(y0 + k[0], h), max(x0, 0):min(x0 + k[1], wd), :].astype(np.float64)
        y[:, i, j, :] = win.max(axis=(1, 2)) if kind == "max" else win.mean(axis=(1, 2))
    return y


@st.composite
def conv_case(draw):
    dtype = draw(st.sampled_from(FLOATS))
    n, h, w, c = (draw(st.integers(lo, hi)) for lo, hi in ((0, 3), (1, 7), (1, 7), (1, 6)))
    kh, kw = draw(st.integers(1, 9)), draw(st.integers(1, 9))
    padding = draw(st.sampled_from(["SAME", "VALID"]))
    if padding == "VALID":
        kh, kw = min(kh, h), min(kw, w)
    strides = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    x = np.clip(np.nan_to_num(draw(arrays((n, h, w, c), dtype))), -10, 10).astype(dtype)
    return x, (kh, kw), strides, padding


@examples(30)
@given(case=conv_case(), f=st.integers(1, 4), seed=st.integers(0, 2**31))
def test_conv2d_against_direct_sums(case, f, seed):
    x, (kh, kw), strides, padding = case
    w = np.random.default_rng(seed).standard_normal((kh, kw, x.shape[3], f)).astype(x.dtype)
    got = me.nn.conv2d(me.constant(x), me.constant(w), strides, padding).numpy()
    want = _reference_conv(x, w, strides, padding)
    tol = {np.float16: 2e-2, np.float32: 1e-4, np.float64: 1e-10}[x.dtype.type]
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=tol, atol=tol * 10 * kh * kw)


@pytest.mark.parametrize("kind", ["max", "avg"])
@examples(20)
@given(case=conv_case())
def test_pools_against_clipped_windows(kind, case):
    x, k, strides, padding = case
    x = np.where(np.isnan(x), 0, x) if kind == "avg" else x
    got = getattr(me.nn, f"{kind}_pool2d")(me.constant(x), k, strides, padding).numpy()
    want = _reference_pool(x, k, strides, padding, kind)
    tol = {np.float16: 1e-3, np.float32: 1e-6, np.float64: 1e-12}[x.dtype.type]
    np.testing.assert_allclose(got.astype(np.float64), want.astype(x.dtype), rtol=tol, atol=tol)


@examples(20)
@given(data=st.data())
def test_softmax_family(path, data):
    dtype = data.draw(st.sampled_from(FLOATS))
    x = np.clip(np.nan_to_num(data.draw(arrays(data.draw(shapes(path, min_dims=1)), dtype))), -60, 60).astype(dtype)
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    wide = x.astype(np.float64)
    shifted = wide - (wide.max(axis=axis, keepdims=True) if x.size else 0)
    logsum = np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
    tol = {np.float16: 2e-3, np.float32: 2e-6, np.float64: 1e-13}[x.dtype.type]
    np.testing.assert_allclose(me.nn.softmax(me.constant(x), axis).numpy().astype(np.float64),
                               np.exp(shifted - logsum), rtol=tol, atol=tol)
    np.testing.assert_allclose(me.nn.log_softmax(me.constant(x), axis).numpy().astype(np.float64),
                               shifted - logsum, rtol=tol, atol=tol * 60)
    if x.ndim == 2 and x.shape[1]:
        labels = np.random.default_rng(0).integers(0, x.shape[1], x.shape[0])
        loss = me.nn.sparse_softmax_cross_entropy_with_logits(me.constant(labels), me.constant(x)).numpy()
        lse = np.log(np.exp(wide - wide.max(1, keepdims=True)).sum(1)) + wide.max(1)
        np.testing.assert_allclose(loss.astype(np.float64), lse - wide[np.arange(len(x)), labels],
                                   rtol=tol, atol=tol * 60)


@examples(30)
@given(data=st.data())
def test_rearranging_array_ops(path, data):
    """reverse, roll, slice and repeat move elements only: NumPy's np.flip, np.roll, slicing, np.repeat, exactly."""
    dtype = data.draw(st.sampled_from(FLOATS + INTS + (np.bool_,)))
    x = data.draw(arrays(data.draw(shapes(path, min_dims=1)), dtype))
    t = tensor(x, data.draw(st.booleans()))
    axes = data.draw(st.lists(st.integers(-x.ndim, x.ndim - 1), unique_by=lambda a: a % x.ndim))
    assert_same(me.reverse(t, axes).numpy(), np.flip(x, tuple(axes)) if axes else x)
    shifts = data.draw(st.lists(st.integers(-50, 50), min_size=1, max_size=3))
    roll_axes = data.draw(st.lists(st.integers(-x.ndim, x.ndim - 1), min_size=len(shifts), max_size=len(shifts)))
    assert_same(me.roll(t, shifts, roll_axes).numpy(), np.roll(x, shifts, roll_axes))
    begin = [data.draw(st.integers(0, n)) for n in x.shape]
    size = [data.draw(st.sampled_from([-1, n - b]) | st.integers(0, n - b)) for b, n in zip(begin, x.shape)]
    assert_same(me.slice(t, begin, size).numpy(),
                x[tuple(slice(b, None if s == -1 else b + s) for b, s in zip(begin, size))])
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    counts = data.draw(st.integers(0, 3) | st.lists(st.integers(0, 3), min_size=x.shape[axis], max_size=x.shape[axis]))
    assert_same(me.repeat(t, counts, axis).numpy(), np.repeat(x, counts, axis))


def _descending_ties_in_index_order(row):
    """Python's stable sort on (minus the value, index): TF's top_k order, written independently of argsort."""
    key = (lambda i: -float(row[i])) if row.dtype.kind == "f" else (lambda i: -int(row[i]))
    return sorted(range(len(row)), key=key)


@examples(30)
@given(data=st.data())
def test_top_k_and_searchsorted(path, data):
    dtype = data.draw(st.sampled_from(FLOATS + INTS))
    x = data.draw(arrays(data.draw(shapes(path, min_dims=1, max_dims=2)), dtype))
    if dtype in FLOATS:
        x = np.nan_to_num(x).astype(dtype)          # TF leaves the place of NaN in top_k unspecified
    k = data.draw(st.integers(0, x.shape[-1]))
    values, indices = me.math.top_k(tensor(x, data.draw(st.booleans())), k)
    count = int(np.prod(x.shape[:-1]))            # rows; not -1, which an empty last axis leaves ambiguous
    rows = x.reshape(count, x.shape[-1])
    order = np.array([_descending_ties_in_index_order(row)[:k] for row in rows], np.int32).reshape(x.shape[:-1] + (k,))
    assert_same(indices.numpy(), order)
    assert_same(values.numpy(), np.take_along_axis(x, order.astype(np.int64), axis=-1))
    sequence = np.sort(x, axis=-1)
    targets = data.draw(arrays(x.shape[:-1] + (data.draw(st.integers(0, 5)),), dtype))
    side = data.draw(st.sampled_from(["left", "right"]))
    want = [np.searchsorted(s, v, side=side) for s, v in zip(sequence.reshape(count, x.shape[-1]),
                                                             targets.reshape(count, targets.shape[-1]))]
    assert_same(me.searchsorted(sequence, targets, side=side).numpy(),
                np.array(want, np.int32).reshape(targets.shape))


@examples(30)
@given(data=st.data())
def test_tensor_scatter_and_segment_sums(path, data):
    """Against NumPy's fancy assignment (last write kept) and np.add.at (repeats add up)."""
    dtype = data.draw(st.sampled_from(FLOATS + INTS))
    x = data.draw(arrays(data.draw(shapes(path, min_dims=1)), dtype))
    k = data.draw(st.integers(1, x.ndim))
    m = data.draw(st.integers(0, 6)) if all(x.shape[:k]) else 0
    coords = np.array([[data.draw(st.integers(0, n - 1)) for n in x.shape[:k]] for _ in range(m)],
                      np.int64).reshape(m, k)
    updates = data.draw(arrays((m,) + x.shape[k:], dtype))
    written = x.copy()
    for row, update in zip(coords, updates):      # one at a time: the last write wins
        written[tuple(row)] = update
    assert_same(me.tensor_scatter_nd_update(x, coords, updates).numpy(), written)
    added = x.copy()
    with np.errstate(all="ignore"):
        np.add.at(added, tuple(coords.T), updates)
    assert_same(me.tensor_scatter_nd_add(x, coords, updates).numpy(), added)
    num_segments = data.draw(st.integers(0, 4))
    ids = np.array([data.draw(st.integers(-1, num_segments - 1)) for _ in range(x.shape[0])], np.int32)
    sums = np.zeros((num_segments,) + x.shape[1:], dtype)
    with np.errstate(all="ignore"):
        np.add.at(sums, ids[ids >= 0], x[ids >= 0])
    assert_same(me.math.unsorted_segment_sum(x, ids, num_segments).numpy(), sums)
