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


@pytest.mark.parametrize("name, fn", [
    ("top_k", lambda x: me.math.top_k(x, 2).values),
    ("split", lambda x: me.split(x, 2)[0]),
    ("unstack", lambda x: me.unstack(x)[0]),
    ("cumprod", lambda x: me.math.cumprod(x)),
])
def test_an_op_that_needs_a_size_while_tracing_names_itself_and_the_dimension(name, fn):
    f = me.function(fn, input_signature=[me.TensorSpec([None], me.float32)])
    with pytest.raises(InvalidArgumentError, match=rf"^{name}: the size of dimension 0 of its input \(shape \(None,\)\) "
                                                   rf"is known only when the graph runs"):
        f(me.constant([1.0, 2.0]))
