"""Lesson 03's visible checks: VJPs registered as Ops, and a micrograd-sized scalar tape.

Format: course/spec.py. The judges compute every reference here, in the grader: the sigmoid and softmax
formulas in NumPy, and minieager's own tape for the scalar expressions.
"""
import numpy as np

import minieager as me
from course.expect import _show as show
from course.expect import expect, expect_close, expect_equal
from course.spec import check


def sigmoid(x):
    return 1 / (1 + np.exp(-np.asarray(x, dtype=np.float64)))


def softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def expect_tensor(got, name):
    expect(got["type"] in ("Tensor", "EagerTensor"), f"{name} should return a minieager Tensor, got {got['type']}. "
                                                     f"Use minieager ops (*, -) on its inputs, not NumPy.")


# sigmoid_vjp ---------------------------------------------------------------------------------

def sigmoid_cases(rng, shapes):
    return [{"x": rng.normal(size=s), "dy": rng.normal(size=s)} for s in shapes]


def probe_sigmoid_vjp(ns, x, dy):
    out = 1 / (1 + np.exp(-x))          # the forward value the VJP receives
    got = learner(ns, "sigmoid_vjp")(me.constant(dy), me.constant(x), me.constant(out))
    return {"type": type(got).__name__, "value": got.numpy() if isinstance(got, me.Tensor) else None}


def judge_sigmoid_vjp(got, x, dy):
    expect_tensor(got, "sigmoid_vjp")
    s = sigmoid(x)
    expect_close(got["value"], dy * s * (1 - s), f"sigmoid_vjp(dy, x, out) for x of shape {np.shape(x)}, with "
                                                 f"x = {show(x)}, dy = {show(dy)}, out = sigmoid(x) = {show(s)}")


@check("sigmoid_vjp", points=2)
class SigmoidVjpValues:
    """The VJP's values for a scalar, a vector and a matrix."""
    probe_helpers = (probe_sigmoid_vjp,)

    def cases(rng):
        return sigmoid_cases(rng, [(), (5,), (2, 3)])

    def probe(ns, x, dy):
        return probe_sigmoid_vjp(ns, x, dy)

    def judge(got, x, dy):
        judge_sigmoid_vjp(got, x, dy)


def probe_op(ns, name, call, x):
    """Whether ``name`` is an Op, what the tape recorded for it and the gradient it gave at x."""
    op = learner(ns, name)
    if not isinstance(op, Op):
        return {"is_op": False, "type": type(op).__name__}
    xs = [me.constant(np.asarray(v, dtype=np.float64)) for v in x]
    with me.GradientTape() as tape:
        tape.watch(xs[0])
        y = me.reduce_sum(call(op, *xs))
    records = [r.op_name for r in tape.records]      # before gradient(), which releases them
    grad = tape.gradient(y, xs[0])
    try:
        me.testing.check_gradients(lambda *v: call(op, *v, *xs[1:]), xs[0].numpy())
        finite_differences = ""
    except Exception as err:
        finite_differences = f"{type(err).__name__}: {err}"[:600]
    return {"is_op": True, "name": op.name, "records": records,
            "loss": y.numpy(), "grad": None if grad is None else grad.numpy(), "finite_differences": finite_differences}


def judge_op(got, name, records, what):
    expect(got["is_op"], f"{name} should be an Op(...), got {got.get('type')}.")
    expect_equal(got["name"], name, f"{name}'s name (the key of its registered kernel)")
    expect_equal(got["records"][:len(records)], records, f"the ops the tape recorded for {what}")
    expect(got["grad"] is not None, f"the tape's gradient of {what} came back as None: is the Op's vjp set?")
    expect(got["finite_differences"] == "", f"me.testing.check_gradients on {name}: {got['finite_differences']}")


@check("sigmoid_vjp", points=1)
class SigmoidVjpWithMinieagerOps:
    """The exercise says: minieager ops, not NumPy (an outer tape could not differentiate NumPy)."""
    cases = [{}]

    def probe(ns):
        sigmoid_vjp = learner(ns, "sigmoid_vjp")
        sigmoid_vjp(me.constant(1.0), me.constant(0.0), me.constant(0.5))   # a stub: "not done"
        return modules_used(sigmoid_vjp)

    def judge(got):
        for name, root in got:
            expect(root != "numpy", f"sigmoid_vjp: your code uses `{name}` (NumPy); the exercise asks for "
                                    f"minieager ops, which an outer tape can differentiate.")


@check("sigmoid_vjp", points=2)
class SigmoidOpOnTheTape:
    """my_sigmoid is an Op the tape records, with your VJP as its gradient (checked by finite differences)."""
    probe_helpers = (probe_op,)

    def cases(rng):
        return [{"x": rng.uniform(-3, 3, 4)}]

    def probe(ns, x):
        learner(ns, "sigmoid_vjp")
        return probe_op(ns, "my_sigmoid", lambda op, v: op(v), [x])

    def judge(got, x):
        judge_op(got, "my_sigmoid", ["my_sigmoid"], "my_sigmoid(x)")
        s = sigmoid(x)
        expect_close(got["grad"], s * (1 - s), f"the tape's gradient of my_sigmoid(x) at x = {np.round(x, 3)}")


@check("sigmoid_vjp", points=1)
class SigmoidSecondDerivative:
    """The second derivative through your VJP, with nested tapes."""

    def cases(rng):
        return [{"x": float(rng.uniform(-2, 2))}]

    def probe(ns, x):
        my_sigmoid = learner(ns, "my_sigmoid")
        x = me.constant(x, dtype=me.float64)
        with me.GradientTape() as outer:
            outer.watch(x)
            with me.GradientTape() as inner:
                inner.watch(x)
                y = my_sigmoid(x)
            dy_dx = inner.gradient(y, x)
        d2 = outer.gradient(dy_dx, x)
        return None if d2 is None else d2.numpy()

    def judge(got, x):
        expect(got is not None, "the second derivative came back as None: the VJP must use minieager ops on its "
                                "inputs (dy, x, out) so that the outer tape can record it.")
        s = sigmoid(x)
        expect_close(got, s * (1 - s) * (1 - 2 * s), f"the second derivative of my_sigmoid at {x:.4g} (nested tapes)")


# softmax_xent_vjp ------------------------------------------------------------------------------

def softmax_cases(rng, sizes, scale=1.0):
    cases = []
    for n, classes in sizes:
        logits = rng.normal(size=(n, classes)) * scale
        labels = np.eye(classes)[rng.integers(0, classes, n)]
        cases.append({"logits": logits, "labels": labels, "dy": rng.normal(size=n)})
    return cases


def probe_softmax_vjp(ns, logits, labels, dy):
    got = learner(ns, "softmax_xent_vjp")(me.constant(dy), me.constant(logits), me.constant(labels), None)
    return {"type": type(got).__name__, "value": got.numpy() if isinstance(got, me.Tensor) else None}


def judge_softmax_vjp(got, logits, labels, dy):
    expect_tensor(got, "softmax_xent_vjp")
    value = got["value"]
    expect(value is not None and np.isfinite(value).all(),
           f"softmax_xent_vjp gave NaN or Inf for logits up to {np.abs(logits).max():.3g}: exp overflows for large "
           f"logits; use me.softmax, which subtracts the maximum first.")
    expect_close(value, dy[:, None] * (softmax(logits) - labels),
                 f"softmax_xent_vjp for logits of shape {logits.shape} and dy of shape {dy.shape}, with "
                 f"logits = {show(logits)}, labels = {show(labels)}, dy = {show(dy)}")


@check("softmax_xent_vjp", points=2)
class SoftmaxVjpValues:
    """The VJP's values for a few batch sizes and numbers of classes."""
    probe_helpers = (probe_softmax_vjp,)

    def cases(rng):
        return softmax_cases(rng, [(4, 3), (1, 5), (3, 10)])

    def probe(ns, logits, labels, dy):
        return probe_softmax_vjp(ns, logits, labels, dy)

    def judge(got, logits, labels, dy):
        judge_softmax_vjp(got, logits, labels, dy)


@check("softmax_xent_vjp", points=2)
class SoftmaxOpMatchesTheBuiltin:
    """my_softmax_xent's loss and gradient against minieager's built-in op (computed by the grader)."""
    probe_helpers = (probe_op,)

    def cases(rng):
        case = softmax_cases(rng, [(6, 4)])[0]
        return [{"logits": case["logits"], "labels": case["labels"]}]

    def probe(ns, logits, labels):
        return probe_op(ns, "my_softmax_xent", lambda op, z, y: op(z, y), [logits, labels])

    def judge(got, logits, labels):
        judge_op(got, "my_softmax_xent", ["my_softmax_xent"], "my_softmax_xent(logits, labels)")
        z, y = me.constant(logits), me.constant(labels)
        with me.GradientTape() as tape:
            tape.watch(z)
            loss = me.reduce_sum(me.nn.softmax_cross_entropy_with_logits(labels=y, logits=z))
        expect_close(got["loss"], loss, "the summed loss of my_softmax_xent against me.nn.softmax_cross_entropy_with_logits")
        expect_close(got["grad"], tape.gradient(loss, z), "the gradient of the summed loss for the logits")


@check("softmax_xent_vjp", points=1)
class SoftmaxVjpIsStable:
    """Logits around +-1000, where a naive exp overflows."""
    probe_helpers = (probe_softmax_vjp,)

    def cases(rng):
        return softmax_cases(rng, [(3, 4)], scale=1000.0)

    def probe(ns, logits, labels, dy):
        return probe_softmax_vjp(ns, logits, labels, dy)

    def judge(got, logits, labels, dy):
        judge_softmax_vjp(got, logits, labels, dy)


# scalar_tape -------------------------------------------------------------------------------------

def expressions():
    """Each expression written once, run on the learner's Values (in the sandbox) and on tensors (here)."""
    return {
        "a * b + a": lambda a, b, c, ops: a * b + a,
        "(a * b + c).tanh()": lambda a, b, c, ops: ops["tanh"](a * b + c),
        "a * a * a - b": lambda a, b, c, ops: a * a * a - b,
        "(2 * a + 1) * (b - 3)": lambda a, b, c, ops: (2 * a + 1) * (b - 3),
        "exp(a * c) + (a * b).tanh() * c": lambda a, b, c, ops: ops["exp"](a * c) + ops["tanh"](a * b) * c,
    }


def probe_expression(ns, expression, point):
    Value = learner(ns, "Value")
    a, b, c = (Value(v) for v in point)
    out = expressions()[expression](a, b, c, {"tanh": lambda v: v.tanh(), "exp": lambda v: v.exp()})
    if not isinstance(out, Value):
        return {"type": type(out).__name__}
    out.backward()
    return {"type": "Value", "data": float(out.data), "grads": [float(v.grad) for v in (a, b, c)]}


def judge_expression(got, expression, point):
    expect(got["type"] == "Value", f"{expression} should give a Value, got {got['type']}.")
    xs = [me.constant(v, dtype=me.float64) for v in point]
    with me.GradientTape() as tape:
        tape.watch(xs)
        y = expressions()[expression](*xs, {"tanh": me.tanh, "exp": me.exp})
    grads = tape.gradient(y, xs)
    where = f"a, b, c = {tuple(round(v, 4) for v in point)}"
    expect_close(got["data"], y, f"the value of {expression} at {where}")
    for name, mine, g in zip("abc", got["grads"], grads):
        expect_close(mine, 0.0 if g is None else g, f"d({expression})/d{name} at {where}")


@check("scalar_tape", points=3)
class ExpressionsMatchGradientTape:
    """Five expressions: your Value's result and gradients against minieager's GradientTape."""
    probe_helpers = (expressions, probe_expression)
    cases = [{"expression": e, "point": [0.5, -1.5, 0.8]} for e in expressions()]

    def probe(ns, expression, point):
        return probe_expression(ns, expression, point)

    def judge(got, expression, point):
        judge_expression(got, expression, point)


@check("scalar_tape", points=1)
class BackwardFromFreshValues:
    """Two separate graphs do not share gradients: each backward() starts from its own output."""
    cases = [{"x": 3.0, "y": 2.0}]

    def probe(ns, x, y):
        Value = learner(ns, "Value")
        vx = Value(x)
        (vx * vx).backward()
        vy = Value(y)
        z = vy * 4.0
        z.backward()
        return {"x_grad": float(vx.grad), "y_grad": float(vy.grad), "z_grad": float(z.grad)}

    def judge(got, x, y):
        expect_close(got["x_grad"], 2 * x, f"x.grad after (x * x).backward() at x = {x}")
        expect_close(got["y_grad"], 4.0, "y.grad after (y * 4).backward()")
        expect_close(got["z_grad"], 1.0, "the output's own grad after backward()")
