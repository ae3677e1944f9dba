"""Gradients and graphs: an outer tape through me.function, tapes inside it, me.gradients (tf.gradients),
and me.while_loop's gradient; each checked against eager code, finite differences and what TF 2.21 gives."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import minieager as me
from minieager.errors import InaccessibleTensorError, InvalidArgumentError


def f64(x):
    return me.constant(x, dtype=me.float64)


# ---- an outer tape through a function ------------------------------------------------------------------
@pytest.mark.parametrize("returned", [lambda v: v, lambda v: me.identity(v), lambda v: me.reshape(v, [1])])
def test_a_function_returning_a_variable_passes_its_gradient_on(returned):
    # As tf.function: f returns v (or identity/reshape of v); d(sum(f()) + v)/dv = 2, not 1.
    v = me.Variable(2.0)
    f = me.function(lambda x: returned(v))
    with me.GradientTape() as tape:
        y = me.reduce_sum(f(me.constant(1.0))) + v * 1.0
    assert float(tape.gradient(y, v)) == 2.0


def test_a_read_after_an_assign_in_a_function_has_eager_gradients():
    # TF 2.21, eagerly and in tf.function alike: d(3 v)/dv = 3 after v.assign_add(x); x gets None
    # (an assignment is not differentiable).
    def h(v, x):
        v.assign_add(x)
        return v * 3.0
    x = me.constant(1.0)
    results = []
    for fn in (h, me.function(h)):
        v = me.Variable(1.0)
        with me.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = fn(v, x)
        results.append((float(y), tape.gradient(y, x), float(tape.gradient(y, v))))
    assert results[0] == results[1] == (6.0, None, 3.0)


def power_loop(x, n):
    return me.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, a * x), [0, me.ones_like(x)])[1]


def test_while_loop_gradient_under_an_outer_tape_equals_eager_and_finite_differences():
    # TF 2.21: d/dx of x**3 built by tf.while_loop in a tf.function at x = 4 (2x) is 3 * 16 * 2 = 96... here
    # checked directly against eager code and finite differences in float64.
    traced = me.function(power_loop)
    x = f64([0.5, -1.5, 2.0])
    grads = []
    for fn in (power_loop, traced):
        with me.GradientTape() as tape:
            tape.watch(x)
            y = me.reduce_sum(fn(x * 2.0, 3))
        grads.append(tape.gradient(y, x).numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12)
    np.testing.assert_allclose(grads[1], 3 * (2 * x.numpy()) ** 2 * 2, rtol=1e-12)
    me.testing.check_gradients(lambda x: traced(x, 4), x)


def test_while_loop_gradient_reaches_the_variables_the_body_reads():
    # TF 2.21: tf.while_loop(i < 3, a * w) from a = x = 2, w = 3: dy/dw = 3 w**2 x = 54, dy/dx = w**3 = 27.
    w = me.Variable(3.0)
    f = me.function(lambda x: me.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * w), [0, x])[1])
    x = me.constant(2.0)
    with me.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    assert [float(g) for g in tape.gradient(y, [w, x])] == [54.0, 27.0]


def test_a_loop_with_effects_is_differentiated_by_an_outer_tape_as_eager_code():
    counter = me.Variable(0.0, trainable=False)

    def loop(x):
        def body(i, a):
            counter.assign_add(1.0)
            return i + 1, a * x
        return me.while_loop(lambda i, a: i < 3, body, [0, me.ones_like(x)])[1]
    x = f64(1.5)
    grads = []
    for fn in (loop, me.function(loop)):
        with me.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        grads.append(float(tape.gradient(y, x)))
    assert grads == [3 * 1.5 ** 2] * 2
    assert float(counter) == 6.0     # the graph's loop ran its effect three times, as the eager one did


def test_a_cond_with_effects_is_differentiated_by_an_outer_tape_as_eager_code():
    calls = me.Variable(0, trainable=False)

    def f(x):
        def bigger():
            calls.assign_add(1)
            return x * x
        return me.cond(x > 0, bigger, lambda: -x)
    for value, want in ((3.0, 6.0), (-3.0, -1.0)):
        x = f64(value)
        for fn in (f, me.function(f)):
            with me.GradientTape() as tape:
                tape.watch(x)
                y = fn(x)
            assert float(tape.gradient(y, x)) == want
    assert int(calls) == 2


def test_while_loop_gradient_inside_a_traced_function_equals_eager():
    w = me.Variable([1.0, -2.0], dtype=me.float64)

    def step(x):
        with me.GradientTape() as tape:
            y = me.reduce_sum(me.while_loop(lambda i, a: i < 4, lambda i, a: (i + 1, me.sin(a) * w), [0, x])[1])
        return tape.gradient(y, w)
    x = f64([0.3, 0.7])
    np.testing.assert_allclose(me.function(step)(x).numpy(), step(x).numpy(), rtol=1e-12)


def test_me_gradients_through_while_loop_with_a_tensor_maximum_iterations():
    # TF 2.21: tf.while_loop(i < 10, a * x, [0, 1.0], maximum_iterations=n) with x = 2, n = 3: (8.0, [12.0]).
    @me.function
    def f(x, n):
        y = me.while_loop(lambda i, a: i < 10, lambda i, a: (i + 1, a * x), [0, 1.0], maximum_iterations=n)[1]
        return y, me.gradients(y, x)
    y, (g,) = f(me.constant(2.0), me.constant(3))
    assert (float(y), float(g)) == (8.0, 12.0)
    y, (g,) = f(me.constant(2.0), me.constant(5))       # the same graph: n is read when it runs
    assert (float(y), float(g)) == (32.0, 80.0)
    assert f.experimental_get_tracing_count() == 1


@settings(max_examples=25, deadline=None)
@given(x=st.floats(-3, 3), n=st.integers(0, 6))
def test_while_loop_gradient_is_n_x_to_the_n_minus_1(x, n):
    @me.function
    def f(x):
        with me.GradientTape() as tape:
            tape.watch(x)
            y = power_loop(x, n)
        return tape.gradient(y, x)
    np.testing.assert_allclose(float(f(f64(x))), n * x ** (n - 1) if n else 0.0, rtol=1e-12, atol=1e-12)


def test_a_second_derivative_through_a_loop_under_outer_tapes_equals_eager():
    x = f64(1.5)
    traced = me.function(lambda x: power_loop(x, 4))
    for fn in (lambda x: power_loop(x, 4), traced):
        with me.GradientTape() as outer:
            outer.watch(x)
            with me.GradientTape() as inner:
                inner.watch(x)
                y = fn(x)
            dy = inner.gradient(y, x)
        assert float(outer.gradient(dy, x)) == pytest.approx(12 * 1.5 ** 2, rel=1e-12)


def test_gradients_that_cannot_be_built_in_a_trace_raise_instead_of_returning_none():
    v = me.Variable(0.0)

    @me.function
    def effectful(x):
        with me.GradientTape() as tape:
            tape.watch(x)
            y = me.while_loop(lambda i, a: i < 2, lambda i, a: (i + 1, a * x + v.assign_add(1.0)), [0, x])[1]
        return tape.gradient(y, x)
    with pytest.raises(InvalidArgumentError, match=r"me.while_loop has effects .* GradientTape around the call"):
        effectful(me.constant(1.0))

    @me.function
    def second(x):
        with me.GradientTape() as outer:
            outer.watch(x)
            with me.GradientTape() as inner:
                inner.watch(x)
                y = power_loop(x, 3)
            dy = inner.gradient(y, x)
        return outer.gradient(dy, x)
    with pytest.raises(InvalidArgumentError, match="second derivative through a loop"):
        second(me.constant(1.0))


# ---- me.gradients (tf.gradients) ------------------------------------------------------------------------
def test_me_gradients_is_refused_eagerly_as_tf_gradients():
    # TF 2.21: RuntimeError "tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape instead."
    with pytest.raises(RuntimeError, match="not supported when eager execution is enabled.*GradientTape"):
        me.gradients(me.constant(1.0), me.constant(2.0))


def test_me_gradients_in_a_function_gives_tf_gradients_values():
    v = me.Variable(2.0)

    @me.function
    def f(x):
        y = x * x
        i = me.cast(x, me.int32)
        return (me.gradients(y, x), me.gradients([y, 3.0 * x], [x]), me.gradients(y, x, grad_ys=me.constant(2.0)),
                me.gradients(y, [x, me.constant(1.0)]), me.gradients(y, i), me.gradients(i, x),
                me.gradients(v * x, [v, x]), me.gradients(x, x), me.gradients(y, x, stop_gradients=[x]),
                me.gradients(y, me.constant(1.0), unconnected_gradients="zero"))
    got = f(me.constant(3.0))
    values = [[None if g is None else float(g) for g in grads] for grads in got]
    # TF 2.21 on the same calls (x = 3, v = 2):
    assert values == [[6.0], [9.0], [12.0], [6.0, None], [None], [None], [3.0, 2.0], [1.0], [6.0], [0.0]]


def test_me_gradients_stop_gradients_blocks_the_path_through_a_tensor():
    @me.function
    def f(x):
        a = x * x
        return me.gradients(a * x, x, stop_gradients=[a])      # a counted as a constant: d(a x)/dx = a
    assert float(f(me.constant(3.0))[0]) == 9.0


def test_me_gradients_argument_errors():
    @me.function
    def bad_grad_ys(x):
        return me.gradients(x * x, x, grad_ys=me.constant([1.0, 2.0]))
    with pytest.raises(InvalidArgumentError, match=r"grad_ys\[0\] must have the shape of ys\[0\], \(\), got \(2,\)"):
        bad_grad_ys(me.constant(3.0))

    leaked = []
    me.function(lambda x: leaked.append(x * 2.0) or x)(me.constant(1.0))

    @me.function
    def other(x):
        return me.gradients(x * 2.0, leaked[0])
    with pytest.raises(InaccessibleTensorError, match="belongs to the trace of '<lambda>'"):
        other(me.constant(1.0))


def test_second_order_me_gradients_build_gradients_of_gradient_ops():
    @me.function
    def f(x):
        dy = me.gradients(x * x * x, x)[0]
        return me.gradients(dy, x)[0]
    assert float(f(me.constant(2.0))) == 12.0


def test_custom_gradient_inside_a_function_computes_the_value_and_its_gradient():
    @me.custom_gradient
    def double(x):
        def grad(dy):
            return dy * 100.0
        return x * 2.0, grad

    @me.function
    def f(x):
        with me.GradientTape() as tape:
            tape.watch(x)
            y = double(x)
        return y, tape.gradient(y, x), me.gradients(y, x)[0]
    assert [float(t) for t in f(me.constant(3.0))] == [6.0, 100.0, 100.0]
    # TF 2.21: a tape outside the tf.function applies grad_fn too (100.0), not the gradient of x * 2.0.
    x = me.constant(3.0)
    with me.GradientTape() as tape:
        tape.watch(x)
        y = me.function(double)(x)
    assert float(y) == 6.0 and float(tape.gradient(y, x)) == 100.0


def _eager_and_traced_gradients(fn, *args, signature=None):
    """d(sum fn(*args))/d(each arg), eagerly and through me.function under a tape outside it."""
    results = []
    for run in (fn, me.function(fn, input_signature=signature)):
        with me.GradientTape() as tape:
            for a in args:
                tape.watch(a)
            out = run(*args)
            total = me.add_n([me.reduce_sum(o) for o in nest_flat(out)])
        results.append([g.numpy() for g in tape.gradient(total, list(args))])
    return results


def nest_flat(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


@me.custom_gradient
def log1pexp(x):
    e = me.exp(x)                  # a forward value grad_fn reads: a capture of the traced gradient
    def grad(dy):
        return dy * (1.0 - 1.0 / (1.0 + e))
    return me.math.log1p(e), grad


def test_an_outer_tape_applies_grad_fn_that_reads_forward_values():
    # TF 2.21 (the guide's log1pexp): the same gradient through tf.function as eagerly, sigmoid(x).
    x = me.constant(np.array([-3.0, 0.0, 2.0, 50.0]))
    eager, traced = _eager_and_traced_gradients(log1pexp, x)
    np.testing.assert_allclose(traced[0], eager[0], rtol=1e-12)
    np.testing.assert_allclose(traced[0], 1.0 / (1.0 + np.exp(-x.numpy())), rtol=1e-12)
    # ... and with a dimension known only when the graph runs (one trace for two lengths).
    f = me.function(lambda x: log1pexp(x) * 2.0, input_signature=[me.TensorSpec([None], me.float64)])
    for values in ([0.5], [1.0, -1.0, 4.0]):
        v = me.constant(np.array(values))
        with me.GradientTape() as tape:
            tape.watch(v)
            y = me.reduce_sum(f(v))
        np.testing.assert_allclose(tape.gradient(y, v).numpy(), 2.0 / (1.0 + np.exp(-np.array(values))), rtol=1e-12)
    assert f.experimental_get_tracing_count() == 1


def test_an_outer_tape_applies_grad_fn_with_two_outputs_and_a_variable():
    # Two outputs (one unused by the target gets a zero dy) and a variable read inside: grad_fn(dy0, dy1,
    # variables=...) gives eager's gradient for the input and the variable through the traced function too
    # (TF 2.21, eager and tf.function alike: [18, 18] and 3 for both outputs, [7, 7] and 3 for the first only).
    w = me.Variable(np.float64(3.0))

    @me.custom_gradient
    def scaled(x):
        def grad(dy0, dy1, variables=None):
            return [dy0 * 7.0 + dy1 * 11.0], [me.reduce_sum(dy0 * x)]
        return (x * w, x + w), grad

    def first_only(x):
        return scaled(x)[0]

    x = me.constant(np.array([1.0, 2.0]))
    for fn, want_x in ((lambda x: scaled(x), 18.0), (first_only, 7.0)):
        for run in (fn, me.function(fn)):
            with me.GradientTape() as tape:
                tape.watch(x)
                total = me.add_n([me.reduce_sum(o) for o in nest_flat(run(x))])
            gx, gw = tape.gradient(total, [x, w])
            assert gx.numpy().tolist() == [want_x, want_x] and float(gw) == 3.0


def test_a_second_derivative_through_a_traced_custom_gradient():
    # grad_fn written with ops is differentiated again: y = x**3 with grad 3x**2 dy gives d2y/dx2 = 6x, eagerly
    # and through me.function (TF 2.21: the same, 12.0 at x = 2).
    @me.custom_gradient
    def cube(x):
        def grad(dy):
            return dy * 3.0 * x * x
        return x * x * x, grad

    for run in (cube, me.function(cube)):
        x = me.constant(2.0)
        with me.GradientTape() as outer:
            outer.watch(x)
            with me.GradientTape() as inner:
                inner.watch(x)
                y = run(x)
            dy = inner.gradient(y, x)
        assert float(dy) == 12.0 and float(outer.gradient(dy, x)) == 12.0


# ---- cond and while_loop accept and refuse the same arguments, eagerly and traced -------------------------
x1 = me.constant(1.0)
ARGUMENTS = [
    # TF 2.21 in tf.function: "Input 'pred' passed float expected bool" (eager tf.cond would take it).
    ("cond float pred", lambda p: me.cond(me.cast(p, me.float32), lambda: x1, lambda: x1 + 1), True,
     InvalidArgumentError, r"pred must be a scalar bool tensor .* got float32\[\]"),
    ("cond int pred", lambda p: me.cond(me.cast(p, me.int32), lambda: x1, lambda: x1 + 1), True,
     InvalidArgumentError, r"pred must be a scalar bool tensor .* got int32\[\]"),
    ("cond vector pred", lambda p: me.cond(me.stack([p, p]), lambda: x1, lambda: x1 + 1), True,
     InvalidArgumentError, r"got bool\[2\]"),
    ("cond not callable", lambda p: me.cond(p, x1, lambda: x1), True, TypeError, "'true_fn' must be callable"),
    ("cond no false_fn", lambda p: me.cond(p, lambda: x1), True, TypeError, "'false_fn' must be callable"),
    ("cond ok", lambda p: me.cond(p, lambda: x1, lambda: x1 + 1), True, None, 1.0),
    # TF 2.21 in tf.function: "Input 'input' passed float expected bool" for a float loop condition.
    ("while float cond", lambda n: me.while_loop(lambda i: me.cast(i < n, me.float32), lambda i: i + 1, [0]), 3,
     InvalidArgumentError, r"cond's result must be a scalar bool tensor .* got float32\[\]"),
    ("while body drops a variable", lambda n: me.while_loop(lambda i, j: i < n, lambda i, j: i + 1, [0, 1]), 3,
     InvalidArgumentError, r"loop_vars are \(int32\[\], int32\[\]\), body returned \(int32\[\]\)"),
    # TF 2.21 in tf.function: "Loop var ... enters the loop with type int32 but has type float32 after 1 iteration".
    ("while body changes dtype", lambda n: me.while_loop(lambda i: i < n, lambda i: me.cast(i, me.float32), [0]), 3,
     InvalidArgumentError, r"loop_vars are \(int32\[\]\), body returned \(float32\[\]\)"),
    ("while body changes shape", lambda n: me.while_loop(
        lambda v: me.size(v) < n, lambda v: me.concat([v, v], 0), [me.constant([1])]), 3,
     InvalidArgumentError, r"loop_vars are \(int32\[1\]\), body returned \(int32\[2\]\)"),
    # TF 2.21 in tf.function: TypeError "Expected int32, but got 2.5 of type 'float'".
    ("while float maximum_iterations", lambda n: me.while_loop(lambda i: i < n, lambda i: i + 1, [0],
                                                               maximum_iterations=2.5), 3,
     TypeError, r"maximum_iterations must be an int or a scalar int tensor, got 2.5"),
    ("while not callable", lambda n: me.while_loop(n, lambda i: i + 1, [0]), 3, TypeError, "'cond' must be callable"),
    ("while tensor maximum_iterations", lambda n: me.while_loop(lambda i: i < 10, lambda i: i + 1, [0],
                                                                maximum_iterations=n), 3, None, [3]),
    ("while single loop var", lambda n: me.while_loop(lambda i: i < n, lambda i: i + 1, 0), 3, None, 3),
    ("while tuple", lambda n: me.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, a * 2.0), (0, 1.0)), 3,
     None, (3, 8.0)),
]


@pytest.mark.parametrize("name, fn, arg, error, expected", ARGUMENTS, ids=[a[0] for a in ARGUMENTS])
def test_cond_and_while_loop_accept_and_refuse_the_same_arguments_eagerly_and_traced(name, fn, arg, error, expected):
    value = me.constant(arg)
    for run in (fn, me.function(fn)):
        if error is not None:
            with pytest.raises(error, match=expected):
                run(value)
        elif name.startswith("cond"):
            assert float(run(value)) == expected
        else:
            out = run(value)
            # tensors, in the loop_vars' structure, in both modes
            assert type(out) is (type(expected) if isinstance(expected, (list, tuple)) else me.Tensor)
            assert me.nest.map_structure(lambda t: t.numpy().item(), out) == expected
