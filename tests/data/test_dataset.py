"""me.data.Dataset: sources, transformations, shuffling semantics and the batching fast path."""
import numpy as np
import pytest

import minieager as me
from minieager.data import Dataset


def values(dataset):
    """The elements as Python values (tuples and dicts kept), checking that every leaf is a Tensor."""
    def convert(element):
        if isinstance(element, tuple):
            return tuple(convert(e) for e in element)
        if isinstance(element, dict):
            return {k: convert(v) for k, v in element.items()}
        assert isinstance(element, me.Tensor)
        return element.numpy().tolist()
    return [convert(e) for e in dataset]


def ints(dataset):
    return [int(x) for x in dataset]


# ---- sources -------------------------------------------------------------------------
def test_from_tensor_slices_of_an_array_yields_tensor_rows():
    ds = Dataset.from_tensor_slices(np.arange(6, dtype=np.float32).reshape(3, 2))
    rows = list(ds)
    assert len(ds) == 3 and all(isinstance(r, me.Tensor) for r in rows)
    np.testing.assert_array_equal(rows[1].numpy(), [2.0, 3.0])
    assert rows[1].dtype == me.float32


def test_from_tensor_slices_of_tuples_dicts_lists_and_tensors():
    ds = Dataset.from_tensor_slices((me.constant([[1.0], [2.0]]), [7, 8]))
    (x0, y0), (x1, y1) = list(ds)
    assert x1.numpy().tolist() == [2.0] and int(y1) == 8 and y0.dtype == me.int32   # a list is a value, as in TF
    d = next(iter(Dataset.from_tensor_slices({"image": np.zeros((2, 3)), "label": np.array([4, 5])})))
    assert set(d) == {"image", "label"} and d["image"].shape == (3,) and int(d["label"]) == 4


def test_from_tensor_slices_copies_its_input():
    array = np.arange(3)
    ds = Dataset.from_tensor_slices(array)
    array[0] = 100
    assert ints(ds) == [0, 1, 2]


def test_components_of_different_lengths_are_an_error_naming_the_lengths():
    with pytest.raises(me.errors.InvalidArgumentError, match=r"component 0 has 3, component 1 has 4"):
        Dataset.from_tensor_slices((np.zeros(3), np.zeros(4)))
    with pytest.raises(me.errors.InvalidArgumentError, match="scalar"):
        Dataset.from_tensor_slices(np.float32(1.0))


def test_range_and_zip():
    assert ints(Dataset.range(4)) == [0, 1, 2, 3]
    assert ints(Dataset.range(2, 9, 3)) == [2, 5, 8]
    assert next(iter(Dataset.range(1))).dtype == me.int64                   # tf.data.Dataset.range is int64
    pairs = values(Dataset.zip((Dataset.range(3), Dataset.range(10, 20))))
    assert pairs == [(0, 10), (1, 11), (2, 12)]                              # stops at the shortest
    assert len(Dataset.zip((Dataset.range(3), Dataset.range(10, 20)))) == 3
    named = values(Dataset.zip({"a": Dataset.range(2), "b": Dataset.range(5, 7)}))
    assert named == [{"a": 0, "b": 5}, {"a": 1, "b": 6}]
    with pytest.raises(TypeError):
        Dataset.zip([Dataset.range(2)])


def test_from_generator_converts_checks_and_restarts():
    def gen():
        for i in range(3):
            yield i, [i] * 2

    ds = Dataset.from_generator(gen, output_types=(me.float32, me.int64), output_shapes=((), (2,)))
    assert values(ds) == values(ds)                                           # each pass calls gen() again
    x, y = next(iter(ds))
    assert x.dtype == me.float32 and y.dtype == me.int64 and y.shape == (2,)
    assert float(next(iter(Dataset.from_generator(lambda: iter([1.5])))).numpy()) == 1.5
    with pytest.raises(me.errors.InvalidArgumentError, match="output_shapes"):
        list(Dataset.from_generator(gen, (me.float32, me.int64), ((), (3,))))
    with pytest.raises(me.errors.InvalidArgumentError, match="structure"):
        list(Dataset.from_generator(lambda: iter([1, 2]), (me.float32, me.int64)))
    with pytest.raises(TypeError, match="function"):
        Dataset.from_generator(gen())


# ---- batch -----------------------------------------------------------------------------
def test_batch_stacks_and_keeps_or_drops_the_remainder():
    ds = Dataset.from_tensor_slices((np.arange(10.0), np.arange(10)))
    batches = values(ds.batch(4))
    assert [b[1] for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert len(ds.batch(4)) == 3 and len(ds.batch(4, drop_remainder=True)) == 2
    assert [b[1] for b in values(ds.batch(4, drop_remainder=True))] == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_batch_of_computed_elements_stacks_them():
    ds = Dataset.range(5).map(lambda x: (x, me.fill([2], x))).batch(2)
    (a, b), *_ = values(ds)
    assert a == [0, 1] and b == [[0, 0], [1, 1]]
    ragged = Dataset.from_generator(lambda: iter([[1], [1, 2]])).batch(2)
    with pytest.raises(me.errors.InvalidArgumentError, match=r"element 1 has shape \(2,\)"):
        list(ragged)


def test_fast_path_and_element_path_give_the_same_batches():
    data = (np.random.default_rng(0).normal(size=(50, 3)).astype(np.float32), np.arange(50))
    pipeline = lambda ds: ds.shuffle(16, seed=3).repeat(2).skip(5).take(80).batch(7)   # noqa: E731
    fast = values(pipeline(Dataset.from_tensor_slices(data)))
    slow = values(pipeline(Dataset.from_tensor_slices(data).map(lambda x, y: (x, y))))
    assert len(fast) == len(slow) == 12
    for (fx, fy), (sx, sy) in zip(fast, slow):
        np.testing.assert_array_equal(fx, sx)
        np.testing.assert_array_equal(fy, sy)


# ---- shuffle --------------------------------------------------------------------------
def test_shuffle_is_a_permutation_and_reproducible_with_a_seed():
    a = ints(Dataset.range(100).shuffle(100, seed=7))
    assert sorted(a) == list(range(100)) and a != list(range(100))
    assert ints(Dataset.range(100).shuffle(100, seed=7)) == a
    assert ints(Dataset.range(100).shuffle(100, seed=8)) != a


def test_shuffle_reproducible_under_the_global_seed():
    me.random.set_seed(42)
    first = ints(Dataset.range(50).shuffle(50))
    me.random.set_seed(42)
    assert ints(Dataset.range(50).shuffle(50)) == first


def test_shuffle_buffer_semantics():
    assert ints(Dataset.range(20).shuffle(1, seed=0)) == list(range(20))     # a buffer of one changes nothing
    order = ints(Dataset.range(200).shuffle(10, seed=1))
    # The i-th output was among the first i + buffer_size inputs: a small buffer shuffles only locally.
    assert all(x < i + 10 for i, x in enumerate(order))
    with pytest.raises(me.errors.InvalidArgumentError):
        Dataset.range(3).shuffle(0)


def test_reshuffle_each_iteration():
    ds = Dataset.range(30).shuffle(30, seed=5)
    assert ints(ds) != ints(ds)
    fixed = Dataset.range(30).shuffle(30, seed=5, reshuffle_each_iteration=False)
    assert ints(fixed) == ints(fixed)
    epochs = ints(Dataset.range(30).shuffle(30, seed=5).repeat(2))
    assert sorted(epochs[:30]) == sorted(epochs[30:]) and epochs[:30] != epochs[30:]


# ---- the other transformations ----------------------------------------------------------
def test_repeat_take_skip():
    assert ints(Dataset.range(3).repeat(2)) == [0, 1, 2, 0, 1, 2]
    assert ints(Dataset.range(3).repeat().take(7)) == [0, 1, 2, 0, 1, 2, 0]
    assert ints(Dataset.range(5).skip(2)) == [2, 3, 4] and ints(Dataset.range(5).take(2)) == [0, 1]
    assert ints(Dataset.range(5).take(-1)) == [0, 1, 2, 3, 4] and ints(Dataset.range(5).skip(-1)) == []
    assert ints(Dataset.range(0).repeat()) == []                            # repeating nothing ends
    assert len(Dataset.range(3).repeat(4)) == 12 and len(Dataset.range(3).repeat().take(5)) == 5
    assert len(Dataset.range(5).skip(7)) == 0


def test_map_unpacks_tuples_and_passes_dicts_and_tensors():
    seen = []
    ds = Dataset.from_tensor_slices((np.arange(3), np.arange(3) * 10)).map(
        lambda x, y: seen.append((type(x), type(y))) or x + y)
    assert ints(ds) == [0, 11, 22] and seen[0] == (me.Tensor, me.Tensor)
    d = Dataset.from_tensor_slices({"a": np.arange(2)}).map(lambda e: {"b": e["a"] * 2})
    assert values(d) == [{"b": 0}, {"b": 2}]
    assert len(Dataset.range(4).map(lambda x: x)) == 4


def test_filter():
    assert ints(Dataset.range(10).filter(lambda x: x % 3 == 0)) == [0, 3, 6, 9]
    assert ints(Dataset.range(4).filter(lambda x: int(x) > 1)) == [2, 3]      # a Python bool works too
    with pytest.raises(me.errors.InvalidArgumentError, match="scalar bool"):
        list(Dataset.range(3).filter(lambda x: x))


def test_cache_replays_the_first_complete_pass():
    calls = []

    def gen():
        calls.append(1)
        yield from range(4)

    ds = Dataset.from_generator(gen).cache()
    assert ints(ds) == ints(ds) == [0, 1, 2, 3] and len(calls) == 1
    shuffled = Dataset.range(20).shuffle(20, seed=2).cache()
    assert ints(shuffled) == ints(shuffled)                                   # the cached order, not a new one
    assert values(shuffled.batch(20)) == values(shuffled.batch(20))


def test_prefetch_is_accepted():
    assert ints(Dataset.range(3).prefetch(1)) == [0, 1, 2]


def test_len_is_known_infinite_or_unknown():
    assert len(Dataset.range(10).shuffle(4).batch(3)) == 4
    with pytest.raises(TypeError, match="infinite"):
        len(Dataset.range(3).repeat())
    with pytest.raises(TypeError, match="unknown"):
        len(Dataset.range(3).filter(lambda x: x > 0))
    with pytest.raises(TypeError, match="unknown"):
        len(Dataset.from_generator(lambda: iter([1])))


def test_iterator_next_for_tf1_code():
    it = iter(Dataset.range(2))
    assert int(it.next()) == 0 and int(next(it)) == 1
    with pytest.raises(StopIteration):
        next(it)


def test_the_guides_input_pipeline():
    images = np.random.default_rng(0).integers(0, 255, size=(100, 28, 28), dtype=np.uint8)
    labels = np.arange(100) % 10
    dataset = Dataset.from_tensor_slices(
        (me.cast(images[..., me.newaxis] / 255, me.float32), me.cast(labels, me.int64)))
    dataset = dataset.shuffle(1000).batch(32)
    for images_batch, labels_batch in dataset.take(1):
        assert images_batch.shape == (32, 28, 28, 1) and images_batch.dtype == me.float32
        assert labels_batch.shape == (32,) and labels_batch.dtype == me.int64
    assert len(dataset) == 4
