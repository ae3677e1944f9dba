"""Static pictures of what each pass did: a marked listing and an SVG, before and after.

``PassSteps(reports)`` (from ``optimize`` or ``concrete.pass_reports``) shows every pass as text
(``print(steps)``) or, in a notebook, as one picture of every pass that changed something: the
graph before the pass beside the graph after it (below it when side by side would be wider than
a notebook), with the nodes it removed, merged, folded, simplified or fused marked. The picture
is SVG and PNG, so an untrusted or saved notebook shows it too (its sanitiser drops SVG and turns
HTML into text); ``me.widgets.PassStepper`` steps through the passes one at a time.

Each graph is drawn as ``graph.draw()`` draws it, with the tape debugger's layout and renderer
(``graph/draw.py``): one way to draw a graph in minieager.
"""
from xml.sax.saxutils import escape

from ...debugger.png import to_png
from ...debugger.svg import FONT, arrange, palette, render
from ..draw import FIT_WIDTH, fit_output, laid_out

# What a pass did to a node and how the listing marks it (the drawing's colours: debugger/svg.MARKS).
MARKS = {"removed": "-", "merged": "~", "folded": "*", "simplified": "=", "fused": "+"}


def changes(report):
    """``({name in before: what happened}, {name in after: what made it})``."""
    before, after = marks(report)
    return {k: v[0] for k, v in before.items()}, {k: v[0] for k, v in after.items()}


def marks(report):
    """``({name in before: (what, words)}, {name in after: (what, words)})``: each changed node,
    and what the drawing writes on it ("merged into %1")."""
    before, after = {}, {}
    for name in report.removed:
        before[name] = ("removed", "removed")
    for kind, words in (("merged", "merged into"), ("folded", "folded into"), ("simplified", "simplified to")):
        for name, into in getattr(report, kind).items():
            before[name] = (kind, f"{words} {into}")
            if kind == "folded":
                after[into] = ("folded", "folded constant")
    for fused, members in report.fused.items():
        before.update({name: ("fused", f"fused into {fused}") for name in members})
        after[fused] = ("fused", f"fuses {len(members)} nodes")
    return before, after


def marked_listing(graph, marks):
    """``graph``'s listing with a mark in front of each line whose node is in ``marks``."""
    lines = str(graph).splitlines()
    body = [n for n in graph.nodes if n.kind != "placeholder"]
    out = ["  " + lines[0]]
    for node, line in zip(body, lines[1:-1]):
        what = marks.get(node.name)
        out.append((MARKS[what] if what else " ") + " " + line)
    out.append("  " + lines[-1])
    return "\n".join(out)


def report_text(report):
    if not report.changed:
        return report.summary()
    before, after = changes(report)
    return "\n".join([report.summary(), "before:", marked_listing(report.before, before),
                      "after:", marked_listing(report.after, after)])


def report_traces(report):
    """The graphs before and after ``report``'s pass as the debugger's trace data, changes marked,
    laid out by dot in one direction (``graph/draw.laid_out``): [before, after]."""
    before, after = marks(report)
    return [data for data, _ in laid_out([
        (report.before, f"before {report.name}: {len(report.before)} nodes", before),
        (report.after, f"after {report.name}: {len(report.after)} nodes", after)])]


def _picture(data):
    return render(data, mode="forward", builtin_layout=not data["views"], wrap=FIT_WIDTH)


def report_svg(report, width=None):
    """One SVG: the graph before ``report``'s pass and after it, side by side when that is at
    most ``width`` px wide (``FIT_WIDTH``: a notebook's), else one above the other; changes marked."""
    pictures = [_picture(data) for data in report_traces(report)]
    return fit_output(arrange(pictures, FIT_WIDTH if width is None else width, label=report.summary()))


def overview_svg(reports):
    """One SVG of every pass that changed something, one below the other (the picture a saved or
    untrusted notebook shows for a PassStepper)."""
    pictures = [report_svg(r) for r in reports if r.changed]
    if not pictures:
        c = palette()
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="400" height="44" viewBox="0 0 400 44" role="img" '
                f'aria-label="what each pass changed"><rect width="100%" height="100%" fill="{c["bg"]}"/>'
                f'<text x="20" y="28" font-family="{FONT}" font-size="14" fill="{c["fg"]}">'
                f'No pass changed this graph.</text></svg>')
    return arrange(pictures, 0, label="what each pass changed")


class PassSteps:
    """The passes of one optimisation, as text (``print``) and as HTML with SVGs (notebooks)."""

    def __init__(self, reports):
        self.reports = list(reports)

    def __len__(self):
        return len(self.reports)

    def text(self, k):
        return report_text(self.reports[k])

    def svg(self, k):
        return report_svg(self.reports[k])

    def traces(self, k):
        """The trace data of pass ``k``'s graphs, before and after (what the PassStepper draws)."""
        return report_traces(self.reports[k])

    def html(self, k):
        return (f'<div style="font-family:{escape(FONT)}"><p><b>{k + 1} / {len(self)}</b> '
                f'{escape(self.reports[k].summary())}</p>{self.svg(k)}</div>')

    def __str__(self):
        return "\n\n".join(self.text(k) for k in range(len(self)))

    def __repr__(self):
        return f"<PassSteps: {len(self)} passes, {len(self.reports[0].before)} -> {len(self.reports[-1].after)} nodes>" \
            if self.reports else "<PassSteps: no passes>"

    # A picture, not HTML: an untrusted notebook sanitises HTML into a run-on text dump and drops
    # SVG, but keeps a PNG.
    def _repr_svg_(self):
        return overview_svg(self.reports)

    def _repr_png_(self):
        return to_png(overview_svg(self.reports))
