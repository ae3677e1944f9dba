"""The backprop schedule of small known expressions, and the trace's graph around it."""
import json
import re

import numpy as np
import pytest

import minieager as me
from minieager.debugger import TraceError, trace
from minieager.engine.scope import name_scope

from .conftest import record


def data_of(value):
    return np.asarray(value["data"], dtype=np.float64)


def assert_same_gradients(tr, tape, y, sources):
    expected = tape.gradient(y, sources)
    got = tr.to_dict()["gradients"]
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        if e is None:
            assert g["value"] is None
        else:
            assert g["value"]["shape"] == list(e.shape)
            np.testing.assert_allclose(data_of(g["value"]), e.numpy(), rtol=1e-6)


def test_fan_out_accumulates():
    tape, y, (x,) = record(lambda x: x * x + x, [1.0, 2.0, 3.0])
    d = trace(tape, y, [x]).to_dict()
    assert [(n["id"], n["kind"], n["label"]) for n in d["nodes"]] == [
        ("t0", "watched", "x0"), ("op0", "op", "multiply"), ("t1", "tensor", "multiply:0"),
        ("op1", "op", "add"), ("t2", "target", "add:0")]
    assert [(e["id"], e["source"], e["target"]) for e in d["edges"]] == [
        ("e0", "t0", "op0"), ("e1", "t0", "op0"), ("e2", "op0", "t1"),
        ("e3", "t1", "op1"), ("e4", "t0", "op1"), ("e5", "op1", "t2")]
    assert d["target"] == "t2" and d["sources"] == ["t0"]
    first, second = d["steps"]
    assert (first["op"], first["op_name"], second["op"], second["op_name"]) == ("op1", "add", "op0", "multiply")
    assert first["rule"] == ["d(a + b)/da = dy", "d(a + b)/db = dy"]
    assert [u["tensor"] for u in first["upstream"]] == ["t2"]
    assert data_of(first["upstream"][0]["value"]).tolist() == [1, 1, 1]
    assert [(g["edge"], g["tensor"], g["is_accumulation"]) for g in first["grads_out"]] == [
        ("e3", "t1", False), ("e4", "t0", False)]
    assert [(g["edge"], g["is_accumulation"]) for g in second["grads_out"]] == [("e0", True), ("e1", True)]
    assert [data_of(g["value"]).tolist() for g in second["grads_out"]] == [[1, 2, 3], [1, 2, 3]]
    assert [data_of(g["accumulated"]).tolist() for g in second["grads_out"]] == [[2, 3, 4], [3, 5, 7]]
    assert data_of(d["gradients"][0]["value"]).tolist() == [3, 5, 7]
    assert_same_gradients(trace(tape, y, [x]), tape, y, [x])


def test_broadcasting_is_summed_back():
    tape, y, (x, b) = record(lambda x, b: me.reduce_sum(x + b), np.ones((2, 3)), [0.5, 1.0, 2.0])
    d = trace(tape, y, [x, b]).to_dict()
    assert [s["op_name"] for s in d["steps"]] == ["reduce_sum", "add"]
    to_x, to_b = d["steps"][1]["grads_out"]
    assert to_x["value"]["shape"] == [2, 3] and to_b["value"]["shape"] == [3]
    assert data_of(to_b["value"]).tolist() == [2, 2, 2]
    assert_same_gradients(trace(tape, y, [x, b]), tape, y, [x, b])


def test_matmul():
    a_val, w_val = np.arange(6).reshape(2, 3) / 4, np.arange(6).reshape(3, 2) - 2.0
    tape, y, (a, w) = record(lambda a, w: me.reduce_sum(a @ w), a_val, w_val)
    d = trace(tape, y, [a, w]).to_dict()
    assert [s["op_name"] for s in d["steps"]] == ["reduce_sum", "matmul"]
    to_a, to_w = d["steps"][1]["grads_out"]
    ones = np.ones((2, 2))
    np.testing.assert_allclose(data_of(to_a["value"]), ones @ w_val.T)
    np.testing.assert_allclose(data_of(to_w["value"]), a_val.T @ ones)
    assert d["steps"][1]["rule"] == ["d(a @ b)/da = dy @ b^T", "d(a @ b)/db = a^T @ dy"]
    assert_same_gradients(trace(tape, y, [a, w]), tape, y, [a, w])


@me.custom_gradient
def log1pexp(x):
    e = me.exp(x)

    def grad(dy):
        return dy * (1 - 1 / (1 + e))
    return me.log(1 + e), grad


def test_custom_gradient_is_one_node_naming_its_rule():
    tape, y, (x,) = record(log1pexp, 3.0)
    d = trace(tape, y, [x]).to_dict()
    ops = [n for n in d["nodes"] if n["kind"] == "op"]
    assert [(n["label"], n["custom"]) for n in ops] == [("log1pexp", True)]   # exp, add, log are hidden
    (step,) = d["steps"]
    assert step["op_name"] == "log1pexp" and "custom gradient" in step["rule"][0]
    np.testing.assert_allclose(data_of(d["gradients"][0]["value"]), 1 / (1 + np.exp(-3.0)), rtol=1e-6)
    assert_same_gradients(trace(tape, y, [x]), tape, y, [x])


def test_unconnected_source_is_none_and_greyed():
    tape, y, (x, z) = record(lambda x, z: x * 2.0, [1.0, 2.0], [5.0])
    d = trace(tape, y, [x, z]).to_dict()
    z_id = d["sources"][1]
    assert d["gradients"][1] == {"source": z_id, "name": "x1", "value": None}
    assert d["unreached"] == [z_id]
    assert next(n for n in d["nodes"] if n["id"] == z_id)["kind"] == "watched"
    assert_same_gradients(trace(tape, y, [x, z]), tape, y, [x, z])


def test_variables_and_constants_are_named():
    w = me.Variable([[1.0, 2.0]], name="w")
    with me.GradientTape() as tape:
        y = me.reduce_sum(w * 3.0)
    nodes = trace(tape, y, [w]).to_dict()["nodes"]
    kinds = {n["label"]: n["kind"] for n in nodes if n["kind"] != "op"}
    assert kinds == {w.name: "variable", "3.0": "constant", "multiply:0": "tensor", "reduce_sum:0": "target"}


def test_ids_are_stable_across_runs():
    def run():
        tape, y, xs = record(lambda a, b: me.reduce_sum(me.tanh(a * b + a)), [[0.5, -1.0]], [2.0, 3.0])
        return json.dumps(trace(tape, y, xs).to_dict(), sort_keys=True)
    assert run() == run()


def test_to_dict_is_json():
    tape, y, xs = record(lambda a: me.reduce_mean(me.exp(a) / 0.0), np.arange(40.0).reshape(5, 8))
    text = json.dumps(trace(tape, y, xs).to_dict(), allow_nan=False)   # inf/nan travel as strings
    assert '"inf"' in text


def test_huge_tensor_is_summarised():
    big = np.linspace(-1, 1, 300 * 400).reshape(300, 400)
    tape, y, xs = record(lambda a: me.reduce_sum(a * a), big)
    value = trace(tape).to_dict()["nodes"][0]["value"]
    assert value["full"] is False and value["shape"] == [300, 400]
    assert (value["min"], value["max"]) == (-1.0, 1.0) and abs(value["mean"]) < 1e-6
    assert len(value["heatmap"]) == 16 and all(len(row) == 16 for row in value["heatmap"])


def test_second_derivative_with_nested_tapes():
    x = me.debugger.name(me.constant(3.0), "x")
    with me.GradientTape() as outer:
        outer.watch(x)
        with me.GradientTape() as inner:
            inner.watch(x)
            y = x * x * x
        dy_dx = inner.gradient(y, x)
    tr = trace(outer, dy_dx, [x])
    assert data_of(tr.to_dict()["gradients"][0]["value"]) == pytest.approx(18.0)   # d2(x^3)/dx2 = 6x
    assert outer.gradient(dy_dx, x).numpy() == pytest.approx(18.0)       # the tape was not used up


def test_tracing_does_not_use_up_a_tape():
    tape, y, (x,) = record(lambda x: x * x, [2.0], persistent=False)
    trace(tape, y, [x])
    assert tape.gradient(y, x).numpy().tolist() == [4.0]
    with pytest.raises(TraceError, match="persistent=True"):
        trace(tape, y, [x])


def test_bad_input_messages():
    with me.GradientTape() as empty:
        pass
    assert trace(empty).to_dict()["nodes"] == []
    with pytest.raises(TraceError, match="recorded nothing"):
        trace(empty, me.constant(1.0), [me.constant(1.0)])
    tape, y, (x,) = record(lambda x: x * 2.0, [1.0])
    with pytest.raises(TraceError, match="not on this tape"):
        trace(tape, x * 5.0, [x])
    with pytest.raises(TraceError, match="not differentiable"):
        trace(tape, y, [me.constant([1, 2])])
    with pytest.raises(TypeError, match="target must be a Tensor"):
        trace(tape, 3.0, [x])


def test_node_limit_collapses_into_clusters():
    def chain(x):
        for _ in range(40):
            x = me.sin(x)
        return x
    tape, y, xs = record(chain, [0.5])
    d = trace(tape, y, xs, max_nodes=30).to_dict()
    assert d["truncated"] == {"limit": 30, "total": 81}
    assert d["layout"] is None and d["clusters"]
    assert all(n["cluster"] for n in d["nodes"] if n["kind"] == "op")
    assert len(d["steps"]) == 40                     # collapsing changes the drawing, not the schedule
    assert "<svg" in me.debugger.to_svg(d)


def test_scopes_become_clusters():
    with name_scope("dense"):           # what a layer's call does around its ops
        tape, y, (x,) = record(lambda x: x * 2.0, [1.0])
    assert [r.scope for r in tape.records] == ["dense"]
    d = trace(tape, y, [x]).to_dict()
    assert d["clusters"] == [{"id": "dense", "label": "dense", "nodes": ["op0", "t2"], "folded_size": [184.0, 54.0]}]


def test_labels_are_what_a_learner_wrote():
    """A watched scalar reads as its value (never "watched"); op boxes say what ran, the same
    in the trace (which the widget draws) and in to_svg; unique op names name the outputs."""
    x = me.constant(3.0)
    w = me.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
    with me.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = me.reduce_sum((w @ w) @ w) * x
    tr = me.debugger.trace(tape, y, [x, w])
    d = tr.to_dict()
    watched = [n for n in d["nodes"] if n["kind"] == "watched"]
    assert [n["label"] for n in watched] == ["3.0"]
    matmuls = [n for n in d["nodes"] if n["kind"] == "op" and n["op"] == "matmul"]
    assert [(n["label"], n["name"]) for n in matmuls] == [("matmul", "matmul"), ("matmul", "matmul_1")]
    assert "matmul_1:0" in {n["label"] for n in d["nodes"]}       # the second product's output
    svg = tr.to_svg(step=0)
    op_texts = re.findall(r'font-family="ui-monospace[^"]*" font-size="12.5"[^>]*>(matmul[^<]*)</text>', svg)
    assert op_texts == ["matmul", "matmul"]
