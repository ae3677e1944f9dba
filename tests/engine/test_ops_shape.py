"""Shape ops against NumPy: reshape, transpose, expand_dims, squeeze, concat, stack, split, tile,
broadcast_to, pad, gather, one_hot, identity, and the shape facts."""
import re

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra.numpy import array_shapes

import minieager as me

from .conftest import assert_tensor, few_examples, random_array

InvalidArgumentError = me.errors.InvalidArgumentError

A = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


@pytest.mark.parametrize("shape", [(24,), (4, 6), (-1,), (2, -1), (-1, 3, 2), (1, 24, 1), [6, 4], (2, 3, 4)], ids=str)
def test_reshape(shape):
    assert_tensor(me.reshape(A, shape), A.reshape(shape), dtype=me.float32)


def test_reshape_accepts_a_tensor_shape_and_an_int():
    assert_tensor(me.reshape(A, me.constant([4, -1])), A.reshape(4, -1))
    assert_tensor(me.reshape(me.constant([[5]]), ()), 5, dtype=me.int32)
    assert_tensor(me.reshape(A, 24), A.ravel())


@pytest.mark.parametrize("shape, message", [
    ((5, 5), r"shape \(2, 3, 4\) \(24 elements\) into \(5, 5\) \(25 elements\)"),
    ((-1, 5), "24 is not a multiple of 5"),
    ((-1, -1), "only one dimension can be -1")], ids=str)
def test_reshape_errors(shape, message):
    with pytest.raises(InvalidArgumentError, match=message):
        me.reshape(A, shape)


@pytest.mark.parametrize("perm", [None, (0, 1, 2), (2, 1, 0), (1, 0, 2), (0, 2, 1), (-1, 0, 1)], ids=str)
def test_transpose(perm):
    expected = np.transpose(A, None if perm is None else [p % 3 for p in perm])
    assert_tensor(me.transpose(A, perm), expected, dtype=me.float32)


def test_transpose_of_a_matrix_and_linalg_alias():
    m = np.arange(6).reshape(2, 3)
    assert_tensor(me.transpose(m), m.T)
    assert_tensor(me.linalg.matrix_transpose(m), m.T)


@pytest.mark.parametrize("perm", [(0, 1), (0, 0, 1), (0, 1, 3)], ids=str)
def test_transpose_bad_perm(perm):
    with pytest.raises(InvalidArgumentError, match="not a permutation"):
        me.transpose(A, perm)


@pytest.mark.parametrize("axis", [0, 1, 3, -1, -4])
def test_expand_dims(axis):
    assert_tensor(me.expand_dims(A, axis), np.expand_dims(A, axis))


@pytest.mark.parametrize("shape, axis", [((1, 3, 1, 2), None), ((1, 3, 1, 2), 0), ((1, 3, 1, 2), -2),
                                         ((1, 3, 1, 2), (0, 2)), ((1,), None), ((3,), None)], ids=str)
def test_squeeze(shape, axis):
    x = np.arange(np.prod(shape)).reshape(shape)
    assert_tensor(me.squeeze(x, axis), np.squeeze(x, axis))


def test_squeeze_an_axis_that_is_not_1():
    with pytest.raises(InvalidArgumentError, match="has size 3, not 1"):
        me.squeeze(np.zeros((1, 3)), axis=1)


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_concat(axis):
    parts = [A, A * 2, A + 1]
    assert_tensor(me.concat(parts, axis), np.concatenate(parts, axis))


def test_concat_different_sizes_along_the_axis_and_mixed_inputs():
    a, b = np.ones((2, 3), np.float32), np.zeros((4, 3), np.float32)
    assert_tensor(me.concat([me.constant(a), b], 0), np.concatenate([a, b]), dtype=me.float32)
    assert_tensor(me.concat([a], 1), a)


def test_concat_shape_mismatch():
    with pytest.raises(InvalidArgumentError, match=r"concat: .*\(2, 3\), \(2, 4\)"):
        me.concat([np.ones((2, 3)), np.ones((2, 4))], 0)


@pytest.mark.parametrize("axis", [0, 1, 2, 3, -1])
def test_stack(axis):
    parts = [A, A + 1, A * 3]
    assert_tensor(me.stack(parts, axis), np.stack(parts, axis))


def test_stack_of_python_scalars_and_errors():
    assert_tensor(me.stack([1, 2, 3]), [1, 2, 3], dtype=me.int32)
    with pytest.raises(InvalidArgumentError, match="same shape"):
        me.stack([np.ones(2), np.ones(3)])


@pytest.mark.parametrize("splits, axis", [(2, 0), (3, 1), (4, 2), (1, -1), ([1, 2], 1), ([3, 0, 1], 2),
                                          ([2, -1], -1)], ids=str)
def test_split(splits, axis):
    pieces = me.split(A, splits, axis)
    if isinstance(splits, int):
        expected = np.split(A, splits, axis)
    else:
        sizes = list(splits)
        if -1 in sizes:
            sizes[sizes.index(-1)] = A.shape[axis] - (sum(sizes) + 1)
        expected = np.split(A, np.cumsum(sizes)[:-1], axis)
    assert len(pieces) == len(expected)
    for piece, want in zip(pieces, expected):
        assert_tensor(piece, want)


def test_split_errors():
    with pytest.raises(InvalidArgumentError, match="does not divide into 5 equal pieces"):
        me.split(A, 5, axis=2)
    with pytest.raises(InvalidArgumentError, match="sizes \\[1, 2\\] add up to 3, but axis 2 has size 4"):
        me.split(A, [1, 2], axis=2)


def test_unstack():
    for i, piece in enumerate(me.unstack(A, axis=1)):
        assert_tensor(piece, A[:, i])


@pytest.mark.parametrize("multiples", [(1, 1, 1), (2, 1, 1), (1, 3, 2), (2, 2, 2), (0, 1, 1)], ids=str)
def test_tile(multiples):
    assert_tensor(me.tile(A, multiples), np.tile(A, multiples))


def test_tile_needs_one_multiple_per_axis():
    with pytest.raises(InvalidArgumentError, match="one entry per axis"):
        me.tile(A, (2, 2))


@pytest.mark.parametrize("source, shape", [((), (3, 2)), ((1,), (4,)), ((3,), (2, 3)), ((3, 1), (3, 4)),
                                           ((1, 4), (2, 3, 4)), ((2, 3), (2, 3))], ids=str)
def test_broadcast_to(source, shape):
    x = random_array(source, "float32")
    assert_tensor(me.broadcast_to(x, shape), np.broadcast_to(x, shape))


@pytest.mark.parametrize("source, shape", [((3,), (4,)), ((2, 3), (3,)), ((3, 1), (1, 4))], ids=str)
def test_broadcast_to_errors(source, shape):
    message = re.escape(f"cannot broadcast shape {source} to {shape}")
    with pytest.raises(InvalidArgumentError, match=message):
        me.broadcast_to(np.ones(source), shape)


@pytest.mark.parametrize("paddings, value", [(((0, 0), (1, 2), (3, 0)), 0), (((1, 1), (0, 0), (0, 0)), 7.5),
                                             (((0, 0), (0, 0), (0, 0)), 0)], ids=str)
def test_pad(paddings, value):
    assert_tensor(me.pad(A, paddings, constant_values=value), np.pad(A, paddings, constant_values=value))


def test_pad_errors():
    with pytest.raises(InvalidArgumentError, match="one non-negative"):
        me.pad(A, [[1, 1]])
    with pytest.raises(InvalidArgumentError, match="one non-negative"):
        me.pad(A, [[0, 0], [0, -1], [0, 0]])


@pytest.mark.parametrize("indices, axis", [([0, 2, 2], 1), ([[1, 0], [0, 1]], 0), (2, 2), ([-1, 0], 1),
                                           (np.array([3, 0], np.int64), -1)], ids=str)
def test_gather(indices, axis):
    assert_tensor(me.gather(A, indices, axis=axis), np.take(A, indices, axis=axis))


def test_gather_errors():
    with pytest.raises(InvalidArgumentError, match=r"index 5 is out of range for axis 1 of size 3"):
        me.gather(A, [0, 5], axis=1)
    with pytest.raises(InvalidArgumentError, match="integers"):
        me.gather(A, [0.0, 1.0])


@pytest.mark.parametrize("indices", [[0, 2, 1], [[0, 3], [1, 1]], 2], ids=str)
def test_one_hot(indices):
    expected = np.eye(4, dtype=np.float32)[np.asarray(indices)]
    assert_tensor(me.one_hot(indices, 4), expected, dtype=me.float32)


def test_one_hot_values_dtype_axis_and_out_of_range():
    result = me.one_hot([1, 4, -1], 3, on_value=5, off_value=-1, dtype=me.int32)
    assert_tensor(result, [[-1, 5, -1], [-1, -1, -1], [-1, -1, -1]], dtype=me.int32)   # as in TF
    assert_tensor(me.one_hot([[0, 2]], 3, axis=0), np.transpose(np.eye(3)[[[0, 2]]], (2, 0, 1)))


def test_identity_copies_values():
    t = me.constant([1.0, 2.0])
    result = me.identity(t)
    assert_tensor(result, [1.0, 2.0], dtype=me.float32)
    assert_tensor(me.identity([[1, 2]]), [[1, 2]], dtype=me.int32)


def test_shape_size_rank():
    assert_tensor(me.shape(A), [2, 3, 4], dtype=me.int32)
    assert_tensor(me.size(A), 24, dtype=me.int32)
    assert_tensor(me.rank(A), 3, dtype=me.int32)


@given(shape=array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=4), data=st.data())
@few_examples
def test_reshape_transpose_roundtrip_on_generated_shapes(shape, data):
    x = random_array(shape, "float32")
    perm = data.draw(st.permutations(range(len(shape))), label="perm")
    transposed = me.transpose(x, perm)
    assert_tensor(transposed, np.transpose(x, perm))
    assert_tensor(me.reshape(transposed, (-1,)), np.transpose(x, perm).ravel())
    assert_tensor(me.transpose(transposed, np.argsort(perm)), x)
