"""Indexing a tensor reads like NumPy: ints, slices, ..., None, masks and integer arrays."""
import numpy as np
import pytest

import minieager as me

from .conftest import assert_tensor

InvalidArgumentError = me.errors.InvalidArgumentError

A = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)


@pytest.mark.parametrize("index", [
    0, -1, (1, 2), (1, 2, 3), (-1, -2, -3),
    slice(None), slice(1, None), slice(None, None, 2), slice(None, None, -1),
    (slice(None), slice(0, 3, 2)), (0, slice(None, None, -2), slice(1, -1)),
    Ellipsis, (Ellipsis, 1), (0, Ellipsis), (1, Ellipsis, slice(None, 2)),
    None, (None, 0), (slice(None), None, 1), (Ellipsis, None), (0, me.newaxis, Ellipsis),
], ids=repr)
def test_basic_indexing_matches_numpy(index):
    assert_tensor(me.constant(A)[index], A[index], dtype=me.float32)


def test_newaxis_is_none():
    assert me.newaxis is None


def test_integer_tensor_as_index():
    t = me.constant(A)
    assert_tensor(t[me.constant(1)], A[1])
    assert_tensor(t[me.constant(1), me.constant(-1)], A[1, -1])


@pytest.mark.parametrize("mask", [
    A > 10,                         # a mask of the whole shape -> 1-D result
    np.array([True, False]),        # a mask of the first axis
    np.array([False, False]),       # selects nothing
])
def test_boolean_mask_indexing(mask):
    t = me.constant(A)
    assert_tensor(t[me.constant(mask)], A[mask])
    assert_tensor(t[mask], A[mask])
    assert_tensor(me.boolean_mask(t, mask), A[mask])


def test_mask_from_a_comparison():
    t = me.constant([3, -1, 4, -1, 5])
    assert_tensor(t[t > 0], [3, 4, 5], dtype=me.int32)


@pytest.mark.parametrize("index", [
    [0, 0, 1], np.array([1, -1]), (slice(None), [2, 0]), (0, [0, 2], [1, 3]), np.array([[0, 1], [1, 0]])],
    ids=repr)
def test_integer_array_indexing(index):
    t = me.constant(A)
    assert_tensor(t[index], A[index])
    if isinstance(index, np.ndarray):
        assert_tensor(t[me.constant(index)], A[index])


def test_indexing_returns_a_new_tensor_independent_of_the_source():
    t = me.constant([1, 2, 3])
    row = t[1:]
    assert isinstance(row, me.Tensor)
    row.numpy()[0] = 100
    assert t.numpy().tolist() == [1, 2, 3]


@pytest.mark.parametrize("index", [2, -3, (0, 3), (0, 0, 4), [0, 5], (0, 0, 0, 0)], ids=repr)
def test_out_of_range_index_is_a_clear_error(index):
    with pytest.raises(InvalidArgumentError, match=r"getitem: .*\(tensor shape \(2, 3, 4\)\)") as info:
        me.constant(A)[index]
    assert isinstance(info.value, ValueError)


def test_float_index_is_an_error():
    with pytest.raises((InvalidArgumentError, TypeError)):
        me.constant(A)[me.constant([0.0, 1.0])]
    with pytest.raises((InvalidArgumentError, TypeError)):
        me.constant(A)[1.5]
