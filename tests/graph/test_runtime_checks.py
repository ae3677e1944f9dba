"""Checks of values run every time a graph runs (Op.check), with the eager message and the graph node.

Graph mode used to learn shapes by running each kernel on stand-in arrays (ones, zeros) while
tracing, so a check that looks at values ran once, on the stand-ins, and never again: the examples
below crashed or were silently wrong (issue 26). Each test gives the traced function the input
that broke it, and checks it now gives the eager answer or the eager error.
"""
import numpy as np
import pytest

import minieager as me
from minieager.errors import InvalidArgumentError


def eager_error(fn, *args):
    with pytest.raises(InvalidArgumentError) as info:
        fn(*args)
    return str(info.value)


def assert_graph_error(fn, *args):
    """The traced ``fn`` raises what eager ``fn`` raises, its message followed by the graph node."""
    message = eager_error(fn, *args)
    traced = me.function(fn)
    for _ in range(2):                   # on every run, not only the first
        with pytest.raises(InvalidArgumentError) as info:
            traced(*args)
        assert str(info.value).startswith(message), (str(info.value), message)
        assert "in graph node %" in str(info.value)
    return str(info.value)


def xent(labels, logits):
    return me.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)


def test_sparse_cross_entropy_labels_out_of_range_raise_instead_of_crashing():
    logits = me.constant([[1.0, 2.0]])
    traced = me.function(xent)
    np.testing.assert_allclose(traced(me.constant([1]), logits).numpy(), xent(me.constant([1]), logits).numpy())
    # 10**7 wrote out of bounds (a segfault); 2, one past the last class, gave a negative loss.
    for label in (10**7, 2, -1):
        text = assert_graph_error(xent, me.constant([label]), logits)
        assert f"received a label value of {label}" in text
    # the mean that me.losses uses is checked as well
    loss = me.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    assert_graph_error(loss, me.constant([2]), logits)
    # the same graph still runs on good labels after a bad call
    np.testing.assert_allclose(traced(me.constant([0]), logits).numpy(), xent(me.constant([0]), logits).numpy())


def test_gather_nd_and_scatter_nd_refuse_index_minus_one_instead_of_wrapping():
    params = me.constant([[1.0, 2.0], [3.0, 4.0]])
    text = assert_graph_error(lambda p, i: me.gather_nd(p, i), params, me.constant([[-1, 0]]))
    assert "index -1 in coordinate 0 is out of range" in text
    assert_graph_error(lambda i, u: me.scatter_nd(i, u, [3]), me.constant([[-1]]), me.constant([1.0]))
    assert_graph_error(lambda t, i, u: me.tensor_scatter_nd_update(t, i, u), params, me.constant([[2]]),
                       me.constant([[5.0, 6.0]]))
    assert_graph_error(lambda p, i: me.gather(p, i), params, me.constant([2]))
    good = me.function(lambda p, i: me.gather_nd(p, i))
    np.testing.assert_allclose(good(params, me.constant([[1, 0]])).numpy(), [3.0])


def test_unsorted_segment_sum_refuses_an_id_equal_to_num_segments():
    def segment_sum(data, ids):
        return me.math.unsorted_segment_sum(data, ids, 2)
    data = me.constant([1.0, 2.0, 4.0])
    text = assert_graph_error(segment_sum, data, me.constant([0, 2, 1]))     # was dropped silently
    assert "segment id 2 is out of range for num_segments=2" in text
    traced = me.function(segment_sum)
    for ids in ([0, 1, 1], [1, -1, 0]):                                     # a negative id drops its row
        np.testing.assert_allclose(traced(data, me.constant(ids)).numpy(), segment_sum(data, me.constant(ids)).numpy())


def test_integer_floor_division_checks_the_real_divisor():
    a = me.constant([7, -8])
    traced = me.function(lambda a, b: a // b)
    # b = [2, 3] raised "division by zero" (the stand-in divisor was 0)
    np.testing.assert_array_equal(traced(a, me.constant([2, 3])).numpy(), [3, -3])
    text = assert_graph_error(lambda a, b: a // b, a, me.constant([2, 0]))
    assert "integer division by zero" in text and "at index (1,)" in text
    assert_graph_error(lambda a, b: a % b, a, me.constant([0, 3]))
    assert_graph_error(lambda a, b: a ** b, a, me.constant([2, -1]))


def test_reduce_mean_of_unique_is_the_mean_of_the_distinct_values():
    # unique's length depends on the values: it was the stand-in's (1), so the mean was wrong.
    traced = me.function(lambda x: me.reduce_mean(me.unique(x).y))
    for values in ([1.0, 1.0, 4.0], [3.0, 5.0, 7.0, 7.0, 9.0], [2.0]):
        x = me.constant(values)
        assert traced(x).numpy() == me.reduce_mean(me.unique(x).y).numpy()
    ints = me.function(lambda x: me.reduce_mean(me.unique(x).y))
    assert ints(me.constant([1, 1, 4, 6])).numpy() == 3
    listing = str(traced.get_concrete_function(me.constant([1.0, 1.0, 4.0])).graph)
    assert "float32[?] = unique(x)[0]" in listing


def test_value_dependent_shapes_flow_through_fused_code():
    # the unique values (length known only at run time) times 2, plus their mean: no broadcast as a scalar
    @me.function
    def f(x):
        y = me.unique(x).y
        return y * 2.0 + me.reduce_mean(y)
    x = me.constant(np.arange(6000, dtype=np.float32) % 5000)
    eager = me.unique(x).y * 2.0 + me.reduce_mean(me.unique(x).y)
    np.testing.assert_array_equal(f(x).numpy(), eager.numpy())
    mask = me.function(lambda x: me.reduce_sum(me.boolean_mask(x, x > 2.0)))
    assert mask(me.constant([1.0, 3.0, 5.0])).numpy() == 8.0


def test_static_errors_at_trace_time_keep_the_eager_message():
    def add(a, b):
        return a + b
    message = eager_error(add, me.ones((2, 3)), me.ones((4,)))
    with pytest.raises(InvalidArgumentError) as info:
        me.function(add)(me.ones((2, 3)), me.ones((4,)))
    assert str(info.value) == message


def test_fused_kernel_rounds_as_eager_no_fma_contraction():
    # a*a - b with b = a*a is exactly 0 op by op; an FMA computes a*a unrounded and leaves the
    # rounding error, so sqrt of it was nan for about half the elements.
    rng = np.random.default_rng(0)
    a = rng.uniform(0.5, 2.0, 10_000).astype(np.float32)
    a_t, b_t = me.constant(a), me.constant(a * a)
    traced = me.function(lambda a, b: me.sqrt(a * a - b))
    assert "fused" in str(traced.get_concrete_function(a_t, b_t).run_graph)
    out, eager = traced(a_t, b_t).numpy(), me.sqrt(a_t * a_t - b_t).numpy()
    assert not np.isnan(out).any()
    np.testing.assert_array_equal(out.view(np.int32), eager.view(np.int32))
    # x * y + z, with y and z chosen so an FMA would differ in the last bit for many elements
    x, y = rng.normal(size=10_000).astype(np.float32), np.float32(1.0 + 2.0**-12)
    z = -(x * y)
    fma = me.function(lambda x, z: x * y + z)
    np.testing.assert_array_equal(fma(me.constant(x), me.constant(z)).numpy(), np.zeros_like(x))


def test_custom_gradient_inside_a_function_computes_real_values():
    # Its outputs were copies of the stand-ins (ones): the same wrong value for every input.
    @me.custom_gradient
    def log1pexp(x):
        e = me.exp(x)
        return me.math.log(1 + e), lambda dy: dy * (1 - 1 / (1 + e))
    x = me.constant([0.0, 1.0, -3.0])
    traced = me.function(lambda x: log1pexp(x) * 2.0)
    np.testing.assert_allclose(traced(x).numpy(), (log1pexp(x) * 2.0).numpy(), rtol=1e-6)

    @me.function
    def grad(x):                          # a tape inside the function uses grad_fn
        with me.GradientTape() as tape:
            tape.watch(x)
            y = log1pexp(x)
        return tape.gradient(y, x)
    np.testing.assert_allclose(grad(x).numpy(), me.sigmoid(x).numpy(), rtol=1e-6)
