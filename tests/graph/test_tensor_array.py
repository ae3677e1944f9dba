"""me.TensorArray eagerly and in me.function, carried by graph loops: the same values, the same errors and
the same gradients in both, checked against what TF 2.21 gives (eagerly and in a tf.function: where the two
disagree, minieager does as tf.function, in both modes, and the test says so)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import minieager as me
from minieager.errors import DTypeError, InvalidArgumentError, OutOfRangeError

MODES = ["eager", "traced"]


def run(mode, fn, *args):
    return (fn if mode == "eager" else me.function(fn))(*args)


def error_of(mode, fn, *args):
    """The error ``fn`` raises in ``mode``: its type and message (without the graph node a graph names)."""
    with pytest.raises(Exception) as info:
        run(mode, fn, *args)
    return type(info.value), str(info.value).split(" (in graph node ")[0]


# ---- values, as TF 2.21 gives them in both modes -----------------------------------------------------------
def write_twice():
    ta = me.TensorArray(me.float32, size=2)
    ta = ta.write(0, 1.0).write(0, 2.0).write(1, 3.0)
    return ta.stack()


def write_twice_in_a_graph_loop():
    ta = me.TensorArray(me.float32, size=2)
    for i in me.range(4):
        ta = ta.write(i // 2, me.cast(i, me.float32))
    return ta.stack()


def read_unwritten_shape_from_a_write():
    ta = me.TensorArray(me.float32, size=3).write(0, [1.0, 2.0])
    return ta.read(2)


def read_unwritten_shape_given():
    return me.TensorArray(me.float32, size=3, element_shape=[2]).read(1)


def stack_partly_written():
    return me.TensorArray(me.float32, size=3).write(1, [1.0, 2.0]).stack()


def grow_in_a_graph_loop():
    ta = me.TensorArray(me.float32, size=0, dynamic_size=True)
    for i in me.range(4):
        ta = ta.write(i, me.cast(i, me.float32) * 2)
    return ta.stack(), ta.size()


def grow_past_a_gap():
    return me.TensorArray(me.float32, size=0, dynamic_size=True).write(3, 1.0).stack()


def unstack_read_gather_concat():
    ta = me.TensorArray(me.float32, size=3).unstack(me.constant([[1., 2.], [3., 4.], [5., 6.]]))
    return ta.read(1), ta.gather([2, 0]), ta.concat(), ta.size()


def empty_with_element_shape():
    return me.TensorArray(me.float32, size=0, element_shape=[2]).stack()


def python_int_into_a_float_array():
    return me.TensorArray(me.float32, size=1).write(0, 3).stack()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fn, expected", [
    (write_twice, [2.0, 3.0]),
    (write_twice_in_a_graph_loop, [1.0, 3.0]),
    (read_unwritten_shape_from_a_write, [0.0, 0.0]),
    (read_unwritten_shape_given, [0.0, 0.0]),
    (stack_partly_written, [[0.0, 0.0], [1.0, 2.0], [0.0, 0.0]]),
    (grow_in_a_graph_loop, ([0.0, 2.0, 4.0, 6.0], 4)),
    (grow_past_a_gap, [0.0, 0.0, 0.0, 1.0]),
    (unstack_read_gather_concat, ([3.0, 4.0], [[5.0, 6.0], [1.0, 2.0]], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 3)),
    (python_int_into_a_float_array, [3.0]),
])
def test_values_as_tf_eagerly_and_traced(mode, fn, expected):
    got = run(mode, fn)
    got, expected = (got, expected) if isinstance(got, tuple) else ((got,), (expected,))
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g.numpy(), e)
    assert got[0].dtype == me.float32


@pytest.mark.parametrize("mode", MODES)
def test_an_empty_array_stacks_to_its_element_shape(mode):
    assert run(mode, empty_with_element_shape).shape == (0, 2)        # TF 2.21: shape (0, 2) in both modes


# ---- where TF's eager and tf.function arrays disagree: tf.function's answer, in both modes ----------------
def read_twice():
    ta = me.TensorArray(me.float32, size=2).write(0, 1.0)
    return ta.read(0) + ta.read(0)


def read_then_stack():
    ta = me.TensorArray(me.float32, size=2).write(0, 1.0).write(1, 2.0)
    ta.read(0)
    return ta.stack()


@pytest.mark.parametrize("mode", MODES)
def test_a_read_does_not_clear_its_element_as_in_tf_function(mode):
    # TF 2.21 in a tf.function: 2.0 and [1, 2]; TF's eager arrays clear an element once read (clear_after_read):
    # the second read raises, the stack gives [0, 2]. minieager's reads never clear, eagerly too.
    assert run(mode, read_twice).numpy() == 2.0
    np.testing.assert_array_equal(run(mode, read_then_stack).numpy(), [1.0, 2.0])


@pytest.mark.parametrize("mode", MODES)
def test_unstack_makes_the_rows_the_elements_as_tf_eager(mode):
    # TF 2.21 eagerly: size 3 after unstacking 3 rows into an array of size 5 (its tf.function answers 5 and
    # then fails to stack); minieager: 3 rows, in both modes, and writing past them is out of range.
    def unstacked():
        ta = me.TensorArray(me.float32, size=5).unstack(me.constant([[1.0], [2.0], [3.0]]))
        return ta.size(), ta.stack()
    size, stacked = run(mode, unstacked)
    assert size.numpy() == 3 and stacked.shape == (3, 1)


# ---- errors: the same type and message eagerly and traced ---------------------------------------------------
def write_an_int_tensor():
    return me.TensorArray(me.float32, size=2).write(0, me.constant(1)).stack()


def write_a_float64_tensor():
    return me.TensorArray(me.float32, size=1).write(0, me.constant(3.0, me.float64)).stack()


def write_past_the_end():
    return me.TensorArray(me.float32, size=3).write(3, 1.0).stack()


def write_past_the_end_in_a_graph_loop():
    ta = me.TensorArray(me.float32, size=3)
    for i in me.range(5):
        ta = ta.write(i, 1.0)
    return ta.stack()


def write_negative():
    return me.TensorArray(me.float32, size=3).write(-1, 1.0).stack()


def write_at_a_negative_tensor_index():
    return me.TensorArray(me.float32, size=3).write(me.constant(-2), 1.0).stack()


def read_past_the_end():
    return me.TensorArray(me.float32, size=3, element_shape=[]).read(3)


def read_negative():
    return me.TensorArray(me.float32, size=3, element_shape=[]).read(-1)


def gather_past_the_end():
    return me.TensorArray(me.float32, size=3).unstack(me.constant([1.0, 2.0, 3.0])).gather([3])


def write_another_shape():
    return me.TensorArray(me.float32, size=2).write(0, [1.0, 2.0]).write(1, [1.0, 2.0, 3.0]).stack()


def write_against_element_shape():
    return me.TensorArray(me.float32, size=2, element_shape=[3]).write(0, [1.0, 2.0]).stack()


def unstack_too_many_rows():
    return me.TensorArray(me.float32, size=2).unstack(me.constant([[1.0], [2.0], [3.0]])).stack()


def concat_scalars():
    return me.TensorArray(me.float32, size=2).write(0, 1.0).write(1, 3.0).concat()


def read_unwritten_shape_unknown():
    return me.TensorArray(me.float32, size=3).read(1)


def write_at_a_float_index():
    return me.TensorArray(me.float32, size=3).write(1.5, 1.0).stack()


def use_the_array_a_write_replaced():
    ta = me.TensorArray(me.float32, size=2)
    ta.write(0, 1.0)                       # TF's eager arrays change in place; tf.function's silently do not
    return ta.stack()


@pytest.mark.parametrize("fn, error, message", [
    # TF 2.21 eagerly: InvalidArgumentError "TensorArray dtype is float32 but Op is trying to write dtype int32"
    (write_an_int_tensor, DTypeError, "TensorArray.write: the TensorArray's dtype is float32 but the value is int32. "
                                      "Cast it: me.cast(value, me.float32)."),
    (write_a_float64_tensor, DTypeError, "TensorArray.write: the TensorArray's dtype is float32 but the value is "
                                         "float64. Cast it: me.cast(value, me.float32)."),
    # TF 2.21 eagerly: OutOfRangeError "Tried to write to index 3 but array is not resizeable and size is: 3"
    (write_past_the_end, OutOfRangeError, "TensorArray.write: index 3 is beyond the array's size 3, and the array "
                                          "is not resizeable. Make it with dynamic_size=True, or a larger size=."),
    (write_past_the_end_in_a_graph_loop, OutOfRangeError, "TensorArray.write: index 3 is beyond the array's size 3"),
    # TF 2.21 eagerly: OutOfRangeError "Writing to negative indices (index -1) is not allowed."
    (write_negative, OutOfRangeError, "TensorArray.write: negative indices (-1) are not allowed."),
    (write_at_a_negative_tensor_index, OutOfRangeError, "TensorArray.write: negative indices (-2) are not allowed."),
    # TF 2.21 eagerly: OutOfRangeError "Tried to read from index 3 but array size is: 3"
    (read_past_the_end, OutOfRangeError, "TensorArray.read: index 3 is beyond the array's size 3."),
    (read_negative, OutOfRangeError, "TensorArray.read: negative indices (-1) are not allowed."),
    (gather_past_the_end, OutOfRangeError, "TensorArray.gather: index 3 is beyond the array's size 3."),
    # TF 2.21: ValueError "Incompatible shape for value ((3,)), expected ((2,))"
    (write_another_shape, InvalidArgumentError, "TensorArray.write: the value has shape (3,), but the elements have "
                                                "shape (2,)."),
    (write_against_element_shape, InvalidArgumentError, "TensorArray.write: the value has shape (2,), but the "
                                                        "elements have shape (3,)."),
    # TF 2.21 eagerly: ValueError "Cannot unstack 3 tensors into a TensorArray of static size 2"
    (unstack_too_many_rows, InvalidArgumentError, "TensorArray.unstack: cannot unstack 3 rows into an array of size 2 "
                                                  "that is not resizeable."),
    # TF 2.21: InvalidArgumentError "Concat saw a scalar shape at index 0 but requires at least vectors."
    (concat_scalars, InvalidArgumentError, "TensorArray.concat: the elements are scalars; use stack() instead."),
    # TF 2.21 in a tf.function: InvalidArgumentError "Trying to read an uninitialized tensor but element_shape is
    # not fully defined"
    (read_unwritten_shape_unknown, InvalidArgumentError, "TensorArray.read: no element was written and the element "
                                                         "shape is unknown."),
    # TF 2.21: TypeError "list indices must be integers or slices, not float"
    (write_at_a_float_index, DTypeError, "TensorArray.write: indices must be integers, got 1.5."),
    (use_the_array_a_write_replaced, InvalidArgumentError, "TensorArray.stack: this TensorArray was replaced by the "
                                                           "one a write (or scatter, unstack) returned"),
])
def test_errors_are_the_same_eagerly_and_traced(fn, error, message):
    eager, traced = error_of("eager", fn), error_of("traced", fn)
    assert eager == traced
    assert eager[0] is error and eager[1].startswith(message), eager


def test_a_value_error_in_a_graph_names_the_node_and_the_line():
    with pytest.raises(OutOfRangeError, match=r"index 3 is beyond .*\(in graph node %\d+ = tensor_array_scatter\(.*"
                                              r"traced from line \d+: ta = ta.write\(i, 1.0\)"):
        me.function(write_past_the_end_in_a_graph_loop)()


# ---- any writes: a model in NumPy, eagerly and in one trace --------------------------------------------------
def writes_in_a_loop(size, dynamic, indices, values):
    ta = me.TensorArray(me.float64, size=size, dynamic_size=dynamic, element_shape=[2])
    for k in me.range(me.shape(indices)[0]):
        ta = ta.write(indices[k], values[k])
    return ta.stack(), ta.size(), ta.read(0)


def numpy_model(size, dynamic, indices, values):
    out = np.zeros((size, 2))
    for i, v in zip(indices, values):
        if i >= len(out):
            if not dynamic:
                return OutOfRangeError
            out = np.concatenate([out, np.zeros((i + 1 - len(out), 2))])
        out[i] = v
    return out


@settings(max_examples=30, deadline=None)
@given(size=st.integers(1, 4), dynamic=st.booleans(), indices=st.lists(st.integers(0, 6), min_size=1, max_size=6),
       data=st.data())
def test_any_writes_give_numpys_answer_eagerly_and_traced(size, dynamic, indices, data):
    values = np.asarray(data.draw(st.lists(st.tuples(st.floats(-5, 5), st.floats(-5, 5)),
                                           min_size=len(indices), max_size=len(indices))))
    expected = numpy_model(size, dynamic, indices, values)
    args = (size, dynamic, me.constant(indices), me.constant(values, me.float64))
    for fn in (writes_in_a_loop, TRACED_WRITES):
        if expected is OutOfRangeError:
            with pytest.raises(OutOfRangeError, match=r"TensorArray.write: index \d+ is beyond the array's size"):
                fn(*args)
            continue
        stacked, n, first = fn(*args)
        np.testing.assert_array_equal(stacked.numpy(), expected)
        assert n.numpy() == len(expected)
        np.testing.assert_array_equal(first.numpy(), expected[0])


TRACED_WRITES = me.function(writes_in_a_loop)


def test_one_trace_serves_every_index_vector_of_a_length():
    TRACED_WRITES(2, True, me.constant([0, 3]), me.constant([[1.0, 2.0], [3.0, 4.0]], me.float64))
    before = TRACED_WRITES.experimental_get_tracing_count()
    TRACED_WRITES(2, True, me.constant([5, 1]), me.constant([[1.0, 2.0], [3.0, 4.0]], me.float64))
    assert TRACED_WRITES.experimental_get_tracing_count() == before


# ---- gradients through write, read, gather, stack, concat and unstack in a graph loop ----------------------
def rnn(x, w):
    """A small recurrent loop: x is [time, features]; its states are written to a TensorArray."""
    steps = me.TensorArray(me.float64, size=0, dynamic_size=True)
    inputs = me.TensorArray(me.float64, size=x.shape[0]).unstack(x)
    state = me.zeros_like(inputs.read(0))
    for t in me.range(x.shape[0]):
        state = me.tanh(inputs.read(t) * w + state * 0.5)
        steps = steps.write(t, state)
    picked = steps.gather([2, 0])
    return me.reduce_sum(steps.stack() ** 2) + me.reduce_sum(picked * w) + me.reduce_sum(me.sin(steps.concat()))


def test_gradients_through_a_graph_loop_equal_eagers_and_finite_differences():
    rng = np.random.default_rng(0)
    x = me.constant(rng.standard_normal((4, 3)), me.float64)
    w = me.constant(rng.standard_normal(3), me.float64)
    traced = me.function(rnn)
    grads = []
    for fn in (rnn, traced):
        with me.GradientTape() as tape:
            tape.watch([x, w])
            y = fn(x, w)
        grads.append([g.numpy() for g in tape.gradient(y, [x, w])])
    for eager, graph in zip(*grads):
        np.testing.assert_allclose(graph, eager, rtol=1e-12)
    me.testing.check_gradients(traced, x, w)
    me.testing.check_gradients(rnn, x, w)

    @me.function
    def inside(x, w):                        # a tape inside the function: the loop's gradient is a graph node
        with me.GradientTape() as tape:
            tape.watch([x, w])
            y = rnn(x, w)
        return tape.gradient(y, [x, w])

    for eager, graph in zip(grads[0], inside(x, w)):
        np.testing.assert_allclose(graph.numpy(), eager, rtol=1e-12)


def test_a_second_derivative_through_reads_and_writes_eagerly():
    x = me.constant([0.5, -1.0], me.float64)

    def f(x):
        ta = me.TensorArray(me.float64, size=2).write(0, x * x).write(1, x)
        return me.reduce_sum(ta.read(0) * ta.stack()[1] + ta.gather([0, 0])[1])

    with me.GradientTape() as outer:
        outer.watch(x)
        with me.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        dy = inner.gradient(y, x)                    # 3 x^2 + 2 x
    np.testing.assert_allclose(dy.numpy(), 3 * x.numpy() ** 2 + 2 * x.numpy())
    np.testing.assert_allclose(outer.gradient(dy, x).numpy(), 6 * x.numpy() + 2)


# ---- me.while_loop and me.cond carry a TensorArray ---------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dynamic", [False, True])
def test_while_loop_carries_a_tensor_array(mode, dynamic):
    def squares(n):
        ta = me.TensorArray(me.int32, size=0 if dynamic else n, dynamic_size=dynamic)
        _, ta = me.while_loop(lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(i, i * i)), [0, ta])
        return ta.stack()
    np.testing.assert_array_equal(run(mode, squares, me.constant(4)).numpy(), [0, 1, 4, 9])   # TF 2.21: the same


def test_an_array_of_unknown_element_shape_learns_it_from_a_trial_trace_of_the_loop_body():
    traces = []

    @me.function
    def f(x):
        ta = me.TensorArray(me.float32, size=0, dynamic_size=True)       # no element_shape
        for i in me.range(3):
            traces.append(i)
            ta = ta.write(i, x * me.cast(i, me.float32))
        return ta.stack()

    np.testing.assert_array_equal(f(me.constant([1.0, 2.0])).numpy(), [[0, 0], [1, 2], [2, 4]])
    assert len(traces) == 2                                 # the trial trace, then the loop's
    listing = str(f.get_concrete_function(me.constant([1.0, 2.0])).graph)
    assert "tensor_array_zeros" in listing and "element_shape=(2,)" in listing


def test_a_size_known_only_when_the_graph_runs():
    @me.function(input_signature=[me.TensorSpec([None, 2])])
    def doubled(x):
        ta = me.TensorArray(me.float32, size=me.shape(x)[0], element_shape=[2])
        for i in me.range(me.shape(x)[0]):
            ta = ta.write(i, x[i] * 2.0)
        return ta.stack(), ta.size()

    for n in (1, 3):
        x = me.constant(np.arange(2 * n, dtype=np.float32).reshape(n, 2))
        stacked, size = doubled(x)
        np.testing.assert_array_equal(stacked.numpy(), x.numpy() * 2)
        assert size.numpy() == n


@pytest.mark.parametrize("mode", MODES)
def test_a_tensor_if_writes_in_one_branch(mode):
    def evens(n):
        ta = me.TensorArray(me.int32, size=n, element_shape=[])
        for i in me.range(n):
            if i % 2 == 0:
                ta = ta.write(i, i + 10)
        return ta.stack()
    np.testing.assert_array_equal(run(mode, evens, me.constant(5)).numpy(), [10, 0, 12, 0, 14])   # TF 2.21


def test_a_loop_carrying_one_is_listed_and_drawn():
    def f(x):
        ta = me.TensorArray(me.float32, size=3)
        for i in me.range(3):
            ta = ta.write(i, x + me.cast(i, me.float32))
        return ta.stack()
    graph = me.function(f).get_concrete_function(me.constant([1.0])).graph
    listing = str(graph)
    assert "float32[3,1] = tensor_array_zeros(" in listing and "= while(" in listing
    body = next(n for n in graph.nodes if n.kind == "call" and n.op.name == "while").attrs["body_graph"]
    assert "tensor_array_scatter(" in str(body)
    drawing = graph.draw()
    assert "tensor_array_zeros" in drawing._repr_svg_() and "while" in drawing._repr_svg_()


def positives_per_row(x):
    ta = me.TensorArray(me.float32, size=x.shape[0])
    for i in me.range(x.shape[0]):
        ta = ta.write(i, me.boolean_mask(x[i], x[i] > 0))      # a length known only when the graph runs
    return ta.stack()


@pytest.mark.parametrize("mode", MODES)
def test_elements_whose_shape_is_known_when_the_graph_runs(mode):
    x = me.constant([[1.0, -1.0, 2.0], [-3.0, 4.0, 5.0]])
    np.testing.assert_array_equal(run(mode, positives_per_row, x).numpy(), [[1.0, 2.0], [4.0, 5.0]])
    if mode == "traced":
        listing = str(me.function(positives_per_row).get_concrete_function(x).graph)
        assert "float32[2,?] = tensor_array_zeros(" in listing


def test_elements_of_different_shapes_are_the_same_error_eagerly_and_traced():
    x = me.constant([[1.0, -1.0, 2.0], [-3.0, -4.0, 5.0]])
    eager, traced = error_of("eager", positives_per_row, x), error_of("traced", positives_per_row, x)
    assert eager == traced == (InvalidArgumentError, "TensorArray.write: the value has shape (1,), but the elements "
                                                     "have shape (2,).")


@pytest.mark.parametrize("mode", MODES)
def test_a_partly_known_element_shape_is_completed_by_the_first_write(mode):
    def f():
        ta = me.TensorArray(me.float32, size=2, element_shape=[None, 2])
        return ta.write(1, [[1.0, 2.0]]).stack()
    np.testing.assert_array_equal(run(mode, f).numpy(), [[[0.0, 0.0]], [[1.0, 2.0]]])
    assert me.TensorArray(me.float32, size=2, element_shape=[None, 2]).element_shape == (None, 2)

    def g():
        return me.TensorArray(me.float32, size=2, element_shape=[None, 2]).write(0, [1.0, 2.0]).stack()
    assert error_of(mode, g) == (InvalidArgumentError, "TensorArray.write: the value has shape (2,), but the "
                                                       "elements have shape (?, 2).")


def address(ta):
    return ta._buffer._value.__array_interface__["data"][0]


def test_eager_writes_to_a_large_buffer_nothing_else_holds_are_made_in_place():
    # 300 elements of 256: over engine/temporaries.MIN_SIZE, so a write may reuse the buffer's memory...
    ta = me.TensorArray(me.float32, size=300, element_shape=[256])
    ta = ta.write(0, me.ones([256]))
    for i in range(1, 300):                                     # (an address, not the array: holding it would
        before = address(ta)                                    # stop the reuse; a copy is made while the
        ta = ta.write(i, me.fill([256], float(i)))              # old array lives, so its address differs)
        assert address(ta) == before                            # ... every write after the first one did
    held = ta.stack()                                           # ... unless something holds the buffer:
    ta = ta.write(0, me.fill([256], -1.0))
    assert held.numpy()[0, 0] == 1.0 and ta.stack().numpy()[0, 0] == -1.0
    np.testing.assert_array_equal(held.numpy()[:, 0], [1.0] + list(range(1, 300)))
    with me.GradientTape() as tape:                             # a tape keeps the buffer for the gradient
        x = me.constant(np.full(256, 2.0, np.float32))
        tape.watch(x)
        before = address(ta)
        ta = ta.write(5, x * x)
        assert address(ta) != before
        y = me.reduce_sum(ta.stack())
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), np.full(256, 4.0))


@pytest.mark.parametrize("mode", MODES)
def test_scatter_writes_rows_at_indices(mode):
    def scattered():
        ta = me.TensorArray(me.float32, size=4, element_shape=[2])
        return ta.scatter([3, 1], me.constant([[1.0, 2.0], [3.0, 4.0]])).stack()
    # TF 2.21: [[0, 0], [3, 4], [0, 0], [1, 2]]
    np.testing.assert_array_equal(run(mode, scattered).numpy(), [[0, 0], [3, 4], [0, 0], [1, 2]])

    def twice():
        return me.TensorArray(me.float32, size=4).scatter([1, 1], me.constant([1.0, 2.0])).stack()
    assert error_of(mode, twice) == (InvalidArgumentError, "TensorArray.scatter: each index may be written once per "
                                                           "scatter, got [1, 1].")


def test_scatter_checks_the_number_of_rows_when_the_graph_runs():
    @me.function(input_signature=[me.TensorSpec([None], me.int32), me.TensorSpec([None], me.float32)])
    def scattered(indices, values):
        return me.TensorArray(me.float32, size=4).scatter(indices, values).stack()

    np.testing.assert_array_equal(scattered(me.constant([2]), me.constant([5.0])).numpy(), [0, 0, 5, 0])
    with pytest.raises(InvalidArgumentError, match=r"TensorArray.scatter: 2 indices for a value with 1 rows"):
        scattered(me.constant([0, 1]), me.constant([5.0]))


@pytest.mark.parametrize("mode", MODES)
def test_string_elements(mode):
    def words(n):
        ta = me.TensorArray(me.string, size=3)
        for i in me.range(n):
            ta = ta.write(i, me.strings.as_string(i * 10))
        return ta.stack(), ta.read(1)
    stacked, second = run(mode, words, me.constant(2))
    assert stacked.numpy().tolist() == [b"0", b"10", b""] and second.numpy() == b"10"    # TF 2.21: the same


def test_the_guides_rnn_with_unknown_batch_and_time_traces_once():
    @me.function(input_signature=[me.TensorSpec([None, None, 4])])
    def dynamic_rnn(input_data):
        input_data = me.transpose(input_data, [1, 0, 2])
        max_seq_len = me.shape(input_data)[0]
        states = me.TensorArray(me.float32, size=max_seq_len)    # elements float32[?,4]: the batch is unknown
        state = input_data[0] * 0.0
        for i in me.range(max_seq_len):
            state = input_data[i] + state
            states = states.write(i, state)
        return me.transpose(states.stack(), [1, 0, 2])

    for shape in ([2, 3, 4], [1, 5, 4]):
        x = me.random.uniform(shape)
        np.testing.assert_allclose(dynamic_rnn(x).numpy(), np.cumsum(x.numpy(), axis=1), rtol=1e-6)
    assert dynamic_rnn.experimental_get_tracing_count() == 1
    assert "float32[?,?,4] = tensor_array_zeros(" in str(dynamic_rnn.get_concrete_function().graph)


def scattered_then_read(x, w):
    ta = me.TensorArray(me.float64, size=0, dynamic_size=True, element_shape=[2])
    ta = ta.scatter([4, 1], x * w)                      # grows to 5 rows, rows 0, 2, 3 unwritten
    ta = ta.write(1, me.sin(x[0]))                      # overwrites row 1: its first value gets no gradient
    return me.reduce_sum(ta.stack() * me.constant(np.arange(10.0).reshape(5, 2))) + me.reduce_sum(ta.read(4) ** 2)


@pytest.mark.parametrize("mode", MODES)
def test_scatter_and_overwrite_gradients_match_finite_differences(mode):
    x = me.constant([[0.3, -0.7], [1.1, 0.4]], me.float64)
    w = me.constant([1.5, -0.5], me.float64)
    fn = scattered_then_read if mode == "eager" else me.function(scattered_then_read)
    me.testing.check_gradients(fn, x, w)
    with me.GradientTape() as tape:
        tape.watch(x)
        y = fn(x, w)
    # d/dx: row 0 of x * w went to row 4 (weights 8, 9, plus the read's 2 (x w) w); row 1 was overwritten
    # by sin(x[0]) (weights 2, 3)
    xw = x.numpy() * w.numpy()
    expected = np.array([(np.array([8.0, 9.0]) + 2 * xw[0]) * w.numpy() + np.cos(x.numpy()[0]) * [2.0, 3.0],
                         [0.0, 0.0]])
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), expected, rtol=1e-12)


def test_a_second_derivative_through_a_graph_loop_under_outer_tapes():
    @me.function
    def cubes(x):
        ta = me.TensorArray(me.float64, size=3)
        for i in me.range(3):
            ta = ta.write(i, x ** me.cast(i + 1, me.float64))
        return me.reduce_sum(ta.stack())                # x + x^2 + x^3

    x = me.constant(0.5, me.float64)
    with me.GradientTape() as outer:
        outer.watch(x)
        with me.GradientTape() as inner:
            inner.watch(x)
            y = cubes(x)
        dy = inner.gradient(y, x)
    assert abs(float(dy) - (1 + 2 * 0.5 + 3 * 0.25)) < 1e-12
    assert abs(float(outer.gradient(dy, x)) - (2 + 6 * 0.5)) < 1e-12


def test_a_saved_model_keeps_a_loop_that_fills_a_tensor_array(tmp_path):
    class Positives(me.Module):
        @me.function(input_signature=[me.TensorSpec([None, 2])])
        def __call__(self, x):
            ta = me.TensorArray(me.float32, size=0, dynamic_size=True, element_shape=[None])
            for i in me.range(me.shape(x)[0]):
                ta = ta.write(i, me.boolean_mask(x[i], x[i] > 0) * 2.0)
            return ta.concat()

    x = me.constant([[1.0, -2.0], [3.0, -4.0]])
    me.saved_model.save(Positives(), str(tmp_path / "positives"))
    loaded = me.saved_model.load(str(tmp_path / "positives"))
    np.testing.assert_array_equal(loaded(x).numpy(), [2.0, 6.0])
    np.testing.assert_array_equal(loaded(me.constant([[5.0, 1.0]])).numpy(), [10.0, 2.0])


def write_without_keeping_the_result(n):
    ta = me.TensorArray(me.float32, size=3, element_shape=[])
    for i in me.range(n):
        ta.write(i, 1.0)
    return ta.stack()


def test_a_write_whose_result_is_dropped_in_a_loop_is_an_error_eagerly_and_traced():
    # TF 2.21: its eager arrays change in place (the loop fills the array: [1, 1, 1]); its tf.function drops the
    # writes ([0, 0, 0], with a logged warning). minieager raises in both modes, each at its first chance.
    with pytest.raises(InvalidArgumentError, match=r"TensorArray.write: this TensorArray was replaced by the one a "
                                                   r"write .* ta = ta.write\(i, value\)"):
        write_without_keeping_the_result(me.constant(3))
    with pytest.raises(InvalidArgumentError, match=r"TensorArray.write: an array that a write returned in a loop "
                                                   r"body or a branch is never used, so the write is lost .* "
                                                   r"ta = ta.write\(i, value\)"):
        me.function(write_without_keeping_the_result)(me.constant(3))
