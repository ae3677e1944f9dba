"""Each misuse of the tape gives a clear error (or, for an int watch, a warning), as the issue lists."""
import numpy as np
import pytest

import minieager as me


def _recorded_square():
    x = me.constant([1.0, 2.0])
    tape = me.GradientTape()
    with tape:
        tape.watch(x)
        y = x * x
    return tape, x, y


def test_gradient_twice_on_a_non_persistent_tape():
    tape, x, y = _recorded_square()
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match=r"only be used to compute one set of gradients.*persistent=True"):
        tape.gradient(y, x)


@pytest.mark.parametrize("source", [1.0, [1.0, 2.0], np.ones(2), "x", None])
def test_a_source_that_is_not_a_tensor(source):
    tape, x, y = _recorded_square()
    with pytest.raises(TypeError, match=r"source must be a Tensor or Variable"):
        tape.gradient(y, source)


def test_a_target_that_is_not_a_tensor():
    tape, x, _ = _recorded_square()
    with pytest.raises(TypeError, match="target must be a Tensor"):
        tape.gradient(3.0, x)


@pytest.mark.parametrize("value", [3.0, np.array([1.0, 2.0]), [me.constant(1.0), np.float32(2.0)]], ids=str)
def test_watching_a_python_number_or_numpy_array_is_a_value_error(value):
    # TF: tape.watch(np.array(...)) raises ValueError "Passed in object ... of type 'ndarray', not tf.Tensor".
    with me.GradientTape() as tape:
        with pytest.raises(ValueError, match=r"tape.watch\(\) takes tensors or variables, not .*me.constant"):
            tape.watch(value)


@pytest.mark.parametrize("value", [me.constant(3), me.constant([True, False]), me.Variable([1, 2])])
def test_watching_a_non_float_tensor_warns(value):
    with me.GradientTape() as tape:
        with pytest.warns(UserWarning, match=r"must be floating.*gradient will be None"):
            tape.watch(value)
        y = value * 2 if not value.dtype.is_bool else me.cast(value, me.float32)
    assert tape.gradient(y, value) is None


@pytest.mark.parametrize("shape", [(3,), (2, 1), ()])
def test_output_gradients_of_the_wrong_shape(shape):
    tape, x, y = _recorded_square()
    with pytest.raises(ValueError, match=r"output_gradients must have the target's shape \(2,\)"):
        tape.gradient(y, x, output_gradients=me.ones(shape))


def test_output_gradients_count_must_match_the_targets():
    tape, x, y = _recorded_square()
    with pytest.raises(ValueError, match="2 output_gradients for 1 targets"):
        tape.gradient(y, x, output_gradients=[me.ones([2]), me.ones([2])])


def test_unknown_unconnected_gradients_value():
    tape, x, y = _recorded_square()
    with pytest.raises(ValueError):
        tape.gradient(y, x, unconnected_gradients="zeros_please")
