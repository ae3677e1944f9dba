"""Lesson 05: momentum SGD and Adam written by hand, stepped side by side with the built-in optimizers."""
import numpy as np
import pytest

import minieager as me
from course.expect import expect_close, learner


def _problem(seed):
    """Two variables and a loss with different curvature along each direction."""
    rng = np.random.default_rng(seed)
    a = me.constant(rng.normal(size=(4, 3)).astype(np.float32))
    target = me.constant(rng.normal(size=(4, 2)).astype(np.float32))
    start_w, start_b = rng.normal(size=(3, 2)).astype(np.float32), rng.normal(size=(2,)).astype(np.float32)

    def loss(w, b):
        return me.reduce_mean(me.square(me.matmul(a, w) + b - target)) + 0.1 * me.reduce_sum(me.square(w))
    return loss, start_w, start_b


def _side_by_side(mine, builtin, steps=6, seed=0):
    loss, start_w, start_b = _problem(seed)
    runs = []
    for optimizer in (mine, builtin):
        w, b = me.Variable(start_w, name="w"), me.Variable(start_b, name="b")
        history = []
        for _ in range(steps):
            with me.GradientTape() as tape:
                value = loss(w, b)
            optimizer.apply_gradients(zip(tape.gradient(value, [w, b]), [w, b]))
            history.append((w.numpy().copy(), b.numpy().copy()))
        runs.append(history)
    for step, ((w1, b1), (w2, b2)) in enumerate(zip(*runs), start=1):
        expect_close(w1, w2, f"the (3, 2) variable w after step {step}, against the built-in", rtol=1e-4, atol=1e-6)
        expect_close(b1, b2, f"the (2,) variable b after step {step}, against the built-in", rtol=1e-4, atol=1e-6)


@pytest.mark.momentum
@pytest.mark.parametrize("learning_rate, momentum", [(0.1, 0.9), (0.05, 0.5), (0.1, 0.0)])
def test_momentum_matches_builtin_sgd(ns, learning_rate, momentum):
    MomentumSGD = learner(ns, "MomentumSGD")
    _side_by_side(MomentumSGD(learning_rate, momentum), me.optimizers.SGD(learning_rate, momentum=momentum))


@pytest.mark.adam
@pytest.mark.parametrize("learning_rate, beta_1, beta_2", [(0.1, 0.9, 0.999), (0.01, 0.5, 0.9)])
def test_adam_matches_builtin_adam(ns, learning_rate, beta_1, beta_2):
    MyAdam = learner(ns, "MyAdam")
    _side_by_side(MyAdam(learning_rate, beta_1, beta_2, 1e-7), me.optimizers.Adam(learning_rate, beta_1, beta_2, 1e-7))


@pytest.mark.adam
def test_adam_keeps_state_per_variable(ns):
    """Two variables stepped by the same optimizer in separate calls must not share m and v."""
    MyAdam = learner(ns, "MyAdam")
    mine, builtin = MyAdam(0.1), me.optimizers.Adam(0.1)
    results = []
    for optimizer in (mine, builtin):
        u, v = me.Variable([1.0, -2.0]), me.Variable([3.0])
        for grad_u, grad_v in [([1.0, 2.0], [0.5]), ([-1.0, 0.5], [2.0])]:
            optimizer.apply_gradients([(me.constant(grad_u), u), (me.constant(grad_v), v)])
        results.append((u.numpy(), v.numpy()))
    expect_close(results[0][0], results[1][0], "variable u after two steps, against the built-in", rtol=1e-5)
    expect_close(results[0][1], results[1][1], "variable v after two steps, against the built-in", rtol=1e-5)
