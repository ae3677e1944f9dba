"""Gradients over dimensions known only when the graph runs (``input_signature`` with None): the ops whose
gradient scatters into zeros of the input's shape (getitem, gather, gather_nd, sort ...) read that shape
when the graph runs, so one trace gives eager's gradient for every length; an op that needs the size
while the graph is built says so, naming the op and the dimension. Never a crash, never a wrong value."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import minieager as me
from minieager.errors import InvalidArgumentError

F64 = me.float64


def weights(x):
    """1, 2, 3 ... as long as x (built in the graph, so it fits every length)."""
    return me.cumsum(me.ones_like(x))


# TF 2.21 gives each of these, traced once with input_signature=[TensorSpec([None], float64)], the eager
# gradient (e.g. for x = [3, 1, 2, 5]: getitem [0 2 0 0], slice [0 2 2 0], x[::-1] * x [10 4 2 6],
# gather [2 0 1 0], sort [3 1 2 4], where [1 2 4 1], gather_nd [0 1 0 1]).
CASES = {
    "getitem": lambda x: x[1] * 2.0,
    "slice": lambda x: me.reduce_sum(x[1:3] * 2.0),
    "negative_step": lambda x: me.reduce_sum(x[::-1] * x),
    "every_other": lambda x: me.reduce_sum(x[::2] ** 2),
    "newaxis": lambda x: me.reduce_sum(me.matmul(x[:, None], x[None, :])),
    "last": lambda x: x[-1] ** 3,
    "gather": lambda x: me.reduce_sum(me.gather(x, [0, 0, 2]) * me.constant([1.0, 2.0, 3.0], F64)),
    "gather_nd": lambda x: me.reduce_sum(me.gather_nd(x, [[1], [3], [1]])),
    "sort": lambda x: me.reduce_sum(me.sort(x) * weights(x)),
    "argsort_gather": lambda x: me.reduce_sum(me.gather(x, me.argsort(x)) * weights(x)),
    "sort_times_a_fixed_vector": lambda x: me.reduce_sum(me.sort(x)[:4] * me.constant([1.0, 2.0, 3.0, 4.0], F64)),
    "where": lambda x: me.reduce_sum(me.where(x > 2.0, x, x * x)),
    "stack": lambda x: me.reduce_sum(me.stack([x, x * 2.0])[1] * x),
    "ones_like": lambda x: me.reduce_sum(me.ones_like(x) * x * x),
}


def traced_gradient(fn):
    @me.function(input_signature=[me.TensorSpec([None], F64)])
    def grad(x):
        with me.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        return tape.gradient(y, x)
    return grad


def eager_gradient(fn, x):
    with me.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return tape.gradient(y, x).numpy()


@pytest.mark.parametrize("name", sorted(CASES))
def test_one_trace_gives_the_eager_gradient_for_every_length(name):
    fn, grad = CASES[name], traced_gradient(CASES[name])

    @settings(max_examples=15, deadline=None)
    @given(st.lists(st.floats(-4, 4, allow_nan=False), min_size=4, max_size=9, unique=True))
    def check(values):
        x = me.constant(np.array(values, np.float64))
        np.testing.assert_allclose(grad(x).numpy(), eager_gradient(fn, x), rtol=1e-12, atol=1e-12)
    check()
    assert grad.experimental_get_tracing_count() == 1


def test_the_traced_sort_gradient_matches_finite_differences():
    grad = traced_gradient(CASES["sort"])
    x = np.array([0.3, -1.2, 2.5, 0.9, -0.4])
    eps, numeric = 1e-6, []
    for i in range(len(x)):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        numeric.append((float(CASES["sort"](me.constant(up))) - float(CASES["sort"](me.constant(down)))) / (2 * eps))
    np.testing.assert_allclose(grad(me.constant(x)).numpy(), numeric, rtol=1e-6)


def test_the_gradient_op_reads_the_shape_when_the_graph_runs():
    # With a known shape the scatter's size is an attribute; with None the gradient op takes x as one more input.
    grad = traced_gradient(CASES["gather"])
    node = next(n for n in grad.get_concrete_function().graph.nodes if n.kind == "call" and n.op.name == "gather_grad")
    assert len(node.inputs) == 3 and node.attrs["shape"] is None
    known = me.function(traced_gradient(CASES["gather"]).python_function,
                        input_signature=[me.TensorSpec([4], F64)])
    node = next(n for n in known.get_concrete_function().graph.nodes if n.kind == "call" and n.op.name == "gather_grad")
    assert len(node.inputs) == 2 and node.attrs["shape"] == (4,)


def test_second_derivative_of_getitem_over_an_unknown_dimension():
    # TF 2.21: [0, 12, 0] (d2/dx1^2 of x1^3 = 6 x1).
    @me.function(input_signature=[me.TensorSpec([None], F64)])
    def second(x):
        with me.GradientTape() as outer:
            outer.watch(x)
            with me.GradientTape() as inner:
                inner.watch(x)
                y = x[1] ** 3
            total = me.reduce_sum(inner.gradient(y, x))
        return outer.gradient(total, x)
    assert second(me.constant([1.0, 2.0, 3.0], F64)).numpy().tolist() == [0.0, 12.0, 0.0]


def test_an_int_index_past_an_unknown_dimension_raises_when_the_graph_runs():
    # TF 2.21: InvalidArgumentError "slice index 5 of dimension 0 out of bounds" when the graph runs. Here the
    # eager message, with the graph node.
    f = me.function(lambda x: x[5], input_signature=[me.TensorSpec([None], me.float32)])
    with pytest.raises(InvalidArgumentError, match=r"getitem: index 5 is out of bounds for axis 0 with size 2 "
                                                   r"\(tensor shape \(2,\)\)\. \(in graph node %0 = getitem"):
        f(me.constant([1.0, 2.0]))
    assert float(f(me.constant([0.0, 1, 2, 3, 4, 5.5]))) == 5.5


def weighted_sum(y):
    """sum(y * [1, 2, 3 ...]): every element of y gets its own weight, so a misplaced gradient shows."""
    return me.reduce_sum(y * weights(y))


# TF 2.21, traced once with input_signature=[TensorSpec([None], float64)], x = [3, 1, 2, 5]: concat gives
# [11 23 27 31], pad [2 3 4 5], tile [15 18 21 24] (shapes read when the graph runs).
SIZED_CASES = {
    "concat": lambda x: weighted_sum(me.concat([x, x * 2.0, x[1:]], 0)),
    "pad": lambda x: weighted_sum(me.pad(x, [[1, 2]])),
    "tile": lambda x: weighted_sum(me.tile(x, [3])),
}


def test_concat_pad_and_tile_gradients_match_tf_over_an_unknown_dimension():
    x = me.constant([3.0, 1.0, 2.0, 5.0], F64)
    expected = {"concat": [11, 23, 27, 31], "pad": [2, 3, 4, 5], "tile": [15, 18, 21, 24]}
    for name, fn in SIZED_CASES.items():
        assert traced_gradient(fn)(x).numpy().tolist() == expected[name], name


@pytest.mark.parametrize("name", sorted(SIZED_CASES))
def test_concat_pad_and_tile_gradients_are_eagers_for_every_length(name):
    fn, grad = SIZED_CASES[name], traced_gradient(SIZED_CASES[name])

    @settings(max_examples=15, deadline=None)
    @given(st.lists(st.floats(-4, 4, allow_nan=False), min_size=1, max_size=9))
    def check(values):
        x = me.constant(np.array(values, np.float64))
        np.testing.assert_allclose(grad(x).numpy(), eager_gradient(fn, x), rtol=1e-12, atol=1e-12)
    check()
    assert grad.experimental_get_tracing_count() == 1


def finite_differences(fn, x, eps=1e-6):
    numeric = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        numeric[i] = (float(fn(me.constant(up))) - float(fn(me.constant(down)))) / (2 * eps)
    return numeric


def test_tile_and_concat_gradients_over_two_unknown_dimensions_match_finite_differences():
    # TF 2.21 reads both sizes when the graph runs; here tile_grad and concat_grad take x as an input.
    cases = [lambda x: weighted_sum(me.tile(x, [2, 3]) ** 2),
             lambda x: weighted_sum(me.concat([x * x, x[:, :1], x], 1)),
             lambda x: weighted_sum(me.pad(x, [[0, 1], [2, 0]]) ** 2)]
    x = np.random.default_rng(3).standard_normal((2, 3))
    for fn in cases:
        @me.function(input_signature=[me.TensorSpec([None, None], F64)])
        def grad(x):
            with me.GradientTape() as tape:
                tape.watch(x)
                y = fn(x)
            return tape.gradient(y, x)
        np.testing.assert_allclose(grad(me.constant(x)).numpy(), finite_differences(fn, x), rtol=1e-6, atol=1e-8)


def test_second_derivatives_of_concat_and_tile_over_an_unknown_dimension():
    # The gradient ops have gradients of their own (tile for tile_grad, concat with zeros for concat_grad): the
    # traced second derivative is eager's, which the autodiff tests check against finite differences.
    for fn in (lambda x: weighted_sum(me.concat([x, x], 0) ** 3), lambda x: weighted_sum(me.tile(x, [2]) ** 3)):
        def second(x):
            with me.GradientTape() as outer:
                outer.watch(x)
                with me.GradientTape() as inner:
                    inner.watch(x)
                    y = fn(x)
                total = weighted_sum(inner.gradient(y, x))
            return outer.gradient(total, x)
        x = me.constant([1.0, 2.0, 3.0], F64)
        traced = me.function(second, input_signature=[me.TensorSpec([None], F64)])
        np.testing.assert_allclose(traced(x).numpy(), second(x).numpy(), rtol=1e-12)


# TF 2.21, traced once with input_signature=[TensorSpec([None], float64)], x = [3, 1, 2, 5]: split(x, 2) gives
# [3 1], [2 5]; split(x, [1, -1]) [3], [1 2 5]; unstack(x, num=4) 3, 1, 2, 5; top_k(x, 2) [5 3]; cumprod
# [3 3 6 30]; cumprod(exclusive, reverse) [10 10 5 1]. Gradients (weights 1, 2 ... on each output): split's
# second piece [0 0 1 2], unstack(..)[2] * 3 [0 0 3 0], top_k [2 0 0 1], cumprod [49 144 69 24].
PIECE_CASES = {
    "split": (lambda x: me.split(x, 2), [[3, 1], [2, 5]]),
    "split_sizes": (lambda x: me.split(x, [1, -1]), [[3], [1, 2, 5]]),
    "unstack": (lambda x: me.unstack(x, num=4), [3, 1, 2, 5]),
    "top_k": (lambda x: me.math.top_k(x, 2).values, [5, 3]),
    "cumprod": (lambda x: me.math.cumprod(x), [3, 3, 6, 30]),
    "cumprod_exclusive_reverse": (lambda x: me.math.cumprod(x, exclusive=True, reverse=True), [10, 10, 5, 1]),
}


@pytest.mark.parametrize("name", sorted(PIECE_CASES))
def test_ops_that_cut_an_unknown_dimension_give_tfs_values(name):
    fn, expected = PIECE_CASES[name]
    f = me.function(fn, input_signature=[me.TensorSpec([None], F64)])
    got = f(me.constant([3.0, 1.0, 2.0, 5.0], F64))
    got = [t.numpy().tolist() for t in got] if isinstance(got, list) else got.numpy().tolist()
    assert got == expected


def all_pieces(fn):
    """A weighted sum over every element of every output of fn (a list or one tensor)."""
    def total(x):
        out = fn(x)
        outs = out if isinstance(out, list) else [out]
        return me.add_n([weighted_sum(me.reshape(t, [-1])) * (i + 1.0) for i, t in enumerate(outs)])
    return total


def test_gradients_of_ops_that_cut_an_unknown_dimension_match_tf():
    x = me.constant([3.0, 1.0, 2.0, 5.0], F64)
    cases = [(lambda x: weighted_sum(me.split(x, 2)[1]), [0, 0, 1, 2]),
             (lambda x: me.unstack(x, num=4)[2] * 3.0, [0, 0, 3, 0]),
             (lambda x: weighted_sum(me.math.top_k(x, 2).values), [2, 0, 0, 1]),
             (lambda x: weighted_sum(me.math.cumprod(x)), [49, 144, 69, 24])]
    for fn, expected in cases:
        assert traced_gradient(fn)(x).numpy().tolist() == expected


@pytest.mark.parametrize("name", ["split", "split_sizes", "unstack", "top_k", "cumprod", "cumprod_exclusive_reverse"])
def test_ops_that_cut_an_unknown_dimension_give_eagers_gradient_for_every_length(name):
    make = {"split": lambda n: lambda x: me.split(x, 2), "split_sizes": lambda n: lambda x: me.split(x, [1, -1, 2]),
            "unstack": lambda n: lambda x: me.unstack(x, num=n),
            "top_k": lambda n: lambda x: me.math.top_k(x, 3).values,
            "cumprod": lambda n: me.math.cumprod,
            "cumprod_exclusive_reverse": lambda n: lambda x: me.math.cumprod(x, exclusive=True, reverse=True)}[name]
    grads = {}    # unstack's num is part of the trace; the others trace once

    @settings(max_examples=15, deadline=None)
    @given(st.lists(st.integers(-8, 8), min_size=4, max_size=8, unique=True).filter(   # (no ties: top_k)
        lambda v: name != "split" or len(v) % 2 == 0))
    def check(values):
        x = me.constant(np.array(values, np.float64) / 4)
        fn = all_pieces(make(len(values)))
        grad = grads.setdefault(len(values) if name == "unstack" else 0, traced_gradient(fn))
        np.testing.assert_allclose(grad(x).numpy(), eager_gradient(fn, x), rtol=1e-12, atol=1e-12)
        if len(values) == 5:
            np.testing.assert_allclose(grad(x).numpy(), finite_differences(fn, x.numpy()), rtol=1e-6, atol=1e-8)
    check()
    assert all(g.experimental_get_tracing_count() == 1 for g in grads.values())


def test_a_split_over_two_unknown_dimensions_and_its_second_derivative():
    def second(x):
        with me.GradientTape() as outer:
            outer.watch(x)
            with me.GradientTape() as inner:
                inner.watch(x)
                y = weighted_sum(me.split(x, [2, -1], axis=1)[1] ** 3)
            total = weighted_sum(inner.gradient(y, x))
        return outer.gradient(total, x)
    x = me.constant(np.random.default_rng(5).standard_normal((3, 5)))
    traced = me.function(second, input_signature=[me.TensorSpec([None, None], F64)])
    np.testing.assert_allclose(traced(x).numpy(), second(x).numpy(), rtol=1e-12)


@pytest.mark.parametrize("fn, message", [
    # TF 2.21 raises InvalidArgumentError when the graph runs for each ("Number of ways to split should evenly
    # divide the split dimension", "Determined shape must either match input shape", "Input shape axis 0 must
    # equal 3", "input must have at least k columns"); here the eager op's error, with the graph node.
    (lambda x: me.split(x, 3), r"split: axis 0 has size 4, which does not divide into 3 equal pieces"),
    (lambda x: me.split(x, [1, 2]), r"split: sizes \[1, 2\] add up to 3, but axis 0 has size 4"),
    (lambda x: me.split(x, [3, 2, -1]), r"split: sizes \[3, 2, -1\] already add up to more than the size 4"),
    (lambda x: me.unstack(x, num=3), r"unstack: sizes \[1, 1, 1\] add up to 3, but axis 0 has size 4"),
    (lambda x: me.math.top_k(x, 5).values, r"top_k: sizes \[5, -1\] already add up to more than the size 4"),
])
def test_a_size_that_does_not_fit_raises_the_eager_error_when_the_graph_runs(fn, message):
    f = me.function(fn, input_signature=[me.TensorSpec([None], me.float32)])
    with pytest.raises(InvalidArgumentError, match=message + r".*\(in graph node %\d+ = split_piece"):
        f(me.constant([1.0, 2.0, 3.0, 4.0]))


def test_unstack_without_num_over_an_unknown_dimension_asks_for_num():
    # TF 2.21: ValueError "Cannot infer argument `num` from shape (None,)" while tracing.
    f = me.function(lambda x: me.unstack(x), input_signature=[me.TensorSpec([None], me.float32)])
    with pytest.raises(InvalidArgumentError, match=r"^unstack: the size of axis 0 of its input \(shape \(None,\)\) "
                                                   r"is known only when the graph runs.*Give num="):
        f(me.constant([1.0, 2.0]))
    with pytest.raises(InvalidArgumentError, match=r"^unstack: num=3, but axis 0 of shape \(2,\) has size 2\."):
        me.unstack(me.constant([1.0, 2.0]), num=3)


SEGMENT_SIGNATURE = [me.TensorSpec([None, None], F64), me.TensorSpec([None], me.int32)]


def segment_sum_and_gradient(data, ids):
    with me.GradientTape() as tape:
        tape.watch(data)
        summed = me.math.unsorted_segment_sum(data, ids, 3)
        loss = weighted_sum(me.reshape(summed, [-1]))
    return summed, tape.gradient(loss, data)


def test_unsorted_segment_sum_over_unknown_dimensions_matches_tf():
    # TF 2.21 with data [None, None], ids [None]: output shape (3, None); data = arange(8) as (4, 2), ids
    # [0, 2, -1, 0]: [[6 8] [0 0] [2 3]]; the gradient of sum(out * [[1], [2], [3]]) [[1 1] [3 3] [0 0] [1 1]]
    # (here weights 1 ... 6 over the output's elements).
    @me.function(input_signature=SEGMENT_SIGNATURE)
    def f(data, ids):
        with me.GradientTape() as tape:
            tape.watch(data)
            summed = me.math.unsorted_segment_sum(data, ids, 3)
            loss = me.reduce_sum(summed * me.constant([[1.0], [2.0], [3.0]], F64))
        return summed, tape.gradient(loss, data)
    assert tuple(f.get_concrete_function().output_shapes[0]) == (3, None)
    summed, grad = f(me.constant(np.arange(8.0).reshape(4, 2)), me.constant([0, 2, -1, 0]))
    assert summed.numpy().tolist() == [[6, 8], [0, 0], [2, 3]]
    assert grad.numpy().tolist() == [[1, 1], [3, 3], [0, 0], [1, 1]]


def test_one_trace_of_unsorted_segment_sum_serves_every_shape_as_eager():
    traced = me.function(segment_sum_and_gradient, input_signature=SEGMENT_SIGNATURE)

    @settings(max_examples=20, deadline=None)
    @given(st.lists(st.integers(-1, 2), min_size=0, max_size=7), st.integers(1, 4))
    def check(ids, width):
        data = me.constant(np.random.default_rng(len(ids)).standard_normal((len(ids), width)))
        ids = me.constant(np.array(ids, np.int32))
        for got, expected in zip(traced(data, ids), segment_sum_and_gradient(data, ids)):
            np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-12, atol=1e-12)
    check()
    assert traced.experimental_get_tracing_count() == 1
    data = np.random.default_rng(0).standard_normal((4, 2))
    ids = me.constant([1, 0, 1, -1])
    loss = lambda d: float(weighted_sum(me.reshape(me.math.unsorted_segment_sum(me.constant(d), ids, 3), [-1])))  # noqa
    np.testing.assert_allclose(traced(me.constant(data), ids)[1].numpy(), finite_differences(loss, data), rtol=1e-6)


def test_segment_ids_that_do_not_fit_the_data_raise_when_the_graph_runs():
    # TF 2.21 raises InvalidArgumentError when the graph runs; here the eager op's error, with the graph node.
    traced = me.function(segment_sum_and_gradient, input_signature=SEGMENT_SIGNATURE)
    message = (r"^unsorted_segment_sum: the shape of segment_ids must be the first axes of data's shape, got "
               r"segment_ids \(3,\) for data \(4, 2\)\.")
    with pytest.raises(InvalidArgumentError, match=message + r" \(in graph node %\d+ = check_segment_ids"):
        traced(me.constant(np.ones((4, 2))), me.constant([0, 1, 2]))
    with pytest.raises(InvalidArgumentError, match=message):
        me.math.unsorted_segment_sum(me.constant(np.ones((4, 2))), me.constant([0, 1, 2]), 3)
    with pytest.raises(InvalidArgumentError, match=r"^unsorted_segment_sum: segment id 3 is out of range for "
                                                   r"num_segments=3"):
        traced(me.constant(np.ones((2, 2))), me.constant([0, 3]))
