"""Static output: SVG with and without Graphviz, the install hint, the self-contained HTML file."""
import re
import shutil

import numpy as np
import pytest

import minieager as me
from minieager.debugger import save_html, to_svg, trace

from .conftest import record


def small_trace(**kwargs):
    tape, y, xs = record(lambda x, b: me.reduce_sum(me.tanh(x * b)), np.ones((2, 2)), [0.5, -1.0])
    return trace(tape, y, xs, **kwargs)


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_svg_with_dot():
    tr = small_trace()
    assert tr.to_dict()["layout"]["engine"] == "dot"
    for step in (0, 1, None):
        svg = tr.to_svg(step=step)
        assert svg.startswith("<svg") and svg.endswith("</svg>")
    # Steps count from 1 everywhere a person reads or sets them; 0 is "ready", before the first.
    assert "backward step 2 / 3" in tr.to_svg(step=2)
    assert "backward: ready, 3 steps" in tr.to_svg(step=0)
    assert "backward step 3 / 3" in tr.to_svg()
    assert "∇" in tr.to_svg()


def test_svg_without_dot_prints_nothing_and_the_layout_carries_the_hint(no_dot, capsys):
    # Anything on stderr would fail nbval on every saved notebook of a machine without Graphviz.
    tr = small_trace()
    layout = tr.to_dict()["layout"]
    assert layout["engine"] == "builtin"
    assert "apt-get install graphviz" in layout["hint"] and "brew install graphviz" in layout["hint"]
    svg = to_svg(tr, step=1)
    assert svg.startswith("<svg") and 'data-node-id="op0"' in svg
    out = capsys.readouterr()
    assert out.err == "" and out.out == ""


def test_forward_mode_svg():
    svg = small_trace(layout=False).to_svg(step=1, mode="forward")
    assert "forward step 1 / 3" in svg


def test_save_html_is_one_offline_file(tmp_path):
    path = save_html(small_trace(), tmp_path / "tape.html")
    html = path.read_text()
    assert "/*__" not in html                                   # every placeholder filled
    assert not re.search(r"<(script|link|img)\b[^>]*\b(src|href)\s*=", html)   # nothing loaded from elsewhere
    assert not re.search(r"@import|url\(\s*['\"]?https?://", html)
    assert '"op_name": "tanh"' in html and "export function mount" in html


def test_the_saved_picture_says_1_step_not_1_steps():
    tape, y, xs = record(lambda x: me.reduce_sum(x), [1.0, 2.0])
    tr = trace(tape, y, xs, layout=False)
    assert tr.num_steps == 1
    assert "backward: ready, 1 step" in tr.to_svg(step=0)
    assert "1 steps" not in tr.to_svg(step=0)
    assert "GradientTape · 1 op" in trace(tape, layout=False).to_svg() and "1 ops" not in trace(tape, layout=False).to_svg()


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_the_static_picture_draws_dots_routes_as_the_widget_does():
    # With dot's view of the fold state shown, the SVG draws dot's edge routes (several cubic
    # segments, around the boxes in their way), and png.py draws those routes too.
    data = small_trace().to_dict()
    view = data["views"][""]
    from minieager.debugger.svg import render
    svg = render(data)
    paths = re.findall(r'<path d="(M[^"]+)" fill="none"', svg)
    assert len(paths) == len(view["edges"])
    first = data["edges"][0]["id"]
    start = view["edges"][first][0]
    assert any(p.startswith(f"M{start[0]:.1f},{start[1]:.1f} C") for p in paths)
    from minieager.debugger.png import _curve
    assert all(_curve(p) for p in paths)


def test_arrange_puts_pictures_side_by_side_or_stacked_and_png_draws_them_moved():
    import io
    from PIL import Image
    from minieager.debugger.png import to_png
    from minieager.debugger.svg import arrange, render
    one = render(small_trace().to_dict(), builtin_layout=True)
    w, h = (float(v) for v in re.search(r'viewBox="[-\d.]+ [-\d.]+ ([\d.]+) ([\d.]+)"', one).groups())
    side, stacked = arrange([one, one], width=10_000, gap=20), arrange([one, one], width=10, gap=20)
    assert re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', side).groups() == (f"{2 * w + 20:.1f}", f"{h:.1f}")
    assert re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', stacked).groups() == (f"{w:.1f}", f"{2 * h + 20:.1f}")
    assert side.count("<defs>") == 1 and side.count('width="100%"') == 1       # one background, one set of arrows
    # The right-hand copy is drawn where it was moved to: its pixels match the left one's.
    image = Image.open(io.BytesIO(to_png(side))).convert("L")
    left = image.crop((0, 0, round(w), round(h)))
    right = image.crop((round(w + 20), 0, round(2 * w + 20), round(h)))
    assert left.getextrema()[0] < 200                       # something is drawn there
    diff = sum(abs(a - b) for a, b in zip(left.tobytes(), right.tobytes())) / (left.width * left.height)
    assert diff < 2.0, diff
