"""me.Variable: the one mutable tensor (issue 3, "Variables")."""
import gc
import subprocess
import sys
import textwrap
import weakref

import numpy as np
import pytest

import minieager as me


def test_assign_family_updates_in_place_and_returns_the_variable():
    v = me.Variable(1.0)
    assert v.assign(5.0) is v
    assert v.numpy() == 5.0
    assert v.assign_add(2.0) is v
    assert v.numpy() == 7.0
    assert v.assign_sub(3.0) is v
    assert v.numpy() == 4.0


def test_read_value_and_value_are_immutable_snapshots():
    v = me.Variable([1.0, 2.0])
    snapshot, also = v.read_value(), v.value()
    assert type(snapshot) is me.Tensor and type(also) is me.Tensor
    v.assign([10.0, 20.0])
    np.testing.assert_array_equal(snapshot.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(also.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(v.numpy(), [10.0, 20.0])


def test_numpy_returns_a_copy():
    v = me.Variable([1.0, 2.0])
    array = v.numpy()
    array[0] = 99.0
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_initial_value_is_copied():
    source = np.array([1.0, 2.0], np.float32)
    v = me.Variable(source)
    source[0] = 99.0
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_names_are_kept_as_given_as_in_tf_eager():
    # TF eager: tf.Variable(1.0).name is "Variable:0" for every variable, and two variables named "w"
    # are both "w:0" (names are labels; only graph mode made them unique).
    a, b = me.Variable(1.0), me.Variable(2.0)
    w, w2 = me.Variable(5.0, name="w"), me.Variable(5.0, name="w")
    assert [a.name, b.name, w.name, w2.name] == ["Variable:0", "Variable:0", "w:0", "w:0"]


def test_variables_with_one_name_checkpoint_and_train_apart(tmp_path):
    # TF: checkpoints key variables by the object graph (attribute names), not by variable names.
    first, second = me.Variable([1.0], name="w"), me.Variable([2.0], name="w")
    opt = me.optimizers.Adam(0.1)
    ckpt = me.train.Checkpoint(first=first, second=second, opt=opt)
    with me.GradientTape() as tape:
        loss = me.reduce_sum(first * 3.0 + second * 5.0)
    opt.apply_gradients(zip(tape.gradient(loss, [first, second]), [first, second]))
    assert opt.get_slot(first, "m") is not opt.get_slot(second, "m")
    path = ckpt.save(str(tmp_path / "ckpt"))
    saved = first.numpy(), second.numpy()
    first.assign([0.0]), second.assign([0.0])
    ckpt.restore(path)
    np.testing.assert_array_equal(first.numpy(), saved[0])
    np.testing.assert_array_equal(second.numpy(), saved[1])
    assert saved[0] != saved[1]


def test_shape_dtype_device_trainable():
    v = me.Variable(np.zeros((2, 3), np.float64), trainable=False)
    assert v.shape == (2, 3)
    assert v.dtype == me.float64
    assert v.device == me.constant(0.0).device
    assert v.trainable is False
    assert me.Variable(1.0).trainable is True


def test_dtype_argument_converts_the_initial_value():
    v = me.Variable(0.1, dtype=me.float64)
    assert v.dtype == me.float64
    assert v.numpy() == 0.1           # converted straight to float64, not through float32
    assert me.Variable([1, 2], dtype="float32").dtype == me.float32


def test_callable_initial_value():
    v = me.Variable(lambda: me.ones([2]))
    np.testing.assert_array_equal(v.numpy(), [1.0, 1.0])


def test_print_format():
    v = me.Variable(5.0, name="weight")
    text = f"<me.Variable '{v.name}' shape=() dtype=float32, numpy=5.0>"
    assert repr(v) == text
    assert str(v) == text
    m = me.Variable([[1.0, 2.0]])
    assert repr(m).startswith(f"<me.Variable '{m.name}' shape=(1, 2) dtype=float32, numpy=")


@pytest.mark.parametrize("expression, expected", [
    (lambda v: v + 1, [3.0, 5.0]),
    (lambda v: 1 + v, [3.0, 5.0]),
    (lambda v: v - 1, [1.0, 3.0]),
    (lambda v: 10 - v, [8.0, 6.0]),
    (lambda v: v * 2, [4.0, 8.0]),
    (lambda v: 2 * v, [4.0, 8.0]),
    (lambda v: v / 2, [1.0, 2.0]),
    (lambda v: 8 / v, [4.0, 2.0]),
    (lambda v: v // 3, [0.0, 1.0]),
    (lambda v: 9 // v, [4.0, 2.0]),
    (lambda v: v % 3, [2.0, 1.0]),
    (lambda v: v ** 2, [4.0, 16.0]),
    (lambda v: 2 ** v, [4.0, 16.0]),
    (lambda v: -v, [-2.0, -4.0]),
    (lambda v: +v, [2.0, 4.0]),
    (lambda v: abs(-v), [2.0, 4.0]),
    (lambda v: v[1], 4.0),
    (lambda v: v + v, [4.0, 8.0]),
    (lambda v: v == 2.0, [True, False]),
    (lambda v: v != 2.0, [False, True]),
    (lambda v: v < 3.0, [True, False]),
    (lambda v: v <= 2.0, [True, False]),
    (lambda v: v > 3.0, [False, True]),
    (lambda v: v >= 4.0, [False, True]),
    (lambda v: me.exp(me.log(v)), [2.0, 4.0]),
    (lambda v: me.reduce_sum(v), 6.0),
    (lambda v: me.reshape(v, [2, 1]), [[2.0], [4.0]]),
    (lambda v: np.asarray(v) * 1, [2.0, 4.0]),
])
def test_every_operator_and_op_accepts_a_variable(expression, expected):
    result = expression(me.Variable([2.0, 4.0]))
    np.testing.assert_allclose(np.asarray(result), expected, rtol=1e-6)


def test_matmul_operators_accept_a_variable():
    v = me.Variable([[1.0, 2.0], [3.0, 4.0]])
    c = me.constant([[1.0], [1.0]])
    np.testing.assert_allclose((v @ c).numpy(), [[3.0], [7.0]])
    np.testing.assert_allclose((me.transpose(c) @ v).numpy(), [[4.0, 6.0]])
    np.testing.assert_allclose((v @ v).numpy(), [[7.0, 10.0], [15.0, 22.0]])


def test_variable_in_bool_context_and_len():
    assert bool(me.Variable(1.0))
    assert len(me.Variable([1.0, 2.0, 3.0])) == 3
    assert float(me.Variable(2.5)) == 2.5


@pytest.mark.parametrize("statement, method", [
    ("v += 1", "assign_add"),
    ("v -= 1", "assign_sub"),
    ("v *= 2", "assign"),
    ("v /= 2", "assign"),
])
def test_augmented_assignment_raises_and_points_to_assign(statement, method):
    v = me.Variable(1.0)
    namespace = {"v": v}
    with pytest.raises(TypeError, match=method):
        exec(statement, namespace)
    assert namespace["v"] is v and v.numpy() == 1.0


def test_assign_with_a_different_shape_is_a_clear_error():
    v = me.Variable([1.0, 2.0], name="shape_check")
    with pytest.raises(ValueError, match=r"shape_check.*\[2\].*\[3\]"):
        v.assign([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_assign_with_a_different_dtype_is_a_clear_error():
    v = me.Variable(1.0, name="dtype_check")
    with pytest.raises(ValueError, match=r"dtype_check.*float64.*float32"):
        v.assign(me.constant(2.0, dtype=me.float64))
    with pytest.raises(ValueError, match="int32"):
        v.assign_add(me.constant(1))
    assert v.numpy() == 1.0


def test_assign_accepts_python_numbers_of_the_variables_kind():
    v = me.Variable(1.0)
    v.assign(3)                      # a Python int becomes a float32 value
    assert v.numpy() == 3.0 and v.dtype == me.float32
    i = me.Variable(1)
    i.assign_add(2)
    assert i.numpy() == 3 and i.dtype == me.int32


def test_tensors_read_before_an_assign_keep_their_value():
    v = me.Variable(1.0)
    doubled = v * 2
    v.assign(10.0)
    assert doubled.numpy() == 2.0


def test_dropping_the_last_reference_frees_the_variable_and_its_buffer():
    v = me.Variable(np.ones((100, 100), np.float32))
    variable_ref, buffer_ref = weakref.ref(v), weakref.ref(v._value)
    del v
    assert variable_ref() is None and buffer_ref() is None   # plain reference counting, no collection
    gc.collect()
    assert variable_ref() is None


def test_a_variable_used_in_a_tape_is_freed_with_the_tape():
    v = me.Variable(3.0)
    with me.GradientTape() as tape:
        y = v * v
    tape.gradient(y, v)
    ref = weakref.ref(v)
    del v, tape, y
    assert ref() is None


@pytest.mark.parametrize("method", ["assign", "assign_add", "assign_sub"])
def test_updates_need_exactly_the_variables_shape_as_in_tf(method):
    # TF: tf.Variable([1., 2.]).assign_add(1.0) raises InvalidArgumentError "Cannot update variable with
    # shape [2] using a Tensor with shape [], shapes must be equal."; nothing is broadcast.
    v = me.Variable([1.0, 2.0], name="broadcast_check")
    for value in (1.0, me.ones([2, 2]), [1.0]):
        with pytest.raises(me.errors.InvalidArgumentError,
                           match=rf"{method}: cannot update Variable 'broadcast_check:0' with shape \[2\] using a "
                                 rf"value with shape \[.*\]: shapes must be equal"):
            getattr(v, method)(value)
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


@pytest.mark.parametrize("method", ["assign", "assign_add", "assign_sub"])
def test_read_value_false_returns_none_as_in_tf(method):
    # TF: v.assign(x, read_value=False) returns None (the update op), not the variable.
    v = me.Variable([1.0, 2.0])
    assert getattr(v, method)([1.0, 1.0], read_value=False) is None
    assert getattr(v, method)([1.0, 1.0]) is v


def test_python_values_that_do_not_fit_the_variable_are_an_error():
    # TF: tf.Variable(1).assign(2.5) raises TypeError "Cannot convert 2.5 to EagerTensor of dtype int32".
    v = me.Variable([1, 2], dtype=me.uint8)
    with pytest.raises(me.errors.InvalidArgumentError, match=r"300.*does not fit.*uint8"):
        v.assign_add([300, 0])
    with pytest.raises(me.errors.InvalidArgumentError, match=r"2.5 does not fit in int32, the variable.s dtype.*me.Variable\(\.\.\., dtype=me.float32\)"):
        me.Variable(1).assign(2.5)


def test_sliced_assignment_as_in_tf():
    # TF: v[0].assign(x) and v[1:3].assign(x) write into the variable (strided_slice_assign) and return it.
    v = me.Variable([1.0, 2.0, 3.0, 4.0])
    assert v[0].assign(9.0) is v
    assert v[1:3].assign([7.0, 8.0]) is v
    np.testing.assert_array_equal(v.numpy(), [9.0, 7.0, 8.0, 4.0])
    m = me.Variable(np.zeros((2, 3), np.float32))
    m[:, 1].assign([1.0, 2.0])
    m[1].assign(me.constant([5.0, 6.0, 7.0]))
    np.testing.assert_array_equal(m.numpy(), [[0, 1, 0], [5, 6, 7]])
    assert v[0].assign(1.0, read_value=False) is None


def test_a_slice_of_a_variable_is_a_tensor_read_at_that_moment():
    v = me.Variable([1.0, 2.0, 3.0])
    part = v[1:]
    v.assign([0.0, 0.0, 0.0])
    np.testing.assert_array_equal(part.numpy(), [2.0, 3.0])
    with me.GradientTape() as tape:
        y = me.reduce_sum(v[1:] * 2.0)
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [0.0, 2.0, 2.0])


def test_sliced_assignment_needs_the_slice_shape_and_the_variable_dtype():
    # TF: "sliced l-value shape [2] does not match r-value shape []".
    v = me.Variable([1.0, 2.0, 3.0], name="sliced")
    with pytest.raises(me.errors.InvalidArgumentError, match=r"'sliced:0' has shape \[2\] but the value has shape \[\]"):
        v[1:].assign(1.0)
    with pytest.raises(me.errors.InvalidArgumentError, match="dtype int32.*me.cast"):
        v[0].assign(me.constant(1))
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0, 3.0])


def test_scatter_update_and_scatter_nd_update_as_in_tf():
    # TF: v.scatter_update(tf.IndexedSlices(values, indices)) replaces rows; scatter_nd_update(indices, updates)
    # writes at coordinates.
    v = me.Variable(np.zeros((3, 2), np.float32))
    assert v.scatter_update(me.IndexedSlices(me.constant([[1.0, 2.0], [3.0, 4.0]]), me.constant([2, 0]))) is v
    np.testing.assert_array_equal(v.numpy(), [[3, 4], [0, 0], [1, 2]])
    v.scatter_nd_update([[1, 1], [0, 0]], [9.0, 8.0])
    np.testing.assert_array_equal(v.numpy(), [[8, 4], [0, 9], [1, 2]])
    v.scatter_nd_update([[1]], [[5.0, 6.0]])
    np.testing.assert_array_equal(v.numpy(), [[8, 4], [5, 6], [1, 2]])
    with pytest.raises(me.errors.InvalidArgumentError, match=r"scatter_nd_update.*shape \[2\] but the value has shape \[3\]"):
        v.scatter_nd_update([[1, 1], [0, 0]], [1.0, 2.0, 3.0])
    with pytest.raises(me.errors.InvalidArgumentError, match="index 3 is out of bounds"):
        v.scatter_update(me.IndexedSlices(me.constant([[1.0, 2.0]]), me.constant([3])))


def test_shape_argument_fixes_or_frees_dimensions_as_in_tf():
    # TF: tf.Variable(x, shape=[None]) may later be assigned a value of another length; a fixed shape
    # that does not match the initial value is an error.
    v = me.Variable([1.0, 2.0], shape=[None])
    v.assign([1.0, 2.0, 3.0])
    assert v.shape == (3,)
    with pytest.raises(me.errors.InvalidArgumentError, match=r"shape \[None\].*shape \[1, 3\]"):
        v.assign([[1.0, 2.0, 3.0]])
    with pytest.raises(me.errors.InvalidArgumentError, match=r"initial value has shape \[2\].*shape=\[3\]"):
        me.Variable([1.0, 2.0], shape=[3])
    assert me.Variable([1.0, 2.0], shape=(2,)).shape == (2,)


def test_constraint_is_applied_after_each_optimizer_update_as_in_keras():
    # TF: optimizers apply var.constraint after the update (tf.keras.optimizers ... _apply_constraint).
    v = me.Variable([0.5, -0.5], constraint=lambda w: me.clip_by_value(w, -0.6, 0.6))
    assert v.constraint is not None
    opt = me.optimizers.SGD(1.0)
    with me.GradientTape() as tape:
        loss = me.reduce_sum(v * me.constant([-1.0, 1.0]))
    opt.apply_gradients([(tape.gradient(loss, v), v)])
    np.testing.assert_allclose(v.numpy(), [0.6, -0.6])
    with pytest.raises(TypeError, match="constraint must be a function"):
        me.Variable(1.0, constraint=3)


def test_initializers_are_eager_no_ops_as_in_tf2():
    # TF eager: v.initializer is None and tf.compat.v1.global_variables_initializer() does nothing.
    v = me.Variable(3.0)
    assert v.initializer is None
    assert me.compat.v1.global_variables_initializer() is None
    assert me.compat.v1.local_variables_initializer() is None
    assert v.numpy() == 3.0


def test_updates_inside_a_tape_are_not_recorded():
    v = me.Variable(1.0)
    with me.GradientTape() as tape:
        v.assign_add(1.0)
        v.assign_sub(0.5)
        v.assign(3.0)
    assert tape.records == []
    assert v.numpy() == 3.0
