"""The fold views dot lays out (minieager/debugger/layout.py), checked as geometry in Python.

The browser tests (widgets/tests/test_layout_guarantees_browser.py) check the drawn page; these
check the data it draws from, quickly: every view covers its nodes and edges, no two boxes
overlap, a cluster's box holds its own nodes and no other.
"""
import shutil

import numpy as np
import pytest

import minieager as me
from minieager.debugger import layout

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")


def mlp(layers=3):
    me.random.set_seed(0)
    model = me.keras.Sequential([me.keras.layers.Dense(4, activation="relu") for _ in range(layers)])
    x = me.constant(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
    with me.GradientTape(persistent=True) as tape:
        loss = me.reduce_mean(me.square(model(x)))
    return me.debugger.trace(tape, loss, model.trainable_variables).to_dict()


def boxes_of(data, view, folded):
    vnodes, vedges = layout.visible_graph(data, set(folded))
    boxes = {}
    for vid, (w, h), _ in vnodes:
        x, y = view["nodes"][vid]
        boxes[vid] = (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
    return boxes, vedges


def overlaps(a, b):
    return min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5


@needs_dot
def test_views_cover_each_fold_state_and_keep_boxes_apart():
    data = mlp(3)
    clusters = [c["id"] for c in data["clusters"]]
    assert len(clusters) == 3
    views = data["views"]
    expected = {layout.view_key(clusters), ""} | {layout.view_key(set(clusters) - {c}) for c in clusters}
    assert set(views) == expected
    homes = layout.fold_homes(data)
    assert {homes[n["id"]] for n in data["nodes"] if n["kind"] == "variable"} == set(clusters)   # kernel, bias
    for key, view in views.items():
        folded = key.split("\n") if key else []
        boxes, vedges = boxes_of(data, view, folded)
        assert set(view["edges"]) == {edge_id for edge_id, _, _ in vedges}
        ids = list(boxes)
        assert not [(a, b) for i, a in enumerate(ids) for b in ids[i + 1:] if overlaps(boxes[a], boxes[b])]
        assert set(view["clusters"]) == set(clusters) - set(folded)
        for c, (x, y, w, h) in view["clusters"].items():
            box = (x, y, x + w, y + h)
            for vid, b in boxes.items():
                mine = homes.get(vid) == c
                inside = box[0] <= b[0] and b[2] <= box[2] and box[1] <= b[1] and b[3] <= box[3]
                assert inside if mine else not overlaps(box, b), (key, c, vid)
        for points in view["edges"].values():
            assert len(points) % 3 in (1, 2) and all(len(p) == 2 for p in points)


def test_without_dot_there_are_no_views(no_dot):
    assert mlp(2)["views"] is None


@needs_dot
def test_the_widget_lays_out_a_fold_state_the_trace_did_not_bring():
    pytest.importorskip("anywidget")
    x = me.Variable([1.0, 2.0], name="x")
    with me.GradientTape() as tape:
        dbg = tape.debugger()
        with me.name_scope("a"):
            y = x * 2.0
        with me.name_scope("b"):
            z = me.reduce_sum(y * y)
    dbg.backprop(z, [x])
    answer = dbg.view_layout(["b"], direction="TB")
    assert answer["view"] == "b" and answer["direction"] == "TB"
    assert "cluster:b" in answer["layout"]["nodes"] and set(answer["layout"]["clusters"]) == {"a"}
    sent = []
    dbg.send = sent.append
    dbg._on_page_message(None, {"layout": {"folded": ["a", "not a cluster"], "direction": "LR"}}, [])
    assert sent[0]["view"] == "a" and "cluster:a" in sent[0]["layout"]["nodes"]


@needs_dot
def test_dot_lays_out_nodes_whatever_their_names():
    # dot's -Tjson output renamed a node "%0" (a graph's SSA name) to "%3": dot is given indices.
    names = ["%0", "%1", 'a "quoted" name', "op:%2"]
    data = {"nodes": [{"id": n, "kind": "tensor", "size": [156.0, 64.0]} for n in names], "clusters": [],
            "edges": [{"id": f"e{k}", "source": a, "target": b} for k, (a, b) in enumerate(zip(names, names[1:]))],
            "direction": "LR"}
    view = layout.layout_view(layout.find_dot(), data, set())
    assert set(view["nodes"]) == set(names) and set(view["edges"]) == {"e0", "e1", "e2"}
    xs = [view["nodes"][n][0] for n in names]
    assert xs == sorted(xs)                 # left to right in the edges' order: each name is its own node
