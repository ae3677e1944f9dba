"""Static pictures of what each pass did: a marked listing and an SVG, before and after.

``PassSteps(reports)`` (from ``optimize`` or ``concrete.pass_reports``) shows every pass as text
(``print(steps)``) or, in a notebook, as one picture of every pass that changed something: the
graph before the pass beside the graph after it (below it when side by side would be wider than
a notebook), with the nodes it removed, merged, folded, simplified or fused in colour. The
picture is SVG and PNG, so an untrusted or saved notebook shows it too (its sanitiser drops SVG
and turns HTML into text); ``me.widgets.PassStepper`` steps through the passes one at a time.

The drawing reuses the tape debugger's layout (``debugger/layout.py``) and colours
(``debugger/svg.palette``), so graphs look the same everywhere in minieager.
"""
from xml.sax.saxutils import escape

from ...debugger import layout as layout_mod
from ...debugger.png import to_png
from ...debugger.svg import FONT, MONO, palette

# What a pass did to a node, how the listing marks it, and the palette colour that shows it.
MARKS = {"removed": ("-", "target-stroke"), "merged": ("~", "grad"), "folded": ("*", "constant-stroke"),
         "simplified": ("=", "fwd"), "fused": ("+", "variable-stroke")}
NODE_SIZE = (190.0, 42.0)


def changes(report):
    """``({name in before: what happened}, {name in after: what made it})``."""
    before, after = {}, {}
    for name in report.removed:
        before[name] = "removed"
    for kind in ("merged", "folded", "simplified"):
        for name, into in getattr(report, kind).items():
            before[name] = kind
            if kind == "folded":
                after[into] = "folded"
    for fused, members in report.fused.items():
        before.update({name: "fused" for name in members})
        after[fused] = "fused"
    return before, after


def marked_listing(graph, marks):
    """``graph``'s listing with a mark in front of each line whose node is in ``marks``."""
    lines = str(graph).splitlines()
    body = [n for n in graph.nodes if n.kind != "placeholder"]
    out = ["  " + lines[0]]
    for node, line in zip(body, lines[1:-1]):
        what = marks.get(node.name)
        out.append((MARKS[what][0] if what else " ") + " " + line)
    out.append("  " + lines[-1])
    return "\n".join(out)


def report_text(report):
    if not report.changed:
        return report.summary()
    before, after = changes(report)
    return "\n".join([report.summary(), "before:", marked_listing(report.before, before),
                      "after:", marked_listing(report.after, after)])


def _label(node):
    if node.kind == "call":
        return f"{node.name} = {node.op.name}" + (f"[{node.index}]" if node.index is not None else "")
    return f"{node.name} ({node.kind})"


def _text(x, y, content, size, fill, mono=False, weight="normal", anchor="start"):
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-family="{MONO if mono else FONT}" font-size="{size}" '
            f'fill="{fill}" text-anchor="{anchor}" font-weight="{weight}">{escape(content)}</text>')


def graph_svg_parts(graph, marks, dx, c, title, dy=0.0):
    """SVG elements for ``graph`` drawn top to bottom, shifted by (``dx``, ``dy``); (parts, width, height)."""
    ids = {node: f"n{k}" for k, node in enumerate(graph.nodes)}
    edges = [{"source": ids[s], "target": ids[n]} for n in graph.nodes for s in n.inputs if s in ids]
    lay = layout_mod.layered([(ids[n], NODE_SIZE) for n in graph.nodes], edges, "TB")
    pos = lay["positions"]
    w, h = NODE_SIZE
    x0 = min((p[0] for p in pos.values()), default=0) - w / 2 - 20
    y0 = min((p[1] for p in pos.values()), default=0) - h / 2 - 50
    shift = (dx - x0, dy - y0)
    parts = [_text(dx + 20, dy + 28, title, 13, c["fg"], weight="600")]
    for e in edges:
        (ax, ay), (bx, by) = pos[e["source"]], pos[e["target"]]
        parts.append(f'<line x1="{ax + shift[0]:.1f}" y1="{ay + h / 2 + shift[1]:.1f}" x2="{bx + shift[0]:.1f}" '
                     f'y2="{by - h / 2 + shift[1]:.1f}" stroke="{c["edge"]}" stroke-width="1.4"/>')
    for node in graph.nodes:
        x, y = pos[ids[node]]
        left, top = x + shift[0] - w / 2, y + shift[1] - h / 2
        what = marks.get(node.name)
        fill = c["op-fill"] if node.kind == "call" else c.get(f"{node.kind}-fill", c["tensor-fill"])
        stroke = c[MARKS[what][1]] if what else c["op-stroke"] if node.kind == "call" else c["tensor-stroke"]
        dash = ' stroke-dasharray="5 3"' if what in ("removed", "merged", "simplified") else ""
        faded = ' opacity="0.55"' if dash else ""
        parts.append(f'<g data-node="{escape(node.name)}"{faded}>'
                     f'<rect x="{left:.1f}" y="{top:.1f}" width="{w:.1f}" height="{h:.1f}" rx="9" fill="{fill}" '
                     f'stroke="{stroke}" stroke-width="{3 if what else 1.4}"{dash}/>'
                     + _text(left + 10, top + 17, _label(node)[:26], 12, c["fg"], mono=True, weight="600")
                     + _text(left + 10, top + 33, (node.type_text + (f"  {what}" if what else ""))[:30], 10.5,
                             stroke if what else c["fg-muted"])
                     + "</g>")
    width = max((p[0] for p in pos.values()), default=0) + w / 2 + 20 - x0
    height = max((p[1] for p in pos.values()), default=0) + h / 2 + 20 - y0
    return parts, width, height


FIT_WIDTH = 1100     # px: wider than this side by side, the "after" graph goes below the "before" one


def report_parts(report, c, dy=0.0):
    """SVG elements of one pass, the graph before it and after it, changes in colour, starting at
    ``dy``: side by side when that fits ``FIT_WIDTH``, else one above the other; (parts, width, height)."""
    before, after = changes(report)
    left, lw, lh = graph_svg_parts(report.before, before, 0, c, f"before {report.name}: {len(report.before)} nodes", dy)
    _, rw, _ = graph_svg_parts(report.after, after, 0, c, "", dy)
    if lw + 30 + rw <= FIT_WIDTH:
        right, rw, rh = graph_svg_parts(report.after, after, lw + 30, c, f"after: {len(report.after)} nodes", dy)
        return left + right, lw + 30 + rw, max(lh, rh)
    right, rw, rh = graph_svg_parts(report.after, after, 0, c, f"after: {len(report.after)} nodes", dy + lh + 10)
    return left + right, max(lw, rw), lh + 10 + rh


def _svg(parts, width, height, label, c):
    # max-width: the picture shrinks to its output's width instead of running off its right edge.
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {width:.1f} {height:.1f}" style="max-width:100%;height:auto" role="img" '
            f'aria-label="{escape(label)}"><rect width="100%" height="100%" fill="{c["bg"]}"/>' + "".join(parts) + "</svg>")


def report_svg(report):
    """One SVG: the graph before ``report``'s pass and after it (beside it, or below when that is
    too wide to read in a notebook), changes in colour."""
    c = palette()
    parts, width, height = report_parts(report, c)
    return _svg(parts, width, height, report.summary(), c)


def overview_svg(reports):
    """One SVG of every pass that changed something, one below the other (the picture a saved or
    untrusted notebook shows for a PassStepper)."""
    c = palette()
    parts, width, y = [], 0.0, 0.0
    for k, report in enumerate(reports):
        if not report.changed:
            continue
        parts.append(_text(20, y + 22, f"{k + 1} / {len(reports)} · {report.summary()}", 14, c["fg"], weight="700"))
        more, w, h = report_parts(report, c, y + 30)
        parts += more
        width, y = max(width, w), y + 30 + h + 16
    if not parts:
        parts, width, y = [_text(20, 28, "No pass changed this graph.", 14, c["fg"])], 400.0, 44.0
    return _svg(parts, width, y, "what each pass changed", c)


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
