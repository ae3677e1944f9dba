"""Lesson 09: common-subexpression and dead-code elimination on the graph IR, checked against minieager's own passes;
a Python loop AutoGraph turns into a graph loop; a module saved and loaded in a fresh process."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import minieager as me
from minieager.extend import Graph, run
from minieager.graph.passes import common_subexpression_elimination as library_cse
from minieager.graph.passes import dead_code_elimination as library_dce
from course.expect import CheckFailure, expect, expect_close, expect_equal, learner

X = np.array([[0.1, -0.4, 0.7], [1.2, 0.3, -0.9], [0.5, 0.0, -0.2]], np.float32)
W = np.array([[0.5, 2.0, -1.0], [1.5, -0.5, 0.25], [1.0, 1.0, 3.0]], np.float32)


def _repeated_tanh(x, w):
    return me.tanh(x * w) + me.tanh(x * w)


def _returned_twice(x, w):
    return me.tanh(x * w), me.tanh(x * w)


def _equal_constants(x):
    return me.exp(x) * 2.0 - me.exp(x) * 2.0 + me.exp(x) * 3.0


def _different_attrs(x):
    return me.reduce_sum(x, axis=0) + me.reduce_sum(x, axis=1) + me.reduce_sum(x, axis=0)


def _loss_and_gradient(logits):
    labels = me.constant([0, 2, 1], dtype=me.int64)
    with me.GradientTape() as tape:
        tape.watch(logits)
        loss = me.losses.sparse_softmax_cross_entropy(labels, logits)
    return loss, tape.gradient(loss, logits)


def _around_an_assign(x):
    before = STATE * 2.0
    STATE.assign_add(x)
    after = STATE * 2.0
    return before + after + STATE * 2.0


def _two_prints(x):
    me.print("x is", x)
    me.print("x is", x)
    return x * 2.0


def _two_assigns(x):
    STATE.assign(x)
    STATE.assign(x)
    return STATE * 2.0


def _two_draws(x):
    return me.random.normal((3, 3)) - me.random.normal((3, 3)) + x


def _unused_chain(x):
    scaled = me.exp(x) * 3.0     # dead: nothing reads these two (the point of the case)
    squared = me.square(x)
    return me.tanh(x)


def _unused_argument(x, y):
    return x * 2.0


def _print_nobody_reads(x):
    me.print("3x is", x * 3.0)
    return x + 1.0


def _assign_nobody_reads(x):
    STATE.assign(x * 2.0)
    return x + 1.0


def _draw_nobody_reads(x):
    me.random.normal((3, 3))
    return x * 2.0


STATE = me.Variable(np.zeros((3, 3), np.float32), name="state")   # the variable the cases change

PURE = {"tanh(x * w) written twice": (_repeated_tanh, (X, W)),
        "tanh(x * w) returned twice": (_returned_twice, (X, W)),
        "exp(x) * 2.0 written twice (two equal constants)": (_equal_constants, (X,)),
        "reduce_sum over axis 0 and over axis 1 (different attrs)": (_different_attrs, (X,)),
        "a loss and its gradient (an op with two outputs)": (_loss_and_gradient, (W,))}
STATEFUL = {"STATE * 2.0 before and after an assign": (_around_an_assign, (X,)),
            "two me.print calls": (_two_prints, (X,)),
            "two assigns of the same value": (_two_assigns, (X,)),
            "two random draws": (_two_draws, (X,))}
CSE_CASES = {**PURE, **STATEFUL}
DCE_EFFECTS = {"a me.print whose result nobody reads": (_print_nobody_reads, (X,)),
               "an assign whose result nobody reads": (_assign_nobody_reads, (X,)),
               "a random draw nobody reads": (_draw_nobody_reads, (X,))}
DCE_CASES = {"exp(x) * 3.0 and square(x), both unused": (_unused_chain, (X,)),
             "an argument the function never reads": (_unused_argument, (X, W)),
             "tanh(x * w) written twice": (_repeated_tanh, (X, W)),
             **DCE_EFFECTS}
CASES = {**CSE_CASES, **DCE_CASES}


def _traced(case):
    fn, args = CASES[case]
    return me.function(fn).get_concrete_function(*[me.constant(a) for a in args]).graph


def _learner_pass(ns, name, graph, case):
    """The learner's ``name(graph)`` (cse or dce), checked to be a graph that can run."""
    graph_pass = learner(ns, name)
    got = graph_pass(graph)
    expect(isinstance(got, Graph), f"{name}(graph) for {case} should return a Graph "
                                   f"(Graph(nodes, inputs, outputs, name)), got {got!r}.")
    defined = set()
    for node in got.nodes:
        for source in node.inputs:
            expect(source in defined, f"in {name}(graph) for {case}, node {node.name} reads {source.name}, which is "
                                      f"not a node before it in the new graph: a node that stays needs every node it "
                                      f"reads (after CSE: the node it was merged into).\n{_listing(got)}")
        defined.add(node)
    for node in got.outputs:
        expect(node in defined, f"{name}(graph) for {case} returns {node.name}, which is not in its nodes: the "
                                f"outputs must be nodes of the new graph.\n{_listing(got)}")
    expect_equal([n.name for n in got.inputs], [n.name for n in graph.inputs],
                 f"the inputs of {name}(graph) for {case} (the function's arguments stay, even unused ones)")
    expect(all(n in defined for n in got.inputs),
           f"{name}(graph) for {case}: every placeholder of graph.inputs must also be in the nodes.\n{_listing(got)}")
    return got


def _indented(title, graph):
    return f"  {title}:\n" + "\n".join("    " + line for line in str(graph).splitlines())


def _listing(graph):
    return _indented("your graph", graph)


def _run(graph, case):
    """(outputs, STATE's value afterwards) of one run, from the same variable value and random seed."""
    STATE.assign(np.full((3, 3), 0.5, np.float32))
    me.random.set_seed(7)
    _, args = CASES[case]
    outputs = run(graph, *args)
    return [o.numpy() for o in outputs], STATE.numpy()


def _same_counts(name, case, graph, got, expected, kinds):
    for kind in kinds:
        if got.count(kind) != expected.count(kind):
            raise CheckFailure(
                f"{name}(graph) for {case}: expected {_nodes(expected.count(kind), kind)} (as minieager's own pass "
                f"leaves), got {got.count(kind)}.\n" + _indented("the graph as traced", graph) + "\n"
                + _indented("minieager's pass", expected) + "\n" + _listing(got))


def _nodes(n, kind):
    return f"{n} {kind} node" + ("" if n == 1 else "s")


def _same_results(name, case, graph, got):
    expected_outputs, expected_state = _run(graph, case)
    outputs, state = _run(got, case)
    expect_equal(len(outputs), len(expected_outputs), f"the number of outputs of {name}(graph) for {case}")
    for k, (o, e) in enumerate(zip(outputs, expected_outputs)):
        expect_close(o, e, f"output {k} of {name}(graph) for {case}, run with minieager.extend.run")
    expect_close(state, expected_state, f"STATE after running {name}(graph) for {case}")


def _same_effects(name, case, graph, got, what):
    expected = [f"{n.name} = {n.op.name}" for n in graph.nodes if n.effect]
    kept = [f"{n.name} = {n.op.name}" for n in got.nodes if n.effect]
    expect_equal(kept, expected, f"the effect nodes (!effect) left by {name}(graph) for {case}: each one changes the "
                                 f"world when it runs, so none may be {what}")


def _leaves_its_input_alone(ns, name, case):
    graph = _traced(case)
    listing, nodes = str(graph), [(n, n.inputs, dict(n.attrs)) for n in graph.nodes]
    outputs = list(graph.outputs)
    _learner_pass(ns, name, graph, case)
    expect(str(graph) == listing and graph.outputs == outputs
           and [(n, n.inputs, n.attrs) for n in graph.nodes] == nodes,
           f"{name}(graph) for {case} changed the graph it was given (a pass builds a new graph: start from "
           f"graph.copy()).\n  before:\n" + "\n".join("    " + line for line in listing.splitlines())
           + "\n" + _indented("after", graph))


# ---- cse_pass ------------------------------------------------------------------------------------

@pytest.mark.cse_pass
@pytest.mark.parametrize("case", list(CSE_CASES))
def test_cse_merges_what_the_library_merges(ns, case):
    graph = _traced(case)
    got = _learner_pass(ns, "cse", graph, case)
    _same_counts("cse", case, graph, got, library_cse(graph), ("call", "constant"))


@pytest.mark.cse_pass
@pytest.mark.parametrize("case", list(CSE_CASES))
def test_cse_keeps_the_results(ns, case):
    graph = _traced(case)
    _same_results("cse", case, graph, _learner_pass(ns, "cse", graph, case))


@pytest.mark.cse_pass
@pytest.mark.parametrize("case", list(STATEFUL))
def test_cse_never_merges_effects(ns, case):
    graph = _traced(case)
    _same_effects("cse", case, graph, _learner_pass(ns, "cse", graph, case), "merged or dropped")


@pytest.mark.cse_pass
@pytest.mark.parametrize("case", ["tanh(x * w) written twice", "STATE * 2.0 before and after an assign"])
def test_cse_leaves_its_input_graph_alone(ns, case):
    _leaves_its_input_alone(ns, "cse", case)


# ---- dce_pass ------------------------------------------------------------------------------------

@pytest.mark.dce_pass
@pytest.mark.parametrize("case", list(DCE_CASES))
def test_dce_removes_what_the_library_removes(ns, case):
    graph = _traced(case)
    got = _learner_pass(ns, "dce", graph, case)
    _same_counts("dce", case, graph, got, library_dce(graph), ("call", "constant", "variable", "placeholder"))


@pytest.mark.dce_pass
@pytest.mark.parametrize("case", list(DCE_CASES))
def test_dce_keeps_the_results(ns, case):
    graph = _traced(case)
    _same_results("dce", case, graph, _learner_pass(ns, "dce", graph, case))


@pytest.mark.dce_pass
@pytest.mark.parametrize("case", list(DCE_EFFECTS))
def test_dce_never_removes_effects(ns, case):
    graph = _traced(case)
    _same_effects("dce", case, graph, _learner_pass(ns, "dce", graph, case), "removed")


@pytest.mark.dce_pass
def test_dce_leaves_its_input_graph_alone(ns):
    _leaves_its_input_alone(ns, "dce", "exp(x) * 3.0 and square(x), both unused")


# ---- exercise 3: autograph_loop -------------------------------------------------------------------
def _years(start, target, rate):
    """The expected answer, computed in float32 as the graph computes it."""
    amount, years = np.float32(start), 0
    while amount < np.float32(target):
        amount = np.float32(amount * np.float32(1.0 + np.float32(rate)))
        years += 1
    return years, amount


YEAR_CASES = [(100.0, 200.0, 0.07), (100.0, 100.0, 0.05), (1.0, 1000.0, 0.5), (50.0, 49.0, 0.1)]


def _years_function(ns):
    f = learner(ns, "years_to_reach")
    expect(isinstance(f, me.Function), "years_to_reach should be an me.function: put @me.function above its def.")
    return f


@pytest.mark.autograph_loop
@pytest.mark.parametrize("case", YEAR_CASES)
def test_years_to_reach_counts_like_python(ns, case):
    f = _years_function(ns)
    result = f(*(me.constant(v) for v in case))
    expect(isinstance(result, (tuple, list)) and len(result) == 2,
           f"years_to_reach{case} should return (years, amount), got {result!r}")
    years, amount = _years(*case)
    expect_equal(result[0].dtype, me.int32, f"the dtype of years for years_to_reach{case}")
    expect_equal(int(result[0].numpy()), years, f"years for years_to_reach{case}")
    expect_close(result[1], amount, f"the amount for years_to_reach{case}")


@pytest.mark.autograph_loop
def test_years_to_reach_is_one_graph_loop(ns):
    f = _years_function(ns)
    graph = f.get_concrete_function(me.constant(100.0), me.constant(200.0), me.constant(0.07)).graph
    loops = [n for n in graph.nodes if n.kind == "call" and n.op.name == "while" and n.index in (None, 0)]
    expect_equal(len(loops), 1, "the number of `while` nodes in years_to_reach's graph (the loop should be in the "
                                "graph, with a condition on tensors, not unrolled while tracing)\n" + str(graph))
    before = f.experimental_get_tracing_count()
    for case in YEAR_CASES:
        f(*(me.constant(v) for v in case))
    expect_equal(f.experimental_get_tracing_count(), before,
                 "the number of traces after calls with other values of the same shapes (a graph loop runs "
                 "as many times as the values need, so one trace serves every value)")


# ---- exercise 4: saved_module ---------------------------------------------------------------------
@pytest.mark.saved_module
def test_normalizer_runs_eagerly(ns):
    cls = learner(ns, "Normalizer")
    model = cls([1.0, 2.0, 3.0], [2.0, 4.0, 0.5])
    x = np.array([3.0, 2.0, 4.0], np.float32)
    expect_close(model(me.constant(x)), (x - [1.0, 2.0, 3.0]) / [2.0, 4.0, 0.5], "Normalizer([1, 2, 3], [2, 4, 0.5])(x)")
    names = sorted(type(v).__name__ for v in vars(model).values())
    expect(names.count("Variable") >= 2, f"Normalizer should keep mean and std in me.Variables; its attributes are "
                                         f"{', '.join(f'{k}: {type(v).__name__}' for k, v in vars(model).items())}")


@pytest.mark.saved_module
def test_normalizer_loads_in_a_fresh_process(ns, tmp_path):
    cls = learner(ns, "Normalizer")
    folder = str(tmp_path / "normalizer")
    try:
        me.saved_model.save(cls([1.0, 2.0, 3.0], [2.0, 4.0, 0.5]), folder)
    except me.errors.InvalidArgumentError as e:
        raise CheckFailure(f"me.saved_model.save(Normalizer(...), folder) failed: {e}") from None
    script = (f"import minieager as me\n"
              f"m = me.saved_model.load({folder!r})\n"
              f"print(m(me.constant([3.0, 2.0, 4.0])).numpy().tolist())\n"
              f"print(sorted(m.signatures), len(m.trainable_variables))\n")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    expect(out.returncode == 0, f"loading the saved Normalizer in a new Python failed:\n{out.stderr[-800:]}")
    lines = out.stdout.splitlines()
    expect_close(np.array(json.loads(lines[0]), np.float32), np.array([1.0, 0.0, 2.0], np.float32),
                 "the loaded Normalizer's result for [3, 2, 4] (run in a new Python process)")
    expect_equal(lines[1], "['serving_default'] 2", "the loaded object's signatures and number of trainable "
                 "variables (a __call__ with an input_signature becomes the signature 'serving_default')")
