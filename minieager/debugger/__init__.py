"""The tape debugger's pure-Python side: a GradientTape as JSON-serialisable data, and pictures of it.

    tr = me.debugger.trace(tape, loss, [w, b])   # nodes, edges, backprop steps, gradients
    tr.to_dict()                                 # the format of docs/trace-format.md
    me.debugger.to_svg(tr, step=2)               # a static picture of step 3
    me.debugger.save_html(tr, "tape.html")       # an offline page that steps through it

Nothing here imports Jupyter; the widget lives in ``minieager.widgets``.
"""
from .html import save_html
from .names import name
from .svg import render
from .trace import Trace, TraceError, trace


def to_svg(trace, step=None, mode="backward"):
    """SVG text of ``trace`` (a Trace or its dict) at ``step`` (None: the last step)."""
    return render(trace.to_dict() if hasattr(trace, "to_dict") else trace, step=step, mode=mode)


__all__ = ["Trace", "TraceError", "name", "save_html", "to_svg", "trace"]
