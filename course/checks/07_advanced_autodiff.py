"""Lesson 07's visible checks: nested tapes, a clipping custom gradient, and the planted gradient bug of
course/bugs.py (format: course/spec.py).

The judges compute every reference here: the derivatives in closed form, the clipped gradient in NumPy,
and for find_the_bug central finite differences of the ops' forward passes (which are right; only one
op's VJP is not), so that nothing in this file says which op is buggy or what its gradient should be.
"""
import math

import numpy as np

import minieager as me
from course import bugs
from course.expect import expect, expect_close, expect_equal
from course.spec import check

# higher_order ----------------------------------------------------------------------------------------


def functions():
    """Each function once, by the name the feedback shows (run on the learner's side)."""
    return {
        "x**3": lambda x: x ** 3,
        "sin(x)": me.sin,
        "exp(2x)": lambda x: me.exp(2 * x),
        "x * sin(x)": lambda x: x * me.sin(x),
    }


def derivatives_at(name, a, n):
    """The first n derivatives of the function ``name`` at a, in closed form."""
    s, c = math.sin(a), math.cos(a)
    every = {
        "x**3": [3 * a * a, 6 * a, 6.0, 0.0, 0.0],
        "sin(x)": [c, -s, -c, s, c],
        "exp(2x)": [2 ** k * math.exp(2 * a) for k in range(1, 6)],
        "x * sin(x)": [s + a * c, 2 * c - a * s, -3 * s - a * c, -4 * c + a * s, 5 * s + a * c],
    }[name]
    return every[:n]


def probe_derivatives(ns, name, at, n):
    got = learner(ns, "derivatives")(functions()[name], me.constant(at, dtype=me.float64), n)
    if not isinstance(got, (list, tuple)):
        return {"type": type(got).__name__, "values": None}
    return {"type": "list", "values": [None if g is None else np.asarray(g.numpy() if hasattr(g, "numpy") else g)
                                       for g in got]}


def judge_derivatives(got, name, at, n):
    case = f"{name} at {at:g}"
    values = got["values"]
    shown = got["type"] if values is None else f"a list of {len(values)}"
    expect(values is not None and len(values) == n,
           f"derivatives(f, x, {n}) for {case} should return a list of {n} tensors, got {shown}.")
    for k, (g, e) in enumerate(zip(values, derivatives_at(name, at, n)), start=1):
        expect(g is not None, f"derivative {k} of {case} came back as None: was the inner gradient taken while "
                              f"the outer tape was open?")
        expect_close(g, e, f"derivative {k} of {case}", rtol=1e-6)


@check("higher_order", points=3)
class HigherOrderDerivatives:
    """Up to the fourth derivative of four functions, against their closed forms."""
    probe_helpers = (functions, probe_derivatives)
    cases = [{"name": "x**3", "at": 2.0, "n": 4}, {"name": "sin(x)", "at": 0.5, "n": 4},
             {"name": "exp(2x)", "at": 0.1, "n": 3}, {"name": "x * sin(x)", "at": 1.0, "n": 2}]

    def probe(ns, name, at, n):
        return probe_derivatives(ns, name, at, n)

    def judge(got, name, at, n):
        judge_derivatives(got, name, at, n)


# clip_gradient ---------------------------------------------------------------------------------------

MAX_NORM = 1.0      # the value the notebook gives


def probe_clip(ns, x, upstream):
    clip = learner(ns, "clip_gradient_norm")
    x = me.constant(np.asarray(x, dtype=np.float32))
    with me.GradientTape() as tape:
        tape.watch(x)
        y = me.reduce_sum(clip(x) * me.constant(np.asarray(upstream, dtype=np.float32)))
    custom = [r.op_name for r in tape.records if r.is_custom]     # read before gradient() frees the tape
    grad = tape.gradient(y, x)
    return {"max_norm": learner(ns, "MAX_NORM"), "custom": custom, "grad": grad}


def judge_max_norm(got):
    expect(got["max_norm"] == MAX_NORM, f"MAX_NORM is given as {MAX_NORM}: leave it as it is "
                                        f"(got {got['max_norm']!r}).")


def judge_clip(got, x, upstream):
    judge_max_norm(got)
    upstream = np.asarray(upstream, np.float64)
    norm = np.linalg.norm(upstream)
    expected = upstream if norm <= MAX_NORM else upstream * MAX_NORM / norm
    expect(got["grad"] is not None, "the gradient through clip_gradient_norm came back as None.")
    expect_close(got["grad"], expected, f"the gradient through clip_gradient_norm for an upstream gradient of norm "
                                        f"{norm:.4g} (MAX_NORM = {MAX_NORM})", rtol=1e-5)
    expect_equal(got["custom"], ["clip_gradient_norm"],
                 "the custom-gradient nodes on the tape (did you decorate it with @me.custom_gradient?)")


@check("clip_gradient", points=1)
class ClipForwardIsTheIdentity:
    """clip_gradient_norm(x) is x in the forward pass."""

    def cases(rng):
        return [{"x": rng.normal(size=(2, 2)).astype(np.float32) * 2}]

    def probe(ns, x):
        return learner(ns, "clip_gradient_norm")(me.constant(x))

    def judge(got, x):
        expect_close(got, x, f"clip_gradient_norm(x) in the forward pass, for x = {np.round(x, 3).tolist()}")


@check("clip_gradient", points=2)
class ClipClipsTheUpstreamGradient:
    """An upstream gradient of norm 0.5 passes unchanged; one of norm 50 is scaled down to MAX_NORM."""
    probe_helpers = (probe_clip,)
    cases = [{"x": [1.0, 2.0, 2.0], "upstream": [0.3 * s, 0.4 * s, 0.0]} for s in (1.0, 100.0)]

    def probe(ns, x, upstream):
        return probe_clip(ns, x, upstream)

    def judge(got, x, upstream):
        judge_clip(got, x, upstream)


@check("clip_gradient", points=1)
class ClipActsWhereItSits:
    """The clip acts on the gradient arriving at it; the gradient of x * 3 below it is then scaled by 3."""
    cases = [{"x": [2.0, 0.0]}]

    def probe(ns, x):
        clip = learner(ns, "clip_gradient_norm")
        x = me.constant(x)
        with me.GradientTape() as tape:
            tape.watch(x)
            y = me.reduce_sum(me.square(clip(x * 3.0)))          # dy at the clip: 2 * 3x = [12, 0]
        return {"max_norm": learner(ns, "MAX_NORM"), "grad": tape.gradient(y, x)}

    def judge(got, x):
        judge_max_norm(got)
        expect(got["grad"] is not None, "the gradient through clip_gradient_norm came back as None.")
        expect_close(got["grad"], [3.0 * MAX_NORM, 0.0], f"d sum(clip(3x)^2) / dx at x = {x}", rtol=1e-5)


# find_the_bug ----------------------------------------------------------------------------------------

def the_buggy_op():
    """The op of course.bugs whose VJP is wrong (found by its hash; its name is written nowhere)."""
    return next(op for name, op in bugs.OPS.items() if bugs.is_buggy(name))


def numeric_derivative(f, x, h=1e-6):
    """The elementwise derivative of an elementwise function by central differences, in float64."""
    x = np.asarray(x, np.float64)
    up, down = f(me.constant(x + h)).numpy(), f(me.constant(x - h)).numpy()
    return (up - down) / (2 * h)


def probe_fixed_vjp(ns, x, dy):
    """Your fixed_vjp set as the buggy op's gradient: the tape's gradients of the op alone and of the model."""
    from course import bugs
    fixed_vjp = learner(ns, "fixed_vjp")
    learner(ns, "buggy_op")
    op = next(op for name, op in bugs.OPS.items() if bugs.is_buggy(name))   # the one to fix, whatever was named
    fixed = Op(op.name, op.inputs, op.formula, op.grads, vjp=lambda dy, x, out: (fixed_vjp(dy, x, out),))
    x = me.constant(np.asarray(x, dtype=np.float64))
    with me.GradientTape(persistent=True) as tape:
        tape.watch(x)
        alone = me.reduce_sum(fixed(x) * me.constant(np.asarray(dy, dtype=np.float64)))
        model = me.reduce_sum(bugs.course_halve(bugs.course_cube(fixed(x))))
    return {"op": tape.gradient(alone, x), "model": tape.gradient(model, x)}


def judge_fixed_vjp(got, x, dy):
    op = the_buggy_op()
    where = f"x = {np.round(x, 4).tolist()}" if np.size(x) <= 6 else f"x of shape {np.shape(x)}"
    expect(got["op"] is not None, "with your fixed_vjp the tape's gradient of the buggy op came back as None: "
                                  "fixed_vjp must return a tensor.")
    expect_close(got["op"], np.asarray(dy) * numeric_derivative(op, x),
                 f"with your fixed_vjp, the gradient of the buggy op (weighted by dy = {np.round(dy, 3).tolist()}) at "
                 f"{where}, against finite differences", rtol=1e-4, atol=1e-6)
    expect(got["model"] is not None, "with your fixed op the model's gradient came back as None.")
    expect_close(got["model"], numeric_derivative(bugs.model, x),
                 f"the gradient of sum(model(x)) with your fixed op at {where}, against finite differences",
                 rtol=1e-4, atol=1e-6)


@check("find_the_bug", points=2)
class TheBuggyOpIsNamed:
    """buggy_op names the op of course.bugs whose gradient check fails."""
    cases = [{}]

    def probe(ns):
        buggy = learner(ns, "buggy_op")
        return buggy if isinstance(buggy, str) else {"type": type(buggy).__name__}

    def judge(got):
        expect(isinstance(got, str) and got in bugs.OPS,
               f"buggy_op should be one of {sorted(bugs.OPS)}, got {got if isinstance(got, str) else got['type']!r}.")
        expect(bugs.is_buggy(got), f"{got!r} passes the gradient check: run me.testing.check_gradients on each op "
                                   f"of bugs.OPS alone.")


@check("find_the_bug", points=2)
class FixedVjpPassesTheGradientCheck:
    """Your fixed_vjp as the buggy op's gradient, alone and inside the model, against finite differences."""
    probe_helpers = (probe_fixed_vjp,)

    def cases(rng):
        return [{"x": [0.5, -1.0, 2.0, -3.5], "dy": [float(v) for v in rng.normal(size=4)]}]

    def probe(ns, x, dy):
        return probe_fixed_vjp(ns, x, dy)

    def judge(got, x, dy):
        judge_fixed_vjp(got, x, dy)
