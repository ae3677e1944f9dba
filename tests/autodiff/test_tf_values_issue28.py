"""Wrong values found by running TensorFlow's guides with ``me.`` (issue 28): each test states TF's answer.

The expected values were read off TensorFlow 2.21 for the same code.
"""
import numpy as np
import pytest

import minieager as me


def test_gradient_of_a_variable_by_itself_is_ones_even_if_never_read():
    # TF: tape.gradient(v, v) -> 1.0, for a variable the block never read, non-trainable or not watched.
    v = me.Variable([2.0, 3.0])
    with me.GradientTape() as tape:
        pass
    np.testing.assert_array_equal(tape.gradient(v, v).numpy(), [1.0, 1.0])
    frozen = me.Variable(2.0, trainable=False)
    with me.GradientTape(watch_accessed_variables=False) as tape:
        pass
    assert tape.gradient(frozen, frozen).numpy() == 1.0


def test_gradient_of_a_tensor_by_itself_is_ones_and_adds_to_other_paths():
    x = me.constant(3.0)
    with me.GradientTape() as tape:      # TF: even an unwatched constant: ones
        pass
    assert tape.gradient(x, x).numpy() == 1.0
    with me.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    # d(x + x*x)/dx = 1 + 2x = 7, as TF's gradient([x, y], x)
    assert tape.gradient([x, y], x).numpy() == 7.0


def test_gradient_of_a_variable_by_itself_uses_output_gradients():
    v = me.Variable([1.0, 2.0])
    with me.GradientTape() as tape:
        pass
    g = tape.gradient(v, v, output_gradients=me.constant([5.0, 6.0]))
    np.testing.assert_array_equal(g.numpy(), [5.0, 6.0])


def test_convert_to_tensor_of_a_variable_is_a_tensor_snapshot_on_the_tape():
    v = me.Variable([1.0, 2.0])
    with me.GradientTape() as tape:
        t = me.convert_to_tensor(v)
        y = me.reduce_sum(t * 3.0)
    assert type(t) is me.Tensor and not isinstance(t, me.Variable)     # TF: an EagerTensor
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [3.0, 3.0])
    v.assign([7.0, 8.0])
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])      # a snapshot: later assigns do not change it


def test_convert_to_tensor_dtype_and_dtype_hint():
    assert me.convert_to_tensor(2, dtype_hint=me.float32).dtype == me.float32     # TF: 2.0 float32
    assert me.convert_to_tensor(2.5, dtype_hint=me.int32).dtype == me.float32     # a hint, not a demand
    with pytest.raises(me.errors.InvalidArgumentError, match="cast"):
        me.convert_to_tensor(me.Variable(1.0), dtype=me.int32)


def test_next_on_a_dataset_iterator_inside_function_advances_each_call():
    # TF: 1, 2, 3 (not the traced element every time), then OutOfRangeError at the end.
    it = iter(me.data.Dataset.from_tensor_slices([1, 2, 3]))

    @me.function
    def f():
        return next(it) * 10

    assert [f().numpy().item() for _ in range(3)] == [10, 20, 30]
    with pytest.raises(me.errors.OutOfRangeError, match="End of sequence"):
        f()


def test_next_inside_function_keeps_structure_and_names_a_shape_change():
    ds = me.data.Dataset.from_tensor_slices(([1.0, 2.0, 3.0], [[1, 2], [3, 4], [5, 6]])).batch(2)
    it = iter(ds)

    @me.function
    def f():
        return next(it)

    x, y = f()
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(y.numpy(), [[1, 2], [3, 4]])
    with pytest.raises(me.errors.InvalidArgumentError, match=r"next\(iterator\).*shape \(1,\).*drop_remainder"):
        f()


def test_next_outside_function_after_a_traced_call_does_not_skip_an_element():
    it = iter(me.data.Dataset.range(5))

    @me.function
    def f():
        return next(it)

    assert f().numpy() == 0
    assert next(it).numpy() == 1
    assert f().numpy() == 2
