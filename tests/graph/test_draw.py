"""Drawing a graph with the tape debugger's visual language."""
import minieager as me
from minieager.graph.draw import trace_data


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
    svg = graph.draw().to_svg()
    assert svg.startswith("<svg") and svg.count("<title>") >= 4
    assert "y = me.tanh(x * v)      # tooltip line" in svg
    assert svg == graph.draw().to_svg()          # the built-in layout: the same picture every time


def test_drawing_fits_its_output_and_has_a_picture_for_untrusted_notebooks():
    @me.function
    def f(x):
        return me.tanh(x * 2.0) + 1.0
    drawing = f.get_concrete_function(me.ones(2)).graph.draw()
    assert drawing._repr_svg_().startswith('<svg style="max-width:100%;height:auto" ')
    assert drawing._repr_png_()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_long_graph_is_drawn_in_rows_that_fit_a_notebook():
    @me.function
    def f(x):
        for _ in range(6):
            x = me.tanh(x * 0.9)
        return x
    svg = f.get_concrete_function(me.ones(2)).graph.draw().to_svg()
    import re
    width = float(re.search(r'<svg [^>]*width="([\d.]+)"', svg).group(1))
    assert width <= 1100 + 2 * 40, width
