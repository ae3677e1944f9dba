"""Variables captured by reference: reads at run time, assignments as effect nodes, in order."""
import numpy as np
import pytest

import minieager as me


def test_reads_see_the_current_value_and_assignments_happen_every_call():
    v = me.Variable(1.0)

    @me.function
    def bump(x):
        v.assign_add(x)
        return v * 10.0            # reads the assigned value
    assert float(bump(me.constant(2.0))) == 30.0
    assert float(bump(me.constant(2.0))) == 50.0
    assert float(v.numpy()) == 5.0
    v.assign(0.0)                  # changed outside: the graph reads it by reference
    assert float(bump(me.constant(1.0))) == 10.0
    graph = bump.get_concrete_function(me.constant(1.0)).graph
    assert [n.op.name for n in graph.nodes if n.effect] == ["assign_variable"]


def test_assign_sub_and_assign_in_order():
    v = me.Variable([1.0, 2.0])

    @me.function
    def f():
        v.assign([5.0, 5.0])
        v.assign_sub([1.0, 2.0])
        return v.read_value()
    np.testing.assert_allclose(f().numpy(), [4.0, 3.0])
    np.testing.assert_allclose(v.numpy(), [4.0, 3.0])


def test_assign_checks_shape_and_dtype_while_tracing():
    v = me.Variable([1.0, 2.0])

    @me.function
    def f(x):
        v.assign(x)
    with pytest.raises(me.errors.InvalidArgumentError, match=r"with shape \[2\] using a value with shape \[3\]: shapes must be equal"):
        f(me.ones(3))
    assert v._version == 0


def test_gradient_of_a_function_reading_a_variable_under_an_outer_tape():
    w = me.Variable([[1.0, -2.0], [0.5, 3.0]], dtype=me.float64)
    f = me.function(lambda x: me.reduce_sum(me.tanh(x @ w)))
    x = me.constant([[0.3, -0.7]], dtype=me.float64)
    grads = []
    for fn in (f, f.python_function):
        with me.GradientTape() as tape:
            y = fn(x)
        grads.append(tape.gradient(y, w))
    np.testing.assert_allclose(grads[0].numpy(), grads[1].numpy(), rtol=1e-12)


def test_a_variable_from_a_symbolic_value_is_refused():
    @me.function
    def f(x):
        return me.Variable(x * 2.0)
    with pytest.raises(me.errors.InvalidArgumentError, match="initial value is a symbolic tensor"):
        f(me.ones(2))


def test_a_variable_created_on_the_first_trace_is_captured():
    holder = []

    @me.function
    def f(x):
        if not holder:                      # Python state: only while tracing
            holder.append(me.Variable(me.zeros(2)))
        holder[0].assign_add(x)
        return holder[0].read_value()
    f(me.ones(2))
    np.testing.assert_allclose(f(me.ones(2)).numpy(), [2.0, 2.0])
