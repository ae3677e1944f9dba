"""me.testing.check_gradients itself: it passes right gradients and catches wrong ones."""
import numpy as np
import pytest

import minieager as me
from minieager.testing import GradientCheckError, GradientCheckResult, check_gradients


@me.custom_gradient
def wrong_square(x):
    def grad(dy):
        return dy * x * 3.0                 # deliberately wrong: should be 2x
    return x * x, grad


@me.custom_gradient
def wrong_in_one_element(x):
    def grad(dy):
        return dy * me.constant([1.0, 1.0, 1.5], dtype=dy.dtype)
    return x * 1.0, grad


def test_a_right_gradient_passes_with_a_result_per_input():
    results = check_gradients(lambda a, b: a * b, np.ones(3), np.arange(3.0))
    assert [type(r) for r in results] == [GradientCheckResult] * 2
    assert [r.input_index for r in results] == [0, 1]
    assert all(r.ok and r.max_abs_error < 1e-8 for r in results)


def test_a_wrong_custom_gradient_is_caught_and_the_input_named():
    with pytest.raises(GradientCheckError, match=r"(?s)wrong_square.*input 0"):
        check_gradients(wrong_square, np.array([1.0, 2.0]))


def test_only_the_wrong_input_is_reported():
    def f(a, b):
        return a * 2.0 + wrong_square(b)
    with pytest.raises(GradientCheckError) as info:
        check_gradients(f, np.ones(2), np.ones(2))
    assert "input 1" in str(info.value) and "input 0" not in str(info.value)


def test_every_element_is_checked():
    results = check_gradients(wrong_in_one_element, np.ones(3), raise_on_failure=False)
    assert not results[0].ok
    assert results[0].worst_position == (2,)


def test_large_inputs_are_checked_along_random_directions():
    results = check_gradients(lambda x: me.tanh(x) * x, np.linspace(-1, 1, 300), max_elements=100)
    assert results[0].ok and results[0].worst_position[0] == "direction"
    bad = check_gradients(wrong_square, np.linspace(-1, 1, 300), max_elements=100, raise_on_failure=False)
    assert not bad[0].ok


def test_a_missing_gradient_is_a_mismatch():
    results = check_gradients(lambda x: me.stop_gradient(x) * x, np.array([1.0, 2.0]), raise_on_failure=False)
    assert not results[0].ok
