"""The tf.data pieces tutorials use (issue 28): each as TF 2.21 gives it, each lazy like the others."""
import numpy as np
import pytest

import minieager as me
from minieager.errors import InvalidArgumentError, NotFoundError

D = me.data.Dataset


def test_as_numpy_iterator_gives_numpy_values_and_bytes():
    assert list(D.range(3).as_numpy_iterator()) == [0, 1, 2]
    first = next(D.from_tensor_slices(([1.0, 2.0], [[1, 2], [3, 4]])).as_numpy_iterator())
    assert isinstance(first[0], np.float32) and first[1].tolist() == [1, 2]
    assert list(D.from_tensor_slices(["a", "bc"]).as_numpy_iterator()) == [b"a", b"bc"]     # TF: bytes


def test_cardinality_known_infinite_unknown():
    ds = D.range(10)
    assert ds.cardinality().numpy() == 10 and ds.cardinality().dtype == me.int64
    assert ds.batch(3).cardinality().numpy() == 4
    assert ds.repeat().cardinality().numpy() == me.data.INFINITE_CARDINALITY == -1
    assert ds.filter(lambda x: x > 2).cardinality().numpy() == me.data.UNKNOWN_CARDINALITY == -2
    assert me.data.experimental.cardinality(ds).numpy() == 10


def test_unbatch_undoes_batch_and_checks_rows():
    ds = D.from_tensor_slices(([1, 2, 3], ["a", "b", "c"])).batch(2).unbatch()
    assert [(int(a), b) for a, b in ds.as_numpy_iterator()] == [(1, b"a"), (2, b"b"), (3, b"c")]
    assert ds.cardinality().numpy() == -2                                         # TF: unknown
    with pytest.raises(InvalidArgumentError, match="unbatch: every component .* needs a first axis"):
        list(D.range(2).unbatch())


def test_enumerate_pairs_an_int64_position():
    pairs = list(D.from_tensor_slices(["a", "b"]).enumerate(start=5).as_numpy_iterator())
    assert pairs == [(5, b"a"), (6, b"b")]
    i, x = next(iter(D.range(1).enumerate()))
    assert i.dtype == me.int64


def test_padded_batch_pads_to_the_longest_or_to_padded_shapes():
    ds = D.from_generator(lambda: ([1] * n for n in (1, 2, 3)), output_signature=me.TensorSpec([None], me.int32))
    batches = [b.tolist() for b in ds.padded_batch(2).as_numpy_iterator()]
    assert batches == [[[1, 0], [1, 1]], [[1, 1, 1]]]                               # TF's batches
    fixed = next(ds.padded_batch(2, padded_shapes=[4], padding_values=-1).as_numpy_iterator())
    assert fixed.tolist() == [[1, -1, -1, -1], [1, 1, -1, -1]]
    with pytest.raises(InvalidArgumentError, match="has size 3, more than padded_shapes allows \\(2\\)"):
        list(ds.padded_batch(3, padded_shapes=[2]))
    strings = D.from_generator(lambda: iter([["a"], ["b", "c"]]), output_signature=me.TensorSpec([None], me.string))
    assert next(strings.padded_batch(2).as_numpy_iterator()).tolist() == [[b"a", b""], [b"b", b"c"]]
    pairs = D.from_generator(lambda: iter([([1], "x"), ([2, 3], "yz")]),
                             output_signature=(me.TensorSpec([None], me.int32), me.TensorSpec((), me.string)))
    numbers, text = next(pairs.padded_batch(2, padded_shapes=([3], []), padding_values=(-1, b"")).as_numpy_iterator())
    assert numbers.tolist() == [[1, -1, -1], [2, 3, -1]] and text.tolist() == [b"x", b"yz"]


def test_from_generator_with_output_signature_converts_and_checks():
    def gen():
        yield 1, [1.0, 2.0]
        yield 2, [3.0]
    ds = D.from_generator(gen, output_signature=(me.TensorSpec((), me.int64), me.TensorSpec([None], me.float64)))
    (a, b), (c, d) = list(ds)
    assert a.dtype == me.int64 and b.dtype == me.float64 and d.numpy().tolist() == [3.0]
    bad = D.from_generator(gen, output_signature=(me.TensorSpec((), me.int64), me.TensorSpec([2], me.float64)))
    with pytest.raises(InvalidArgumentError, match=r"output_shapes says \(2,\)"):
        list(bad)
    with pytest.raises(InvalidArgumentError, match="not both"):
        D.from_generator(gen, output_types=me.int32, output_signature=me.TensorSpec((), me.int32))
    assert list(D.from_generator(lambda n: iter(range(n)), args=(3,), output_signature=me.TensorSpec((), me.int32))
                .as_numpy_iterator()) == [0, 1, 2]


def test_autotune_is_accepted_where_tf_takes_it():
    assert me.data.AUTOTUNE == me.data.experimental.AUTOTUNE == -1
    ds = D.range(4).map(lambda x: x * 2, num_parallel_calls=me.data.AUTOTUNE).batch(
        2, num_parallel_calls=me.data.AUTOTUNE).prefetch(me.data.AUTOTUNE)
    assert [b.tolist() for b in ds.as_numpy_iterator()] == [[0, 2], [4, 6]]


def test_text_line_dataset_reads_lines_lazily(tmp_path):
    path = tmp_path / "lines.txt"
    ds = me.data.TextLineDataset(str(path))          # lazy: the file need not exist yet
    path.write_bytes("hello\nwörld\r\nlast".encode())
    assert list(ds.as_numpy_iterator()) == [b"hello", "wörld".encode(), b"last"]
    assert next(iter(ds)).dtype == me.string
    path.write_bytes(b"changed\n")
    assert list(ds.as_numpy_iterator()) == [b"changed"]                   # read again on each pass
    lengths = ds.map(me.strings.length)
    assert list(lengths.as_numpy_iterator()) == [7]
    with pytest.raises(NotFoundError, match="TextLineDataset: .*nope.txt: No such file"):
        list(me.data.TextLineDataset([str(path), str(tmp_path / "nope.txt")]))


def test_datasets_of_strings_batch_map_filter():
    ds = D.from_tensor_slices(["a", "bb", "ccc"])
    assert [b.tolist() for b in ds.batch(2).as_numpy_iterator()] == [[b"a", b"bb"], [b"ccc"]]
    assert list(ds.filter(lambda s: me.strings.length(s) > 1).as_numpy_iterator()) == [b"bb", b"ccc"]
    assert list(ds.map(me.strings.upper).as_numpy_iterator()) == [b"A", b"BB", b"CCC"]
    assert list(ds.shuffle(3, seed=1).batch(3).unbatch().map(me.strings.length).as_numpy_iterator()) != []


def test_from_tensors_concatenate_reduce_apply():
    assert [a.tolist() for a in D.from_tensors([1, 2]).as_numpy_iterator()] == [[1, 2]]
    assert list(D.range(2).concatenate(D.range(3)).as_numpy_iterator()) == [0, 1, 0, 1, 2]
    assert D.range(5).reduce(me.constant(0, me.int64), lambda s, x: s + x).numpy() == 10
    assert list(D.range(4).apply(lambda d: d.skip(2)).as_numpy_iterator()) == [2, 3]


def test_missing_dataset_methods_get_the_hint_not_a_private_class_name():
    ds = D.range(3).filter(lambda x: x > 0)           # a _Filter inside
    with pytest.raises(AttributeError, match=r"^'me.data.Dataset' object has no attribute 'bach'. Did you mean .batch\?"):
        ds.bach(2)
    with pytest.raises(AttributeError, match="'me.data.Dataset' object has no attribute 'window'"):
        ds.window(2)
    assert not hasattr(ds, "window")


def test_flat_map_shard_and_hints_for_the_rest():
    assert list(D.range(3).flat_map(lambda x: D.range(x)).as_numpy_iterator()) == [0, 0, 1]     # TF's order
    assert list(D.range(7).shard(3, 1).as_numpy_iterator()) == [1, 4]
    pairs = list(D.from_tensor_slices(([1, 2, 3], ["a", "b", "c"])).shard(2, 0).as_numpy_iterator())
    assert [(int(a), b) for a, b in pairs] == [(1, b"a"), (3, b"c")]
    with pytest.raises(InvalidArgumentError, match="shard: need num_shards >= 1"):
        D.range(3).shard(2, 2)
    with pytest.raises(TypeError, match="flat_map: the function must return a Dataset, got Tensor"):
        list(D.range(2).flat_map(lambda x: x))
    with pytest.raises(AttributeError, match="'me.data.Dataset' object has no attribute 'interleave'. Use flat_map"):
        D.range(3).interleave(lambda x: D.range(x))
