"""``save_html(trace, path)``: one self-contained HTML file that steps through a trace offline.

It fills widgets/standalone.html.template (shipped in minieager/widgets/static) with the
widget's CSS, its ES module and the trace as JSON: no CDN, no kernel, any browser.
"""
import json
import re
from pathlib import Path

from . import assets
from .geometry import with_sizes

PLACEHOLDER = re.compile(r"/\*__(CSS|JS|TRACE)__\*/")


def standalone_html(trace):
    """The page's text. ``trace`` is a Trace or its ``to_dict()`` (one saved before format 2 is
    given its node sizes, as a notebook's saved widget state holds the trace it was run with), or
    ``{"passes": [...]}``, a ``PassStepper``'s state: the page is then its pass viewer."""
    data = with_sizes(trace.to_dict() if hasattr(trace, "to_dict") else trace)
    parts = {
        "CSS": assets.read("tape_debugger.css"),
        "JS": assets.read("tape_debugger.js"),
        # "<" escaped so that no "</script>" inside a name can end the JSON block early.
        "TRACE": json.dumps(data, allow_nan=False).replace("<", "\\u003c"),
    }
    # One pass: text inlined for one placeholder is never searched for another.
    return PLACEHOLDER.sub(lambda m: parts[m.group(1)], assets.read("standalone.html.template"))


def save_html(trace, path):
    """Write the page to ``path``; returns the Path."""
    path = Path(path)
    path.write_text(standalone_html(trace), encoding="utf-8")
    return path
