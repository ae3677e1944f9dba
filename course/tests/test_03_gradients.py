"""Lesson 03: VJPs registered as Ops, and a micrograd-sized scalar tape, checked against minieager's tape."""
import math

import numpy as np
import pytest

import minieager as me
from minieager.extend import Op
from course.expect import call, expect, expect_close, expect_equal, expect_no_calls_to, learner, show as _show


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


# sigmoid_vjp ---------------------------------------------------------------------------------

@pytest.mark.sigmoid_vjp
@pytest.mark.parametrize("shape", [(), (5,), (2, 3)])
def test_sigmoid_vjp_values(ns, shape):
    sigmoid_vjp = learner(ns, "sigmoid_vjp")
    rng = np.random.default_rng(1)
    x, dy = rng.normal(size=shape), rng.normal(size=shape)
    out = _sigmoid(x)
    shown = f"x = {_show(x)}, dy = {_show(dy)}, out = sigmoid(x) = {_show(out)}"
    got = call(sigmoid_vjp, me.constant(dy), me.constant(x), me.constant(out), what=f"sigmoid_vjp(dy, x, out) with {shown}")
    expect(isinstance(got, me.Tensor), f"sigmoid_vjp should return a minieager Tensor, got {type(got).__name__}. "
                                       f"Use minieager ops (*, -) on dy and out, not NumPy.")
    expect_close(got, dy * out * (1 - out), f"sigmoid_vjp(dy, x, out) for x of shape {shape}, with {shown}")


@pytest.mark.sigmoid_vjp
def test_sigmoid_vjp_is_written_with_minieager_ops(ns):
    """The exercise says: minieager ops, not NumPy (an outer tape could not differentiate NumPy)."""
    expect_no_calls_to(learner(ns, "sigmoid_vjp"), {"numpy": "NumPy"}, "sigmoid_vjp")


@pytest.mark.sigmoid_vjp
def test_sigmoid_op_is_recorded_and_used_by_the_tape(ns):
    learner(ns, "sigmoid_vjp")
    my_sigmoid = learner(ns, "my_sigmoid")
    expect(isinstance(my_sigmoid, Op), f"my_sigmoid should be an Op(...), got {type(my_sigmoid).__name__}.")
    expect_equal(my_sigmoid.name, "my_sigmoid", "my_sigmoid's name (the key of its registered kernel)")
    x = me.constant([-2.0, 0.0, 0.5, 3.0], dtype=me.float64)
    with me.GradientTape() as tape:
        tape.watch(x)
        y = my_sigmoid(x)
    expect_equal([r.op_name for r in tape.records], ["my_sigmoid"], "the ops the tape recorded for my_sigmoid(x)")
    expect_close(tape.gradient(y, x), _sigmoid(x.numpy()) * (1 - _sigmoid(x.numpy())),
                 "the tape's gradient of my_sigmoid(x) at x = [-2, 0, 0.5, 3]")
    me.testing.check_gradients(my_sigmoid, np.linspace(-3, 3, 7))


@pytest.mark.sigmoid_vjp
def test_sigmoid_second_derivative_through_your_vjp(ns):
    my_sigmoid = learner(ns, "my_sigmoid")
    x = me.constant(0.7, dtype=me.float64)
    with me.GradientTape() as outer:
        outer.watch(x)
        with me.GradientTape() as inner:
            inner.watch(x)
            y = my_sigmoid(x)
        dy_dx = inner.gradient(y, x)
    d2 = outer.gradient(dy_dx, x)
    s = _sigmoid(0.7)
    expect(d2 is not None, "the second derivative came back as None: the VJP must use minieager ops on its "
                           "inputs (dy, x, out) so that the outer tape can record it.")
    expect_close(d2, s * (1 - s) * (1 - 2 * s), "the second derivative of my_sigmoid at 0.7 (nested tapes)")


# softmax_xent_vjp ------------------------------------------------------------------------------

def _softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _batch(n, classes, seed, scale=1.0):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(n, classes)) * scale
    labels = np.eye(classes)[rng.integers(0, classes, n)]
    return logits, labels


@pytest.mark.softmax_xent_vjp
@pytest.mark.parametrize("n, classes", [(4, 3), (1, 5), (3, 10)])
def test_softmax_xent_vjp_values(ns, n, classes):
    vjp = learner(ns, "softmax_xent_vjp")
    logits, labels = _batch(n, classes, seed=n)
    dy = np.random.default_rng(2).normal(size=n)
    shown = f"logits = {_show(logits)}, labels = {_show(labels)}, dy = {_show(dy)}"
    got = call(vjp, me.constant(dy), me.constant(logits), me.constant(labels), None,
               what=f"softmax_xent_vjp(dy, logits, labels, out) with {shown}")
    expect_close(got, dy[:, None] * (_softmax(logits) - labels),
                 f"softmax_xent_vjp for logits of shape {(n, classes)} and dy of shape {(n,)}, with {shown}")


@pytest.mark.softmax_xent_vjp
def test_softmax_xent_op_matches_the_builtin_gradient(ns):
    op = learner(ns, "my_softmax_xent")
    expect(isinstance(op, Op), f"my_softmax_xent should be an Op(...), got {type(op).__name__}.")
    logits, labels = (me.constant(a) for a in _batch(6, 4, seed=3))
    with me.GradientTape(persistent=True) as tape:
        tape.watch(logits)
        mine = me.reduce_mean(op(logits, labels))
        builtin = me.reduce_mean(me.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    expect_close(mine, builtin, "the mean loss of my_softmax_xent against me.nn.softmax_cross_entropy_with_logits")
    expect_close(tape.gradient(mine, logits), tape.gradient(builtin, logits),
                 "the gradient of the mean loss for the logits, against the built-in op")
    me.testing.check_gradients(lambda z: op(z, labels), logits.numpy())


@pytest.mark.softmax_xent_vjp
def test_softmax_xent_vjp_is_stable_for_large_logits(ns):
    vjp = learner(ns, "softmax_xent_vjp")
    logits, labels = _batch(3, 4, seed=4, scale=1000.0)
    got = vjp(me.ones((3,), dtype=me.float64), me.constant(logits), me.constant(labels), None)
    expect(np.isfinite(got.numpy()).all(), "softmax_xent_vjp gave NaN or Inf for logits around +-1000: "
                                           "exp overflows there; use me.softmax, which subtracts the maximum first.")
    expect_close(got, _softmax(logits) - labels, "softmax_xent_vjp for logits around +-1000")


# scalar_tape -------------------------------------------------------------------------------------

# Each expression is written once and run twice: on your Values and on minieager tensors.
EXPRESSIONS = {
    "a * b + a": lambda a, b, c, ops: a * b + a,
    "(a * b + c).tanh()": lambda a, b, c, ops: ops["tanh"](a * b + c),
    "a * a * a - b": lambda a, b, c, ops: a * a * a - b,
    "(2 * a + 1) * (b - 3)": lambda a, b, c, ops: (2 * a + 1) * (b - 3),
    "exp(a * c) + (a * b).tanh() * c": lambda a, b, c, ops: ops["exp"](a * c) + ops["tanh"](a * b) * c,
}


@pytest.mark.scalar_tape
@pytest.mark.parametrize("expression", list(EXPRESSIONS))
def test_scalar_tape_matches_gradient_tape(ns, expression):
    Value = learner(ns, "Value")
    f = EXPRESSIONS[expression]
    point = (0.5, -1.5, 0.8)
    a, b, c = (Value(v) for v in point)
    out = f(a, b, c, {"tanh": lambda v: v.tanh(), "exp": lambda v: v.exp()})
    expect(isinstance(out, Value), f"{expression} should give a Value, got {type(out).__name__}.")
    out.backward()
    xs = [me.constant(v, dtype=me.float64) for v in point]
    with me.GradientTape() as tape:
        tape.watch(xs)
        y = f(*xs, {"tanh": me.tanh, "exp": me.exp})
    grads = tape.gradient(y, xs)
    expect_close(out.data, y, f"the value of {expression} at a, b, c = {point}")
    for name, v, g in zip("abc", (a, b, c), grads):
        expect_close(v.grad, 0.0 if g is None else g, f"d({expression})/d{name} at a, b, c = {point}")


@pytest.mark.scalar_tape
def test_scalar_tape_backward_twice_from_fresh_values(ns):
    """Two separate graphs do not share gradients: each backward() starts from its own output."""
    Value = learner(ns, "Value")
    x = Value(3.0)
    (x * x).backward()
    expect_close(x.grad, 6.0, "x.grad after (x * x).backward() at x = 3")
    y = Value(2.0)
    z = y * 4.0
    z.backward()
    expect_close(y.grad, 4.0, "y.grad after (y * 4).backward()")
    expect(math.isclose(z.grad, 1.0), f"the output's own grad after backward() should be 1.0, got {z.grad}.")
