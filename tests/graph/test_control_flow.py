"""me.cond and me.while_loop: plain Python eagerly, graph nodes inside me.function."""
import numpy as np
import pytest

import minieager as me
from minieager.errors import InvalidArgumentError


def absolute(x):
    return me.cond(me.reduce_sum(x) > 0, lambda: x * 2.0, lambda: -x)


def test_cond_eager_and_traced_agree():
    f = me.function(absolute)
    for value in ([1.0, 2.0], [-1.0, -2.0]):
        x = me.constant(value)
        np.testing.assert_allclose(f(x).numpy(), absolute(x).numpy())
    assert f.experimental_get_tracing_count() == 1
    graph = f.get_concrete_function(me.constant([1.0, 2.0])).graph
    node = graph.nodes[-1]
    assert node.op.name == "cond" and [n.op.name for n in node.attrs["true_graph"].nodes if n.kind == "call"] \
        == ["multiply"]


def test_cond_gradient_equals_eager():
    w = me.Variable([0.5, -1.5], dtype=me.float64)

    def loss(x):
        return me.cond(me.reduce_sum(x * w) > 0, lambda: me.reduce_sum(me.sin(x * w)), lambda: me.reduce_sum(w * w))
    f = me.function(loss)
    for value in ([2.0, 0.1], [-2.0, 0.1]):
        x = me.constant(value, dtype=me.float64)
        grads = []
        for fn in (loss, f):
            with me.GradientTape() as tape:
                tape.watch(x)
                y = fn(x)
            grads.append(tape.gradient(y, [x, w]))
        for eager, graph in zip(*grads):     # None where the branch taken does not read x, as eagerly
            assert (graph is None) == (eager is None)
            if eager is not None:
                np.testing.assert_allclose(graph.numpy(), eager.numpy(), rtol=1e-12)


def test_cond_gradient_inside_a_traced_training_step():
    w = me.Variable([1.0, 2.0], dtype=me.float64)

    @me.function
    def grad(x):
        with me.GradientTape() as tape:
            y = me.cond(x > 0, lambda: me.reduce_sum(w * w) * x, lambda: me.reduce_sum(w))
        return tape.gradient(y, w)
    np.testing.assert_allclose(grad(me.constant(3.0, dtype=me.float64)).numpy(), [6.0, 12.0])
    np.testing.assert_allclose(grad(me.constant(-3.0, dtype=me.float64)).numpy(), [1.0, 1.0])


def test_cond_branches_must_agree():
    f = me.function(lambda x: me.cond(x > 0, lambda: x, lambda: me.stack([x, x])))
    with pytest.raises(InvalidArgumentError, match=r"true_fn returned \(float32\[\]\), false_fn returned "
                                                   r"\(float32\[2\]\)"):
        f(me.constant(1.0))


def collatz_steps(n):
    def body(n, steps):
        return me.where(n % 2 == 0, n // 2, 3 * n + 1), steps + 1
    return me.while_loop(lambda n, steps: n > 1, body, (n, me.constant(0)))[1]


def test_while_loop_eager_and_traced_agree():
    f = me.function(collatz_steps)
    for n in (6, 7, 27):
        assert int(f(me.constant(n))) == int(collatz_steps(me.constant(n))) == len(_collatz(n)) - 1
    assert f.experimental_get_tracing_count() == 1


def _collatz(n):
    seq = [n]
    while n > 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        seq.append(n)
    return seq


def test_while_loop_assigning_a_variable_is_an_effect():
    total = me.Variable(0.0)

    @me.function
    def add_up(n):
        def body(i):
            total.assign_add(me.cast(i, me.float32))
            return i + 1
        me.while_loop(lambda i: i <= n, body, [me.constant(1)])
        return total.read_value()
    assert float(add_up(me.constant(4))) == 10.0
    assert float(add_up(me.constant(4))) == 20.0
    assert [n.op.name for n in add_up.get_concrete_function(me.constant(4)).graph.nodes if n.effect] == ["while"]


def test_while_loop_body_must_keep_shapes():
    f = me.function(lambda x: me.while_loop(lambda v: me.reduce_sum(v) < 10.0, lambda v: me.concat([v, v], 0), [x]))
    with pytest.raises(InvalidArgumentError, match=r"loop_vars are \(float32\[1\]\), body returned \(float32\[2\]\)"):
        f(me.ones(1))
