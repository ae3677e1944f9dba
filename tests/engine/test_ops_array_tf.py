"""TF's array ops (reverse, roll, slice, repeat, meshgrid, sequence_mask, top_k, searchsorted, the
tensor_scatter_nd and segment ops, identity_n, map_fn, cumprod): values against NumPy, gradients against
finite differences in float64 (me.testing.check_gradients), errors that name the op and the fix. Each test
names the TF behaviour it follows."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import minieager as me
from minieager.testing import check_gradients

RNG = np.random.default_rng(21)
DTYPES = [np.float32, np.float64, np.int32, np.uint8, np.bool_]
InvalidArgumentError = me.errors.InvalidArgumentError


def array(shape, dtype):
    a = RNG.integers(0, 5, shape)
    return (a > 2) if dtype == np.bool_ else a.astype(dtype)


def same(t, expected):
    """``t`` has ``expected``'s values, shape and dtype exactly."""
    expected = np.asarray(expected)
    assert t.dtype == me.as_dtype(expected.dtype) and tuple(t.shape) == expected.shape, (t, expected)
    np.testing.assert_array_equal(t.numpy(), expected)


# ---- reverse, roll, slice -------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, axis", [((4,), [0]), ((2, 3), [1]), ((2, 3), [-1, 0]), ((2, 3, 4), [0, 2]),
                                         ((2, 0, 3), [1]), ((2, 3), [])])
def test_reverse_is_np_flip(dtype, shape, axis):
    # TF: tf.reverse(tensor, axis) takes a list of axes, negative ones counting from the end.
    x = array(shape, dtype)
    same(me.reverse(x, axis), np.flip(x, axis=tuple(axis)) if axis else x)


def test_reverse_gradient_and_errors():
    check_gradients(lambda t: me.reverse(t * t, [0, -1]), RNG.standard_normal((2, 3)))
    with pytest.raises(InvalidArgumentError, match=r"reverse: axis must be a list of ints, got 0"):
        me.reverse([1, 2], 0)                     # TF: axis is 1-D
    with pytest.raises(InvalidArgumentError, match=r"reverse: axis \[0, -2\] names the same axis twice"):
        me.reverse(np.ones((2, 2)), [0, -2])
    with pytest.raises(InvalidArgumentError, match="reverse: axis 2 is out of range for a tensor of rank 2"):
        me.reverse(np.ones((2, 2)), [2])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, shift, axis", [((5,), 2, 0), ((5,), -7, 0), ((5,), 10, -1), ((2, 3), [1, -1], [0, 1]),
                                                ((2, 3, 4), 5, 2), ((2, 3), [1, 1], [1, 1]), ((0, 3), 1, 0)])
def test_roll_is_np_roll(dtype, shape, shift, axis):
    # TF: tf.roll shifts with wrap-around; negative shifts go the other way, an axis named twice adds its shifts.
    x = array(shape, dtype)
    same(me.roll(x, shift, axis), np.roll(x, shift, axis))


def test_roll_gradient_and_errors():
    check_gradients(lambda t: me.roll(t * t, [2, -1], [1, 0]), RNG.standard_normal((2, 3)))
    with pytest.raises(InvalidArgumentError, match=r"roll: shift and axis must have the same length.*\[1, 2\].*\[0\]"):
        me.roll(np.ones((2, 2)), [1, 2], 0)
    with pytest.raises(InvalidArgumentError, match="roll: shift must be a list of ints, got 1.5"):
        me.roll(np.ones(3), 1.5, 0)
    with pytest.raises(InvalidArgumentError, match="roll: axis -2 is out of range for a tensor of rank 1"):
        me.roll(np.ones(3), 1, -2)


@pytest.mark.parametrize("begin, size", [([0, 0], [2, 3]), ([1, 1], [1, -1]), ([0, 2], [-1, 1]), ([2, 3], [0, 0]),
                                         ([1, 0], [1, 2])])
def test_slice_takes_size_elements_from_begin(begin, size):
    # TF: tf.slice(input_, begin, size); size -1 means "to the end of the axis".
    x = array((2, 3), np.int32)
    ends = [n if s == -1 else b + s for b, s, n in zip(begin, size, x.shape)]
    same(me.slice(x, begin, size), x[begin[0]:ends[0], begin[1]:ends[1]])
    same(me.slice(me.constant(5.0), [], []), np.float32(5.0))


def test_slice_gradient_and_errors():
    check_gradients(lambda t: me.slice(t, [1, 0, 1], [1, -1, 2]), RNG.standard_normal((2, 3, 4)))
    with pytest.raises(InvalidArgumentError, match=r"slice: begin\[1\] \+ size\[1\] = 2 \+ 2 goes past the end of "
                                                   r"axis 1 \(size 3, shape \(2, 3\)\); use size -1"):
        me.slice(np.ones((2, 3)), [0, 2], [1, 2])
    with pytest.raises(InvalidArgumentError, match=r"slice: begin\[0\] \+ size\[0\] = 3 \+ -1"):
        me.slice(np.ones((2, 3)), [3, 0], [-1, 1])
    with pytest.raises(InvalidArgumentError, match="slice: begin must be a list of non-negative ints"):
        me.slice(np.ones((2, 3)), [-1, 0], [1, 1])
    with pytest.raises(InvalidArgumentError, match=r"slice: size must be a list of non-negative ints \(or one -1\)"):
        me.slice(np.ones((2, 3)), [0, 0], [1, -2])
    with pytest.raises(InvalidArgumentError, match=r"slice: begin and size must have one entry per axis of shape"):
        me.slice(np.ones((2, 3)), [0], [1])


# ---- repeat, meshgrid, sequence_mask -------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("repeats, axis", [(2, None), ([1, 0, 3], 1), (3, 0), ([2], -1), (0, 1), ([0, 2], 0)])
def test_repeat_is_np_repeat(dtype, repeats, axis):
    # TF: tf.repeat(input, repeats, axis=None); axis None flattens first, one count is used for every element.
    x = array((2, 3), dtype)
    same(me.repeat(x, repeats, axis), np.repeat(x, repeats, axis))


def test_repeat_of_a_scalar_gradient_and_errors():
    same(me.repeat(7, 3), np.array([7, 7, 7], np.int32))
    check_gradients(lambda t: me.repeat(t, [2, 0, 1], axis=1), RNG.standard_normal((2, 3)))
    check_gradients(lambda t: me.repeat(t, 2), RNG.standard_normal((2, 2)))
    with pytest.raises(InvalidArgumentError, match=r"repeat: repeats must be one count or one per element of axis 0 "
                                                   r"\(size 2, shape \(2, 3\)\), got 3 counts"):
        me.repeat(np.ones((2, 3)), [1, 2, 3], axis=0)
    with pytest.raises(InvalidArgumentError, match="repeat: repeats must be a list of non-negative ints"):
        me.repeat(np.ones(2), -1)


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sizes", [(3,), (3, 2), (2, 4, 3), (0, 2)])
def test_meshgrid_is_np_meshgrid(indexing, sizes):
    # TF: tf.meshgrid(*args, indexing="xy") gives N grids; "xy" swaps the first two axes of each.
    vectors = [RNG.standard_normal(n) for n in sizes]
    grids = me.meshgrid(*vectors, indexing=indexing)
    for got, want in zip(grids, np.meshgrid(*vectors, indexing=indexing), strict=True):
        same(got, want)
    if sizes == (3, 2):
        check_gradients(lambda a, b: [g * g for g in me.meshgrid(a, b, indexing=indexing)], *vectors)


def test_meshgrid_dtypes_and_errors():
    assert me.meshgrid() == []
    x, y = me.meshgrid(me.constant([1, 2]), [3, 4, 5])          # the list takes the tensor's dtype
    assert x.dtype == y.dtype == me.int32 and x.shape == (3, 2)
    with pytest.raises(InvalidArgumentError, match="meshgrid: indexing must be 'xy' or 'ij', got 'yx'"):
        me.meshgrid([1, 2], indexing="yx")
    with pytest.raises(InvalidArgumentError, match="meshgrid: the first argument is a int32 tensor but the second is"):
        me.meshgrid(me.constant([1]), me.constant([1.0]))


def test_sequence_mask_as_in_tf():
    # TF: tf.sequence_mask([1, 3, 2], 5) -> [[T F F F F], [T T T F F], [T T F F F]]; maxlen defaults to the
    # largest length; a negative length gives an all-False row; lengths of any rank gain a last axis.
    same(me.sequence_mask([1, 3, 2], 5), np.arange(5) < np.array([[1], [3], [2]]))
    same(me.sequence_mask(me.constant([[1, -3], [2, 0]])), np.arange(2) < np.array([[1, -3], [2, 0]])[..., None])
    same(me.sequence_mask([2, 0], dtype=me.float32), np.array([[1.0, 1.0], [0.0, 0.0]], np.float32))
    same(me.sequence_mask(me.constant([200], me.uint8), 301), np.arange(301)[None] < 200)   # positions past 255
    assert me.sequence_mask(me.constant([], me.int32)).shape == (0, 0)
    with pytest.raises(me.errors.DTypeError, match="sequence_mask: lengths must be integers, got float32"):
        me.sequence_mask([1.0, 2.0])
    with pytest.raises(InvalidArgumentError, match="sequence_mask: maxlen must be non-negative, got -1"):
        me.sequence_mask([1], -1)


# ---- top_k ----------------------------------------------------------------------------------------------
def _reference_top_k(x, k):
    """A stable descending sort's first k: equal values lower index first (TF's order)."""
    order = np.argsort(-x.astype(np.float64), axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, order, axis=-1), order.astype(np.int32)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=1, max_size=10), st.integers(0, 10),
       st.sampled_from([np.float32, np.float64, np.int32, np.int64]))
def test_top_k_matches_a_stable_descending_sort(values, k, dtype):
    # TF: tf.math.top_k(input, k) along the last axis; for equal values the lower index comes first.
    x = np.array(values).astype(dtype)
    k = min(k, len(values))
    values_, indices = me.math.top_k(x, k)
    want_values, want_indices = _reference_top_k(x, k)
    same(values_, want_values)
    same(indices, want_indices)


def test_top_k_ties_batches_edge_cases_and_namedtuple():
    x = np.array([[1.0, 5.0, 5.0, 2.0, 5.0], [0.0, 0.0, 0.0, 0.0, 0.0]], np.float32)
    result = me.nn.top_k(x, k=3)
    assert result._fields == ("values", "indices")
    same(result.indices, np.array([[1, 2, 4], [0, 1, 2]], np.int32))
    same(result.values, np.array([[5, 5, 5], [0, 0, 0]], np.float32))
    full = me.math.top_k(x, 5)                                  # k == n: a full descending sort
    same(full.indices, np.array([[1, 2, 4, 3, 0], [0, 1, 2, 3, 4]], np.int32))
    empty = me.math.top_k(x, 0)                                 # k == 0: empty results
    assert empty.values.shape == empty.indices.shape == (2, 0)
    assert me.math.top_k(me.constant([3, 1], me.uint8)).values.numpy().tolist() == [3]
    assert me.math.top_k(x, 2, index_type=me.int64).indices.dtype == me.int64
    three_d = RNG.standard_normal((2, 3, 4))
    same(me.math.top_k(three_d, 2).values, -np.sort(-three_d, axis=-1)[..., :2])


def test_top_k_values_gradient_goes_to_the_picked_entries():
    x = RNG.permutation(np.arange(12.0)).reshape(3, 4) * 0.3      # distinct: no tie for finite differences
    check_gradients(lambda t: me.math.top_k(t * t, 2).values, x)
    v = me.Variable(np.array([1.0, 4.0, 4.0, 2.0]))
    with me.GradientTape() as tape:
        top = me.math.top_k(v, 2).values * me.constant([10.0, 1.0], me.float64)
    np.testing.assert_array_equal(tape.gradient(top, v).numpy(), [0.0, 10.0, 1.0, 0.0])   # ties: index order


def test_top_k_errors():
    with pytest.raises(InvalidArgumentError, match=r"top_k: k must be at most the size 3 of the last axis "
                                                   r"\(shape \(2, 3\)\), got 4"):
        me.math.top_k(np.ones((2, 3)), 4)
    with pytest.raises(InvalidArgumentError, match="top_k: k must be non-negative, got -1"):
        me.math.top_k([1.0, 2.0], -1)
    with pytest.raises(InvalidArgumentError, match="top_k: input must have rank >= 1"):
        me.math.top_k(3.0)
    with pytest.raises(me.errors.DTypeError, match="top_k: bool tensors are not numbers"):
        me.math.top_k([True, False])
    with pytest.raises(InvalidArgumentError, match="top_k: index_type must be me.int32 or me.int64, got float32"):
        me.math.top_k([1.0], index_type=me.float32)


def test_argsort_descending_keeps_ties_in_index_order_as_in_tf():
    # TF: tf.argsort is stable in both directions ([2, 1, 2] descending -> [0, 2, 1]).
    same(me.argsort([2, 1, 2, 1], direction="DESCENDING"), np.array([0, 2, 1, 3], np.int32))
    same(me.argsort([[2, 2], [1, 2]], axis=0, direction="DESCENDING"), np.array([[0, 0], [1, 1]], np.int32))


# ---- searchsorted ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8])
def test_searchsorted_is_np_searchsorted_row_by_row(side, dtype):
    # TF: tf.searchsorted(sorted_sequence, values, side) searches each row of values in the same row of
    # sorted_sequence (innermost axis); the result has values' shape.
    sequence = np.sort(RNG.integers(0, 6, (2, 3, 5)), axis=-1).astype(dtype)
    values = RNG.integers(0, 7, (2, 3, 4)).astype(dtype)
    got = me.searchsorted(sequence, values, side=side)
    want = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(sequence.reshape(6, 5), values.reshape(6, 4))])
    same(got, want.reshape(2, 3, 4).astype(np.int32))
    same(me.searchsorted([1, 3, 3, 5], [0, 3, 6], side=side),
         np.searchsorted([1, 3, 3, 5], [0, 3, 6], side=side).astype(np.int32))


def test_searchsorted_out_type_and_errors():
    assert me.searchsorted([1.0, 2.0], [1.5], out_type=me.int64).dtype == me.int64
    with pytest.raises(InvalidArgumentError, match="searchsorted: side must be 'left' or 'right', got 'middle'"):
        me.searchsorted([1.0], [1.0], side="middle")
    with pytest.raises(InvalidArgumentError, match=r"searchsorted: sorted_sequence and values must have rank >= 1 and "
                                                   r"the same shape but for the last axis, got \(2, 3\) and \(3, 1\)"):
        me.searchsorted(np.ones((2, 3)), np.ones((3, 1)))
    with pytest.raises(InvalidArgumentError, match="searchsorted: the first argument is a float64 tensor but the second"):
        me.searchsorted(me.constant(np.ones(3)), me.constant([1]))


# ---- tensor_scatter_nd_update / add -----------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_tensor_scatter_nd_update_writes_elements_and_slices(dtype):
    # TF: tf.tensor_scatter_nd_update(tensor, indices, updates) returns a copy with updates written at indices.
    tensor, updates = array((3, 4), dtype), array((2,), dtype)
    want = tensor.copy()
    want[[0, 2], [1, 3]] = updates
    same(me.tensor_scatter_nd_update(tensor, [[0, 1], [2, 3]], updates), want)
    rows = array((2, 4), dtype)
    want = tensor.copy()
    want[[2, 0]] = rows
    same(me.tensor_scatter_nd_update(tensor, [[2], [0]], rows), want)


def test_tensor_scatter_nd_update_repeated_index_keeps_the_last_and_only_it_gets_a_gradient():
    out = me.tensor_scatter_nd_update(np.zeros(4), [[1], [3], [1]], [5.0, 6.0, 7.0])
    same(out, [0.0, 7.0, 0.0, 6.0])
    tensor, updates = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 4))
    indices = me.constant([[2], [0], [2], [2]])
    check_gradients(lambda t, u: me.tensor_scatter_nd_update(t * t, indices, u * u), tensor, updates)
    u = me.Variable(np.ones((3,)))
    with me.GradientTape() as tape:
        out = me.tensor_scatter_nd_update(np.zeros(2), [[0], [1], [0]], u)
        y = me.reduce_sum(out * me.constant([2.0, 3.0], me.float64))
    np.testing.assert_array_equal(tape.gradient(y, u).numpy(), [0.0, 3.0, 2.0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8])
def test_tensor_scatter_nd_add_is_np_add_at(dtype):
    # TF: tf.tensor_scatter_nd_add adds updates at indices; repeated indices add up.
    tensor, updates = array((3, 4), dtype), array((3, 4), dtype)
    want = tensor.copy()
    np.add.at(want, [2, 0, 2], updates)
    same(me.tensor_scatter_nd_add(tensor, [[2], [0], [2]], updates), want)
    check_gradients(lambda t, u: me.tensor_scatter_nd_add(t, [[1, 1], [1, 1]], u * t[0, :2]),
                    RNG.standard_normal((2, 3)), RNG.standard_normal(2))


def test_tensor_scatter_errors():
    with pytest.raises(InvalidArgumentError, match=r"tensor_scatter_nd_update: index 3 in coordinate 0 is out of "
                                                   r"range for a dimension of size 3"):
        me.tensor_scatter_nd_update(np.zeros((3, 2)), [[3]], np.ones((1, 2)))
    with pytest.raises(InvalidArgumentError, match=r"tensor_scatter_nd_update: index -1 in coordinate 1"):
        me.tensor_scatter_nd_update(np.zeros((3, 2)), [[0, -1]], [1.0])
    with pytest.raises(InvalidArgumentError, match=r"tensor_scatter_nd_add: updates must have shape indices.shape\[:-1\] "
                                                   r"\+ tensor.shape\[1:\] = \(1, 2\), got \(2,\)"):
        me.tensor_scatter_nd_add(np.zeros((3, 2)), [[0]], np.ones(2))
    with pytest.raises(InvalidArgumentError, match="tensor_scatter_nd_update: the first argument is a float32 tensor "
                                                   "but the second is int32"):
        me.tensor_scatter_nd_update(me.zeros(3), [[0]], me.constant([1]))
    with pytest.raises(me.errors.DTypeError, match="tensor_scatter_nd_add: bool tensors are not numbers"):
        me.tensor_scatter_nd_add([True, False], [[0]], [True])
    with pytest.raises(InvalidArgumentError, match="tensor_scatter_nd_update: indices must be an integer tensor"):
        me.tensor_scatter_nd_update(np.zeros(3), [[0.5]], [1.0])


# ---- segment sums -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_unsorted_segment_sum_is_np_add_at_and_drops_negative_ids(dtype):
    # TF: tf.math.unsorted_segment_sum(data, segment_ids, num_segments); ids in any order, a negative id's row is
    # dropped, segments nobody names are 0; ids may cover several leading axes of data.
    data = array((5, 3), dtype)
    ids = np.array([3, -1, 0, 3, 1])
    want = np.zeros((4, 3), dtype)
    np.add.at(want, ids[ids >= 0], data[ids >= 0])
    same(me.math.unsorted_segment_sum(data, ids, 4), want)
    grid_ids, grid_data = np.array([[1, 0], [1, 1]]), array((2, 2, 3), dtype)
    want = np.zeros((3, 3), dtype)
    np.add.at(want, grid_ids, grid_data)
    same(me.math.unsorted_segment_sum(grid_data, grid_ids, 3), want)


def test_segment_sum_of_sorted_ids_as_in_tf():
    # TF: tf.math.segment_sum(c, [0, 0, 1]) for c = [[1, 2], [3, 4], [5, 6]] -> [[4, 6], [5, 6]]; the output has
    # max(id) + 1 rows, zeros where an id is skipped.
    same(me.math.segment_sum(me.constant([[1, 2], [3, 4], [5, 6]]), [0, 0, 1]), np.array([[4, 6], [5, 6]], np.int32))
    same(me.math.segment_sum(me.constant([1.0, 2.0]), [0, 2]), np.array([1.0, 0.0, 2.0], np.float32))
    assert me.math.segment_sum(me.zeros((0, 2)), me.constant([], me.int32)).shape == (0, 2)


def test_segment_sum_gradients():
    data = RNG.standard_normal((5, 2))
    check_gradients(lambda d: me.math.unsorted_segment_sum(d * d, [2, -1, 0, 2, 2], 4), data)
    check_gradients(lambda d: me.math.segment_sum(d, [0, 0, 1, 3, 3]), data)


def test_segment_sum_errors():
    with pytest.raises(InvalidArgumentError, match=r"unsorted_segment_sum: segment id 4 is out of range for "
                                                   r"num_segments=4"):
        me.math.unsorted_segment_sum(np.ones(3), [0, 4, 1], 4)
    with pytest.raises(InvalidArgumentError, match=r"unsorted_segment_sum: the shape of segment_ids must be the first "
                                                   r"axes of data's shape, got segment_ids \(2,\) for data \(3, 2\)"):
        me.math.unsorted_segment_sum(np.ones((3, 2)), [0, 1], 2)
    with pytest.raises(me.errors.DTypeError, match="unsorted_segment_sum: segment_ids must be int32 or int64, got float"):
        me.math.unsorted_segment_sum(np.ones(2), [0.0, 1.0], 2)
    with pytest.raises(InvalidArgumentError, match="unsorted_segment_sum: num_segments must be non-negative, got -2"):
        me.math.unsorted_segment_sum(np.ones(2), [0, 1], -2)
    with pytest.raises(InvalidArgumentError, match=r"segment_sum: segment ids must be sorted, but id 0 at position 2 "
                                                   r"comes after 1\. For ids in any order use me.math.unsorted_segment"):
        me.math.segment_sum(np.ones(3), [0, 1, 0])
    with pytest.raises(InvalidArgumentError, match="segment_sum: segment ids must be non-negative, got -1"):
        me.math.segment_sum(np.ones(2), [-1, 0])
    with pytest.raises(InvalidArgumentError, match=r"segment_sum: segment_ids must be 1-D"):
        me.math.segment_sum(np.ones((2, 2)), [[0, 0], [1, 1]])


# ---- identity_n, map_fn ----------------------------------------------------------------------------------------
def test_identity_n_returns_a_list_of_identities():
    a, b = me.identity_n([me.constant(1.0), [1, 2]])
    same(a, np.float32(1.0))
    same(b, np.array([1, 2], np.int32))
    with pytest.raises(InvalidArgumentError, match="identity_n: input must be a list of tensors, got Tensor"):
        me.identity_n(me.constant(1.0))


def test_map_fn_applies_fn_to_each_row_and_stacks():
    # TF: tf.map_fn(fn, elems) == tf.stack([fn(e) for e in tf.unstack(elems)]); without fn_output_signature fn
    # keeps elems' dtype.
    x = RNG.standard_normal((4, 3))
    same(me.map_fn(lambda row: row * 2.0, x), x * 2.0)
    same(me.map_fn(me.reduce_sum, x), x.sum(axis=1))
    check_gradients(lambda t: me.map_fn(lambda row: me.reduce_prod(row) * row, t), x)


def test_map_fn_nested_elems_and_fn_output_signature():
    # TF: elems may be a tuple (fn gets a tuple of slices); fn_output_signature gives fn's output dtypes.
    a, b = me.constant([1, 2, 3]), me.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    count, total = me.map_fn(lambda ab: (ab[0] * 10, me.reduce_sum(ab[1])), (a, b),
                             fn_output_signature=(me.int32, me.float32))
    same(count, np.array([10, 20, 30], np.int32))
    same(total, np.array([3.0, 7.0, 11.0], np.float32))
    out = me.map_fn(lambda d: {"double": d["x"] * 2}, {"x": a})
    same(out["double"], np.array([2, 4, 6], np.int32))
    same(me.map_fn(lambda e: me.cast(e, me.float32), a, fn_output_signature=me.TensorSpec([], me.float32)),
         np.array([1.0, 2.0, 3.0], np.float32))
    same(me.map_fn(lambda e: 1.5, a, fn_output_signature=me.float64), np.full(3, 1.5))
    same(me.map_fn(me.reduce_sum, b, fn_output_signature=np.float32), np.array([3.0, 7.0, 11.0], np.float32))


def test_map_fn_of_no_elements_takes_its_shape_from_the_signature():
    same(me.map_fn(lambda row: row, np.zeros((0, 3), np.float32)), np.zeros((0, 3), np.float32))
    same(me.map_fn(me.reduce_sum, np.zeros((0, 3)), fn_output_signature=me.TensorSpec([2], me.int32)),
         np.zeros((0, 2), np.int32))
    with pytest.raises(InvalidArgumentError, match=r"map_fn: elems has 0 elements, so fn never runs.*every size known"):
        me.map_fn(me.reduce_sum, np.zeros((0, 3)), fn_output_signature=me.float32)


def test_map_fn_back_prop_false_stops_the_gradient():
    x = me.Variable(np.ones((2, 2)))
    with me.GradientTape() as tape:
        y = me.reduce_sum(me.map_fn(lambda r: r * 3.0, x, back_prop=False)) + me.reduce_sum(x)
    same(tape.gradient(y, x), np.ones((2, 2)))


def test_map_fn_errors_say_what_to_give():
    x = me.constant([[1.0, 2.0]])
    with pytest.raises(me.errors.DTypeError, match=r"map_fn: fn returned a int32 tensor for element 0, but "
                                                   r"fn_output_signature \(or, without one, elems\) says float32\. "
                                                   r"Give fn_output_signature=me.int32"):
        me.map_fn(lambda r: me.cast(r, me.int32), x)
    with pytest.raises(InvalidArgumentError, match=r"map_fn: fn returned .* for element 0, which does not have the "
                                                   r"structure of fn_output_signature"):
        me.map_fn(lambda r: (r, r), x)
    with pytest.raises(InvalidArgumentError, match=r"map_fn: every tensor in elems must have rank >= 1 and the same "
                                                   r"length along axis 0.*\(2,\), \(3,\)"):
        me.map_fn(lambda ab: ab[0], (me.ones(2), me.ones(3)))
    with pytest.raises(InvalidArgumentError, match=r"map_fn: fn must return the same shape for every element"):
        me.map_fn(lambda r: r[:int(r[0])], me.constant([[1.0, 1.0], [2.0, 2.0]]))
    with pytest.raises(InvalidArgumentError, match=r"map_fn: fn returned shape \(2,\) for element 0, but "
                                                   r"fn_output_signature says \(3,\)"):
        me.map_fn(lambda r: r, x, fn_output_signature=me.TensorSpec([3], me.float32))
    with pytest.raises(InvalidArgumentError, match=r"map_fn: fn_output_signature must be a dtype or a me.TensorSpec.*"
                                                   r"no RaggedTensorSpec"):
        me.map_fn(lambda r: r, x, fn_output_signature="ragged")


# ---- cumprod ----------------------------------------------------------------------------------------------------
def _reference_cumprod(x, axis, exclusive, reverse):
    x = np.flip(x, axis) if reverse else x
    out = np.cumprod(x, axis=axis, dtype=x.dtype)
    if exclusive:
        ones = np.ones_like(np.take(x, [0], axis=axis))
        out = np.concatenate([ones, np.delete(out, -1, axis=axis)], axis=axis)
    return np.flip(out, axis) if reverse else out


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_cumprod_matches_numpy_and_its_gradient_is_exact_at_zeros(axis, exclusive, reverse):
    # TF: tf.math.cumprod(x, axis, exclusive, reverse): exclusive [a, b, c] -> [1, a, ab], reverse -> [bc, c, 1].
    x = RNG.standard_normal((3, 4))
    np.testing.assert_allclose(me.cumprod(x, axis, exclusive, reverse).numpy(),
                               _reference_cumprod(x, axis, exclusive, reverse), rtol=1e-12)
    check_gradients(lambda t: me.math.cumprod(t, axis, exclusive, reverse), x)
    x[1, 1] = x[2, 2] = x[0, 3] = 0.0                     # TF's gradient divides by x; this one does not
    check_gradients(lambda t: me.math.cumprod(t, axis, exclusive, reverse), x)


def test_cumprod_integers_wrap_in_their_dtype_and_errors():
    # TF computes in the input's dtype: int32 products wrap.
    x = np.array([3, 1_000_000, 1_000_000, 7], np.int32)
    same(me.cumprod(x), _reference_cumprod(x, 0, False, False))
    small = array((2, 3), np.uint8) + np.uint8(2)
    same(me.cumprod(small, axis=1), _reference_cumprod(small, 1, False, False))
    assert me.cumprod(me.zeros((2, 0)), axis=1).shape == (2, 0)
    with pytest.raises(InvalidArgumentError, match="cumprod: axis 2 is out of range for a tensor of rank 2"):
        me.cumprod(np.ones((2, 2)), axis=2)
    with pytest.raises(me.errors.DTypeError, match="cumprod: bool tensors are not numbers"):
        me.cumprod([True])


# ---- inside me.function --------------------------------------------------------------------------------------------
def test_the_ops_trace_into_graphs_and_give_the_eager_values():
    x = RNG.standard_normal((4, 3))
    ids = me.constant([1, -1, 0, 1])

    def f(t, segment_ids):
        return (me.roll(t, 1, 0), me.reverse(t, [1]), me.slice(t, [1, 0], [2, -1]), me.repeat(t, 2, axis=1),
                me.math.top_k(t, 2).values, me.tensor_scatter_nd_update(t, [[0, 1]], [9.0]),
                me.math.unsorted_segment_sum(t, segment_ids, 3), me.cumprod(t, 1), me.searchsorted(t, t),
                me.sequence_mask(segment_ids, 3), me.map_fn(me.reduce_sum, t))

    traced = me.function(f)(me.constant(x), ids)
    for got, want in zip(traced, f(me.constant(x), ids), strict=True):
        same(got, want.numpy())


def test_value_dependent_shapes_refuse_to_trace_and_say_what_to_give():
    with pytest.raises(me.errors.OperatorNotAllowedInGraphError, match="segment_sum: .*me.math.unsorted_segment_sum"):
        me.function(lambda d, i: me.math.segment_sum(d, i))(me.ones(2), me.constant([0, 1]))
    with pytest.raises(me.errors.OperatorNotAllowedInGraphError, match="sequence_mask: .*Give maxlen="):
        me.function(lambda lengths: me.sequence_mask(lengths))(me.constant([1, 2]))
