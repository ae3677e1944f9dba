"""me.function: tracing per signature, the graph it records, errors, side effects, gradients."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import minieager as me
from minieager.errors import InvalidArgumentError, OperatorNotAllowedInGraphError


def test_traces_once_per_signature():
    traces = []

    @me.function
    def f(x, scale):
        traces.append(1)                     # a Python side effect: runs while tracing only
        return x * scale

    a, b = me.constant([1.0, 2.0]), me.constant([3.0, 4.0])
    np.testing.assert_allclose(f(a, 2.0).numpy(), [2.0, 4.0])
    np.testing.assert_allclose(f(b, 2.0).numpy(), [6.0, 8.0])        # same signature: no new trace
    assert f.experimental_get_tracing_count() == 1 and len(traces) == 1
    f(me.constant([1.0, 2.0, 3.0]), 2.0)                            # new shape
    f(me.constant([1.0, 2.0], dtype=me.float64), 2.0)               # new dtype
    f(a, 3.0)                                                       # new Python value
    assert f.experimental_get_tracing_count() == 4 and len(traces) == 4
    np.testing.assert_allclose(f(a, 3.0).numpy(), [3.0, 6.0])
    assert f.experimental_get_tracing_count() == 4


def test_a_repeated_call_with_tensors_of_the_same_types_skips_the_signature(monkeypatch):
    """The fast path of a call: plain tensors with the shapes and dtypes of an earlier call run that
    call's trace without building the signature; anything else (a new shape, a Variable, a keyword)
    still goes through it, and traces when it must."""
    @me.function
    def f(x, y):
        return x * y

    a, b = me.constant([1.0, 2.0]), me.constant([3.0, 4.0])
    f(a, b)                                                        # signature built, trace kept
    built = []
    general = type(f)._concrete_for
    monkeypatch.setattr(type(f), "_concrete_for", lambda self, *args: built.append(1) or general(self, *args))
    np.testing.assert_allclose(f(b, a).numpy(), [3.0, 8.0])
    assert built == [] and f.experimental_get_tracing_count() == 1
    np.testing.assert_allclose(f(a, me.constant([5.0, 6.0, 7.0])[:2]).numpy(), [5.0, 12.0])   # a view: same types
    assert built == []
    f(me.constant([1.0, 2.0], dtype=me.float64), b.numpy().astype(np.float64))   # a new dtype, an array
    f(me.constant([1.0, 2.0, 3.0]), me.constant(2.0))                           # new shapes
    assert built == [1, 1] and f.experimental_get_tracing_count() == 3
    v = me.Variable([1.0, 1.0])
    np.testing.assert_allclose(f(v, b).numpy(), [3.0, 4.0])        # a Variable: keyed by its identity
    np.testing.assert_allclose(f(a, y=b).numpy(), [3.0, 8.0])      # a keyword
    assert built == [1, 1, 1, 1]
    np.testing.assert_allclose(f(me.constant([2.0, 2.0, 2.0]), me.constant(3.0)).numpy(), [6.0, 6.0, 6.0])
    assert built == [1, 1, 1, 1]                                   # the second shape's trace, fast too


def test_listing_names_arguments_and_is_stable():
    def g(x, y):
        return me.reduce_sum(me.tanh(x @ y) * 2.0, axis=1)
    x, y = me.ones((2, 3)), me.ones((3, 4))
    text = str(me.function(g).get_concrete_function(x, y).graph)
    assert text == str(me.function(g).get_concrete_function(x, y).graph)
    assert text.splitlines() == [
        "def g(x: float32[2,3], y: float32[3,4]):",
        "    %0 : float32[2,4] = matmul(x, y) {transpose_a=False, transpose_b=False}",
        "    %1 : float32[2,4] = tanh(%0)",
        "    c0 : float32[]    = constant 2.0",
        "    %2 : float32[2,4] = multiply(%1, c0)",
        "    %3 : float32[2]   = reduce_sum(%2) {axis=(1,), keepdims=False}",
        "    return %3",
    ]


def test_nodes_carry_the_user_source_line():
    @me.function
    def f(x):
        return me.exp(x)   # the line the node points to
    graph = f.get_concrete_function(me.ones(3)).graph
    filename, lineno, line = graph.nodes[-1].source
    assert filename == __file__ and line == "return me.exp(x)   # the line the node points to"


def test_concrete_function_inputs_outputs_and_call():
    @me.function
    def f(x, y):
        return {"sum": x + y, "parts": (x, y * 2.0)}
    concrete = f.get_concrete_function(me.TensorSpec([2], me.float32), me.TensorSpec([2], me.float32))
    assert [n.name for n in concrete.inputs] == ["x", "y"]
    assert len(concrete.outputs) == 3
    out = concrete(me.constant([1.0, 2.0]), me.constant([3.0, 4.0]))
    np.testing.assert_allclose(out["sum"].numpy(), [4.0, 6.0])
    np.testing.assert_allclose(out["parts"][1].numpy(), [6.0, 8.0])
    with pytest.raises(InvalidArgumentError, match="argument 'x' must be float32\\[2\\], got float32\\[3\\]"):
        concrete(me.ones(3), me.ones(2))
    with pytest.raises(InvalidArgumentError, match="takes 2 tensor arguments \\(x, y\\), got 1"):
        concrete(me.ones(2))


def test_input_signature_checks_rank_and_dtype():
    @me.function(input_signature=[me.TensorSpec([None, 3], me.float32)])
    def f(x):
        return x * 2.0
    np.testing.assert_allclose(f(me.ones((2, 3))).numpy(), np.full((2, 3), 2.0))
    with pytest.raises(InvalidArgumentError, match="argument 'x' must have dtype float32.*got int32"):
        f(me.constant([[1, 2, 3]], dtype=me.int32))
    with pytest.raises(InvalidArgumentError, match=r"argument 'x' must have shape \(None, 3\) \(rank 2.*got shape "
                                                   r"\(3,\) \(rank 1\)"):
        f(me.ones(3))
    with pytest.raises(TypeError, match="input_signature of 1 tensors"):
        f(me.ones((1, 3)), me.ones((1, 3)))
    with pytest.raises(TypeError, match="input_signature must be a list of me.TensorSpec"):
        me.function(lambda x: x, input_signature=[me.float32])


def test_symbolic_values_raise_a_teaching_error():
    @me.function(autograph=False)     # as written: a Python `if` cannot be recorded (AutoGraph would convert it)
    def f(x):
        if x > 0:
            return x
        return -x
    with pytest.raises(OperatorNotAllowedInGraphError, match="me.cond.*me.while_loop") as info:
        f(me.constant(1.0))
    assert "tracing 'f'" in str(info.value) and isinstance(info.value, TypeError)

    @me.function
    def g(x):
        return x.numpy()
    with pytest.raises(OperatorNotAllowedInGraphError, match=r"\.numpy\(\) needs the value of tensor 'x'"):
        g(me.constant(1.0))


def test_returning_a_non_tensor_raises():
    @me.function
    def f(x):
        return "done"
    with pytest.raises(TypeError, match="returned a str \\('done'\\).*can return tensors"):
        f(me.ones(2))


def test_python_numbers_and_none_in_the_result():
    @me.function
    def f(x):
        return x + 1.0, 3, None
    out = f(me.ones(2))
    assert out[2] is None and out[1].numpy() == 3
    np.testing.assert_allclose(out[0].numpy(), [2.0, 2.0])


def test_retrace_storm_warns_through_logging_at_tfs_count(caplog):
    # As tf.function: a logging warning when 5 of the recent calls traced ("5 out of the last 5
    # calls ..."), then once more at the 6th, and no more (TF warns at most twice per function).
    @me.function
    def f(x, n):
        return x * n
    x = me.ones(2)
    with caplog.at_level("WARNING", logger="minieager"):
        for n in range(4):
            f(x, float(n))
        assert caplog.records == []
        f(x, 4.0)
        assert [r.getMessage()[:30] for r in caplog.records] == ["5 out of the last 5 calls to m"]
        for n in range(5, 9):
            f(x, float(n))
    assert len(caplog.records) == 2 and caplog.records[1].getMessage().startswith("6 out of the last 6 calls")
    assert "Pass numbers that change as tensors" in caplog.records[0].getMessage()
    assert caplog.records[0].name == "minieager"


def test_print_runs_at_trace_time_me_print_every_call(capsys):
    @me.function
    def f(x):
        print("tracing")
        me.print("value:", x)
        return x
    for _ in range(3):
        f(me.constant([1.0, 2.0]))
    out = capsys.readouterr().out
    assert out.count("tracing") == 1 and out.count("value: [1. 2.]") == 3


def test_run_functions_eagerly_and_executing_eagerly():
    seen = []

    @me.function
    def f(x):
        seen.append(me.executing_eagerly())
        return x + 1.0
    f(me.ones(1))
    me.config.run_functions_eagerly(True)
    try:
        f(me.ones(1))
        f(me.ones(1))
    finally:
        me.config.run_functions_eagerly(False)
    assert seen == [False, True, True] and me.executing_eagerly()
    assert not me.config.functions_run_eagerly()


def test_nested_functions_are_inlined():
    inner = me.function(lambda x: me.exp(x) * 2.0)

    @me.function
    def outer(x):
        return inner(x) + 1.0
    x = me.constant([0.0, 1.0])
    np.testing.assert_allclose(outer(x).numpy(), np.exp([0.0, 1.0]) * 2 + 1, rtol=1e-6)
    ops = [n.op.name for n in outer.get_concrete_function(x).graph.nodes if n.kind == "call"]
    assert ops == ["exp", "multiply", "add"]       # the inner graph as traced, for the outer passes


def test_methods_trace_per_instance():
    class Scaler:
        def __init__(self, k):
            self.k = k

        @me.function
        def __call__(self, x):
            return x * self.k
    a, b = Scaler(2.0), Scaler(3.0)
    np.testing.assert_allclose(a(me.ones(2)).numpy(), [2.0, 2.0])
    np.testing.assert_allclose(b(me.ones(2)).numpy(), [3.0, 3.0])


UNARY = ["exp", "tanh", "sigmoid", "relu", "negative", "square", "abs", "sin", "cos", "softplus"]
BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "squared_difference"]


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(UNARY), st.sampled_from(BINARY), st.sampled_from([me.float32, me.float64]),
       st.sampled_from([((3, 4), (4,)), ((2, 1, 3), (1, 5, 3)), ((), (2, 2))]), st.integers(0, 1000))
def test_graph_results_and_gradients_equal_eager(unary, binary, dtype, shapes, seed):
    rng = np.random.default_rng(seed)
    x = me.constant(rng.uniform(0.5, 2.0, shapes[0]), dtype=dtype)
    y = me.constant(rng.uniform(0.5, 2.0, shapes[1]), dtype=dtype)

    def f(a, b):
        return me.reduce_sum(getattr(me, binary)(getattr(me, unary)(a), b) * a)
    g = me.function(f, optimize=False)    # the traced graph as is (test_fusion checks the fused one)
    results = []
    for fn in (f, g):
        with me.GradientTape() as tape:
            tape.watch([x, y])
            out = fn(x, y)
        results.append((out, *tape.gradient(out, [x, y])))
    for eager, graph in zip(*results):
        np.testing.assert_allclose(graph.numpy(), eager.numpy(), rtol=1e-6)


def test_second_derivative_through_a_function_call():
    f = me.function(lambda x: me.reduce_sum(x * x * x + me.sin(x)))
    x = me.constant([0.5, -1.0, 2.0], dtype=me.float64)
    with me.GradientTape() as outer:
        outer.watch(x)
        with me.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        dy = inner.gradient(y, x)
    d2y = outer.gradient(dy, x)
    xs = x.numpy()
    np.testing.assert_allclose(dy.numpy(), 3 * xs ** 2 + np.cos(xs), rtol=1e-12)
    np.testing.assert_allclose(d2y.numpy(), 6 * xs - np.sin(xs), rtol=1e-12)


def test_a_leaked_symbolic_tensor_refuses_to_compute():
    leaked = []

    @me.function
    def f(x):
        y = x * 2.0
        leaked.append(y)               # a Python side effect keeps the symbolic tensor
        return y
    f(me.ones(2))
    with pytest.raises(InvalidArgumentError, match="belongs to the trace of 'f', which is over"):
        leaked[0] + 1.0


def test_value_dependent_indexing_is_refused_and_gather_works():
    table = me.constant([[1.0, 2.0]])          # one row: index 0 is the only valid one

    @me.function
    def pick(i):
        return me.gather(table, i)
    np.testing.assert_allclose(pick(me.constant([0, 0])).numpy(), [[1.0, 2.0], [1.0, 2.0]])

    with pytest.raises(OperatorNotAllowedInGraphError, match="Use me.gather"):
        me.function(lambda x, i: x[i])(me.ones(3), me.constant([1, 2]))
    # A scalar int index is a gather, as TF 2.21's x[i] (a strided slice) in a tf.function: 2.0.
    assert me.function(lambda x, i: x[i])(me.constant([1.0, 2.0, 3.0]), me.constant(1)).numpy() == 2.0
    # me.where(cond) has as many rows as cond has True values: unknown while tracing, as in TF.
    where = me.function(lambda x: me.where(x > 0))
    np.testing.assert_array_equal(where(me.constant([1.0, -1.0, 2.0])).numpy(), [[0], [2]])
    assert "int64[?,1]" in str(where.get_concrete_function(me.ones(3)).graph)
