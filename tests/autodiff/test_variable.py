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


def test_default_names_are_unique_in_a_fresh_process():
    code = textwrap.dedent("""
        import minieager as me
        a, b, c = me.Variable(1.0), me.Variable(2.0), me.Variable(3.0)
        w, w2 = me.Variable(5.0, name="weight"), me.Variable(5.0, name="weight")
        print(a.name, b.name, c.name, w.name, w2.name)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["Variable:0", "Variable_1:0", "Variable_2:0", "weight:0", "weight_1:0"]


def test_names_with_a_given_base_are_unique():
    first = me.Variable(0.0, name="autodiff_test_unique")
    second = me.Variable(0.0, name="autodiff_test_unique")
    assert first.name == "autodiff_test_unique:0"
    assert second.name == "autodiff_test_unique_1:0"


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
    with pytest.raises(ValueError, match=r"shape_check.*\(3,\).*\(2,\)"):
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


def test_assign_add_broadcasts_a_delta_but_never_changes_the_shape():
    v = me.Variable([1.0, 2.0], name="broadcast_check")
    v.assign_add(1.0)
    np.testing.assert_array_equal(v.numpy(), [2.0, 3.0])
    with pytest.raises(ValueError, match=r"broadcast_check.*\(2, 2\)"):
        v.assign_sub(me.ones([2, 2]))
    np.testing.assert_array_equal(v.numpy(), [2.0, 3.0])


def test_updates_inside_a_tape_are_not_recorded():
    v = me.Variable(1.0)
    with me.GradientTape() as tape:
        v.assign_add(1.0)
        v.assign_sub(0.5)
        v.assign(3.0)
    assert tape.records == []
    assert v.numpy() == 3.0
