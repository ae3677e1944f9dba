"""Drawing a graph with the tape debugger's visual language."""
import re
import shutil

import pytest

import minieager as me
from minieager.graph.draw import FIT_WIDTH, trace_data

from .pictures import assert_no_edge_through_a_box

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")


def test_drawing_has_a_box_per_value_a_pill_per_call_and_source_tooltips():
    v = me.Variable([1.0, 2.0], name="w")

    @me.function
    def f(x):
        y = me.tanh(x * v)      # tooltip line
        v.assign(y)
        return y + 1.0
    graph = f.get_concrete_function(me.ones(2)).graph
    data, _ = trace_data(graph)
    kinds = {n["id"]: n["kind"] for n in data["nodes"]}
    w_node = next(n.name for n in graph.nodes if n.kind == "variable")   # the name counter is global: w, w_1 ...
    assert kinds["x"] == "placeholder" and kinds[w_node] == "variable" and kinds["op:%1"] == "op"
    assert kinds[graph.outputs[0].name] == "target"
    assert any(n["label"] == "assign_variable (effect)" for n in data["nodes"])
    assert {"source": "x", "target": "op:%0", "input_index": 0} in [{k: e[k] for k in ("source", "target",
                                                                   "input_index")} for e in data["edges"]]
    # Each node carries its line of user code, as a tape's op does (the widget's inspector shows it).
    code = {n["id"]: n["code"] for n in data["nodes"]}
    assert code["op:%0"]["text"] == "y = me.tanh(x * v)" and code["x"] is None      # comments left out
    assert code["op:%0"]["file"].endswith("test_draw.py") and not code["op:%0"]["file"].startswith("/")   # never the machine's path
    assert code["%0"] == code["op:%0"]
    svg = graph.draw().to_svg()
    assert svg.startswith("<svg") and svg.count("<title>") >= 4
    assert "y = me.tanh(x * v)      # tooltip line" in svg
    assert svg == graph.draw().to_svg()          # the same picture every time


def test_drawing_fits_its_output_and_has_a_picture_for_untrusted_notebooks():
    @me.function
    def f(x):
        return me.tanh(x * 2.0) + 1.0
    drawing = f.get_concrete_function(me.ones(2)).graph.draw()
    assert drawing._repr_svg_().startswith('<svg style="max-width:100%;height:auto" ')
    assert drawing._repr_png_()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_long_graph_is_drawn_in_rows_that_fit_a_notebook_without_graphviz():
    @me.function
    def f(x):
        for _ in range(6):
            x = me.tanh(x * 0.9)
        return x
    svg = f.get_concrete_function(me.ones(2)).graph.draw(builtin_layout=True).to_svg()
    width = float(re.search(r'<svg [^>]*width="([\d.]+)"', svg).group(1))
    assert width <= FIT_WIDTH + 2 * 40, width


@needs_dot
def test_a_graph_is_laid_out_by_dot_top_to_bottom_when_left_to_right_is_too_wide():
    # Notebook 09's first graph: 9 nodes, 2,036 px left to right (shrunk into a 968 px output, its
    # text would be 5 px), 424 px top to bottom.
    @me.function
    def scaled_tanh(x, w, b):
        return me.tanh(x * w + b) * 0.5 + x
    x = me.constant([1.0, -2.0, 3.0])
    drawing = scaled_tanh.get_concrete_function(x, x, x).graph.draw()
    assert drawing.data["direction"] == "TB"
    view = drawing.data["views"][""]          # the debugger's dot layout, edges routed by dot
    assert view["width"] <= FIT_WIDTH and set(view["edges"]) == {e["id"] for e in drawing.data["edges"]}
    assert_no_edge_through_a_box("<svg>" + f'<g transform="translate(0,0)">{drawing.to_svg()}</svg>')
    lr = scaled_tanh.get_concrete_function(x, x, x).graph.draw(direction="LR")
    assert lr.data["direction"] == "LR" and lr.data["views"][""]["width"] > FIT_WIDTH

    @me.function
    def short(x):
        return me.tanh(x) + 1.0
    assert short.get_concrete_function(x).graph.draw().data["direction"] == "LR"      # fits: left to right


def test_without_graphviz_the_drawing_uses_the_built_in_layout(monkeypatch):
    from minieager.debugger import layout
    monkeypatch.setattr(layout, "find_dot", lambda: None)

    @me.function
    def f(x):
        return me.tanh(x * 2.0) + 1.0
    drawing = f.get_concrete_function(me.ones(2)).graph.draw()
    assert drawing.data["views"] is None and drawing.to_svg().startswith("<svg")
