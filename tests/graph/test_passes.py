"""Each optimisation pass on small hand-built graphs: it does what it says, and results stay equal."""
import numpy as np
import pytest

import minieager as me
from minieager.graph.passes import (arithmetic_simplification, common_subexpression_elimination,
                                    constant_folding, dead_code_elimination, optimize)
from minieager.ops import elementwise as E
from minieager.ops import reductions as R
from minieager.ops import shape as S

from .builder import Builder, calls, values

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4)).astype(np.float32)


def names(graph):
    return [node.name for node in graph.nodes]


def test_constant_folding_computes_constant_expressions_once():
    b = Builder()
    x = b.placeholder("x", (3, 4))
    two, three, one = b.constant(2.0), b.constant(3.0), b.constant(1.0)
    six = b.call(E._multiply, two, three)
    seven = b.call(E._add, six, one)
    y = b.call(E._multiply, x, seven)
    graph = b.graph(y)
    folded, report = constant_folding.with_report(graph)
    assert list(report.folded) == [six.name, seven.name]
    (call,) = calls(folded)
    assert call.op is E._multiply and call.inputs[1].kind == "constant"
    assert call.inputs[1].value == 7.0 and call.inputs[1].dtype == me.float32
    np.testing.assert_array_equal(values(folded, X)[0], X * np.float32(7))
    assert names(graph) == ["x", "c1", "c2", "c3", six.name, seven.name, y.name]   # the input is untouched


def test_constant_folding_leaves_effects_and_inputs_alone():
    b = Builder()
    x = b.placeholder("x", (2,))
    c = b.constant([1.0, 2.0])
    effect = b.call(E._multiply, c, c, effect=True)     # stands in for print / assign
    y = b.call(E._add, x, c)
    folded, report = constant_folding.with_report(b.graph(y, effect))
    assert report.folded == {}
    assert effect.name in names(folded) and y.name in names(folded)


def test_simplification_bypasses_identities():
    b = Builder()
    x = b.placeholder("x", (3, 4))
    one, zero = b.constant(1.0), b.constant(0.0)
    a = b.call(E._multiply, x, one)
    a = b.call(E._multiply, one, a)
    a = b.call(E._add, a, zero)
    a = b.call(E._subtract, a, zero)
    a = b.call(E._divide, a, one)
    a = b.call(E.negative.op, a)
    a = b.call(E.negative.op, a)
    a = b.call(S._reshape, a, shape=(3, 4))
    y = b.call(E.tanh.op, a)
    graph = b.graph(y)
    simple, report = arithmetic_simplification.with_report(graph)
    assert len(report.simplified) == 7              # all but the inner negation of -(-x)
    assert [c.op.name for c in calls(dead_code_elimination(simple))] == ["tanh"]
    assert calls(simple)[-1].inputs == (simple.inputs[0],)
    np.testing.assert_array_equal(values(simple, X)[0], values(graph, X)[0])


def test_simplification_keeps_calls_that_broadcast_or_change_dtype():
    b = Builder()
    x = b.placeholder("x", (4,))
    ones = b.constant(np.ones((3, 4)))
    wide = b.call(E._multiply, x, ones)            # (4,) * (3, 4) is (3, 4), not x
    half = b.call(E._add, x, b.constant(0.5))      # not an identity
    reshaped = b.call(S._reshape, x, out_shape=(2, 2), shape=(2, 2))
    simple, report = arithmetic_simplification.with_report(b.graph(wide, half, reshaped))
    assert report.simplified == {}
    assert len(calls(simple)) == 3


def test_cse_merges_repeated_expressions_and_equal_constants():
    b = Builder()
    x, w = b.placeholder("x", (3, 4)), b.placeholder("w", (3, 4))
    p1, p2 = b.call(E._multiply, x, w), b.call(E._multiply, x, w)
    t1, t2 = b.call(E.tanh.op, p1), b.call(E.tanh.op, p2)
    h1, h2 = b.constant(0.5), b.constant(0.5)
    y = b.call(E._add, b.call(E._multiply, t1, h1), b.call(E._multiply, t2, h2))
    graph = b.graph(y)
    merged, report = common_subexpression_elimination.with_report(graph)
    assert report.merged == {p2.name: p1.name, t2.name: t1.name, h2.name: h1.name,
                             calls(graph)[5].name: calls(graph)[4].name}
    assert [c.op.name for c in calls(merged)] == ["multiply", "tanh", "multiply", "add"]
    W = RNG.standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_allclose(values(merged, X, W)[0], values(graph, X, W)[0], rtol=1e-6)


def test_cse_compares_attributes_and_never_merges_effects():
    b = Builder()
    x = b.placeholder("x", (3, 4))
    s0 = b.call(R._reduce_sum, x, out_shape=(4,), axis=(0,), keepdims=False)
    s1 = b.call(R._reduce_sum, x, out_shape=(3,), axis=(1,), keepdims=False)
    e1 = b.call(E._multiply, x, x, effect=True)
    e2 = b.call(E._multiply, x, x, effect=True)
    merged, report = common_subexpression_elimination.with_report(b.graph(s0, s1, e1, e2))
    assert report.merged == {}
    assert len(calls(merged)) == 4


def test_cse_does_not_merge_variable_reads_across_an_effect():
    v = me.Variable(np.ones(3, np.float32))
    b = Builder()
    x = b.placeholder("x", (3,))
    read = b.variable(v)
    before = b.call(E._multiply, read, x)
    b.call(E._add, x, x, effect=True)              # an assign, say
    after = b.call(E._multiply, read, x)
    same_segment = b.call(E._multiply, read, x)
    merged, report = common_subexpression_elimination.with_report(b.graph(before, after, same_segment))
    assert report.merged == {same_segment.name: after.name}


def test_dce_removes_what_no_output_or_effect_needs():
    b = Builder()
    x = b.placeholder("x", (3, 4))
    unused = b.placeholder("unused", (2,))
    dead = b.call(E.exp.op, b.call(E.tanh.op, x))
    needed_by_effect = b.call(E.sin.op, x)
    effect = b.call(E._add, needed_by_effect, x, effect=True)
    y = b.call(E.cos.op, x)
    graph = b.graph(y)
    clean, report = dead_code_elimination.with_report(graph)
    assert set(report.removed) == {dead.name, dead.inputs[0].name}
    assert names(clean) == ["x", "unused", needed_by_effect.name, effect.name, y.name]
    np.testing.assert_array_equal(values(clean, X, np.zeros(2, np.float32))[0], np.cos(X))


def test_passes_are_pure_and_optimize_reports_every_pass():
    b = Builder()
    x = b.placeholder("x", (3, 4))
    c = b.call(E._add, b.constant(1.0), b.constant(-1.0))     # folds to 0
    y = b.call(E._add, x, c)                                  # then x + 0 -> x
    z = b.call(E.tanh.op, y)
    graph = b.graph(z)
    before = str(graph)
    optimised, reports = optimize(graph)
    assert str(graph) == before
    assert [r.name for r in reports] == ["constant folding", "arithmetic simplification",
                                         "common-subexpression elimination", "dead-code elimination",
                                         "convolution epilogue fusion", "elementwise fusion"]
    assert list(reports[0].folded) == [c.name]
    assert reports[1].simplified == {y.name: "x"}
    assert [n.name for n in optimised.nodes] == ["x", z.name]
    assert reports[3].summary().startswith("dead-code elimination: ")
    np.testing.assert_allclose(values(optimised, X)[0], np.tanh(X), rtol=1e-6)
