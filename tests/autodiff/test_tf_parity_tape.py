"""Tape and tfe semantics that follow TensorFlow (issue 20): each test names the TF behaviour it ports."""
import numpy as np
import pytest

import minieager as me


# ---- GradientTape ------------------------------------------------------------------------------------
def test_re_entering_an_active_tape_raises_as_in_tf():
    # TF (backprop_test.testTapeReEntry...): "Tape is still recording, This can happen if you try to
    # re-enter an already-active tape."
    x = me.constant(2.0)
    with me.GradientTape(persistent=True) as tape:
        tape.watch(x)
        with pytest.raises(ValueError, match="Tape is still recording"):
            with tape:
                pass
        y = x * x
    with tape:            # closed again: entering it once more is fine (a persistent tape resumes)
        z = y * x
    assert tape.gradient(z, x).numpy() == 12.0


def test_variables_read_by_python_comparisons_are_watched_as_in_tf():
    # TF: max(vars) reads each variable through a comparison op, and every variable read under the tape
    # is watched (watch_accessed_variables), even by an op without a gradient.
    a, b = me.Variable(1.0), me.Variable(3.0)
    with me.GradientTape() as tape:
        biggest = max([a, b])
        y = biggest * biggest
    assert biggest is b
    assert set(map(id, tape.watched_variables())) == {id(a), id(b)}
    grads = tape.gradient(y, [a, b])
    assert grads[0] is None and grads[1].numpy() == 6.0


def test_unwatched_comparisons_do_not_watch_non_trainable_variables():
    v = me.Variable(1.0, trainable=False)
    with me.GradientTape() as tape:
        _ = v > 0.0
    assert tape.watched_variables() == ()


def test_jacobian_accepts_tfs_arguments():
    # TF: jacobian(target, sources, unconnected_gradients=..., parallel_iterations=None, experimental_use_pfor=True)
    x, unused = me.constant([1.0, 2.0]), me.constant([5.0])
    with me.GradientTape(persistent=True) as tape:
        tape.watch([x, unused])
        y = x * x
    jac = tape.jacobian(y, x, parallel_iterations=4, experimental_use_pfor=False)
    np.testing.assert_array_equal(jac.numpy(), [[2.0, 0.0], [0.0, 4.0]])
    assert tape.jacobian(y, unused) is None
    zeros = tape.jacobian(y, unused, unconnected_gradients=me.UnconnectedGradients.ZERO)
    np.testing.assert_array_equal(zeros.numpy(), np.zeros((2, 1)))
    assert tape.jacobian(y, unused, unconnected_gradients="zero").shape == (2, 1)


def test_jacobian_of_nested_sources_has_their_structure_as_in_tf():
    # TF: tape.jacobian(y, [w, b]) returns a list of Jacobians, one per source.
    w, b = me.constant([[1.0, 2.0], [3.0, 4.0]]), me.constant([0.5, -0.5])
    x = me.constant([[1.0, -1.0]])
    with me.GradientTape() as tape:
        tape.watch([w, b])
        y = me.matmul(x, w) + b                          # (1, 2)
    jw, jb = tape.jacobian(y, [w, b])
    assert jw.shape == (1, 2, 2, 2) and jb.shape == (1, 2, 2)
    np.testing.assert_array_equal(jw.numpy()[0, 1], [[0.0, 1.0], [0.0, -1.0]])    # d y_1 / d w
    np.testing.assert_array_equal(jb.numpy()[0], np.eye(2))
    with me.GradientTape(persistent=True) as tape:
        tape.watch([w, b])
        y = me.reduce_sum(w)
    jacobians = tape.jacobian(y, {"w": w, "b": b})
    assert jacobians["b"] is None and jacobians["w"].shape == (2, 2)
    assert tape.jacobian(y, {"b": b}, unconnected_gradients="zero")["b"].numpy().tolist() == [0.0, 0.0]


def test_batch_jacobian_accepts_tfs_arguments_and_checks_ranks():
    # TF: batch_jacobian needs target and source of rank >= 2 sharing their first dimension (ValueError).
    x = me.constant(np.arange(6.0).reshape(3, 2))
    with me.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        s = me.reduce_sum(x, axis=1)             # (3,): rank 1
    jac = tape.batch_jacobian(y, x, unconnected_gradients="none", parallel_iterations=2, experimental_use_pfor=True)
    assert jac.shape == (3, 2, 2)
    np.testing.assert_array_equal(jac.numpy()[1], np.diag([4.0, 6.0]))
    with pytest.raises(ValueError, match=r"target must have rank at least 2.*\(3,\)"):
        tape.batch_jacobian(s, x)
    with pytest.raises(ValueError, match=r"source must have rank at least 2"):
        tape.batch_jacobian(y, me.constant([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="first dimension"):
        tape.batch_jacobian(y, me.constant(np.ones((2, 2))))


# ---- the tfe functions -----------------------------------------------------------------------------
def test_gradients_function_gives_each_argument_its_own_gradient_as_in_tf():
    # TF (backprop_test.testGradientsFunctionSameArg...): grad(f)(x, x) for f(a, b) = a * b is [x, x].
    x = me.constant(3.0)
    grads = me.gradients_function(lambda a, b: a * b)(x, x)
    assert [g.numpy() for g in grads] == [3.0, 3.0]


def test_dy_is_the_output_gradient_as_in_tf():
    # TF: gradients_function(f)(x, dy=...) passes dy as the output gradient.
    f = me.gradients_function(lambda a: a * a)
    (g,) = f(me.constant([1.0, 2.0]), dy=me.constant([10.0, 100.0]))
    np.testing.assert_array_equal(g.numpy(), [20.0, 400.0])
    value, (g,) = me.value_and_gradients_function(lambda a: a * 3.0)(me.constant(1.0), dy=2.0)
    assert value.numpy() == 3.0 and g.numpy() == 6.0


def test_implicit_gradients_orders_variables_by_creation_as_in_tf():
    # TF sorts the watched variables by creation, not by the order the function read them.
    first, second = me.Variable(1.0), me.Variable(2.0)
    pairs = me.implicit_gradients(lambda: second * 3.0 + first * 5.0)()
    assert [v for _, v in pairs] == [first, second] and [v is w for (_, v), w in zip(pairs, (first, second))] == [True, True]
    assert [g.numpy() for g, _ in pairs] == [5.0, 3.0]


def test_make_vjp_as_in_tf():
    # TF: make_vjp(f)(*args) -> (result, vjp); vjp(dy) gives the gradient for each argument.
    result, vjp = me.make_vjp(lambda a, b: a * b)(me.constant(2.0), me.constant(5.0))
    assert result.numpy() == 10.0
    assert [g.numpy() for g in vjp()] == [5.0, 2.0]
    assert [g.numpy() for g in vjp(me.constant(3.0))] == [15.0, 6.0]     # persistent: call it again
    _, vjp_b = me.make_vjp(lambda a, b: a * b, params=[1])(me.constant(2.0), me.constant(5.0))
    assert [g.numpy() for g in vjp_b()] == [2.0]


@pytest.mark.parametrize("wrapper", [me.gradients_function, me.value_and_gradients_function, me.make_vjp,
                                     me.implicit_gradients, me.implicit_value_and_gradients],
                         ids=lambda w: w.__name__)
def test_a_function_returning_none_is_a_value_error_as_in_tf(wrapper):
    def forgot_return(*args):
        me.constant(1.0) * 2.0

    with pytest.raises(ValueError, match="Cannot differentiate a function that returns None; did you forget to "
                                         "return a value from forgot_return"):
        wrapper(forgot_return)(me.constant(1.0))


# ---- the gradient checker ---------------------------------------------------------------------------
def test_compute_gradient_returns_theoretical_and_numerical_jacobians_as_in_tf():
    # TF: tf.test.compute_gradient(f, [x]) returns two lists of (y_size, x_size) arrays.
    x = np.array([[0.5, -1.0, 2.0]])
    w = np.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.0]])
    theoretical, numerical = me.test.compute_gradient(
        lambda a, b: me.tanh(me.matmul(a, b)), [me.constant(x), me.constant(w)])
    assert [t.shape for t in theoretical] == [(2, 3), (2, 6)]
    assert [n.shape for n in numerical] == [(2, 3), (2, 6)]
    expected = (1 - np.tanh(x @ w) ** 2).reshape(2, 1) * w.T          # d y_j / d x_i
    np.testing.assert_allclose(theoretical[0], expected, rtol=1e-12)
    assert me.test.max_error(theoretical, numerical) < 1e-6


def test_compute_gradient_catches_a_wrong_gradient():
    @me.custom_gradient
    def wrong_square(x):
        return x * x, lambda dy: dy * 3.0 * x          # should be 2x

    theoretical, numerical = me.test.compute_gradient(wrong_square, [me.constant([1.0, 2.0], me.float64)])
    np.testing.assert_allclose(theoretical[0], np.diag([3.0, 6.0]))
    np.testing.assert_allclose(numerical[0], np.diag([2.0, 4.0]), rtol=1e-9)
    assert me.test.max_error(theoretical, numerical) == pytest.approx(2.0)


def test_compute_gradient_needs_a_list_of_arguments_as_in_tf():
    with pytest.raises(ValueError, match=r"list or tuple.*compute_gradient\(f, \[x\]\)"):
        me.test.compute_gradient(me.square, me.constant(1.0))


def test_max_error_is_the_largest_gap():
    assert me.test.max_error([np.zeros((2, 2)), np.ones(3)], [np.full((2, 2), 0.5), np.array([1.0, 4.0, 1.0])]) == 3.0
    assert me.test.max_error([np.zeros((0, 2))], [np.zeros((0, 2))]) == 0.0
