"""Lesson 10's visible checks: the broadcast sum-back, the matmul gradient, the tape's API, and an op of
the learner's own stepped in the tape debugger.

Format: course/spec.py. The judges compute every reference here, in NumPy; the probes only call the
learner's code (and read their debugger's steps) and return plain data.
"""
import numpy as np

from course.expect import expect, expect_close, expect_equal
from course.spec import check


def sum_back(dy, shape):
    """The reference: dy summed over the leading axes and the axes where ``shape`` has 1."""
    dy = np.asarray(dy, dtype=np.float64)
    dy = dy.sum(axis=tuple(range(dy.ndim - len(shape))))
    axes = tuple(k for k, n in enumerate(shape) if n == 1 and dy.shape[k] != 1)
    return dy.sum(axis=axes, keepdims=True).reshape(tuple(shape))


def sum_back_cases(rng, pairs):
    return [{"dy": rng.normal(size=big), "shape": list(shape)} for big, shape in pairs]


def random_sum_back_pairs(rng, count, max_rank, max_size):
    """(dy's shape, a shape that broadcasts to it) pairs: a suffix of it, with some sizes set to 1."""
    pairs = []
    for _ in range(count):
        big = tuple(int(n) for n in rng.integers(1, max_size + 1, int(rng.integers(0, max_rank + 1))))
        cut = int(rng.integers(0, len(big) + 1))
        pairs.append((big, tuple(1 if rng.random() < 0.4 else n for n in big[cut:])))
    return pairs


def probe_sum_to_shape(ns, dy, shape):
    got = learner(ns, "sum_to_shape")(me.constant(dy), tuple(shape))
    return {"type": type(got).__name__, "value": got.numpy() if isinstance(got, me.Tensor) else None}


def judge_sum_to_shape(got, dy, shape):
    what = f"sum_to_shape(dy, {tuple(shape)}) for dy of shape {np.shape(dy)}"
    expect(got["type"] in ("Tensor", "EagerTensor"), f"{what} should return a minieager Tensor, got {got['type']}.")
    expect_close(got["value"], sum_back(dy, tuple(shape)), what)


LESSON_PAIRS = [((3, 4), (3, 1)), ((3, 4), (4,)), ((2, 3, 4), (1, 4)), ((2, 3), ()), ((2, 3), (2, 3)),
                ((5, 1, 3), (1, 1, 3)), ((2, 1, 4), (2, 1, 1)), ((4,), (1,))]


@check("sum_to_shape", points=2)
class SumToShapeValues:
    """Leading axes, stretched axes of size 1, both, a scalar, and nothing to sum."""
    probe_helpers = (probe_sum_to_shape,)

    def cases(rng):
        return sum_back_cases(rng, LESSON_PAIRS)

    def probe(ns, dy, shape):
        return probe_sum_to_shape(ns, dy, shape)

    def judge(got, dy, shape):
        judge_sum_to_shape(got, dy, shape)


@check("sum_to_shape", points=1)
class SumToShapeWithMinieagerOps:
    """The exercise says minieager ops, not NumPy: an outer tape must be able to differentiate it."""
    cases = [{}]

    def probe(ns):
        sum_to_shape = learner(ns, "sum_to_shape")
        sum_to_shape(me.ones((2, 1)), (1, 1))      # a stub raises NotImplementedError here: "not done"
        return modules_used(sum_to_shape)

    def judge(got):
        for name, root in got:
            expect(root != "numpy", f"sum_to_shape: your code uses `{name}` (NumPy); the exercise asks for "
                                    f"minieager ops, so that an outer tape can differentiate it.")


def probe_add_vjp(ns, a, b, dy):
    got = learner(ns, "add_vjp")(me.constant(dy), me.constant(a), me.constant(b), me.constant(a + b))
    if not isinstance(got, (tuple, list)):
        return {"type": type(got).__name__}
    return {"type": "tuple", "values": [g.numpy() if isinstance(g, me.Tensor) else None for g in got]}


def judge_add_vjp(got, a, b, dy):
    what = f"add_vjp(dy, a, b, out) for a of shape {np.shape(a)}, b of shape {np.shape(b)}"
    expect(got["type"] == "tuple" and len(got["values"]) == 2,
           f"{what} should return a tuple of two gradients (one per input), got {got.get('type')}.")
    for name, g, x in (("a", got["values"][0], a), ("b", got["values"][1], b)):
        expect(g is not None, f"{what} returned None for {name}.")
        expect_close(g, sum_back(dy, np.shape(x)), f"the gradient for {name} from {what}")


def add_cases(rng, shape_pairs):
    return [{"a": rng.normal(size=a), "b": rng.normal(size=b), "dy": rng.normal(size=np.broadcast_shapes(a, b))}
            for a, b in shape_pairs]


@check("sum_to_shape", points=2)
class AddVjpShapes:
    """my_add's VJP gives each input a gradient of its own shape."""
    probe_helpers = (probe_add_vjp,)

    def cases(rng):
        return add_cases(rng, [((3, 1), (4,)), ((2, 3), ()), ((1, 3), (2, 1))])

    def probe(ns, a, b, dy):
        return probe_add_vjp(ns, a, b, dy)

    def judge(got, a, b, dy):
        judge_add_vjp(got, a, b, dy)


# matmul_vjp --------------------------------------------------------------------------------------

def probe_matmul_vjp(ns, a, b, dy):
    got = learner(ns, "matmul_vjp")(me.constant(dy), me.constant(a), me.constant(b), me.constant(a @ b))
    if not isinstance(got, (tuple, list)):
        return {"type": type(got).__name__}
    return {"type": "tuple", "values": [g.numpy() if isinstance(g, me.Tensor) else None for g in got]}


def judge_matmul_vjp(got, a, b, dy):
    what = f"matmul_vjp(dy, a, b, out) for a of shape {np.shape(a)} and b of shape {np.shape(b)}"
    expect(got["type"] == "tuple" and len(got["values"]) == 2,
           f"{what} should return a tuple of two gradients (one per input), got {got.get('type')}.")
    expect_close(got["values"][0], dy @ b.T, f"the gradient for a (shape {np.shape(a)}) from {what}")
    expect_close(got["values"][1], a.T @ dy, f"the gradient for b (shape {np.shape(b)}) from {what}")


def matmul_cases(rng, shapes):
    return [{"a": rng.normal(size=(m, k)), "b": rng.normal(size=(k, n)), "dy": rng.normal(size=(m, n))}
            for m, k, n in shapes]


@check("matmul_vjp", points=3)
class MatmulVjpValues:
    """Both gradients, for wide, tall, square and vector-shaped products."""
    probe_helpers = (probe_matmul_vjp,)

    def cases(rng):
        return matmul_cases(rng, [(2, 3, 4), (1, 5, 1), (4, 4, 4), (3, 2, 1)])

    def probe(ns, a, b, dy):
        return probe_matmul_vjp(ns, a, b, dy)

    def judge(got, a, b, dy):
        judge_matmul_vjp(got, a, b, dy)


@check("matmul_vjp", points=1)
class MatmulOpSaysItsRuleAndPassesTheGradientCheck:
    """my_matmul is an Op with its rule in words, and finite differences agree with your VJP."""

    def cases(rng):
        return [{"a": rng.normal(size=(2, 3)), "b": rng.normal(size=(3, 2))}]

    def probe(ns, a, b):
        learner(ns, "matmul_vjp")(me.ones((1, 1)), me.ones((1, 1)), me.ones((1, 1)), me.ones((1, 1)))
        op = learner(ns, "my_matmul")
        if not isinstance(op, Op):
            return {"is_op": False, "type": type(op).__name__}
        if not all(g and not g.startswith("your rule") for g in op.grads):
            raise NotDone(f"my_matmul's rule in words is still {op.grads}: write each input's gradient as text.")
        try:
            me.testing.check_gradients(op, a, b)
            error = ""
        except Exception as err:
            error = f"{type(err).__name__}: {err}"[:600]
        return {"is_op": True, "finite_differences": error}

    def judge(got, a, b):
        expect(got["is_op"], f"my_matmul should be an Op(...), got {got.get('type')}.")
        expect(got["finite_differences"] == "", f"me.testing.check_gradients on my_matmul: {got['finite_differences']}")


# tape_api ----------------------------------------------------------------------------------------

def counted_tapes(run):
    """run() with me.GradientTape replaced by a subclass that notes each tape and each stop_recording;
    returns (run()'s result, [[persistent, stop_recording calls] per tape])."""
    real = me.GradientTape
    made = []

    class CountingTape(real):
        def __init__(self, persistent=False, watch_accessed_variables=True):
            super().__init__(persistent=persistent, watch_accessed_variables=watch_accessed_variables)
            self.note = [bool(persistent), 0]
            made.append(self.note)

        def stop_recording(self):
            self.note[1] += 1
            return super().stop_recording()

    me.GradientTape = CountingTape
    try:
        return run(), made
    finally:
        me.GradientTape = real


def value_of(t):
    return None if t is None else (t.numpy() if isinstance(t, me.Tensor) else t)


@check("tape_api", points=1)
class GradientOfAConstant:
    """d(x^2 + 3x)/dx for a constant x: it must be watched."""
    probe_helpers = (value_of,)

    def cases(rng):
        return [{"at": float(v)} for v in (2.0, -1.5, 0.0)]

    def probe(ns, at):
        return value_of(learner(ns, "gradient_of_a_constant")(me.constant(at)))

    def judge(got, at):
        expect(got is not None, f"gradient_of_a_constant(me.constant({at})) returned None: a tape does not follow "
                                f"a constant unless it is watched.")
        expect_close(got, 2 * at + 3, f"gradient_of_a_constant(me.constant({at}))")


@check("tape_api", points=2)
class TwoGradientsFromOnePersistentTape:
    """dy/dx and dz/dx from one tape, made persistent."""
    probe_helpers = (counted_tapes, value_of)

    def cases(rng):
        return [{"at": 1.5}, {"at": -0.5}]

    def probe(ns, at):
        fn = learner(ns, "two_gradients")
        got, tapes = counted_tapes(lambda: fn(me.constant(at)))
        if not isinstance(got, (tuple, list)):
            return {"values": None, "tapes": tapes}
        return {"values": [value_of(g) for g in got], "tapes": tapes}

    def judge(got, at):
        what = f"two_gradients(me.constant({at}))"
        values = got["values"]
        expect(isinstance(values, list) and len(values) == 2, f"{what} should return (dy/dx, dz/dx).")
        expect_close(values[0], 2 * at, f"dy/dx from {what}")
        expect_close(values[1], 4 * at ** 3, f"dz/dx from {what}")
        expect(len(got["tapes"]) == 1, f"{what} made {len(got['tapes'])} tapes: record y and z once, on one tape.")
        expect(got["tapes"][0][0], f"{what}: the tape must be made with persistent=True to give two gradients.")


@check("tape_api", points=2)
class LossAndGradientWithRecordingStopped:
    """The penalty counts in the loss's value, not in its gradient."""
    probe_helpers = (counted_tapes, value_of)

    def cases(rng):
        return [{"values": [1.0, -2.0, 0.5]}, {"values": [3.0]}]

    def probe(ns, values):
        fn = learner(ns, "loss_and_gradient")
        got, tapes = counted_tapes(lambda: fn(me.Variable(values, dtype=me.float64)))
        if not isinstance(got, (tuple, list)) or len(got) != 2:
            return {"loss": None, "grad": None, "tapes": tapes, "form": type(got).__name__}
        return {"loss": value_of(got[0]), "grad": value_of(got[1]), "tapes": tapes, "form": "pair"}

    def judge(got, values):
        v = np.asarray(values, dtype=np.float64)
        what = f"loss_and_gradient(me.Variable({values}))"
        expect(got["form"] == "pair", f"{what} should return (loss, gradient), got {got['form']}.")
        expect_close(got["loss"], (v ** 2).sum() + (v ** 3).sum(), f"the loss from {what} (the penalty counts in it)")
        expect(got["grad"] is not None, f"{what}: the gradient came back as None; is the loss recorded?")
        expect_close(got["grad"], 2 * v, f"the gradient from {what} (the penalty, unrecorded, must not count in it)")
        expect(any(stops for _, stops in got["tapes"]), f"{what} never called tape.stop_recording().")


# own_op_debugger ---------------------------------------------------------------------------------

def softsign_grad(dy, x):
    return np.asarray(dy) / (1 + np.abs(x)) ** 2


def probe_softsign_vjp(ns, x, dy):
    got = learner(ns, "softsign_vjp")(me.constant(dy), me.constant(x), me.constant(x / (1 + np.abs(x))))
    if not (isinstance(got, tuple) and len(got) == 1):
        return {"form": type(got).__name__}
    return {"form": "1-tuple", "value": value_of(got[0])}


def judge_softsign_vjp(got, x, dy):
    what = f"softsign_vjp(dy, x, out) for x of shape {np.shape(x)}"
    expect(got["form"] == "1-tuple", f"{what} should return a tuple with one gradient, `(grad,)`: got {got['form']}.")
    expect_close(got["value"], softsign_grad(dy, x), what)


@check("own_op_debugger", points=2)
class SoftsignVjpValues:
    """softsign_vjp's gradient for a scalar, a vector and a matrix."""
    probe_helpers = (value_of, probe_softsign_vjp)

    def cases(rng):
        return [{"x": np.asarray(rng.normal(size=s) * 3), "dy": np.asarray(rng.normal(size=s))} for s in [(), (4,), (2, 3)]]

    def probe(ns, x, dy):
        return probe_softsign_vjp(ns, x, dy)

    def judge(got, x, dy):
        judge_softsign_vjp(got, x, dy)


DEBUGGED_X = [-2.0, -0.5, 0.0, 1.0, 3.0]     # the notebook's x


@check("own_op_debugger", points=2)
class TheDebuggerStepsThroughYourOp:
    """The notebook's debugger is armed, steps through my_softsign, and shows your rule and its gradient."""
    cases = [{}]

    def probe(ns):
        learner(ns, "softsign_vjp")(me.constant(1.0), me.constant(1.0), me.constant(0.5))   # a stub: "not done"
        debugger = learner(ns, "debugger")
        if not isinstance(debugger, me.widgets.TapeDebugger):
            return {"is_debugger": False, "type": type(debugger).__name__}
        steps = debugger.trace.to_dict()["steps"]
        if not steps:
            raise NotDone("the debugger has no backward steps yet (step 0 / 0): run the cell that calls "
                          "debugger.backprop(y, [x]).")
        return {"is_debugger": True, "rule": list(learner(ns, "my_softsign").rule),
                "steps": [{"op_name": s["op_name"], "rule": s["rule"],
                           "upstream": [u["value"]["data"] for u in s["upstream"]],
                           "sent": [g["value"]["data"] for g in s["grads_out"]]} for s in steps]}

    def judge(got):
        expect(got["is_debugger"], f"`debugger` should be the notebook's TapeDebugger, got {got.get('type')}.")
        mine = [s for s in got["steps"] if s["op_name"] == "my_softsign"]
        expect(len(mine) == 1, f"the debugger's steps are {[s['op_name'] for s in got['steps']]}: my_softsign "
                               f"should be one of them (run the cells from the top).")
        step = mine[0]
        expect_equal(step["rule"], got["rule"], "the rule the debugger shows at your op")
        x = np.array(DEBUGGED_X)
        s = x / (1 + np.abs(x))
        expect_close(step["upstream"][0], 2 * s, "the upstream gradient the debugger shows arriving at my_softsign")
        expect_close(step["sent"][0], softsign_grad(2 * s, x), "the gradient the debugger shows my_softsign sending")


@check("own_op_debugger", points=1)
class TheNumbersYouReadInTheDebugger:
    """upstream_at_3 and sent_at_3, read in the debugger for x = 3.0."""
    cases = [{}]

    def probe(ns):
        return {"upstream": learner(ns, "upstream_at_3"), "sent": learner(ns, "sent_at_3")}

    def judge(got):
        s = 3.0 / 4.0
        for name, value, expected in (("upstream_at_3", got["upstream"], 2 * s),
                                      ("sent_at_3", got["sent"], 2 * s / 16)):
            ok = isinstance(value, (int, float)) and abs(value - expected) <= 1e-3 * max(1.0, abs(expected))
            expect(ok, f"{name} = {value!r} is not what the debugger shows for x = 3.0 at my_softsign: step to "
                       f"your op and read it there.")
