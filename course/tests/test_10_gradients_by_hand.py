"""Lesson 10: the broadcast sum-back, the matmul gradient, the tape's API, and an op of the learner's own
stepped in the tape debugger (the check reads the debugger's steps)."""
import numpy as np
import pytest

import minieager as me
from minieager.extend import Op
from course.expect import NotDone, call, expect, expect_close, expect_equal, expect_no_calls_to, learner, show

# sum_to_shape ------------------------------------------------------------------------------------

# (the shape dy was broadcast to, the input's shape)
SUM_BACK = [((3, 4), (3, 1)), ((3, 4), (4,)), ((2, 3, 4), (1, 4)), ((2, 3), ()), ((2, 3), (2, 3)),
            ((5, 1, 3), (1, 1, 3)), ((2, 1, 4), (2, 1, 1)), ((4,), (1,))]


def _sum_back(dy, shape):
    """NumPy's reference: sum dy over the leading and the stretched axes."""
    leading = dy.ndim - len(shape)
    dy = dy.sum(axis=tuple(range(leading)))
    return dy.sum(axis=tuple(k for k, n in enumerate(shape) if n == 1 and dy.shape[k] != 1), keepdims=True)


def _ids(pairs):
    return [f"{a} to {b}" for a, b in pairs]


@pytest.mark.sum_to_shape
@pytest.mark.parametrize("big, shape", SUM_BACK, ids=_ids(SUM_BACK))
def test_sum_to_shape_values(ns, big, shape):
    sum_to_shape = learner(ns, "sum_to_shape")
    dy = np.random.default_rng(len(big)).normal(size=big)
    what = f"sum_to_shape(dy, {shape}) for dy of shape {big} = {show(dy)}"
    got = call(sum_to_shape, me.constant(dy), shape, what=what)
    expect(isinstance(got, me.Tensor), f"{what} should return a minieager Tensor, got {type(got).__name__}.")
    expect_close(got, _sum_back(dy, shape).reshape(shape), what)


@pytest.mark.sum_to_shape
def test_sum_to_shape_random_shapes(ns):
    """Random pairs (rank 0-4, sizes 1-3) where the second broadcasts to the first."""
    sum_to_shape = learner(ns, "sum_to_shape")
    rng = np.random.default_rng(7)
    for _ in range(25):
        big = tuple(int(n) for n in rng.integers(1, 4, rng.integers(0, 5)))
        cut = int(rng.integers(0, len(big) + 1))
        shape = tuple(1 if rng.random() < 0.4 else n for n in big[cut:])
        dy = rng.normal(size=big)
        what = f"sum_to_shape(dy, {shape}) for dy of shape {big}"
        expect_close(call(sum_to_shape, me.constant(dy), shape, what=what), _sum_back(dy, shape).reshape(shape), what)


@pytest.mark.sum_to_shape
def test_sum_to_shape_uses_minieager_ops(ns):
    """The exercise says minieager ops, not NumPy: an outer tape must be able to differentiate it."""
    expect_no_calls_to(learner(ns, "sum_to_shape"), {"numpy": "NumPy"}, "sum_to_shape")


@pytest.mark.sum_to_shape
@pytest.mark.parametrize("a_shape, b_shape", [((3, 1), (4,)), ((2, 3), ()), ((1, 3), (2, 1))],
                         ids=["(3, 1) + (4,)", "(2, 3) + ()", "(1, 3) + (2, 1)"])
def test_add_vjp_returns_each_input_its_own_shape(ns, a_shape, b_shape):
    add_vjp = learner(ns, "add_vjp")
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=a_shape), rng.normal(size=b_shape)
    dy = rng.normal(size=np.broadcast_shapes(a_shape, b_shape))
    what = f"add_vjp(dy, a, b, out) for a of shape {a_shape}, b of shape {b_shape}, dy = {show(dy)}"
    got = call(add_vjp, me.constant(dy), me.constant(a), me.constant(b), me.constant(a + b), what=what)
    expect(isinstance(got, (tuple, list)) and len(got) == 2,
           f"{what} should return a tuple of two gradients (one per input), got {type(got).__name__}.")
    for name, g, x in (("a", got[0], a), ("b", got[1], b)):
        expect_close(g, _sum_back(dy, x.shape).reshape(x.shape), f"the gradient for {name} from {what}")


@pytest.mark.sum_to_shape
def test_my_add_on_the_tape_matches_the_builtin_add(ns):
    my_add = learner(ns, "my_add")
    expect(isinstance(my_add, Op), f"my_add should be an Op(...), got {type(my_add).__name__}.")
    a, b = me.constant(np.arange(3.0).reshape(3, 1)), me.constant([1.0, -2.0, 0.5, 4.0], dtype=me.float64)
    weights = me.constant(np.arange(12.0).reshape(3, 4))
    with me.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        mine = me.reduce_sum(my_add(a, b) * weights)
        builtin = me.reduce_sum(me.add(a, b) * weights)
    for x, name in ((a, "a (3, 1)"), (b, "b (4,)")):
        expect_close(tape.gradient(mine, x), tape.gradient(builtin, x),
                     f"d sum((my_add(a, b)) * w) / d{name}, against me.add's")


# matmul_vjp --------------------------------------------------------------------------------------

MATMUL_SHAPES = [((2, 3), (3, 4)), ((1, 5), (5, 1)), ((4, 4), (4, 4)), ((3, 2), (2, 1))]


@pytest.mark.matmul_vjp
@pytest.mark.parametrize("a_shape, b_shape", MATMUL_SHAPES, ids=[f"{a} @ {b}" for a, b in MATMUL_SHAPES])
def test_matmul_vjp_values_and_shapes(ns, a_shape, b_shape):
    matmul_vjp = learner(ns, "matmul_vjp")
    rng = np.random.default_rng(a_shape[0] * 10 + b_shape[1])
    a, b = rng.normal(size=a_shape), rng.normal(size=b_shape)
    dy = rng.normal(size=(a_shape[0], b_shape[1]))
    what = f"matmul_vjp(dy, a, b, out) for a of shape {a_shape} and b of shape {b_shape}"
    got = call(matmul_vjp, me.constant(dy), me.constant(a), me.constant(b), me.constant(a @ b), what=what)
    expect(isinstance(got, (tuple, list)) and len(got) == 2,
           f"{what} should return a tuple of two gradients (one per input), got {type(got).__name__}.")
    expect_close(got[0], dy @ b.T, f"the gradient for a (shape {a_shape}) from {what}, with a = {show(a)}, "
                                  f"b = {show(b)}, dy = {show(dy)}")
    expect_close(got[1], a.T @ dy, f"the gradient for b (shape {b_shape}) from {what}, with a = {show(a)}, "
                                  f"b = {show(b)}, dy = {show(dy)}")


@pytest.mark.matmul_vjp
def test_my_matmul_passes_the_gradient_check_and_says_its_rule(ns):
    my_matmul = learner(ns, "my_matmul")
    expect(isinstance(my_matmul, Op), f"my_matmul should be an Op(...), got {type(my_matmul).__name__}.")
    if not all(g and not g.startswith("your rule") for g in my_matmul.grads):
        raise NotDone(f"my_matmul's rule in words is still {my_matmul.grads}: write each input's gradient as text "
                      f"(the tape debugger shows it).")
    rng = np.random.default_rng(11)
    results = me.testing.check_gradients(my_matmul, rng.normal(size=(2, 3)), rng.normal(size=(3, 2)),
                                         raise_on_failure=False)
    for name, r in zip("ab", results):
        expect(r.ok, f"my_matmul fails the gradient check for {name}: at element {r.worst_position} the tape says "
                     f"{r.analytic:.6g}, finite differences say {r.numeric:.6g}.")


@pytest.mark.matmul_vjp
def test_matmul_vjp_can_be_differentiated_again(ns):
    """Written with minieager ops, the VJP is recorded by an outer tape: d/da of sum(d sum(a @ b * w) / db)."""
    my_matmul = learner(ns, "my_matmul")
    expect_no_calls_to(learner(ns, "matmul_vjp"), {"numpy": "NumPy"}, "matmul_vjp")
    a = me.constant(np.arange(6.0).reshape(2, 3) / 5)
    b = me.constant(np.arange(6.0).reshape(3, 2) / 7)
    w = np.array([[1.0, -2.0], [0.5, 3.0]])
    with me.GradientTape() as outer:
        outer.watch(a)
        with me.GradientTape() as inner:
            inner.watch(b)
            y = me.reduce_sum(my_matmul(a, b) * w)
        g_b = inner.gradient(y, b)                  # a^T @ w
        z = me.reduce_sum(g_b)
    got = outer.gradient(z, a)
    expect(got is not None, "the gradient through your VJP came back as None: write it with minieager ops on "
                            "its inputs (dy, a, b), so that an outer tape records it.")
    expect_close(got, np.ones((2, 3)) * w.sum(axis=1, keepdims=True), "d sum(a^T @ w) / da through your VJP")


# tape_api ----------------------------------------------------------------------------------------

class _CountingTape(me.GradientTape):
    """me.GradientTape, noting each tape made and each stop_recording, for the checks below."""
    made = []

    def __init__(self, persistent=False, watch_accessed_variables=True):
        super().__init__(persistent=persistent, watch_accessed_variables=watch_accessed_variables)
        self.stopped = 0
        _CountingTape.made.append(self)

    def stop_recording(self):
        self.stopped += 1
        return super().stop_recording()


@pytest.fixture
def counting_tapes(monkeypatch):
    _CountingTape.made = []
    monkeypatch.setattr(me, "GradientTape", _CountingTape)
    return _CountingTape.made


@pytest.mark.tape_api
@pytest.mark.parametrize("at", [2.0, -1.5, 0.0])
def test_gradient_of_a_constant(ns, at):
    fn = learner(ns, "gradient_of_a_constant")
    got = call(fn, me.constant(at), what=f"gradient_of_a_constant(me.constant({at}))")
    expect(got is not None, f"gradient_of_a_constant(me.constant({at})) returned None: a tape does not follow a "
                            f"constant unless it is watched.")
    expect_close(got, 2 * at + 3, f"gradient_of_a_constant(me.constant({at}))")


@pytest.mark.tape_api
@pytest.mark.parametrize("at", [1.5, -0.5])
def test_two_gradients_from_one_persistent_tape(ns, at, counting_tapes):
    fn = learner(ns, "two_gradients")
    what = f"two_gradients(me.constant({at}))"
    got = call(fn, me.constant(at), what=what)
    expect(isinstance(got, (tuple, list)) and len(got) == 2, f"{what} should return (dy/dx, dz/dx), got {got!r}.")
    expect_close(got[0], 2 * at, f"dy/dx from {what}")
    expect_close(got[1], 4 * at ** 3, f"dz/dx from {what}")
    expect(len(counting_tapes) == 1, f"{what} made {len(counting_tapes)} tapes: record y and z once, on one tape.")
    expect(counting_tapes[0]._persistent, f"{what}: the tape must be made with persistent=True to give two gradients.")


@pytest.mark.tape_api
@pytest.mark.parametrize("values", [[1.0, -2.0, 0.5], [3.0]])
def test_loss_and_gradient_with_recording_stopped(ns, values, counting_tapes):
    fn = learner(ns, "loss_and_gradient")
    w = me.Variable(values, dtype=me.float64)
    v = np.array(values)
    what = f"loss_and_gradient(me.Variable({values}))"
    got = call(fn, w, what=what)
    expect(isinstance(got, (tuple, list)) and len(got) == 2, f"{what} should return (loss, gradient), got {got!r}.")
    loss, grad = got
    expect_close(loss, (v ** 2).sum() + (v ** 3).sum(), f"the loss from {what} (the penalty counts in it)")
    expect(grad is not None, f"{what}: the gradient came back as None; is the loss recorded on the tape?")
    expect_close(grad, 2 * v, f"the gradient from {what} (the penalty, computed with recording stopped, must not "
                              f"count in it)")
    expect(any(t.stopped for t in counting_tapes), f"{what} never called tape.stop_recording().")


# own_op_debugger ---------------------------------------------------------------------------------

def _softsign_grad(dy, x):
    return dy / (1 + np.abs(x)) ** 2


@pytest.mark.own_op_debugger
@pytest.mark.parametrize("shape", [(), (4,), (2, 3)])
def test_softsign_vjp_values(ns, shape):
    vjp = learner(ns, "softsign_vjp")
    rng = np.random.default_rng(5)
    x, dy = rng.normal(size=shape) * 3, rng.normal(size=shape)
    what = f"softsign_vjp(dy, x, out) with x = {show(x)}, dy = {show(dy)}"
    got = call(vjp, me.constant(dy), me.constant(x), me.constant(x / (1 + np.abs(x))), what=what)
    expect(isinstance(got, tuple) and len(got) == 1,
           f"{what} should return a tuple with one gradient, `(grad,)`: got {type(got).__name__}.")
    expect_close(got[0], _softsign_grad(dy, x), what)


@pytest.mark.own_op_debugger
def test_my_softsign_says_its_rule_and_passes_the_gradient_check(ns):
    op = learner(ns, "my_softsign")
    expect(isinstance(op, Op), f"my_softsign should be an Op(...), got {type(op).__name__}.")
    if not op.grads[0] or op.grads[0] == "your rule in words":
        raise NotDone("my_softsign's rule in words is still the placeholder: write the gradient it sends, in "
                      "terms of dy and x.")
    me.testing.check_gradients(op, np.linspace(-3, 3, 7))


def _debugger_steps(ns):
    debugger = learner(ns, "debugger")
    expect(isinstance(debugger, me.widgets.TapeDebugger),
           f"`debugger` should be the TapeDebugger of the cell that records the tape, got {type(debugger).__name__}.")
    steps = debugger.trace.to_dict()["steps"]
    if not steps:
        raise NotDone("the debugger has no backward steps yet (step 0 / 0): once softsign_vjp is written, run the "
                      "cell that calls debugger.backprop(y, [x]).")
    mine = [s for s in steps if s["op_name"] == "my_softsign"]
    expect(len(mine) == 1, f"the debugger's steps are {[s['op_name'] for s in steps]}: my_softsign should be one "
                           f"of them (run the cells from the top).")
    return debugger, mine[0]


@pytest.mark.own_op_debugger
def test_the_debugger_steps_through_your_op(ns):
    debugger, step = _debugger_steps(ns)
    x = np.array([-2.0, -0.5, 0.0, 1.0, 3.0])
    s = x / (1 + np.abs(x))
    expect_equal(step["rule"], list(learner(ns, "my_softsign").rule), "the rule the debugger shows at your op")
    upstream = np.array(step["upstream"][0]["value"]["data"])
    expect_close(upstream, 2 * s, "the upstream gradient the debugger shows arriving at my_softsign")
    sent = np.array(step["grads_out"][0]["value"]["data"])
    expect_close(sent, _softsign_grad(2 * s, x), "the gradient the debugger shows my_softsign sending to x")


@pytest.mark.own_op_debugger
def test_the_numbers_you_read_in_the_debugger(ns):
    _, step = _debugger_steps(ns)
    upstream, sent = learner(ns, "upstream_at_3"), learner(ns, "sent_at_3")
    shown_upstream = step["upstream"][0]["value"]["data"][-1]
    shown_sent = step["grads_out"][0]["value"]["data"][-1]
    expect(isinstance(upstream, (int, float)) and abs(upstream - shown_upstream) <= 1e-3 * max(1, abs(shown_upstream)),
           f"upstream_at_3 = {upstream!r} is not what the debugger shows arriving at my_softsign for x = 3.0: step "
           f"to your op and read the upstream gradient's last element.")
    expect(isinstance(sent, (int, float)) and abs(sent - shown_sent) <= 1e-3 * max(1, abs(shown_sent)),
           f"sent_at_3 = {sent!r} is not what the debugger shows my_softsign sending to x for x = 3.0.")
