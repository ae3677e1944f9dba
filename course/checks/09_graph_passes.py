"""Lesson 09's visible checks: the learner's CSE and DCE passes against minieager's own, a Python loop
AutoGraph turns into one graph loop, and a module saved and loaded in a fresh process.

Format: course/spec.py. A pass's probe traces a case function in the learner's process, runs their pass
on it and returns the new graph as plain data: its node names, kinds, ops and wiring. The judge traces
the same function here, rebuilds the learner's graph from its own nodes with the learner's wiring (a
pass keeps, drops or rewires nodes; it makes none), then compares node counts with minieager's pass,
runs both graphs for the results, and lists the effect nodes, all in the grader's process.
"""
import numpy as np

import minieager as me
from course.expect import CheckFailure, expect, expect_close, expect_equal
from course.spec import check
from minieager.extend import Graph, run
from minieager.graph.passes import common_subexpression_elimination as library_cse
from minieager.graph.passes import dead_code_elimination as library_dce

X = np.array([[0.1, -0.4, 0.7], [1.2, 0.3, -0.9], [0.5, 0.0, -0.2]], np.float32)
W = np.array([[0.5, 2.0, -1.0], [1.5, -0.5, 0.25], [1.0, 1.0, 3.0]], np.float32)


# ---- the case functions and their traces (these run on both sides: sent as probe helpers) ---------

def case_functions(state):
    """{case: (function, number of arguments)}; ``state`` is the me.Variable the stateful cases change."""
    def repeated_tanh(x, w):
        return me.tanh(x * w) + me.tanh(x * w)

    def returned_twice(x, w):
        return me.tanh(x * w), me.tanh(x * w)

    def equal_constants(x):
        return me.exp(x) * 2.0 - me.exp(x) * 2.0 + me.exp(x) * 3.0

    def different_attrs(x):
        return me.reduce_sum(x, axis=0) + me.reduce_sum(x, axis=1) + me.reduce_sum(x, axis=0)

    def loss_and_gradient(logits):
        labels = me.constant([0, 2, 1], dtype=me.int64)
        with me.GradientTape() as tape:
            tape.watch(logits)
            loss = me.losses.sparse_softmax_cross_entropy(labels, logits)
        return loss, tape.gradient(loss, logits)

    def around_an_assign(x):
        before = state * 2.0
        state.assign_add(x)
        after = state * 2.0
        return before + after + state * 2.0

    def two_prints(x):
        me.print("x is", x)
        me.print("x is", x)
        return x * 2.0

    def two_assigns(x):
        state.assign(x)
        state.assign(x)
        return state * 2.0

    def two_draws(x):
        return me.random.normal((3, 3)) - me.random.normal((3, 3)) + x

    def unused_chain(x):
        scaled = me.exp(x) * 3.0     # dead: nothing reads these two (the point of the case)
        squared = me.square(x)
        return me.tanh(x)

    def unused_argument(x, y):
        return x * 2.0

    def print_nobody_reads(x):
        me.print("3x is", x * 3.0)
        return x + 1.0

    def assign_nobody_reads(x):
        state.assign(x * 2.0)
        return x + 1.0

    def draw_nobody_reads(x):
        me.random.normal((3, 3))
        return x * 2.0

    return {"tanh(x * w) written twice": (repeated_tanh, 2),
            "tanh(x * w) returned twice": (returned_twice, 2),
            "exp(x) * 2.0 written twice (two equal constants)": (equal_constants, 1),
            "reduce_sum over axis 0 and over axis 1 (different attrs)": (different_attrs, 1),
            "a loss and its gradient (an op with two outputs)": (loss_and_gradient, 1),
            "STATE * 2.0 before and after an assign": (around_an_assign, 1),
            "two me.print calls": (two_prints, 1),
            "two assigns of the same value": (two_assigns, 1),
            "two random draws": (two_draws, 1),
            "exp(x) * 3.0 and square(x), both unused": (unused_chain, 1),
            "an argument the function never reads": (unused_argument, 2),
            "a me.print whose result nobody reads": (print_nobody_reads, 1),
            "an assign whose result nobody reads": (assign_nobody_reads, 1),
            "a random draw nobody reads": (draw_nobody_reads, 1)}


def traced(case, x, w, functions=None):
    """(graph, arguments, state) of one case, traced with a fresh STATE variable (its me.print quiet)."""
    import contextlib
    import io
    state = me.Variable(np.zeros((3, 3), np.float32), name="state")
    fn, arity = (functions or case_functions)(state)[case]
    args = [np.asarray(x, np.float32), np.asarray(w, np.float32)][:arity]
    with contextlib.redirect_stdout(io.StringIO()):
        graph = me.function(fn, autograph=False).get_concrete_function(*[me.constant(a) for a in args]).graph
    return graph, args, state


def describe(graph):
    """A graph as plain data: its listing, inputs, outputs and nodes [name, kind, op, [inputs], index]."""
    if type(graph).__name__ != "Graph":
        return {"form": type(graph).__name__, "repr": repr(graph)[:300]}
    def name(node):
        return getattr(node, "name", repr(node)[:80])
    return {"form": "Graph", "listing": str(graph), "inputs": [name(n) for n in graph.inputs],
            "outputs": [name(n) for n in graph.outputs],
            "nodes": [[name(n), n.kind, getattr(n.op, "name", None), [name(i) for i in n.inputs],
                       -1 if n.index is None else int(n.index)] for n in graph.nodes]}


def probe_pass(ns, name, case, x, w, functions=None):
    """The learner's pass on the traced case: the new graph as plain data, and whether the input stayed."""
    graph_pass = learner(ns, name)
    graph, _, _ = traced(case, x, w, functions)
    listing = str(graph)
    nodes = [(n, n.inputs, dict(n.attrs)) for n in graph.nodes]
    outputs = list(graph.outputs)
    got = graph_pass(graph)
    unchanged = (str(graph) == listing and graph.outputs == outputs
                 and [(n, n.inputs, n.attrs) for n in graph.nodes] == nodes)
    return {"graph": describe(got), "unchanged": unchanged, "after": str(graph)}


# ---- the judge's side --------------------------------------------------------------------------------

def _indented(title, listing):
    return f"  {title}:\n" + "\n".join("    " + line for line in str(listing).splitlines())


def rebuilt(got, name, case, graph):
    """The learner's graph, rebuilt here from ``graph``'s own nodes with the learner's wiring."""
    desc = got["graph"]
    expect(desc["form"] == "Graph", f"{name}(graph) for {case} should return a Graph "
                                    f"(Graph(nodes, inputs, outputs, name)), got {desc.get('repr', desc['form'])}.")
    yours = _indented("your graph", desc["listing"])
    original = {n.name: n for n in graph.nodes}
    new = {}
    for node_name, kind, op, inputs, index in desc["nodes"]:
        expect(node_name not in new, f"{name}(graph) for {case} lists node {node_name} twice.\n{yours}")
        expect(node_name in original, f"{name}(graph) for {case} has a node {node_name} that is not in the graph "
                                      f"it was given: a pass keeps, drops or rewires the nodes of graph.copy(), "
                                      f"it makes no new ones.\n{yours}")
        node = original[node_name]
        expect([kind, op, index] == [node.kind, getattr(node.op, "name", None), -1 if node.index is None else node.index],
               f"{name}(graph) for {case} changed what node {node_name} computes (its kind, op or index): a pass "
               f"only rewires a node's inputs.\n{yours}")
        for source in inputs:
            expect(source in new, f"in {name}(graph) for {case}, node {node_name} reads {source}, which is not a node "
                                  f"before it in the new graph: a node that stays needs every node it reads (after "
                                  f"CSE: the node it was merged into).\n{yours}")
        expect(len(inputs) == len(node.inputs), f"in {name}(graph) for {case}, node {node_name} reads {len(inputs)} "
                                                f"nodes, where it read {len(node.inputs)}.\n{yours}")
        new[node_name] = node.copy(inputs=tuple(new[s] for s in inputs))
    for output in desc["outputs"]:
        expect(output in new, f"{name}(graph) for {case} returns {output}, which is not in its nodes: the outputs "
                              f"must be nodes of the new graph.\n{yours}")
    expect_equal(desc["inputs"], [n.name for n in graph.inputs],
                 f"the inputs of {name}(graph) for {case} (the function's arguments stay, even unused ones)")
    expect(all(n in new for n in desc["inputs"]),
           f"{name}(graph) for {case}: every placeholder of graph.inputs must also be in the nodes.\n{yours}")
    return Graph(list(new.values()), [new[n] for n in desc["inputs"]], [new[n] for n in desc["outputs"]],
                 graph.name), yours


def _run(graph, args, state):
    """(outputs, STATE's value afterwards) of one run, from the same variable value and random seed."""
    import contextlib
    import io
    state.assign(np.full((3, 3), 0.5, np.float32))
    me.random.set_seed(7)
    with contextlib.redirect_stdout(io.StringIO()):      # the cases' me.print: the learner's output is not this
        outputs = run(graph, *args)
    return [o.numpy() for o in outputs], state.numpy()


def judge_counts(got, name, case, x, w, kinds, functions=None):
    graph, _, _ = traced(case, x, w, functions)
    mine, yours = rebuilt(got, name, case, graph)
    expected = [n.kind for n in (library_cse if name == "cse" else library_dce)(graph).nodes]
    counts = [n.kind for n in mine.nodes]
    for kind in kinds:
        if counts.count(kind) != expected.count(kind):
            n = expected.count(kind)
            raise CheckFailure(f"{name}(graph) for {case}: expected {n} {kind} node{'' if n == 1 else 's'} (as "
                               f"minieager's own pass leaves), got {counts.count(kind)}.\n"
                               + _indented("the graph as traced", graph) + f"\n{yours}")


def judge_results(got, name, case, x, w, functions=None):
    graph, args, state = traced(case, x, w, functions)
    mine, _ = rebuilt(got, name, case, graph)
    expected_outputs, expected_state = _run(graph, args, state)
    outputs, after = _run(mine, args, state)
    expect_equal(len(outputs), len(expected_outputs), f"the number of outputs of {name}(graph) for {case}")
    for k, (o, e) in enumerate(zip(outputs, expected_outputs)):
        expect_close(o, e, f"output {k} of {name}(graph) for {case}, run with minieager.extend.run")
    expect_close(after, expected_state, f"STATE after running {name}(graph) for {case}")


def judge_effects(got, name, case, x, w, what, functions=None):
    graph, _, _ = traced(case, x, w, functions)
    mine, _ = rebuilt(got, name, case, graph)
    expected = [f"{n.name} = {n.op.name}" for n in graph.nodes if n.effect]
    kept = [f"{n.name} = {n.op.name}" for n in mine.nodes if n.effect]
    expect_equal(kept, expected, f"the effect nodes (!effect) left by {name}(graph) for {case}: each one changes the "
                                 f"world when it runs, so none may be {what}")


def judge_input_alone(got, name, case, x, w, functions=None):
    graph, _, _ = traced(case, x, w, functions)
    expect(got["unchanged"] and got["after"] == str(graph),
           f"{name}(graph) for {case} changed the graph it was given (a pass builds a new graph: start from "
           f"graph.copy()).\n" + _indented("before", graph) + "\n" + _indented("after", got["after"]))


PURE = ["tanh(x * w) written twice", "tanh(x * w) returned twice", "exp(x) * 2.0 written twice (two equal constants)",
        "reduce_sum over axis 0 and over axis 1 (different attrs)", "a loss and its gradient (an op with two outputs)"]
STATEFUL = ["STATE * 2.0 before and after an assign", "two me.print calls", "two assigns of the same value",
            "two random draws"]
CSE_CASES = PURE + STATEFUL
DCE_EFFECTS = ["a me.print whose result nobody reads", "an assign whose result nobody reads",
               "a random draw nobody reads"]
DCE_CASES = ["exp(x) * 3.0 and square(x), both unused", "an argument the function never reads",
             "tanh(x * w) written twice"] + DCE_EFFECTS
CSE_KINDS, DCE_KINDS = ["call", "constant"], ["call", "constant", "variable", "placeholder"]


def fixed(cases):
    return [{"case": c, "x": X, "w": W} for c in cases]


# ---- cse_pass ----------------------------------------------------------------------------------------

@check("cse_pass", points=3)
class CseMergesWhatTheLibraryMerges:
    """The number of call and constant nodes your CSE leaves, against minieager's own pass."""
    probe_helpers = (case_functions, traced, describe, probe_pass)
    cases = fixed(CSE_CASES)

    def probe(ns, case, x, w):
        return probe_pass(ns, "cse", case, x, w)

    def judge(got, case, x, w):
        judge_counts(got, "cse", case, x, w, CSE_KINDS)


@check("cse_pass", points=2)
class CseKeepsTheResults:
    """Your CSE's graph, run here, gives the traced graph's outputs and leaves STATE as it does."""
    probe_helpers = (case_functions, traced, describe, probe_pass)
    cases = fixed(CSE_CASES)

    def probe(ns, case, x, w):
        return probe_pass(ns, "cse", case, x, w)

    def judge(got, case, x, w):
        judge_results(got, "cse", case, x, w)


@check("cse_pass", points=2)
class CseNeverMergesEffects:
    """Every effect node (assign, print, random draw) stays, in order."""
    probe_helpers = (case_functions, traced, describe, probe_pass)
    cases = fixed(STATEFUL)

    def probe(ns, case, x, w):
        return probe_pass(ns, "cse", case, x, w)

    def judge(got, case, x, w):
        judge_effects(got, "cse", case, x, w, "merged or dropped")


@check("cse_pass", points=1)
class CseLeavesItsInputAlone:
    """cse(graph) builds a new graph and leaves the one it was given as it was."""
    probe_helpers = (case_functions, traced, describe, probe_pass)
    cases = fixed(["tanh(x * w) written twice", "STATE * 2.0 before and after an assign"])

    def probe(ns, case, x, w):
        return probe_pass(ns, "cse", case, x, w)

    def judge(got, case, x, w):
        judge_input_alone(got, "cse", case, x, w)


# ---- dce_pass ----------------------------------------------------------------------------------------

@check("dce_pass", points=3)
class DceRemovesWhatTheLibraryRemoves:
    """The number of call, constant, variable and placeholder nodes your DCE leaves, against minieager's."""
    probe_helpers = (case_functions, traced, describe, probe_pass)
    cases = fixed(DCE_CASES)

    def probe(ns, case, x, w):
        return probe_pass(ns, "dce", case, x, w)

    def judge(got, case, x, w):
        judge_counts(got, "dce", case, x, w, DCE_KINDS)


@check("dce_pass", points=2)
class DceKeepsTheResults:
    """Your DCE's graph, run here, gives the traced graph's outputs and leaves STATE as it does."""
    probe_helpers = (case_functions, traced, describe, probe_pass)
    cases = fixed(DCE_CASES)

    def probe(ns, case, x, w):
        return probe_pass(ns, "dce", case, x, w)

    def judge(got, case, x, w):
        judge_results(got, "dce", case, x, w)


@check("dce_pass", points=2)
class DceNeverRemovesEffects:
    """An effect nobody reads still runs: its node stays."""
    probe_helpers = (case_functions, traced, describe, probe_pass)
    cases = fixed(DCE_EFFECTS)

    def probe(ns, case, x, w):
        return probe_pass(ns, "dce", case, x, w)

    def judge(got, case, x, w):
        judge_effects(got, "dce", case, x, w, "removed")


@check("dce_pass", points=1)
class DceLeavesItsInputAlone:
    """dce(graph) builds a new graph and leaves the one it was given as it was."""
    probe_helpers = (case_functions, traced, describe, probe_pass)
    cases = fixed(["exp(x) * 3.0 and square(x), both unused"])

    def probe(ns, case, x, w):
        return probe_pass(ns, "dce", case, x, w)

    def judge(got, case, x, w):
        judge_input_alone(got, "dce", case, x, w)


# ---- autograph_loop ----------------------------------------------------------------------------------

def years(start, target, rate):
    """The expected answer, computed in float32 as the graph computes it."""
    amount, count = np.float32(start), 0
    while amount < np.float32(target):
        amount = np.float32(amount * np.float32(1.0 + np.float32(rate)))
        count += 1
    return count, amount


YEAR_CASES = [[100.0, 200.0, 0.07], [100.0, 100.0, 0.05], [1.0, 1000.0, 0.5], [50.0, 49.0, 0.1]]


def probe_years(ns, start, target, rate):
    f = learner(ns, "years_to_reach")
    if not isinstance(f, me.Function):
        return {"function": False}
    result = f(me.constant(start), me.constant(target), me.constant(rate))
    if not (isinstance(result, (tuple, list)) and len(result) == 2):
        return {"function": True, "form": repr(result)[:200]}
    return {"function": True, "form": "pair", "dtype": getattr(getattr(result[0], "dtype", None), "name", type(result[0]).__name__),
            "years": np.asarray(result[0]), "amount": np.asarray(result[1])}


def judge_years(got, start, target, rate):
    what = f"years_to_reach({start:g}, {target:g}, {rate:g})"
    expect(got["function"], "years_to_reach should be an me.function: put @me.function above its def.")
    expect(got["form"] == "pair", f"{what} should return (years, amount), got {got['form']}")
    count, amount = years(start, target, rate)
    expect_equal(got["dtype"], "int32", f"the dtype of years for {what}")
    expect_equal(int(got["years"]), count, f"years for {what}")
    expect_close(got["amount"], amount, f"the amount for {what}")


def probe_loop(ns, values):
    f = learner(ns, "years_to_reach")
    if not isinstance(f, me.Function):
        return {"function": False}
    graph = f.get_concrete_function(me.constant(100.0), me.constant(200.0), me.constant(0.07)).graph
    loops = [n for n in graph.nodes if n.kind == "call" and n.op.name == "while" and n.index in (None, 0)]
    before = f.experimental_get_tracing_count()
    for case in values:
        f(*(me.constant(v) for v in case))
    return {"function": True, "loops": len(loops), "listing": str(graph), "before": before,
            "after": f.experimental_get_tracing_count()}


def judge_loop(got, values):
    expect(got["function"], "years_to_reach should be an me.function: put @me.function above its def.")
    expect_equal(got["loops"], 1, "the number of `while` nodes in years_to_reach's graph (the loop should be in the "
                                  "graph, with a condition on tensors, not unrolled while tracing)\n" + got["listing"])
    expect_equal(got["after"], got["before"],
                 "the number of traces after calls with other values of the same shapes (a graph loop runs "
                 "as many times as the values need, so one trace serves every value)")


@check("autograph_loop", points=2)
class YearsCountLikePython:
    """years_to_reach's years (int32) and amount, against the loop run here in float32."""
    probe_helpers = (probe_years,)
    cases = [{"start": s, "target": t, "rate": r} for s, t, r in YEAR_CASES]

    def probe(ns, start, target, rate):
        return probe_years(ns, start, target, rate)

    def judge(got, start, target, rate):
        judge_years(got, start, target, rate)


@check("autograph_loop", points=2)
class OneGraphLoop:
    """One `while` node in the graph, and one trace for every value of the same shapes."""
    probe_helpers = (probe_loop,)
    cases = [{"values": YEAR_CASES}]

    def probe(ns, values):
        return probe_loop(ns, values)

    def judge(got, values):
        judge_loop(got, values)


# ---- saved_module ------------------------------------------------------------------------------------

def probe_normalizer(ns, mean, std, x):
    """The Normalizer run eagerly, then saved and loaded in a new Python process (inside the sandbox)."""
    import os
    import subprocess
    import sys
    import tempfile
    cls = learner(ns, "Normalizer")
    model = cls([float(v) for v in mean], [float(v) for v in std])
    eager = model(me.constant(np.asarray(x, np.float32)))
    attributes = [[k, type(v).__name__] for k, v in vars(model).items()]
    folder = os.path.join(tempfile.mkdtemp(), "normalizer")
    try:
        me.saved_model.save(model, folder)
    except me.errors.InvalidArgumentError as e:
        return {"eager": eager, "attributes": attributes, "saved": str(e)}
    script = (f"import minieager as me\n"
              f"m = me.saved_model.load({folder!r})\n"
              f"print(m(me.constant({[float(v) for v in x]!r})).numpy().tolist())\n"
              f"print(sorted(m.signatures), len(m.trainable_variables))\n")
    root = os.path.dirname(os.path.dirname(os.path.abspath(me.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    return {"eager": eager, "attributes": attributes, "saved": "", "returncode": out.returncode,
            "stdout": out.stdout[-2000:], "stderr": out.stderr[-800:]}


def _normalized(mean, std, x):
    return (np.asarray(x, np.float32) - np.asarray(mean, np.float32)) / np.asarray(std, np.float32)


def _normalizer(mean, std):
    return f"Normalizer({np.round(mean, 3).tolist()}, {np.round(std, 3).tolist()})"


def judge_eager(got, mean, std, x):
    expect_close(got["eager"], _normalized(mean, std, x), f"{_normalizer(mean, std)}(x) for x = {np.round(x, 3).tolist()}")
    names = [kind for _, kind in got["attributes"]]
    expect(names.count("Variable") >= 2, f"Normalizer should keep mean and std in me.Variables; its attributes are "
                                         f"{', '.join(f'{k}: {v}' for k, v in got['attributes'])}")


def judge_loaded(got, mean, std, x):
    import json
    what = _normalizer(mean, std)
    expect(not got["saved"], f"me.saved_model.save({what}, folder) failed: {got['saved']}")
    expect(got["returncode"] == 0, f"loading the saved Normalizer in a new Python failed:\n{got['stderr']}")
    lines = got["stdout"].splitlines()
    expect(len(lines) >= 2, f"the loaded Normalizer printed {got['stdout']!r}, not its result and signatures.")
    expect_close(np.array(json.loads(lines[-2]), np.float32), _normalized(mean, std, x),
                 f"the loaded {what}'s result for {np.round(x, 3).tolist()} (run in a new Python process)")
    expect_equal(lines[-1], "['serving_default'] 2", "the loaded object's signatures and number of trainable "
                 "variables (a __call__ with an input_signature becomes the signature 'serving_default')")


NORMALIZER_CASES = [{"mean": [1.0, 2.0, 3.0], "std": [2.0, 4.0, 0.5], "x": [3.0, 2.0, 4.0]}]


@check("saved_module", points=1)
class NormalizerRunsEagerly:
    """Normalizer([1, 2, 3], [2, 4, 0.5]) called eagerly, with mean and std in me.Variables."""
    probe_helpers = (probe_normalizer,)
    cases = NORMALIZER_CASES

    def probe(ns, mean, std, x):
        return probe_normalizer(ns, mean, std, x)

    def judge(got, mean, std, x):
        judge_eager(got, mean, std, x)


@check("saved_module", points=2)
class NormalizerLoadsInAFreshProcess:
    """Normalizer([1, 2, 3], [2, 4, 0.5]) saved, then loaded and called in a new Python process."""
    probe_helpers = (probe_normalizer,)
    cases = NORMALIZER_CASES

    def probe(ns, mean, std, x):
        return probe_normalizer(ns, mean, std, x)

    def judge(got, mean, std, x):
        judge_loaded(got, mean, std, x)
