"""The static pictures of the passes (text and SVG) and the widget that steps through them."""
import re

import numpy as np
import pytest

import minieager as me
from minieager.graph.passes import fusion
from minieager.graph.passes.view import PassSteps


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


def test_svg_draws_both_graphs_with_the_changes_coloured():
    steps = PassSteps(traced().pass_reports)
    svg = steps.svg(5)
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert "before elementwise fusion: 7 nodes" in svg and "after: 4 nodes" in svg
    assert svg.count('data-node="%fused0"') == 1 and svg.count("  fused</text>") == 5   # 4 members before, the fused node after
    overview = steps._repr_svg_()         # the four passes that changed something, one picture
    assert overview.count(">before ") == 4 and steps._repr_png_()[:4] == b"\x89PNG"


def test_widget_holds_one_page_per_pass():
    widget = me.widgets.PassStepper(traced())
    assert len(widget.pages) == 6 and widget.step == 0
    assert widget.titles[5].startswith("6 / 6 · elementwise fusion: 7 -> 4 nodes")
    assert "fused %0, %3, %4, %5 into %fused0" in repr(widget)


def test_wide_passes_stack_before_above_after_and_fit_their_output(monkeypatch):
    from minieager.graph.passes import view
    reports = traced().pass_reports

    def size(svg):
        return [float(re.search(rf'<svg [^>]*{k}="([\d.]+)"', svg).group(1)) for k in ("width", "height")]

    def title_y(svg, title):
        return float(re.search(rf'<text [^>]*y="([\d.]+)"[^>]*>{title}', svg).group(1))
    default = PassSteps(reports).svg(5)
    assert 'style="max-width:100%;height:auto"' in default        # shrinks to its output's width
    assert size(default)[0] <= view.FIT_WIDTH
    monkeypatch.setattr(view, "FIT_WIDTH", 10_000)                # room for both side by side
    side = PassSteps(reports).svg(5)
    assert title_y(side, "after: ") == title_y(side, "before ")
    monkeypatch.setattr(view, "FIT_WIDTH", 300)                   # too narrow for both side by side
    stacked = PassSteps(reports).svg(5)
    assert size(stacked)[0] < size(side)[0] and size(stacked)[1] > size(side)[1]
    assert title_y(stacked, "after: ") > title_y(stacked, "before ")
    overview = view.overview_svg(reports)
    assert overview.count(">before ") == sum(r.changed for r in reports) == 4


def test_pass_stepper_carries_a_picture_for_untrusted_notebooks():
    import base64
    widget = me.widgets.PassStepper(traced())
    data = widget._repr_mimebundle_()
    data = data[0] if isinstance(data, tuple) else data
    png = base64.b64decode(data["image/png"])
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and "text/html" not in data
    assert data["text/plain"] == repr(widget)
