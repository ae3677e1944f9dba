"""Lesson 09: common-subexpression elimination on the graph IR, checked against minieager's own pass."""
import numpy as np
import pytest

import minieager as me
from minieager.graph.ir import Graph, run
from minieager.graph.passes import common_subexpression_elimination as library_cse
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
CASES = {**PURE, **STATEFUL}


def _traced(case):
    fn, args = CASES[case]
    return me.function(fn).get_concrete_function(*[me.constant(a) for a in args]).graph


def _learner_cse(ns, graph, case):
    """The learner's cse(graph), checked to be a graph that can run."""
    cse = learner(ns, "cse")
    got = cse(graph)
    expect(isinstance(got, Graph), f"cse(graph) for {case} should return a Graph "
                                   f"(Graph(nodes, inputs, outputs, name)), got {got!r}.")
    defined = set()
    for node in got.nodes:
        for source in node.inputs:
            expect(source in defined, f"in cse(graph) for {case}, node {node.name} reads {source.name}, which is not a "
                                      f"node before it in the new graph: when you drop a node, the nodes that read it "
                                      f"must read the node it was merged into.\n{_listing(got)}")
        defined.add(node)
    for node in got.outputs:
        expect(node in defined, f"cse(graph) for {case} returns {node.name}, which is not in its nodes: the outputs "
                                f"must be replaced too.\n{_listing(got)}")
    expect_equal([n.name for n in got.inputs], [n.name for n in graph.inputs], f"the inputs of cse(graph) for {case}")
    return got


def _listing(graph):
    return "  your graph:\n" + "\n".join("    " + line for line in str(graph).splitlines())


def _run(graph, case):
    """(outputs, STATE's value afterwards) of one run, from the same variable value and random seed."""
    STATE.assign(np.full((3, 3), 0.5, np.float32))
    me.random.set_seed(7)
    _, args = CASES[case]
    outputs = run(graph, *args)
    return [o.numpy() for o in outputs], STATE.numpy()


@pytest.mark.cse_pass
@pytest.mark.parametrize("case", list(CASES))
def test_cse_merges_what_the_library_merges(ns, case):
    graph = _traced(case)
    got, expected = _learner_cse(ns, graph, case), library_cse(graph)
    for kind in ("call", "constant"):
        if got.count(kind) != expected.count(kind):
            raise CheckFailure(
                f"cse(graph) for {case}: expected {expected.count(kind)} {kind} nodes (as minieager's own CSE "
                f"leaves), got {got.count(kind)}.\n  the graph as traced:\n"
                + "\n".join("    " + line for line in str(graph).splitlines())
                + "\n  minieager's CSE:\n" + "\n".join("    " + line for line in str(expected).splitlines())
                + "\n" + _listing(got))


@pytest.mark.cse_pass
@pytest.mark.parametrize("case", list(CASES))
def test_cse_keeps_the_results(ns, case):
    graph = _traced(case)
    got = _learner_cse(ns, graph, case)
    expected_outputs, expected_state = _run(graph, case)
    outputs, state = _run(got, case)
    expect_equal(len(outputs), len(expected_outputs), f"the number of outputs of cse(graph) for {case}")
    for k, (o, e) in enumerate(zip(outputs, expected_outputs)):
        expect_close(o, e, f"output {k} of cse(graph) for {case}, run with minieager.graph.ir.run")
    expect_close(state, expected_state, f"STATE after running cse(graph) for {case}")


@pytest.mark.cse_pass
@pytest.mark.parametrize("case", list(STATEFUL))
def test_cse_never_merges_effects(ns, case):
    graph = _traced(case)
    got = _learner_cse(ns, graph, case)
    expected = [f"{n.name} = {n.op.name}" for n in graph.nodes if n.effect]
    kept = [f"{n.name} = {n.op.name}" for n in got.nodes if n.effect]
    expect_equal(kept, expected, f"the effect nodes (!effect) left by cse(graph) for {case}: each one changes the "
                                 f"world when it runs, so none may be merged or dropped")


@pytest.mark.cse_pass
@pytest.mark.parametrize("case", ["tanh(x * w) written twice", "STATE * 2.0 before and after an assign"])
def test_cse_leaves_its_input_graph_alone(ns, case):
    graph = _traced(case)
    listing, nodes = str(graph), [(n, n.inputs, dict(n.attrs)) for n in graph.nodes]
    outputs = list(graph.outputs)
    _learner_cse(ns, graph, case)
    expect(str(graph) == listing and graph.outputs == outputs
           and [(n, n.inputs, n.attrs) for n in graph.nodes] == nodes,
           f"cse(graph) for {case} changed the graph it was given (a pass builds a new graph: start from "
           f"graph.copy()).\n  before:\n" + "\n".join("    " + line for line in listing.splitlines())
           + "\n  after:\n" + "\n".join("    " + line for line in str(graph).splitlines()))
