"""The static pictures of the passes (text and SVG) and the widget that steps through them."""
import re
import shutil

import numpy as np
import pytest

import minieager as me
from minieager.graph.passes import fusion
from minieager.debugger.svg import palette
from minieager.graph.passes.view import PassSteps

from .pictures import assert_no_edge_through_a_box


@pytest.fixture(autouse=True, scope="module")
def fuse_small_graphs():
    """Fuse the small tensors these tests use (normally only groups of SMALL_SIZE elements and up)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fusion, "MIN_SIZE", 1)
        yield


def traced():
    def f(x, w):
        return me.tanh(x * w * 1.0 + x * w) * 0.5
    return me.function(f).get_concrete_function(me.constant(np.ones((3, 4), np.float32)), me.constant(2.0))


def test_text_marks_what_each_pass_did():
    steps = PassSteps(traced().pass_reports)
    simplify, cse, dce, fusion = (steps.text(k) for k in (1, 2, 3, 5))   # 4: the convolution epilogue pass
    assert simplify.startswith("arithmetic simplification: 10 -> 9 nodes; simplified %1 to %0")
    assert "=     %1 : float32[3,4] = multiply(%0, c0)" in simplify
    assert "~     %2 : float32[3,4] = multiply(x, w)" in cse
    assert "-     c0 : float32[]    = constant 1.0" in dce
    assert [line[0] for line in fusion.splitlines() if line.startswith("+")] == ["+"] * 5   # 4 members, 1 fused node
    assert steps.text(0) == "constant folding: 10 -> 10 nodes; no change"


needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")


def test_svg_draws_both_graphs_with_the_changes_marked():
    steps = PassSteps(traced().pass_reports)
    svg = steps.svg(5)
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert "before elementwise fusion: 7 nodes" in svg and "after elementwise fusion: 4 nodes" in svg
    # The four members before (each result box says where it went), the fused node after.
    fused = palette()["mark-fused"]
    assert svg.count(">fused into %fused0</text>") == 4 and svg.count(">fuses 4 nodes</text>") == 1
    assert svg.count(f'stroke="{fused}" stroke-width="3"') == 4 * 2 + 2       # their boxes and op pills
    overview = steps._repr_svg_()         # the four passes that changed something, one picture
    assert overview.count(">before ") == 4 and steps._repr_png_()[:4] == b"\x89PNG"


def test_removed_nodes_are_dashed_and_faded_and_say_where_they_went():
    steps = PassSteps(traced().pass_reports)
    before, after = steps.traces(2)            # common-subexpression elimination
    merged = {n["id"]: n["mark_text"] for n in before["nodes"] if n.get("mark") == "merged"}
    assert merged == {"%2": "merged into %0", "op:%2": "merged into %0"}
    assert not [n for n in after["nodes"] if n.get("mark")]
    svg = steps.svg(2)
    node = re.search(r'<g data-node-id="%2" opacity="0.6">(.*?)</g>', svg).group(1)
    assert 'stroke-dasharray="6 3"' in node and ">merged into %0</text>" in node


@needs_dot
def test_pass_graphs_are_laid_out_by_dot_as_the_debugger_lays_out_a_tape():
    steps = PassSteps(traced().pass_reports)
    for k in range(len(steps)):
        before, after = steps.traces(k)
        assert before["direction"] == after["direction"]          # one direction for the pair
        for data in (before, after):
            view = data["views"][""]
            assert set(view["nodes"]) == {n["id"] for n in data["nodes"]}
            assert set(view["edges"]) == {e["id"] for e in data["edges"]}
            assert_no_edge_through_a_box(steps.svg(k))


def test_widget_sends_each_pass_as_two_graphs():
    widget = me.widgets.PassStepper(traced())
    assert len(widget.passes) == 6 and widget.step == 0
    fusion = widget.passes[5]
    assert fusion["title"].startswith("elementwise fusion: 7 -> 4 nodes")
    assert fusion["before"]["title"] == "before elementwise fusion: 7 nodes"
    assert {n["id"] for n in fusion["after"]["nodes"] if n.get("mark") == "fused"} == {"%fused0", "op:%fused0"}
    assert "fused %0, %3, %4, %5 into %fused0" in repr(widget)
    # The tape debugger's front-end draws them (its graph mode): one drawing for tapes and graphs.
    assert widget._esm == me.widgets.TapeDebugger._esm


def test_wide_passes_stack_before_above_after_and_fit_their_output():
    from minieager.graph.passes import view
    report = traced().pass_reports[4]

    def size(svg):
        return [float(re.search(rf'<svg [^>]*{k}="([\d.]+)"', svg).group(1)) for k in ("width", "height")]

    def shifts(svg):
        return [tuple(map(float, m)) for m in re.findall(r'<g transform="translate\(([-\d.]+),([-\d.]+)\)">', svg)]
    default = view.report_svg(report)
    assert 'style="max-width:100%;height:auto"' in default        # shrinks to its output's width
    side = view.report_svg(report, width=10_000)                   # room for both side by side
    (bx, by), (ax, ay) = shifts(side)
    stacked = view.report_svg(report, width=300)                   # too narrow for both side by side
    (sbx, sby), (sax, say) = shifts(stacked)
    assert ax - bx > 0 and abs((ay - by)) < abs(say - sby) and say > sby
    assert size(stacked)[0] < size(side)[0] and size(stacked)[1] > size(side)[1]
    overview = view.overview_svg(traced().pass_reports)
    assert overview.count(">before ") == 4


def test_pass_stepper_carries_a_picture_for_untrusted_notebooks():
    import base64
    widget = me.widgets.PassStepper(traced())
    data = widget._repr_mimebundle_()
    data = data[0] if isinstance(data, tuple) else data
    png = base64.b64decode(data["image/png"])
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and "text/html" not in data
    assert data["text/plain"] == repr(widget)


def test_a_graph_no_pass_ran_on_says_so_in_text_and_picture():
    @me.function(optimize=False)
    def f(x):
        return x * 2.0
    reports = f.get_concrete_function(me.ones(2)).pass_reports
    assert reports == []
    widget = me.widgets.PassStepper(reports)
    assert widget.passes == [] and repr(widget) == "PassStepper: no pass ran on this graph"
    svg = PassSteps(reports)._repr_svg_()
    assert ">No pass changed this graph.</text>" in svg and PassSteps(reports)._repr_png_()[:4] == b"\x89PNG"
