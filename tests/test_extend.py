"""minieager.extend, the public door for new ops, kernels, gradients and graph interpreters."""
import json
import pathlib
import re

import numpy as np
import pytest

import minieager as me
from minieager import extend
from minieager.extend import Graph, Interpreter, Node, Op, defvjp, register_kernel, run

ROOT = pathlib.Path(__file__).resolve().parents[1]


@register_kernel("test_extend_cube", "cpu")
def _cube_kernel(x):
    return x * x * x


cube = Op("test_extend_cube", inputs=("x",), formula="x**3", shape_rule=lambda x: x)   # the output: x's dtype and shape


def test_an_op_made_outside_the_package_runs_and_gets_its_gradient_from_defvjp():
    x = me.constant([1.5, -2.0], dtype=me.float64)
    assert cube(x).numpy().tolist() == [3.375, -8.0]
    assert not cube.differentiable and cube.rule == ["d(x**3)/dx: no gradient"]
    assert defvjp(cube, lambda dy, x, out: (dy * 3.0 * x * x,), "dy * 3 * x**2") is cube
    with me.GradientTape() as tape:
        tape.watch(x)
        y = cube(x)
    assert tape.records[-1].rule == ["d(x**3)/dx = dy * 3 * x**2"]
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [6.75, 12.0])
    # The rule agrees with finite differences, in float64 (me.test.compute_gradient).
    theoretical, numerical = me.test.compute_gradient(cube, [x])
    np.testing.assert_allclose(theoretical[0], numerical[0], rtol=1e-6)
    # And me.function traces it like any op: one call node.
    f = me.function(lambda t: cube(t) + 1.0)
    np.testing.assert_allclose(f(x).numpy(), [4.375, -7.0])
    assert [n.op.name for n in f.get_concrete_function(x).graph.nodes if n.kind == "call"][0] == "test_extend_cube"


@pytest.mark.parametrize("bad, error, message", [
    ("not an op", TypeError, "defvjp: op must be a minieager Op, got str"),
    (None, TypeError, "defvjp: vjp must be a function"),
])
def test_defvjp_refuses_what_is_not_an_op_or_a_function(bad, error, message):
    with pytest.raises(error, match=re.escape(message)):
        if bad is None:
            defvjp(cube, "dy * 3")
        else:
            defvjp(bad, lambda dy, x, out: (dy,))


def test_defvjp_wants_one_rule_text_per_input():
    with pytest.raises(ValueError, match=r"op 'test_extend_cube' has 1 inputs \('x',\), but 2 gradient texts"):
        defvjp(cube, lambda dy, x, out: (dy,), "a", "b")


@register_kernel("test_extend_times", "cpu")
def _times_kernel(a, b):
    return a * b


@pytest.mark.parametrize("vjp, message", [
    (lambda dy, a, b, out: dy * b,
     "test_extend_times: its gradient function (vjp) returned a Tensor of shape (3,) where a tuple is needed: "
     "one gradient per input (a, b), None for an input that gets no gradient. Return a tuple."),
    (lambda dy, a, b, out: (dy * b,),
     "test_extend_times: its gradient function (vjp) returned 1 gradient(s) for 2 input(s): return one "
     "gradient per input (a, b), None for an input that gets no gradient."),
    (lambda dy, a, b, out: None,
     "test_extend_times: its gradient function (vjp) returned None where a tuple is needed"),
])
def test_a_gradient_function_that_returns_the_wrong_thing_is_named(vjp, message):
    """A bare tensor or too few gradients is an error naming the op, not a reshape error or a None gradient."""
    times = Op("test_extend_times", ("a", "b"), "a * b", ("dy * b", "dy * a"), vjp=vjp)
    a, b = me.constant([1.0, 2.0, 3.0]), me.constant([4.0, 5.0, 6.0])
    with me.GradientTape() as tape:
        tape.watch([a, b])
        y = times(a, b)
    with pytest.raises(me.errors.InvalidArgumentError, match=re.escape(message)):
        tape.gradient(y, [a, b])


def test_a_one_input_gradient_function_returning_a_bare_tensor_is_told_the_comma():
    double = Op("test_extend_cube", ("x",), "x**3", ("dy * 3x^2",), vjp=lambda dy, x, out: dy * 3.0 * x * x)
    x = me.constant([1.0, 2.0, 3.0, 4.0])
    with me.GradientTape() as tape:
        tape.watch(x)
        y = me.reduce_sum(double(x))
    with pytest.raises(me.errors.InvalidArgumentError, match=re.escape(
            "test_extend_cube: its gradient function (vjp) returned a Tensor of shape (4,) where a tuple is "
            "needed: one gradient per input (x), None for an input that gets no gradient. Write `return "
            "(grad,)` with the comma.")):
        tape.gradient(y, x)


def test_a_list_with_one_gradient_or_none_per_input_is_accepted():
    times = Op("test_extend_times", ("a", "b"), "a * b", ("dy * b", None), vjp=lambda dy, a, b, out: [dy * b, None])
    a, b = me.constant([1.0, 2.0]), me.constant([4.0, 5.0])
    with me.GradientTape() as tape:
        tape.watch([a, b])
        y = times(a, b)
    ga, gb = tape.gradient(y, [a, b])
    assert ga.numpy().tolist() == [4.0, 5.0] and gb is None


def test_an_interpreter_subclass_sees_every_node_and_gives_runs_result():
    f = me.function(lambda x: me.tanh(x * 2.0) + x)
    x = me.constant([0.5, -1.0, 2.0])
    graph = f.get_concrete_function(x).graph

    class Counting(Interpreter):
        def __init__(self, graph):
            super().__init__(graph)
            self.ops = []

        def call(self, node, args):
            self.ops.append(node.op.name)
            return super().call(node, args)

    counting = Counting(graph)
    out = counting.run(x)
    assert counting.ops == [n.op.name for n in graph.nodes if n.kind == "call"]
    assert "tanh" in counting.ops
    fast = run(graph, x)                       # the planned fast path gives the same bits
    assert out[0].numpy().tobytes() == fast[0].numpy().tobytes()


def test_an_interpreter_subclass_can_change_what_a_node_computes():
    f = me.function(lambda x: me.exp(x) * 3.0)
    x = me.constant([0.0, 1.0])
    graph = f.get_concrete_function(x).graph

    class ExpIsIdentity(Interpreter):
        def call(self, node, args):
            return args[0] if node.op.name == "exp" else super().call(node, args)

    np.testing.assert_allclose(ExpIsIdentity(graph).run(x)[0].numpy(), [0.0, 3.0])


def test_interpreter_runs_are_recorded_by_a_tape():
    f = me.function(lambda x: x * x)
    x = me.constant(3.0)
    graph = f.get_concrete_function(x).graph
    with me.GradientTape() as tape:
        tape.watch(x)
        y = Interpreter(graph).run(x)[0]
    assert tape.gradient(y, x).numpy() == 6.0


def test_a_graph_built_by_hand_runs():
    x = Node("placeholder", "x", shape=(2,), dtype=me.float32)
    c = Node("constant", "c", shape=(2,), dtype=me.float32, value=np.array([10, 20], np.float32))
    s = Node("call", "%0", op=_add_op(), inputs=(x, c),
             shape=(2,), dtype=me.float32)
    graph = Graph([x, c, s], [x], [s], name="g")
    assert run(graph, np.array([1, 2], np.float32))[0].numpy().tolist() == [11.0, 22.0]


def _add_op():
    """The eager add Op, as a traced graph names it."""
    f = me.function(lambda a, b: a + b)
    graph = f.get_concrete_function(me.constant(1.0), me.constant(1.0)).graph
    return next(n.op for n in graph.nodes if n.kind == "call")


# Modules whose names extend.py offers: lessons, notebooks and docs reach them through extend only.
INTERNAL = re.compile(r"(from|import) minieager\.(engine\.op|engine\.tensor|kernels\.registry|graph\.ir|"
                      r"graph\.passes\.cse|ops\.reductions)\b")


def _texts():
    for path in sorted([*ROOT.glob("notebooks/*.ipynb"), *ROOT.glob("course/**/*.ipynb"), *ROOT.glob("course/**/*.py"),
                        *ROOT.glob("course/**/*.md"), *ROOT.glob("docs/*.md"), ROOT / "README.md"]):
        if path.suffix == ".ipynb":
            cells = json.loads(path.read_text())["cells"]
            yield path, "\n".join("".join(c["source"]) for c in cells)
        else:
            yield path, path.read_text()


def test_lessons_notebooks_and_docs_import_internals_only_through_extend():
    found = [f"{path.relative_to(ROOT)}: {m.group(0)}" for path, text in _texts() for m in INTERNAL.finditer(text)]
    assert not found, "import these from minieager.extend instead:\n" + "\n".join(found)


def test_extend_names_what_it_exports():
    for name in extend.__all__:
        assert getattr(extend, name) is not None
        assert name in extend.__doc__, f"extend's docstring should say what {name} is"


@register_kernel("test_extend_sigmoid", "cpu")
def _sigmoid_kernel(x):
    return 1 / (1 + np.exp(-x))


def test_an_op_with_a_vjp_but_no_rule_text_reads_its_rule_as_code_not_no_gradient():
    # As course lesson 04 defines an op: a vjp, no `grads` words. Its gradient runs, so its rule
    # must not say "no gradient": it says the rule is the vjp's code.
    my_sigmoid = Op("test_extend_sigmoid", inputs=("x",), vjp=lambda dy, x, out: (dy * out * (1.0 - out),))
    assert my_sigmoid.rule == ["d(test_extend_sigmoid(x))/dx = (code)"]
    x = me.constant([0.0, 2.0], dtype=me.float64)
    with me.GradientTape() as tape:
        tape.watch(x)
        y = my_sigmoid(x)
    assert tape.records[-1].rule == ["d(test_extend_sigmoid(x))/dx = (code)"]
    s = 1 / (1 + np.exp(-np.array([0.0, 2.0])))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), s * (1 - s))
