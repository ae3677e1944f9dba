"""Lesson 07: nested tapes, a clipping custom gradient, and the planted gradient bug of course/bugs.py."""
import math

import numpy as np
import pytest

import minieager as me
from minieager.extend import Op
from course import bugs
from course.expect import expect, expect_close, expect_equal, learner

CASES = {
    "x**3 at 2": (lambda x: x ** 3, 2.0, [12.0, 12.0, 6.0, 0.0]),
    "sin(x) at 0.5": (me.sin, 0.5, [math.cos(0.5), -math.sin(0.5), -math.cos(0.5), math.sin(0.5)]),
    "exp(2x) at 0.1": (lambda x: me.exp(2 * x), 0.1, [2 ** k * math.exp(0.2) for k in range(1, 4)]),
    "x * sin(x) at 1": (lambda x: x * me.sin(x), 1.0,
                        [math.sin(1) + math.cos(1), 2 * math.cos(1) - math.sin(1)]),
}


@pytest.mark.higher_order
@pytest.mark.parametrize("case", list(CASES))
def test_higher_order_derivatives(ns, case):
    derivatives = learner(ns, "derivatives")
    f, at, expected = CASES[case]
    got = derivatives(f, me.constant(at, dtype=me.float64), len(expected))
    expect(isinstance(got, (list, tuple)) and len(got) == len(expected),
           f"derivatives(f, x, {len(expected)}) for {case} should return a list of {len(expected)} tensors, got {got!r}.")
    for k, (g, e) in enumerate(zip(got, expected), start=1):
        expect(g is not None, f"derivative {k} of {case} came back as None: was the inner gradient taken while "
                              f"the outer tape was open?")
        expect_close(g, e, f"derivative {k} of {case}", rtol=1e-6)


def _clip(ns):
    return learner(ns, "clip_gradient_norm"), learner(ns, "MAX_NORM")


@pytest.mark.clip_gradient
def test_clip_forward_is_the_identity(ns):
    clip, _ = _clip(ns)
    x = me.constant([[1.0, -2.0], [3.0, 0.5]])
    expect_close(clip(x), x.numpy(), "clip_gradient_norm(x) in the forward pass")


@pytest.mark.clip_gradient
@pytest.mark.parametrize("scale", [0.1, 10.0])
def test_clip_gradient_norm_clips_the_upstream_gradient(ns, scale):
    clip, max_norm = _clip(ns)
    x = me.constant([1.0, 2.0, 2.0])
    upstream = np.array([3.0, 4.0, 0.0], np.float32) * scale     # norm 5 * scale
    with me.GradientTape() as tape:
        tape.watch(x)
        y = me.reduce_sum(clip(x) * me.constant(upstream))
    custom = [r.op_name for r in tape.records if r.is_custom]     # read before gradient() frees the tape
    got = tape.gradient(y, x)
    norm = np.linalg.norm(upstream)
    expected = upstream if norm <= max_norm else upstream * max_norm / norm
    expect_close(got, expected, f"the gradient through clip_gradient_norm for an upstream gradient of norm "
                                f"{norm:g} (MAX_NORM = {max_norm})", rtol=1e-5)
    expect_equal(custom, ["clip_gradient_norm"],
                 "the custom-gradient nodes on the tape (did you decorate it with @me.custom_gradient?)")


@pytest.mark.clip_gradient
def test_clip_applies_before_the_ops_below_it(ns):
    """The clip acts on dy arriving at it; the gradient of x * 3 below it is then scaled by 3."""
    clip, max_norm = _clip(ns)
    x = me.constant([2.0, 0.0])
    with me.GradientTape() as tape:
        tape.watch(x)
        y = me.reduce_sum(me.square(clip(x * 3.0)))          # dy at the clip: 2 * 3x = [12, 0]
    got = tape.gradient(y, x)
    expect_close(got, np.array([3.0 * max_norm, 0.0]), "d sum(clip(3x)^2) / dx at x = [2, 0]", rtol=1e-5)


@pytest.mark.find_the_bug
def test_the_buggy_op_is_named(ns):
    buggy = learner(ns, "buggy_op")
    expect(buggy in bugs.OPS, f"buggy_op should be one of {sorted(bugs.OPS)}, got {buggy!r}.")
    expect(bugs.is_buggy(buggy), f"{buggy!r} passes the gradient check: run me.testing.check_gradients on each op "
                                f"of bugs.OPS alone.")


@pytest.mark.find_the_bug
def test_fixed_vjp_passes_the_gradient_check(ns):
    buggy, fixed_vjp = learner(ns, "buggy_op"), learner(ns, "fixed_vjp")
    op = bugs.OPS.get(buggy) or next(op for name, op in bugs.OPS.items() if bugs.is_buggy(name))
    fixed = Op(op.name, op.inputs, op.formula, op.grads, vjp=lambda dy, x, out: (fixed_vjp(dy, x, out),))
    x = np.array([0.5, -1.0, 2.0, -3.5])
    results = me.testing.check_gradients(fixed, x, raise_on_failure=False)
    r = results[0]
    expect(r.ok, f"with your fixed_vjp, {op.name} still fails the gradient check: at element {r.worst_position} "
                 f"the tape says {r.analytic:.6g}, finite differences say {r.numeric:.6g}.")
    model = lambda t: bugs.course_halve(bugs.course_cube(fixed(t)))   # noqa: E731
    expect(all(r.ok for r in me.testing.check_gradients(model, x, raise_on_failure=False)),
           "the model with your fixed op still fails the gradient check.")
