"""``me.data.Dataset``: input pipelines, modelled on ``tf.data``.

    ds = me.data.Dataset.from_tensor_slices((images, labels)).shuffle(1000).batch(32)
    for images, labels in ds:
        ...

A Dataset is a recipe: every ``for`` loop over it starts a fresh pass. Each transformation is a
small class wrapping its input's Python iterator. Elements travel through the pipeline as NumPy
arrays (alone, or in tuples and dicts) and become Tensors where you see them: when you iterate,
and as the arguments of ``map`` and ``filter`` functions.

The fast path: while a pipeline only picks and orders the rows of ``from_tensor_slices`` arrays
(shuffle, repeat, take, skip, cache), it passes row *indices* along instead of rows, so ``batch``
takes a whole batch with one slice per array instead of stacking rows one at a time.
"""
import itertools

import numpy as np

from .. import nest
from ..engine import dtypes, recording
from ..engine.device import CPU, current_device
from ..engine.spec import TensorSpec
from ..errors import InvalidArgumentError, NotFoundError, OutOfRangeError
from ..engine.tensor import Tensor, TensorShape, place
from ..ops import random as _random
from ..ops.creation import constant

# Cardinalities that are not a number of elements (tf.data.INFINITE_CARDINALITY / UNKNOWN_CARDINALITY).
INFINITE, UNKNOWN = -1, -2


# ---- converting elements ---------------------------------------------------------------
def _map_structure(fn, structure):
    """Apply ``fn`` to the leaves of nested tuples and dicts. Lists are leaves: as in TF, they are values."""
    if isinstance(structure, dict):
        return {key: _map_structure(fn, value) for key, value in structure.items()}
    if isinstance(structure, tuple):
        items = [_map_structure(fn, item) for item in structure]
        return type(structure)(*items) if hasattr(structure, "_fields") else tuple(items)
    return fn(structure)


def _to_array(value, dtype=None):
    if isinstance(value, Tensor) and dtype is None:
        return value._host()           # a dataset keeps its data on the host; batches are placed as made
    return constant(value, dtype=dtype)._host()


def _leaf_array(a):
    """An element's leaf as an array: a string row of an object array is a bare ``bytes``."""
    return np.array(a, dtype=object) if isinstance(a, bytes) else np.asarray(a)


def _to_tensor(a):
    array = _leaf_array(a)
    return place(array, CPU if array.dtype == object else current_device())   # strings stay on the host


def _to_tensors(element):
    return _map_structure(_to_tensor, element)


def _call_with_element(fn, element):
    """Call a map/filter function as TF does: a tuple's components become separate arguments."""
    tensors = _to_tensors(element)
    return fn(*tensors) if isinstance(tensors, tuple) else fn(tensors)


class _Iterator:
    """What ``iter(dataset)`` returns: yields Tensors (also as ``.next()``, for TF 1 code).

    ``next(it)`` inside ``me.function`` on an iterator made outside it must give the next element on
    every call of the function, not the one seen while tracing (TF: 1, 2, 3). So the trace records a
    ``py_function`` node that advances the iterator each time the graph runs; the element the trace
    looked at (for its dtypes and shapes) is kept and is what the first run returns. An iterator made
    inside the traced function (``for x in dataset:``) is unrolled as the trace runs, as before.
    """

    def __init__(self, elements):
        self._elements = elements
        self._made_in_trace = recording.tracer() is not None
        self._peeked = []          # the element a trace looked at, not yet returned by a run

    def __iter__(self):
        return self

    def __next__(self):
        if not self._made_in_trace and recording.tracer() is not None:
            return self._traced_next()
        return _to_tensors(self._next_arrays())

    next = __next__

    def get_next(self):
        """TF's ``iterator.get_next()``: the same as ``next(iterator)``."""
        return next(self)

    def _next_arrays(self):
        return self._peeked.pop() if self._peeked else next(self._elements)

    def _traced_next(self):
        from ..graph.effects import py_function   # the graph layer sits below data; imported on first use
        if not self._peeked:
            self._peeked.append(next(self._elements))    # StopIteration here ends a traced loop, as eagerly
        structure = self._peeked[0]
        specs = [TensorSpec(np.shape(a), dtypes.from_numpy(np.asarray(a).dtype)) for a in nest.flatten(structure)]

        def advance():
            try:
                arrays = nest.flatten(self._next_arrays())
            except StopIteration:
                raise OutOfRangeError("next(iterator) inside me.function: the dataset has no more elements "
                                      "(End of sequence). Catch me.errors.OutOfRangeError, or take as many "
                                      "elements as the dataset has.") from None
            for array, spec in zip(arrays, specs):
                if np.shape(array) != spec.shape:
                    raise InvalidArgumentError(
                        f"next(iterator) inside me.function: this element has shape {np.shape(array)}, but the "
                        f"function was traced for shape {spec.shape}. Make every element the same shape (e.g. "
                        f"batch(..., drop_remainder=True)), or call next() outside the function.")
            return arrays

        outputs = py_function(advance, [], specs)
        outputs = outputs if isinstance(outputs, list) else [outputs]    # one component: one tensor
        return nest.pack_sequence_as(structure, outputs)


# ---- the base class --------------------------------------------------------------------
class Dataset:
    """A sequence of elements (tensors, or tuples and dicts of them) built from a source by transformations."""

    # The from_tensor_slices source when this dataset's elements are some of its rows, reordered.
    _rows = None

    # -- sources
    @staticmethod
    def from_tensor_slices(tensors):
        """One element per row (first-axis slice) of ``tensors``: an array, or a tuple/dict of arrays."""
        return _Slices(tensors)

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None, output_signature=None):
        """The values ``generator()`` yields (it is called again on each pass, with ``args`` if given).

        ``output_signature`` (a ``me.TensorSpec``, or a tuple/dict of them; TF 2's way) or ``output_types``
        (a dtype, or a tuple/dict of them) with ``output_shapes``: values are converted to those dtypes and
        checked against the shapes (None for any size); with neither, Python numbers become float32/int32.
        """
        if output_signature is not None:
            if output_types is not None or output_shapes is not None:
                raise InvalidArgumentError("from_generator: give output_signature, or output_types and "
                                           "output_shapes, not both.")
            output_types = _map_structure(lambda spec: _spec(spec).dtype, output_signature)
            output_shapes = _map_structure(lambda spec: _spec(spec).shape, output_signature)
        if args is not None:
            plain = generator
            values = tuple(a.numpy() if isinstance(a, Tensor) else a for a in args)
            generator = lambda: plain(*values)   # noqa: E731
        return _Generator(generator, output_types, output_shapes)

    @staticmethod
    def from_tensors(tensors):
        """One element: ``tensors`` whole (a tensor, or a tuple/dict of them)."""
        return _Slices(_map_structure(lambda v: _to_array(v)[np.newaxis], tensors))

    @staticmethod
    def range(*args):
        """``Dataset.range(5)`` -> 0, 1, 2, 3, 4 as int64 scalars (``range(start, stop, step)`` works too)."""
        return _Slices(np.arange(*args, dtype=np.int64))

    @staticmethod
    def zip(datasets):
        """Elements side by side: a tuple (or dict) of datasets gives tuples (or dicts); stops at the shortest."""
        return _Zip(datasets)

    # -- transformations
    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True):
        """Shuffle with a buffer of ``buffer_size`` elements (the whole dataset when it is at least that long)."""
        return _Shuffle(self, buffer_size, seed, reshuffle_each_iteration)

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None, name=None):
        """Stack ``batch_size`` consecutive elements into one (the last batch may be smaller)."""
        return _Batch(self, batch_size, drop_remainder)

    def repeat(self, count=None):
        """The dataset ``count`` times over (forever when None)."""
        return _Repeat(self, count)

    def take(self, count):
        """The first ``count`` elements (all of them for -1)."""
        return _Take(self, count)

    def skip(self, count):
        """All but the first ``count`` elements (none for -1)."""
        return _Skip(self, count)

    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """``map_func`` applied to each element (a tuple's components are passed as separate arguments)."""
        return _Map(self, map_func)

    def filter(self, predicate):
        """The elements for which ``predicate`` returns True (a bool or a scalar bool tensor)."""
        return _Filter(self, predicate)

    def cache(self):
        """Remember the first complete pass in memory and replay it on later passes."""
        return _Cache(self)

    def prefetch(self, buffer_size):
        """Accepted for TF compatibility; minieager runs the pipeline in the loop's own thread."""
        return self

    def unbatch(self):
        """Split each element along its first axis into rows: the inverse of ``batch``."""
        return _Unbatch(self)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False):
        """``batch``, padding each component at the end to the longest element of the batch (or to
        ``padded_shapes``, where None means the longest) with ``padding_values`` (0, or b"" for strings)."""
        return _PaddedBatch(self, batch_size, padded_shapes, padding_values, drop_remainder)

    def enumerate(self, start=0):
        """Each element paired with its position, ``(i, element)``, i an int64 counting from ``start``."""
        return _Enumerate(self, int(start))

    def concatenate(self, dataset):
        """This dataset's elements, then ``dataset``'s."""
        return _Concatenate(self, dataset)

    def flat_map(self, map_func):
        """The elements of the datasets ``map_func(element)`` returns, one dataset after the other."""
        return _FlatMap(self, map_func)

    def shard(self, num_shards, index):
        """Every ``num_shards``-th element, starting at ``index``."""
        num_shards, index = int(num_shards), int(index)
        if num_shards < 1 or not 0 <= index < num_shards:
            raise InvalidArgumentError(f"shard: need num_shards >= 1 and 0 <= index < num_shards, got {num_shards} "
                                       f"and {index}.")
        return _Enumerate(self, 0).filter(lambda i, *element: i % num_shards == index).map(
            lambda i, *element: element[0] if len(element) == 1 else element)

    def apply(self, transformation_func):
        """``transformation_func(self)``: a whole-dataset transformation written as a function."""
        return transformation_func(self)

    # -- using it
    def __iter__(self):
        return _Iterator(self._elements())

    def as_numpy_iterator(self):
        """The elements as NumPy values (a scalar as a NumPy scalar, a string as bytes), as TF's."""
        for element in self._elements():
            yield _map_structure(lambda a: _leaf_array(a)[()] if np.ndim(a) == 0 else np.array(a), element)

    def cardinality(self):
        """The number of elements as an int64 scalar tensor; ``me.data.INFINITE_CARDINALITY`` (-1) for a
        dataset that repeats forever, ``me.data.UNKNOWN_CARDINALITY`` (-2) when it cannot be known (a
        filter, a generator)."""
        return constant(self._cardinality(), dtype=dtypes.int64)

    def reduce(self, initial_state, reduce_func):
        """``reduce_func(state, element)`` over every element, from ``initial_state``: the final state."""
        state = initial_state
        for element in self:
            state = reduce_func(state, *element) if isinstance(element, tuple) else reduce_func(state, element)
        return state

    def __getattr__(self, name):
        # Only called for a name the dataset does not have: the same hint as a missing module name.
        if name.startswith("__"):
            raise AttributeError(name)
        from .._hints import missing_member
        raise missing_member("me.data.Dataset", Dataset, name, _MISSING)

    def __len__(self):
        n = self._cardinality()
        if n == INFINITE:
            raise TypeError("The dataset is infinite (it repeats forever), so it has no len().")
        if n == UNKNOWN:
            raise TypeError("The dataset's length is unknown (it comes from a generator or a filter).")
        return n

    # -- what subclasses provide
    def _elements(self):
        """An iterator over the elements, as NumPy arrays in the element's structure."""
        raise NotImplementedError

    def _indices(self):
        """When ``_rows`` is set: an iterator over the row indices this dataset yields."""
        raise NotImplementedError

    def _cardinality(self):
        raise NotImplementedError


_WRITE_IT = "Write it as a Python generator over the dataset and wrap it with Dataset.from_generator."
_MISSING = {   # what to use instead of a tf.data method minieager lacks
    "interleave": "Use flat_map (it reads the inner datasets one after the other, as interleave with cycle_length=1).",
    "window": _WRITE_IT, "group_by_window": _WRITE_IT, "bucket_by_sequence_length": "Use padded_batch. " + _WRITE_IT,
    "rejection_resample": _WRITE_IT, "scan": _WRITE_IT,
    "snapshot": "Use cache(): it keeps the first pass in memory.",
    "save": "Save the arrays with NumPy (np.save) and load them with Dataset.from_tensor_slices.",
    "with_options": "Dataset options change nothing in minieager's one-thread pipelines; leave the call out.",
}


# ---- sources ---------------------------------------------------------------------------
class _Slices(Dataset):
    def __init__(self, tensors):
        arrays = _map_structure(_to_array, tensors)
        self._structure = arrays
        self._leaves = nest.flatten(arrays)
        if any(leaf.ndim == 0 for leaf in self._leaves):
            raise InvalidArgumentError("from_tensor_slices: cannot slice a scalar; every component needs a first axis.")
        lengths = [len(leaf) for leaf in self._leaves]
        if len(set(lengths)) > 1:
            described = ", ".join(f"component {i} has {n}" for i, n in enumerate(lengths))
            raise InvalidArgumentError(
                f"from_tensor_slices: all components must have the same number of rows (first dimension), "
                f"but {described}.")
        self._n = lengths[0]
        self._rows = self

    def row(self, i):
        return nest.pack_sequence_as(self._structure, [leaf[i] for leaf in self._leaves])

    def gather(self, indices):
        """Rows ``indices`` of every component: a slice (no copy) when they are consecutive."""
        start = int(indices[0])
        if len(indices) == 1 or np.all(np.diff(indices) == 1):
            indices = slice(start, start + len(indices))
        return nest.pack_sequence_as(self._structure, [leaf[indices] for leaf in self._leaves])

    def _elements(self):
        return map(self.row, range(self._n))

    def _indices(self):
        return iter(range(self._n))

    def _cardinality(self):
        return self._n


class _Generator(Dataset):
    def __init__(self, generator, output_types, output_shapes):
        if not callable(generator):
            raise TypeError("from_generator: pass the generator *function* (e.g. gen, not gen()), so that each "
                            "pass over the dataset can start it again.")
        self._generator, self._types, self._shapes = generator, output_types, output_shapes

    def _elements(self):
        for value in self._generator():
            if self._types is None:
                yield _map_structure(_to_array, value)
            else:
                yield _convert(value, self._types, self._shapes)

    def _cardinality(self):
        return UNKNOWN


def _convert(value, types, shapes):
    """``value`` as arrays of ``types`` (a dtype, or a tuple/dict of them), checked against ``shapes``."""
    if isinstance(types, (tuple, dict)):
        keys = list(types) if isinstance(types, dict) else range(len(types))
        if not isinstance(value, type(types)) or len(value) != len(types):
            raise InvalidArgumentError(
                f"from_generator: the generator yielded {value!r:.80}, which does not have the structure of "
                f"output_types {types!r}.")
        parts = [_convert(value[k], types[k], None if shapes is None else shapes[k]) for k in keys]
        return dict(zip(keys, parts)) if isinstance(types, dict) else tuple(parts)
    array = _to_array(value, dtypes.as_dtype(types))
    if shapes is not None and not _shape_matches(array.shape, shapes):
        raise InvalidArgumentError(
            f"from_generator: the generator yielded a value of shape {array.shape}, but output_shapes "
            f"says {tuple(shapes)}.")
    return array


def _shape_matches(shape, expected):
    expected = tuple(expected)
    return len(shape) == len(expected) and all(e is None or e == s for s, e in zip(shape, expected))


class _Zip(Dataset):
    def __init__(self, datasets):
        if not isinstance(datasets, (tuple, dict)):
            raise TypeError("Dataset.zip takes a tuple (or dict) of datasets, e.g. Dataset.zip((a, b)).")
        self._datasets = datasets

    def _elements(self):
        keys = list(self._datasets.keys()) if isinstance(self._datasets, dict) else range(len(self._datasets))
        for parts in zip(*(self._datasets[k]._elements() for k in keys)):
            yield dict(zip(keys, parts)) if isinstance(self._datasets, dict) else tuple(parts)

    def _cardinality(self):
        counts = [d._cardinality() for d in nest.flatten(self._datasets)]
        finite = [n for n in counts if n >= 0]
        if finite:
            return min(finite)
        return UNKNOWN if UNKNOWN in counts else INFINITE


# ---- transformations that only pick and order elements (and so work on row indices too) -----------
class _Reorder(Dataset):
    def __init__(self, input_dataset):
        self._input = input_dataset
        self._rows = input_dataset._rows

    def _elements(self):
        return self._apply(self._input._elements)

    def _indices(self):
        return self._apply(self._input._indices)

    def _apply(self, upstream):
        """Transform the items of ``upstream()`` (a fresh iterator on each call)."""
        raise NotImplementedError

    def _cardinality(self):
        return self._input._cardinality()


class _Take(_Reorder):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = int(count)

    def _apply(self, upstream):
        return itertools.islice(upstream(), None if self._count < 0 else self._count)

    def _cardinality(self):
        n = self._input._cardinality()
        if self._count < 0:
            return n
        return self._count if n == INFINITE else min(n, self._count) if n >= 0 else UNKNOWN


class _Skip(_Reorder):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = int(count)

    def _apply(self, upstream):
        if self._count < 0:
            return iter(())
        return itertools.islice(upstream(), self._count, None)

    def _cardinality(self):
        n = self._input._cardinality()
        if self._count < 0:
            return 0
        return max(n - self._count, 0) if n >= 0 else n


class _Repeat(_Reorder):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = None if count is None or count < 0 else int(count)

    def _apply(self, upstream):
        epochs = itertools.count() if self._count is None else range(self._count)
        for _ in epochs:
            empty = True
            for item in upstream():     # a fresh pass each time, so an upstream shuffle reshuffles
                empty = False
                yield item
            if empty:                   # repeating nothing forever would hang the loop
                return

    def _cardinality(self):
        n = self._input._cardinality()
        if n == 0 or self._count == 0:
            return 0
        if self._count is None:
            return INFINITE if n != UNKNOWN else UNKNOWN
        return n * self._count if n >= 0 else n


class _Shuffle(_Reorder):
    """TF's shuffle buffer: fill it, then repeatedly emit a random buffered element and put the next one in its place."""

    def __init__(self, input_dataset, buffer_size, seed, reshuffle_each_iteration):
        super().__init__(input_dataset)
        if int(buffer_size) < 1:
            raise InvalidArgumentError(f"shuffle: buffer_size must be at least 1, got {buffer_size}.")
        self._buffer_size = int(buffer_size)
        self._reshuffle = reshuffle_each_iteration
        self._passes = 0
        if seed is not None:
            self._seed = [_random.get_seed() or 0, int(seed)]
        else:
            # Drawn from the global-seed stream: reproducible after me.random.set_seed, fresh otherwise.
            self._seed = [int(_random._generator(None).integers(2 ** 63))]

    def _apply(self, upstream):
        rng = np.random.default_rng(self._seed + [self._passes] if self._reshuffle else self._seed)
        self._passes += 1
        return _shuffled(upstream(), self._buffer_size, rng)


def _shuffled(items, buffer_size, rng):
    draws = _uniforms(rng)
    buffer = list(itertools.islice(items, buffer_size))
    for item in items:
        j = int(next(draws) * len(buffer))
        yield buffer[j]
        buffer[j] = item
    while buffer:
        j = int(next(draws) * len(buffer))
        buffer[j], buffer[-1] = buffer[-1], buffer[j]
        yield buffer.pop()


def _uniforms(rng):
    """Uniform [0, 1) floats drawn in blocks: one rng call per element would dominate the cost."""
    while True:
        yield from rng.random(1024).tolist()


class _Cache(_Reorder):
    def __init__(self, input_dataset):
        super().__init__(input_dataset)
        self._cached = {}

    def _elements(self):
        return self._replay("elements", self._input._elements)

    def _indices(self):
        return self._replay("indices", self._input._indices)

    def _replay(self, kind, upstream):
        if kind in self._cached:
            yield from self._cached[kind]
            return
        seen = []
        for item in upstream():
            seen.append(item)
            yield item
        self._cached[kind] = seen       # only a complete pass is kept


# ---- transformations that change elements ---------------------------------------------
class _Map(Dataset):
    def __init__(self, input_dataset, fn):
        self._input, self._fn = input_dataset, fn

    def _elements(self):
        for element in self._input._elements():
            yield _map_structure(_to_array, _call_with_element(self._fn, element))

    def _cardinality(self):
        return self._input._cardinality()


class _Filter(Dataset):
    def __init__(self, input_dataset, predicate):
        self._input, self._predicate = input_dataset, predicate

    def _elements(self):
        for element in self._input._elements():
            keep = np.asarray(_call_with_element(self._predicate, element))
            if keep.shape != () or keep.dtype != np.bool_:
                raise InvalidArgumentError(
                    f"filter: the predicate must return a scalar bool, got dtype {keep.dtype} and shape {keep.shape}.")
            if keep:
                yield element

    def _cardinality(self):
        return UNKNOWN


class _Batch(Dataset):
    def __init__(self, input_dataset, batch_size, drop_remainder):
        if int(batch_size) < 1:
            raise InvalidArgumentError(f"batch: batch_size must be at least 1, got {batch_size}.")
        self._input, self._size, self._drop = input_dataset, int(batch_size), bool(drop_remainder)

    def _elements(self):
        rows = self._input._rows
        if rows is not None:
            return self._gathered(rows, self._input._indices())
        return self._stacked(self._input._elements())

    def _gathered(self, rows, indices):
        while True:
            chunk = np.fromiter(itertools.islice(indices, self._size), dtype=np.intp)
            if len(chunk) == 0 or (self._drop and len(chunk) < self._size):
                return
            yield rows.gather(chunk)

    def _stacked(self, elements):
        while True:
            chunk = list(itertools.islice(elements, self._size))
            if not chunk or (self._drop and len(chunk) < self._size):
                return
            yield nest.pack_sequence_as(chunk[0], [_stack(parts, i) for i, parts in
                                                   enumerate(zip(*map(nest.flatten, chunk)))])

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._size if self._drop else -(-n // self._size)


class _Enumerate(Dataset):
    def __init__(self, input_dataset, start):
        self._input, self._start = input_dataset, start

    def _elements(self):
        for i, element in enumerate(self._input._elements(), self._start):
            yield np.int64(i), element

    def _cardinality(self):
        return self._input._cardinality()


class _FlatMap(Dataset):
    def __init__(self, input_dataset, fn):
        self._input, self._fn = input_dataset, fn

    def _elements(self):
        for element in self._input._elements():
            inner = _call_with_element(self._fn, element)
            if not isinstance(inner, Dataset):
                raise TypeError(f"flat_map: the function must return a Dataset, got {type(inner).__name__}.")
            yield from inner._elements()

    def _cardinality(self):
        return UNKNOWN


class _Concatenate(Dataset):
    def __init__(self, first, second):
        if not isinstance(second, Dataset):
            raise TypeError(f"concatenate: expected a Dataset, got {type(second).__name__}.")
        self._first, self._second = first, second

    def _elements(self):
        return itertools.chain(self._first._elements(), self._second._elements())

    def _cardinality(self):
        a, b = self._first._cardinality(), self._second._cardinality()
        if INFINITE in (a, b):
            return INFINITE
        return UNKNOWN if UNKNOWN in (a, b) else a + b


class _Unbatch(Dataset):
    def __init__(self, input_dataset):
        self._input = input_dataset

    def _elements(self):
        for element in self._input._elements():
            leaves = [_leaf_array(a) for a in nest.flatten(element)]
            if any(leaf.ndim == 0 for leaf in leaves):
                raise InvalidArgumentError("unbatch: every component of an element needs a first axis to split, "
                                           "but one is a scalar.")
            if len({len(leaf) for leaf in leaves}) > 1:
                raise InvalidArgumentError(
                    f"unbatch: the components of an element have different numbers of rows "
                    f"{[len(leaf) for leaf in leaves]}.")
            for i in range(len(leaves[0])):
                yield nest.pack_sequence_as(element, [leaf[i] for leaf in leaves])

    def _cardinality(self):
        n = self._input._cardinality()
        return INFINITE if n == INFINITE else (0 if n == 0 else UNKNOWN)


class _PaddedBatch(Dataset):
    def __init__(self, input_dataset, batch_size, padded_shapes, padding_values, drop_remainder):
        if int(batch_size) < 1:
            raise InvalidArgumentError(f"padded_batch: batch_size must be at least 1, got {batch_size}.")
        self._input, self._size, self._drop = input_dataset, int(batch_size), bool(drop_remainder)
        self._shapes, self._values = padded_shapes, padding_values

    def _elements(self):
        elements = self._input._elements()
        while True:
            chunk = list(itertools.islice(elements, self._size))
            if not chunk or (self._drop and len(chunk) < self._size):
                return
            columns = zip(*map(nest.flatten, chunk))
            shapes = _flatten_like(chunk[0], self._shapes, _is_shape)
            values = _flatten_like(chunk[0], self._values, _is_scalar)
            yield nest.pack_sequence_as(chunk[0], [
                _pad_and_stack([_leaf_array(p) for p in parts], i, shapes[i], values[i])
                for i, parts in enumerate(columns)])

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._size if self._drop else -(-n // self._size)


def _flatten_like(element, value, is_leaf):
    """``value`` (padded_shapes or padding_values) split along the element's tuples and dicts, one entry per
    component; a leaf value (``is_leaf``: a shape, or a scalar) serves every component below it."""
    if value is None or is_leaf(value):
        return [value] * len(nest.flatten(element))
    if isinstance(element, dict):
        return [leaf for key in sorted(element) for leaf in _flatten_like(element[key], value[key], is_leaf)]
    if isinstance(element, tuple) and len(value) == len(element):
        return [leaf for e, v in zip(element, value) for leaf in _flatten_like(e, v, is_leaf)]
    raise InvalidArgumentError(f"padded_batch: {value!r:.60} does not match the structure of the elements.")


def _is_shape(value):
    return isinstance(value, (list, TensorShape)) or (
        isinstance(value, tuple) and all(v is None or isinstance(v, (int, np.integer)) for v in value)) or (
        isinstance(value, Tensor) and value.dtype.is_integer)


def _is_scalar(value):
    return not isinstance(value, (tuple, dict))


def _pad_and_stack(parts, component, padded_shape, value):
    ranks = {p.ndim for p in parts}
    if len(ranks) > 1:
        raise InvalidArgumentError(f"padded_batch: the elements of component {component} have different ranks "
                                   f"{sorted(ranks)}; only their sizes may differ.")
    longest = tuple(max(sizes) for sizes in zip(*(p.shape for p in parts))) if parts[0].ndim else ()
    if padded_shape is not None:
        wanted = tuple(padded_shape.numpy().tolist() if isinstance(padded_shape, Tensor) else padded_shape)
        if len(wanted) != len(longest):
            raise InvalidArgumentError(f"padded_batch: padded_shapes {wanted} for component {component} does not "
                                       f"have the elements' rank {len(longest)}.")
        for have, want in zip(longest, wanted):
            if want is not None and want >= 0 and have > want:
                raise InvalidArgumentError(f"padded_batch: an element of component {component} has size {have}, "
                                           f"more than padded_shapes allows ({want}).")
        longest = tuple(have if want is None or want < 0 else want for have, want in zip(longest, wanted))
    dtype = parts[0].dtype
    fill = value.numpy() if isinstance(value, Tensor) else value
    if fill is None:
        fill = b"" if dtype == object else 0
    elif dtype == object and isinstance(fill, str):
        fill = fill.encode("utf-8")
    out = np.full((len(parts),) + longest, fill, dtype=dtype)
    for i, p in enumerate(parts):
        out[(i,) + tuple(slice(0, n) for n in p.shape)] = p
    return out


def _spec(spec):
    if not isinstance(spec, TensorSpec):
        raise TypeError(f"from_generator: output_signature must be a me.TensorSpec or a tuple/dict of them, got "
                        f"{type(spec).__name__}.")
    return spec


class TextLineDataset(Dataset):
    """The lines of text files, as scalar string tensors without their line ends (as ``tf.data.TextLineDataset``).

    The files are read lazily, on each pass; a missing file is an error when the pass reaches it.
    """

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
        if compression_type not in (None, ""):
            raise InvalidArgumentError("TextLineDataset: compressed files are not supported; decompress them first.")
        names = filenames.numpy() if isinstance(filenames, Tensor) else filenames
        names = [names] if isinstance(names, (str, bytes)) or np.ndim(names) == 0 else list(np.ravel(names))
        self._files = [n.decode() if isinstance(n, bytes) else str(n) for n in names]

    def _elements(self):
        for filename in self._files:
            try:
                handle = open(filename, "rb")
            except FileNotFoundError:
                raise NotFoundError(f"TextLineDataset: {filename}: No such file or directory.") from None
            with handle:
                for line in handle:
                    yield np.array(line.rstrip(b"\n").removesuffix(b"\r"), dtype=object)

    def _cardinality(self):
        return UNKNOWN


def _stack(parts, component):
    shapes = {np.shape(p) for p in parts}
    if len(shapes) > 1:
        first = np.shape(parts[0])
        other = next(i for i, p in enumerate(parts) if np.shape(p) != first)
        raise InvalidArgumentError(
            f"batch: cannot stack elements of different shapes in component {component}: the first element has "
            f"shape {first} and element {other} has shape {np.shape(parts[other])}.")
    return np.stack([_leaf_array(p) for p in parts])
