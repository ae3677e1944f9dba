"""Selective VJPs: matmul and conv2d compute only the input gradients the backward pass needs."""
import numpy as np
import pytest

import minieager as me
from minieager.engine import recording


class OpLog:
    """An observer (the hook tapes use) that notes the name of every op that runs."""

    def __init__(self):
        self.names = []

    def _observe(self, op, inputs, outputs, attrs):
        self.names.append(op.name)


def backward_ops(tape, target, sources):
    log = OpLog()
    recording.add_observer(log)
    try:
        grads = tape.gradient(target, sources)
    finally:
        recording.remove_observer(log)
    return grads, log.names


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def test_conv2d_on_data_skips_the_input_gradient(rng):
    x = me.constant(rng.standard_normal((2, 6, 6, 1)))
    w = me.Variable(rng.standard_normal((3, 3, 1, 4)))
    with me.GradientTape() as tape:
        y = me.reduce_sum(me.nn.conv2d(x, w, 1, "VALID"))
    (dw,), names = backward_ops(tape, y, [w])
    assert "conv2d_backprop_filter" in names
    assert "conv2d_backprop_input" not in names
    # and the filter gradient is still right: d sum(conv(x, w)) / dw = sum of the patches
    windows = np.lib.stride_tricks.sliding_window_view(x.numpy()[..., 0], (3, 3), axis=(1, 2))  # (2, 4, 4, 3, 3)
    for k in range(4):
        np.testing.assert_allclose(dw.numpy()[:, :, 0, k], windows.sum(axis=(0, 1, 2)))


def test_conv2d_gives_both_gradients_when_both_are_watched(rng):
    x = me.constant(rng.standard_normal((1, 5, 5, 2)))
    w = me.constant(rng.standard_normal((3, 3, 2, 3)))
    with me.GradientTape() as tape:
        tape.watch([x, w])
        y = me.reduce_sum(me.nn.conv2d(x, w, 1, "SAME"))
    (dx, dw), names = backward_ops(tape, y, [x, w])
    assert "conv2d_backprop_input" in names and "conv2d_backprop_filter" in names
    assert dx.shape == x.shape and dw.shape == w.shape


def test_matmul_with_a_constant_left_operand_runs_one_product(rng):
    x = me.constant(rng.standard_normal((4, 3)))
    w = me.Variable(rng.standard_normal((3, 2)))
    with me.GradientTape() as tape:
        y = me.reduce_sum(x @ w)
    (dw,), names = backward_ops(tape, y, [w])
    assert names.count("matmul") == 1
    np.testing.assert_allclose(dw.numpy(), x.numpy().T @ np.ones((4, 2)))


@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("transpose_b", [False, True])
def test_matmul_gradient_of_the_left_operand_only(rng, transpose_a, transpose_b):
    a_np = rng.standard_normal((3, 4) if transpose_a else (4, 3))
    b_np = rng.standard_normal((2, 3) if transpose_b else (3, 2))
    a, b = me.constant(a_np), me.constant(b_np)
    with me.GradientTape() as tape:
        tape.watch(a)
        y = me.reduce_sum(me.matmul(a, b, transpose_a=transpose_a, transpose_b=transpose_b))
    (da,), names = backward_ops(tape, y, [a])
    assert names.count("matmul") == 1
    bb = b_np.T if transpose_b else b_np
    expected = np.ones((4, 2)) @ bb.T
    np.testing.assert_allclose(da.numpy(), expected.T if transpose_a else expected)


BINARY = {
    "subtract": me.subtract, "multiply": me.multiply, "divide": me.divide, "mod": me.math.floormod,
    "pow": me.pow, "maximum": me.maximum, "minimum": me.minimum,
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_op_with_one_watched_input_runs_only_that_gradient(rng, name):
    fn = BINARY[name]
    a = me.constant(rng.uniform(0.5, 2.0, (3, 4)))
    b = me.constant(rng.uniform(0.5, 2.0, (4,)))

    def grads(sources):
        with me.GradientTape() as tape:
            tape.watch(sources)
            y = fn(a, b)
        return backward_ops(tape, y, sources)

    full, both_ops = grads([a, b])
    (da,), a_ops = grads([a])
    (db,), b_ops = grads([b])
    np.testing.assert_allclose(da.numpy(), full[0].numpy())
    np.testing.assert_allclose(db.numpy(), full[1].numpy())
    # Each gradient's ops run only when asked for: both together cost exactly the sum of each alone.
    assert sorted(a_ops + b_ops) == sorted(both_ops)
