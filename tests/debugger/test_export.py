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
    for step in (-1, 0, None):
        svg = tr.to_svg(step=step)
        assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert "backward step 2 / 3" in tr.to_svg(step=1)
    assert "∇" in tr.to_svg()


def test_svg_without_dot_and_the_hint_once(no_dot, capsys):
    tr = small_trace()
    assert tr.to_dict()["layout"]["engine"] == "builtin"
    svg = to_svg(tr, step=0)
    assert svg.startswith("<svg") and 'data-node-id="op0"' in svg
    small_trace()
    hint = capsys.readouterr().err.strip().splitlines()
    assert len(hint) == 1 and "apt-get install graphviz" in hint[0] and "brew install graphviz" in hint[0]


def test_forward_mode_svg():
    svg = small_trace(layout=False).to_svg(step=0, mode="forward")
    assert "forward step 1 / 3" in svg


def test_save_html_is_one_offline_file(tmp_path):
    path = save_html(small_trace(), tmp_path / "tape.html")
    html = path.read_text()
    assert "/*__" not in html                                   # every placeholder filled
    assert not re.search(r"<(script|link|img)\b[^>]*\b(src|href)\s*=", html)   # nothing loaded from elsewhere
    assert not re.search(r"@import|url\(\s*['\"]?https?://", html)
    assert '"op_name": "tanh"' in html and "export function mount" in html
