"""AutoGraph (graph/autograph): Python control flow on tensors inside me.function, checked against
eager results and TF's behaviour (tensorflow 2.21, checked by hand: the messages' kinds and wording)."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import minieager as me
from minieager.errors import OperatorNotAllowedInGraphError


def simple_relu(x):
    if me.greater(x, 0):
        return x
    else:
        return 0


def sign(x):
    if x > 0:
        y = 1.0
    elif x < 0:
        y = -1.0
    else:
        y = 0.0
    return y


def calls(f):
    return sum(1 for n in f.graph.nodes if n.kind == "call" and n.op.name in ("cond", "while"))


def test_if_on_a_tensor_becomes_one_cond_and_picks_at_run_time():
    f = me.function(simple_relu)
    assert f(me.constant(3)).numpy() == 3 and f(me.constant(-2)).numpy() == 0
    assert f.experimental_get_tracing_count() == 1           # one graph for both branches
    assert calls(f.get_concrete_function(me.constant(1))) == 1


@given(st.floats(-5, 5, allow_nan=False))
@settings(max_examples=20, deadline=None)
def test_elif_chain_matches_python(v):
    f = me.function(sign)
    assert f(me.constant(v)).numpy() == sign(float(np.float32(v)))


def test_if_on_a_python_value_stays_python_and_traces_one_branch():
    traced = []

    @me.function
    def f(x, training):
        if training:
            traced.append("train")
            x = x * 2.0
        else:
            traced.append("infer")
        return x
    assert f(me.constant(1.0), True).numpy() == 2.0 and traced == ["train"]
    assert calls(f.get_concrete_function(me.constant(1.0), True)) == 0


def test_and_or_not_on_tensors():
    @me.function
    def f(x):
        if x > 0 and not x > 10 or x < -100:
            return x
        return -x
    for v in (5.0, 20.0, -1.0, -200.0):
        expected = v if (v > 0 and not v > 10) or v < -100 else -v
        assert f(me.constant(v)).numpy() == expected


def test_while_on_a_tensor_becomes_a_while_loop():
    @me.function
    def collatz_steps(n):
        steps = 0
        while n > 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        return steps
    assert collatz_steps(me.constant(27)).numpy() == 111
    assert collatz_steps(me.constant(1)).numpy() == 0
    assert collatz_steps.experimental_get_tracing_count() == 1


def test_for_over_a_tensor_and_over_a_symbolic_range():
    @me.function
    def total(xs, n):
        s = me.constant(0.0)
        for x in xs:
            s += x
        t = 0
        for i in me.range(1, n + 1):
            t += i
        return s, t
    s, t = total(me.constant([1.0, 2.0, 4.0]), me.constant(4))
    assert s.numpy() == 7.0 and t.numpy() == 10
    s, t = total(me.constant([1.0, 2.0, 4.0]), me.constant(0))
    assert t.numpy() == 0


def test_break_continue_and_nested_loops():
    def f(n):
        total = 0
        for i in me.range(n):
            if i % 2 == 1:
                continue
            j = 0
            while j < i:
                if j == 3:
                    break
                total += j
                j += 1
            if total > 20:
                break
        return total

    def python(n):
        total = 0
        for i in range(n):
            if i % 2 == 1:
                continue
            for j in range(i):
                if j == 3:
                    break
                total += j
            if total > 20:
                break
        return total
    g = me.function(f)
    for n in (0, 1, 5, 9, 30):
        assert g(me.constant(n)).numpy() == python(n), n
    assert g.experimental_get_tracing_count() == 1


def test_python_loops_are_unrolled_and_break_on_python_values():
    @me.function
    def power(x, y):
        result = me.eye(3)
        for k in range(y):
            if k == 2:
                break
            result = me.matmul(x, result)
        return result
    x = me.constant(np.diag([2.0, 3.0, 1.0]).astype(np.float32))
    np.testing.assert_allclose(power(x, 5).numpy(), np.diag([4.0, 9.0, 1.0]))
    assert calls(power.get_concrete_function(x, 5)) == 0


def test_branches_must_agree_like_tf():
    @me.function
    def dtypes(x):
        if x > 0:
            y = x * 2
        else:
            y = me.constant(1, me.int32)
        return y
    with pytest.raises(TypeError, match="'y' has dtype float32 in the main branch, but dtype int32 in the else"):
        dtypes(me.constant(1.0))

    @me.function
    def undefined(x):
        if x > 0:
            y = x
        return y
    with pytest.raises(ValueError, match="'y' must also be initialized in the else branch"):
        undefined(me.constant(1.0))

    @me.function
    def structure(x):
        if x > 0:
            y = (x, x)
        else:
            y = x
        return y
    with pytest.raises(TypeError, match="'y' must have the same nested structure in the main and else branches"):
        structure(me.constant(1.0))

    @me.function
    def shapes(x):
        if x > 0:
            y = me.zeros([2])
        else:
            y = me.zeros([3])
        return y
    with pytest.raises(ValueError, match=r"'y' has shape \(2,\) in the main branch, but shape \(3,\)"):
        shapes(me.constant(1.0))


def test_loop_variables_must_keep_dtype_and_be_defined():
    @me.function
    def grows(x):
        i = 0
        while i < x:
            i = me.cast(i, me.float32) + 1.5
        return i
    with pytest.raises(TypeError, match="'i' has dtype int32 before the loop, but dtype float32"):
        grows(me.constant(3))

    @me.function
    def late(n):
        for i in me.range(n):
            z = i * 2
        return z
    with pytest.raises(ValueError, match="'z' is assigned in the loop and used after it, but has no value before"):
        late(me.constant(3))


def test_return_inside_a_tensor_loop_is_refused_like_tf():
    @me.function
    def first_over(xs):
        for i in me.range(me.size(xs)):
            if me.gather(xs, i) > 3:
                return i
        return -1
    with pytest.raises(NotImplementedError, match="return statement cannot be placed inside a graph loop.*break"):
        first_over(me.constant([1, 5, 2]))
    assert first_over.python_function(me.constant([1, 5, 2])).numpy() == 1     # eagerly: plain Python


def test_tensor_break_in_a_loop_over_a_python_generator_names_the_fix():
    def gen():
        yield 1
        yield 2

    @me.function
    def f(x):
        for i in gen():
            if x > i:
                break
        return x
    with pytest.raises(NotImplementedError, match="iterates a Python generator.*Iterate a tensor instead"):
        f(me.constant(10))


def test_yield_and_try_are_refused_with_the_line():
    @me.function
    def gen(x):
        yield x
    with pytest.raises(me.autograph.ConversionError, match=r"line \d+ \(`yield x`\).*generator"):
        gen(me.constant(1.0))

    @me.function
    def guarded(x):
        try:
            if x > 0:
                x = -x
        except ValueError:
            pass
        return x
    with pytest.raises(NotImplementedError, match=r"`if x > 0:`.*`try`.*Move the `if` out of the `try`"):
        guarded(me.constant(1.0))


def test_errors_point_at_the_users_line():
    @me.function
    def f(x):
        if x > 0:
            y = me.matmul(x, x)     # a scalar: matmul raises here
        else:
            y = x
        return y
    with pytest.raises(Exception) as info:
        f(me.constant(1.0))
    frames = [(tb.tb_frame.f_code.co_filename, tb.tb_lineno) for tb in _tracebacks(info.value.__traceback__)]
    line = f.python_function.__code__.co_firstlineno + 3
    assert (__file__, line) in frames


def _tracebacks(tb):
    while tb is not None:
        yield tb
        tb = tb.tb_next


def test_to_code_is_readable_and_to_graph_runs_eagerly():
    code = me.autograph.to_code(sign)
    assert "# line" in code and "`if x > 0:` -> ag.if_stmt" in code
    assert "def if_true_" in code and "ag.if_stmt(x > 0, if_true_" in code
    assert "ag__" not in code and "__ag_comment__" not in code
    converted = me.autograph.to_graph(sign)
    assert converted(me.constant(-3.0)) == -1.0 and converted(2.0) == 1.0
    assert me.autograph.to_code(me.function(sign)) == code


def test_autograph_false_and_do_not_convert_trace_as_written():
    def f(x):
        if x > 0:
            return x
        return -x
    with pytest.raises(OperatorNotAllowedInGraphError, match="me.cond"):
        me.function(f, autograph=False)(me.constant(1.0))
    g = me.autograph.experimental.do_not_convert(f)
    with pytest.raises(OperatorNotAllowedInGraphError, match="me.cond"):
        me.function(g)(me.constant(1.0))


def test_unreadable_source_falls_back_with_a_warning():
    namespace = {"me": me}
    exec("def f(x):\n    return x * 2.0\n", namespace)
    with pytest.warns(UserWarning, match="could not convert 'f'.*source code cannot be read"):
        assert me.function(namespace["f"])(me.constant(2.0)).numpy() == 4.0


def test_closures_and_methods_are_converted():
    scale = me.constant(3.0)

    class Clip:
        limit = 1.0

        @me.function
        def __call__(self, x):
            if x * scale > self.limit:
                x = me.constant(self.limit)
            return x
    clip = Clip()
    assert clip(me.constant(2.0)).numpy() == 1.0 and clip(me.constant(0.1)).numpy() == pytest.approx(0.1)


def test_cond_gradients_equal_eager():
    def f(x, w):
        if me.reduce_sum(x) > 0:
            y = me.reduce_sum(x * w * w)
        else:
            y = me.reduce_sum(me.sin(x) * w)
        return y
    g = me.function(f)
    for x in (np.array([1.0, 2.0]), np.array([-3.0, 0.5])):
        w = me.Variable(np.array([0.3, -0.7]))
        with me.GradientTape() as tape:
            eager = f(me.constant(x), w)
        expected = tape.gradient(eager, w).numpy()
        with me.GradientTape() as tape:
            traced = g(me.constant(x), w)
        np.testing.assert_allclose(traced.numpy(), eager.numpy())
        np.testing.assert_allclose(tape.gradient(traced, w).numpy(), expected)
        # and against finite differences, in float64
        eps, fd = 1e-6, []
        for i in range(2):
            d = np.zeros(2)
            d[i] = eps
            fd.append((f(me.constant(x), me.constant(w.numpy() + d)).numpy()
                       - f(me.constant(x), me.constant(w.numpy() - d)).numpy()) / (2 * eps))
        np.testing.assert_allclose(expected, fd, rtol=1e-5)


def test_notebook_functions_convert(tmp_path):
    """A function defined in an IPython cell: IPython keeps its source, so AutoGraph reads it."""
    pytest.importorskip("IPython")
    script = textwrap.dedent('''
        from IPython.testing.globalipapp import start_ipython
        ip = start_ipython()
        ip.run_cell("import minieager as me")
        ip.run_cell("def relu(x):\\n    if x > 0:\\n        return x\\n    return 0.0\\n")
        r = ip.run_cell("f = me.function(relu)\\nprint(float(f(me.constant(-2.0))), float(f(me.constant(3.0))))")
        r.raise_error()
    ''')
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert "0.0 3.0" in out.stdout, out.stdout + out.stderr


calls_seen = 0


def test_global_statements_stay_global():
    @me.function
    def f(x, count):
        global calls_seen
        if count:                 # a Python condition: the branch runs while tracing
            calls_seen += 1
        if x > 0:                 # a tensor condition: both branches traced, neither assigns the global
            x = x * 2.0
        return x
    assert f(me.constant(2.0), True).numpy() == 4.0 and calls_seen == 1


def test_nonlocal_functions_are_traced_as_written_with_a_warning():
    total = 0

    def f(x):
        nonlocal total
        total += 1
        return x + 1.0
    with pytest.warns(UserWarning, match=r"could not convert 'f'.*`nonlocal total`"):
        assert me.function(f)(me.constant(1.0)).numpy() == 2.0
    assert total == 1


def test_the_converted_function_shares_the_enclosing_variables():
    scale = me.constant(2.0)

    @me.function
    def f(x, key):
        if x > 0:
            x = x * scale
        return x
    assert f(me.constant(1.0), "first").numpy() == 2.0
    scale = me.constant(5.0)          # rebound: the next trace (a new key) sees 5, as Python would
    assert f(me.constant(1.0), "second").numpy() == 5.0


def test_a_converter_failure_falls_back_with_a_warning(monkeypatch):
    from minieager.graph import autograph

    def broken(fn_node, lines):
        raise RuntimeError("a bug in the converter")
    monkeypatch.setattr(autograph, "convert_tree", broken)

    def f(x):
        return x * 3.0
    with pytest.warns(UserWarning, match=r"converter failed \(RuntimeError: a bug in the converter\)"):
        assert me.function(f)(me.constant(1.0)).numpy() == 3.0


def clipped(x):
    if x > 1.0:
        x = me.constant(1.0)
    return x


def test_functions_it_calls_are_converted_too():
    @me.function
    def f(x):
        return clipped(x) * 2.0 + len([x])      # clipped has a tensor `if`; builtins are called as they are
    assert f(me.constant(3.0)).numpy() == 3.0 and f(me.constant(0.25)).numpy() == 1.5
    code = me.autograph.to_code(f)
    assert "ag.call(clipped, x)" in code and "len([x])" in code and "ag.call(len" not in code

    def numbers():
        yield 1.0
        yield 2.0

    @me.function
    def g(x):
        return x + sum(numbers()) + me.reduce_sum(x)    # a generator is called as it is
    assert g(me.constant(1.0)).numpy() == 5.0


def test_loop_variables_may_be_tuples_and_lists():
    @me.function
    def fib(n):
        pair = (me.constant(0), me.constant(1))
        history = [me.constant(0.0)]
        for _ in me.range(n):
            pair = (pair[1], pair[0] + pair[1])
            history = [history[0] + 1.0]
        return pair[0], history[0]
    a, count = fib(me.constant(10))
    assert a.numpy() == 55 and count.numpy() == 10.0

    @me.function
    def reshaped(n):
        state = (me.constant(0.0), me.constant(1))
        for _ in me.range(n):
            state = me.constant(1.0)
        return state
    with pytest.raises(TypeError, match="'state' is a tuple of 2 before the loop, but a tensor float32"):
        reshaped(me.constant(3))


def test_a_bound_method_is_converted():
    class Gate:
        def open(self, x):
            if x > 0:
                return x
            return me.zeros_like(x)
    gate = me.function(Gate().open)
    assert gate(me.constant(2.0)).numpy() == 2.0 and gate(me.constant(-2.0)).numpy() == 0.0


def test_gradients_through_converted_loops_equal_eager():
    """A converted `for i in me.range(n)` and `while` over tensors are while_loops: an outer tape's
    gradient through them equals eager's (the loops' backward pass is graph mode's, tests/graph)."""
    def f(x, w):
        y = x
        for i in me.range(3):
            y = me.sin(y * w)
        k = 0
        while k < 2:
            y = y * w + x
            k += 1
        return me.reduce_sum(y)
    x = me.constant(np.array([0.3, -0.2]))
    w = me.Variable(np.array([0.9, 1.1]))
    with me.GradientTape() as tape:
        eager = f(x, w)
    expected = tape.gradient(eager, w)
    with me.GradientTape() as tape:
        traced = me.function(f)(x, w)
    got = tape.gradient(traced, w)
    assert got is not None
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-10)


def test_a_loop_target_is_not_handed_on_by_a_later_if():
    """`for _ in range(n)` binds `_` inside the converted loop body only; an `if` after it (on a
    Python value, with another `for _` inside) must not hand `_` on, even when the loop ran zero times."""
    @me.function
    def f(x, order):
        y = me.cos(x)
        for _ in range(order):
            (y,) = me.gradients(y, [x])
        y1 = y
        if order > 0:
            y1 = y * 2.0
            for _ in range(order - 1):
                (y1,) = me.gradients(y1, [x])
        return y, y1
    y, y1 = f(me.constant(1.0), 0)
    assert y.numpy() == y1.numpy() == pytest.approx(np.cos(1.0), rel=1e-6)
    y, y1 = f(me.constant(1.0), 2)
    assert y.numpy() == pytest.approx(-np.cos(1.0), rel=1e-6) and y1.numpy() == pytest.approx(2 * np.sin(1.0), rel=1e-6)


def test_a_for_over_a_tensor_of_unknown_length_traces_once():
    """`for x in xs` with xs of shape (None,) (an input_signature): the loop's length is read when the
    graph runs, so one trace serves every length, as in TF."""
    @me.function(input_signature=[me.TensorSpec([None], me.float32)])
    def total(xs):
        s = me.constant(0.0)
        for x in xs:
            s += x * x
        return s
    assert total(me.constant([1.0, 2.0])).numpy() == 5.0
    assert total(me.constant([1.0, 2.0, 3.0])).numpy() == 14.0
    assert total(me.zeros([0])).numpy() == 0.0
    assert len(total.get_concrete_function().inputs) == 1 and "float32[?]" in str(total.get_concrete_function().graph)


# ---- TensorArrays carried by converted loops (tests/graph/test_tensor_array.py has the rest) ------------------
def test_tensor_arrays_in_nested_tensor_loops_as_tf():
    @me.function
    def table(n, m):
        rows = me.TensorArray(me.int32, size=n)
        flat = me.TensorArray(me.int32, size=0, dynamic_size=True)
        for i in me.range(n):
            row = me.TensorArray(me.int32, size=m)          # made in the outer loop's body, its size a tensor
            for j in me.range(m):
                row = row.write(j, i * 10 + j)
                flat = flat.write(i * m + j, i + j)
            rows = rows.write(i, row.stack())              # an element whose length is known when the graph runs
        return rows.stack(), flat.stack()

    # TF 2.21: [[0, 1], [10, 11], [20, 21]] [0, 1, 1, 2, 2, 3]
    rows, flat = table(me.constant(3), me.constant(2))
    assert rows.numpy().tolist() == [[0, 1], [10, 11], [20, 21]] and flat.numpy().tolist() == [0, 1, 1, 2, 2, 3]
    rows, flat = table(me.constant(2), me.constant(3))
    assert rows.numpy().tolist() == [[0, 1, 2], [10, 11, 12]] and flat.numpy().tolist() == [0, 1, 2, 1, 2, 3]
    assert table.experimental_get_tracing_count() == 1
    code = me.autograph.to_code(table.python_function)
    assert "loop variables: flat, row" in code and "loop variables: flat, rows" in code


def test_tensor_arrays_with_break_as_tf():
    @me.function
    def until(xs, limit):
        ta = me.TensorArray(me.float32, size=0, dynamic_size=True)
        for i in me.range(me.shape(xs)[0]):
            if xs[i] > limit:
                break
            ta = ta.write(i, xs[i] * 2.0)
        return ta.stack(), ta.size()

    # TF 2.21: [2.0, 4.0] 2, then [] 0
    stacked, size = until(me.constant([1.0, 2.0, 5.0, 1.0]), me.constant(3.0))
    assert stacked.numpy().tolist() == [2.0, 4.0] and size.numpy() == 2
    stacked, size = until(me.constant([4.0, 2.0]), me.constant(3.0))
    assert stacked.shape == (0,) and size.numpy() == 0

    @me.function
    def collatz(x):
        ta = me.TensorArray(me.int32, size=0, dynamic_size=True)
        i = me.constant(0)
        while i < 100:
            ta = ta.write(i, x)
            i += 1
            if x == 1:
                break
            if x % 2 == 0:
                x = x // 2
            else:
                x = 3 * x + 1
        return ta.stack()

    assert collatz(me.constant(6)).numpy().tolist() == [6, 3, 10, 5, 16, 8, 4, 2, 1]     # TF 2.21: the same
    assert collatz(me.constant(1)).numpy().tolist() == [1]


def test_a_loop_counter_indexes_a_tensor_as_a_gather():
    @me.function
    def cols(x):
        out = me.TensorArray(me.float32, size=x.shape[1])
        for i in me.range(x.shape[1]):
            out = out.write(i, x[:, i] + x[i, 0])
        return out.stack()

    assert cols(me.constant([[1.0, 2.0], [3.0, 4.0]])).numpy().tolist() == [[2.0, 4.0], [5.0, 7.0]]   # TF 2.21

    @me.function
    def past_the_end(x, i):
        return x[i]

    assert past_the_end(me.constant([1.0, 2.0]), me.constant(-1)).numpy() == 2.0       # as x[-1]
    with pytest.raises(me.errors.InvalidArgumentError, match=r"index 2 is out of range for axis 0 of size 2"):
        past_the_end(me.constant([1.0, 2.0]), me.constant(2))

    @me.function
    def with_a_new_axis(x, i):
        return x[None, i]

    with pytest.raises(OperatorNotAllowedInGraphError, match=r"combined only with ints and slices .*me.gather"):
        with_a_new_axis(me.constant([1.0, 2.0]), me.constant(0))
