"""One geometry: node sizes are defined in debugger/geometry.py and travel in the trace.

The static pictures (svg.py, and png.py which draws its SVG) and the widget's front-end
(widgets/tape_debugger.js) draw the boxes the trace gives. The browser side of this check,
that the page draws each node at the size Python sent, is in widgets/tests/test_big_graphs_browser.py.
"""
import re
from pathlib import Path

import numpy as np

import minieager as me
from minieager.debugger import geometry, trace
from minieager.debugger.html import standalone_html
from minieager.debugger.svg import render

from .conftest import record

REPO = Path(__file__).resolve().parents[2]
NODE_RECT = re.compile(r'<g data-node-id="([^"]+)"[^>]*><rect x="[^"]+" y="[^"]+" width="([\d.]+)" height="([\d.]+)"')


def drawn_sizes(svg):
    return {node_id: (float(w), float(h)) for node_id, w, h in NODE_RECT.findall(svg)}


def mlp_trace():
    me.random.set_seed(0)
    model = me.keras.Sequential([me.keras.layers.Dense(4, activation="relu") for _ in range(7)])
    x = me.constant(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
    with me.GradientTape(persistent=True) as tape:
        loss = me.reduce_mean(model(x) ** 2)
    return trace(tape, loss, model.trainable_variables)


def test_every_node_and_cluster_carries_its_size():
    tape, y, xs = record(lambda x, b: me.reduce_sum(me.tanh(x * b)), np.ones((2, 2)), [0.5, -1.0])
    d = trace(tape, y, xs).to_dict()
    assert d["version"] == 2
    for n in d["nodes"]:
        assert n["size"] == list(geometry.node_size(n))
    assert {tuple(n["size"]) for n in d["nodes"] if n["kind"] != "op"} == {geometry.TENSOR_SIZE}
    assert "sizes" not in d["layout"]          # the layout places the nodes; it does not size them again
    d = mlp_trace().to_dict()
    assert d["clusters"] and all(c["folded_size"] == list(geometry.FOLDED_SIZE) for c in d["clusters"])


def test_an_op_box_grows_with_its_name():
    assert geometry.node_size({"kind": "op", "label": "add"}) == geometry.OP_SIZE
    wide = geometry.node_size({"kind": "op", "label": "tensor_scatter_nd_update"})
    assert wide[0] > geometry.OP_SIZE[0] and wide[1] == geometry.OP_SIZE[1]


def test_pictures_draw_the_sizes_the_trace_carries():
    x = me.Variable(np.linspace(0, 1, 4, dtype=np.float32), name="x")
    with me.GradientTape(persistent=True) as tape:
        y = x
        for _ in range(8):
            y = me.tanh(y * 0.9)
        loss = me.reduce_sum(y)
    d = trace(tape, loss, [x]).to_dict()
    want = {n["id"]: tuple(n["size"]) for n in d["nodes"]}
    # As the trace's own layout, and as a saved notebook's picture (built-in layout, in rows).
    for svg in (render(d, step=2), render(d, step=2, builtin_layout=True, wrap=1100)):
        assert drawn_sizes(svg) == want


def test_a_folded_layer_is_drawn_at_its_folded_size():
    d = mlp_trace().to_dict()
    drawn = drawn_sizes(render(d, builtin_layout=True))
    folded = {f"cluster:{c['id']}": tuple(c["folded_size"]) for c in d["clusters"]}
    assert folded and {k: drawn[k] for k in folded} == folded


def test_the_front_end_defines_no_node_sizes():
    """The page sizes boxes from the trace only: no size table, no [w, h] constant, no size rule of its own."""
    js = (REPO / "widgets" / "tape_debugger.js").read_text()
    code = re.sub(r"//[^\n]*", "", js)          # comments may talk about sizes
    assert not re.search(r"NODE_SIZE|TENSOR_SIZE|OP_SIZE|FOLDED_SIZE|defaultSize", code)
    pairs = re.findall(r"\[\s*-?\d+(?:\.\d+)?\s*,\s*-?\d+(?:\.\d+)?\s*\]", code)
    assert not pairs, f"number pairs in tape_debugger.js look like box sizes: {pairs}"
    for w, h in (geometry.TENSOR_SIZE, geometry.OP_SIZE, geometry.FOLDED_SIZE):
        assert not re.search(rf"\b{w:g}\b[^\n]{{0,20}}\b{h:g}\b", code), f"{w:g}x{h:g} is written in tape_debugger.js"
    assert "vn.node.size" in code and "folded_size" in code


def test_a_trace_saved_before_sizes_gets_them_on_its_page():
    """A notebook's saved widget state keeps the trace it ran with; the course site draws it anew."""
    d = mlp_trace().to_dict()
    old = dict(d, version=1, nodes=[{k: v for k, v in n.items() if k != "size"} for n in d["nodes"]],
               clusters=[{k: v for k, v in c.items() if k != "folded_size"} for c in d["clusters"]])
    assert geometry.with_sizes(d) is d
    upgraded = geometry.with_sizes(old)
    assert upgraded["nodes"] == d["nodes"] and upgraded["clusters"] == d["clusters"]
    assert "size" not in old["nodes"][0]             # the saved trace itself is left as it was
    assert '"size": [156.0, 64.0]' in standalone_html(old)
