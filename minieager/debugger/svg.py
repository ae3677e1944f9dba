"""A static SVG picture of a trace at one step, for notebooks without a kernel, docs and figures.

The live widget (widgets/tape_debugger.js) draws the interactive view; this draws the same
visual language (colours read from the widget's CSS, so the two never drift) as one
self-contained SVG: nodes by kind, the current op highlighted, the gradients being sent on
its input edges, and the running gradient on every tensor reached so far.
"""
import functools
import math
import re
from xml.sax.saxutils import escape

from . import assets
from . import geometry
from . import layout as layout_mod

FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif"
MONO = "ui-monospace, Menlo, Consolas, 'DejaVu Sans Mono', monospace"
PAD = 28.0


@functools.lru_cache(maxsize=1)
def palette():
    """The light theme's colours, ``{"op-fill": "#efeafd", ...}``, from the widget's CSS."""
    css = assets.read("tape_debugger.css")
    light = css[css.index(".me-tape-debugger {"):]
    light = light[:light.index("}")]
    return dict(re.findall(r"--me-([\w-]+):\s*(?:var\(--[\w-]+,\s*)?(#[0-9a-fA-F]{3,6})", light))


# ---- text ------------------------------------------------------------------------------

def fmt(v):
    """A number as the front-end prints it: 4 significant digits, exponent when tiny or huge."""
    if v is None:
        return "None"
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, str):
        return v
    if float(v).is_integer() and abs(v) < 1e6:
        return str(int(v))
    if v != 0 and (abs(v) < 1e-3 or abs(v) >= 1e6):
        return f"{v:.2e}"
    return f"{v:.4g}"


def _data_text(data):
    return "[" + ", ".join(_data_text(d) for d in data) + "]" if isinstance(data, list) else fmt(data)


def compact(value, max_items=4):
    """Short text for a value summary: every number when there are few, else shape and mean."""
    if value is None:
        return "None"
    shape = value.get("shape", [])
    if value.get("full") and math.prod(shape) <= max_items:
        return _data_text(value["data"])
    mean = value.get("mean")
    if value.get("full"):
        flat = [x for x in _flatten(value["data"]) if isinstance(x, (int, float))]
        mean = sum(flat) / len(flat) if flat else None
    return f"{'×'.join(map(str, shape)) or 'scalar'} · mean {fmt(mean)}"


def _flatten(data):
    if isinstance(data, list):
        for d in data:
            yield from _flatten(d)
    else:
        yield data


def _truncate(text, n):
    return text if len(text) <= n else text[:max(1, n - 1)] + "…"


def _text(x, y, content, size=12.0, fill="#1f2328", anchor="start", mono=False, weight="normal"):
    family = MONO if mono else FONT
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-family="{family}" font-size="{size}" fill="{fill}" '
            f'text-anchor="{anchor}" font-weight="{weight}">{escape(content)}</text>')


# ---- what the reader sees: folded clusters, layout ---------------------------------------

AUTO_FOLD_NODES = 40      # as the widget (widgets/tape_debugger.js): a bigger graph shows its layers folded


def _homes(data):
    """{input id: cluster} for inputs (a layer's kernel, bias) that only one layer's ops read."""
    cluster = {n["id"]: n.get("cluster") for n in data["nodes"]}
    produced = {e["target"] for e in data["edges"] if e.get("input_index") is None}
    readers = {}
    for e in data["edges"]:
        if e.get("input_index") is not None:
            readers.setdefault(e["source"], set()).add(cluster.get(e["target"]))
    return {i: next(iter(cs)) for i, cs in readers.items()
            if len(cs) == 1 and None not in cs and cluster.get(i) is None and i not in produced and i != data.get("target")}


def _visible(data):
    """(nodes, edges, representative): a big or truncated trace has its clusters folded into one node."""
    fold = data.get("truncated") is not None or (len(data["nodes"]) > AUTO_FOLD_NODES and bool(data.get("clusters")))
    homes = _homes(data) if fold else {}
    folded_size = {c["id"]: c.get("folded_size") for c in data.get("clusters") or ()}
    rep, nodes, folded = {}, [], {}
    for n in data["nodes"]:
        c = n.get("cluster") or homes.get(n["id"])
        if fold and c is not None:
            vid = rep[n["id"]] = f"cluster:{c}"
            if vid not in folded:
                folded[vid] = {"id": vid, "kind": "cluster", "label": c, "members": [], "size": folded_size.get(c)}
                nodes.append(folded[vid])
            folded[vid]["members"].append(n["id"])
        else:
            rep[n["id"]] = n["id"]
            nodes.append(n)
    edges = [dict(e, source=rep[e["source"]], target=rep[e["target"]]) for e in data["edges"]
             if e["source"] in rep and e["target"] in rep and rep[e["source"]] != rep[e["target"]]]
    return nodes, edges, rep


# What a pass did to a node (the trace's ``mark``, set by graph/draw.py): the palette colour that
# shows it, and whether the node is gone from the graph after the pass (drawn dashed and faded).
# The widget draws the same from its CSS (``.me-mark-*`` in widgets/tape_debugger.css).
MARKS = {"removed": ("mark-removed", True), "merged": ("mark-merged", True), "simplified": ("mark-simplified", True),
         "folded": ("mark-folded", False), "fused": ("mark-fused", False)}


def _view(data, nodes, edges):
    """dot's view of the fold state shown (``data["views"]``, layout.py), when it covers every
    node and edge drawn: node centres, edge routes and the open layers' boxes, as the widget uses them."""
    folded = sorted(n["label"] for n in nodes if n["kind"] == "cluster")
    view = (data.get("views") or {}).get(layout_mod.view_key(folded))
    if not view or not all(n["id"] in view["nodes"] for n in nodes) or not all(e["id"] in view["edges"] for e in edges):
        return None
    return view


def _route(points):
    """dot's route of an edge (cubic Bézier points, then the arrow's tip) as an SVG path and its middle."""
    pts = [tuple(p) for p in points]
    if (len(pts) - 1) % 3:          # the tip: one straight segment more, as the widget draws it
        tip = pts.pop()
        pts += [pts[-1], tip, tip]
    segments = [pts[i:i + 4] for i in range(0, len(pts) - 3, 3)]
    d = f"M{pts[0][0]:.1f},{pts[0][1]:.1f}" + "".join(
        f" C{a[0]:.1f},{a[1]:.1f} {b[0]:.1f},{b[1]:.1f} {c[0]:.1f},{c[1]:.1f}" for _, a, b, c in segments)
    p0, c1, c2, p3 = segments[len(segments) // 2]
    return d, ((p0[0] + 3 * c1[0] + 3 * c2[0] + p3[0]) / 8, (p0[1] + 3 * c1[1] + 3 * c2[1] + p3[1]) / 8)


def _layout(data, nodes, edges, builtin, wrap=None):
    given = data.get("layout")
    if given and all(n["id"] in given["positions"] for n in nodes) and not builtin:
        return given
    sized = [(n["id"], geometry.size_of(n)) for n in nodes]
    direction = data.get("direction", "LR")
    if builtin:
        return layout_mod.layered(sized, edges, direction, wrap=wrap)
    clusters = [] if any(n["kind"] == "cluster" for n in nodes) else data.get("clusters", [])
    return layout_mod.compute(sized, edges, clusters, direction)


# ---- the step being shown ----------------------------------------------------------------

def _backward_state(data, k):
    grads, sending, upstream = {}, {}, set()
    for i, st in enumerate(data["steps"][:k + 1]):
        for up in st["upstream"]:
            grads.setdefault(up["tensor"], up["value"])
        for go in st["grads_out"]:
            grads[go["tensor"]] = go["accumulated"]
            if i == k:
                sending[go["edge"]] = go
        if i == k:
            upstream = {up["tensor"] for up in st["upstream"]}
    current = data["steps"][k]["op"] if k >= 0 else None
    return current, grads, sending, upstream


# ---- drawing -----------------------------------------------------------------------------

def render(data, step=None, mode="backward", builtin_layout=False, wrap=None):
    """SVG text of trace ``data`` (a dict) after backward/forward step ``step`` (None: the last).

    Steps count from 1, as the widget shows them ("step 2 / 5"); 0 is before the first step.
    builtin_layout  always use the built-in layout, so the picture is the same on every machine
                    whether or not Graphviz is installed (saved notebook outputs that nbval compares)
    wrap            with builtin_layout, break a long left-to-right graph into rows this wide (px)
    """
    c = palette()
    steps = data["steps"] if mode == "backward" else data["forward_steps"]
    k = len(steps) - 1 if step is None else max(-1, min(int(step) - 1, len(steps) - 1))
    nodes, edges, rep = _visible(data)
    view = None if builtin_layout else _view(data, nodes, edges)
    lay = {"positions": view["nodes"]} if view else _layout(data, nodes, edges, builtin_layout, wrap)
    pos, size = lay["positions"], {n["id"]: geometry.size_of(n) for n in nodes}
    lr = data.get("direction", "LR") == "LR"

    current, grads, sending, upstream, pending = None, {}, {}, set(), set()
    finished = mode == "backward" and steps and k == len(steps) - 1
    if mode == "backward":
        current, grads, sending, upstream = _backward_state(data, k)
    else:
        current = steps[k]["op"] if k >= 0 else None
        for f in steps[k + 1:]:
            pending.update([f["op"], *f["outputs"]])

    parts, overlay = [], []
    for cl in ([] if any(n["kind"] == "cluster" for n in nodes) else data.get("clusters", [])):
        boxes = [(pos[m], size[m]) for m in cl["nodes"] if m in pos]
        if not boxes:
            continue
        if view and cl["id"] in view["clusters"]:       # the box dot kept free of other nodes
            x0, y0, w, h = view["clusters"][cl["id"]]
            x1, y1 = x0 + w, y0 + h
        else:
            x0 = min(p[0] - s[0] / 2 for p, s in boxes) - 16
            x1 = max(p[0] + s[0] / 2 for p, s in boxes) + 16
            y0 = min(p[1] - s[1] / 2 for p, s in boxes) - 34
            y1 = max(p[1] + s[1] / 2 for p, s in boxes) + 16
        parts.append(f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{x1 - x0:.1f}" height="{y1 - y0:.1f}" rx="12" '
                     f'fill="{c["op-fill"]}" fill-opacity="0.35" stroke="{c["cluster-stroke"]}" stroke-dasharray="5 3"/>')
        parts.append(_text(x0 + 12, y0 + 20, f"▾ {cl['label']}", 12, c["op-stroke"], weight="600"))

    # Gradient labels go where they cover no node (nor another label), nudged across their edge.
    taken = [(pos[i][0] - size[i][0] / 2, pos[i][1] - size[i][1] / 2, pos[i][0] + size[i][0] / 2,
              pos[i][1] + size[i][1] / 2) for i in pos if i in size]
    for e in edges:
        a, b = pos[e["source"]], pos[e["target"]]
        (aw, ah), (bw, bh) = size[e["source"]], size[e["target"]]
        if lr and b[0] - bw / 2 < a[0] + aw / 2 - 4 and b[1] - bh / 2 > a[1] + ah / 2:
            # To the start of the next row (a wrapped layout): down, back along the gap, down into b.
            p0, p3 = (a[0], a[1] + ah / 2), (b[0], b[1] - bh / 2 - 3)
            gap = max(p0[1] + 20, p3[1] - 34)
            c1, c2 = (p0[0], gap), (p3[0], gap)
        elif lr:
            p0, p3 = (a[0] + aw / 2, a[1]), (b[0] - bw / 2 - 3, b[1])
            d = max(40.0, (p3[0] - p0[0]) / 2)
            c1, c2 = (p0[0] + d, p0[1]), (p3[0] - d, p3[1])
        else:
            p0, p3 = (a[0], a[1] + ah / 2), (b[0], b[1] - bh / 2 - 3)
            d = max(36.0, (p3[1] - p0[1]) / 2)
            c1, c2 = (p0[0], p0[1] + d), (p3[0], p3[1] - d)
        path = f"M{p0[0]:.1f},{p0[1]:.1f} C{c1[0]:.1f},{c1[1]:.1f} {c2[0]:.1f},{c2[1]:.1f} {p3[0]:.1f},{p3[1]:.1f}"
        middle = ((p0[0] + 3 * c1[0] + 3 * c2[0] + p3[0]) / 8, (p0[1] + 3 * c1[1] + 3 * c2[1] + p3[1]) / 8)
        if view:        # dot's route, which goes around the boxes in its way
            path, middle = _route(view["edges"][e["id"]])
        go = sending.get(e["id"])
        is_fwd = mode == "forward" and current is not None and current in (e["source"], e["target"])
        stroke = c["grad"] if go else c["fwd"] if is_fwd else c["edge"]
        width = 3 if go else 2.6 if is_fwd else 1.6
        arrow = "grad" if go else "fwd" if is_fwd else "edge"
        parts.append(f'<path d="{path}" fill="none" stroke="{stroke}" stroke-width="{width}" marker-end="url(#me-{arrow})"/>')
        if go:       # the gradient sent back along this edge, at its middle
            mx, my = middle
            label = compact(go["value"])
            w = len(label) * 11 * 0.61 + 16
            mx, my = _place(mx, my, w, 20, taken, lr)
            taken.append((mx - w / 2, my - 10, mx + w / 2, my + 10))
            overlay.append(f'<rect x="{mx - w / 2:.1f}" y="{my - 10:.1f}" width="{w:.1f}" height="20" rx="10" '
                           f'fill="{c["grad-soft"]}" stroke="{c["grad"]}" stroke-width="1.5"/>')
            overlay.append(_text(mx, my + 4, label, 11, c["grad-text"], "middle", mono=True, weight="600"))

    unreached = set(data.get("unreached", ())) if finished else set()
    for n in nodes:
        x, y = pos[n["id"]]
        w, h = size[n["id"]]
        left, top = x - w / 2, y - h / 2
        gone = MARKS.get(n.get("mark"), ("", False))[1]
        attrs = ' opacity="0.45"' if n["id"] in unreached or n["id"] in pending else ' opacity="0.6"' if gone else ""
        parts.append(f'<g data-node-id="{escape(n["id"])}"{attrs}>')
        parts.extend(_node(n, left, top, w, h, c, n["id"] == current, n["id"] in upstream, mode))
        parts.append("</g>")

    final = {g["source"]: g["value"] for g in data.get("gradients", ())} if finished else {}
    for tensor, value in {**grads, **final}.items():
        vid = rep.get(tensor)
        if vid != tensor or vid not in pos:
            continue
        kind = "none" if value is None else "final" if tensor in final else "upstream" if tensor in upstream else ""
        overlay.extend(_badge(pos[tensor], size[tensor], value, kind, c))

    x0 = min((pos[n["id"]][0] - size[n["id"]][0] / 2 for n in nodes), default=0) - PAD
    y0 = min((pos[n["id"]][1] - size[n["id"]][1] / 2 for n in nodes), default=0) - PAD - 40
    x1 = max((pos[n["id"]][0] + size[n["id"]][0] / 2 for n in nodes), default=1) + PAD
    y1 = max((pos[n["id"]][1] + size[n["id"]][1] / 2 for n in nodes), default=1) + PAD + 14
    if view:        # dot's box holds every route and layer box too
        x0, y0, x1, y1 = min(x0, -PAD), min(y0, -PAD - 40), max(x1, view["width"] + PAD), max(y1, view["height"] + PAD)
    caption = _caption(data, mode, k, steps)
    markers = "".join(
        f'<marker id="me-{name}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="9" markerHeight="9" '
        f'markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0.5 L10,5 L0,9.5 z" fill="{colour}"/></marker>'
        for name, colour in (("edge", c["edge"]), ("grad", c["grad"]), ("fwd", c["fwd"])))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="me-tape-svg" width="{x1 - x0:.0f}" height="{y1 - y0:.0f}" '
            f'viewBox="{x0:.1f} {y0:.1f} {x1 - x0:.1f} {y1 - y0:.1f}" role="img" aria-label="{escape(caption)}">'
            f'<defs>{markers}</defs><rect x="{x0:.1f}" y="{y0:.1f}" width="100%" height="100%" fill="{c["bg"]}"/>'
            + _text(x0 + PAD, y0 + 26, caption, 13, c["fg"], weight="600")
            + "".join(parts) + "".join(overlay) + "</svg>")


def arrange(pictures, width, gap=24.0, label="graphs"):
    """One SVG of several ``render`` pictures, each as drawn: side by side when that is at most
    ``width`` px wide, else one above the other (the graph views' before and after)."""
    c = palette()
    boxes, parts = [], []
    for picture in pictures:
        vx, vy, vw, vh = (float(v) for v in re.search(r'viewBox="([^"]+)"', picture).group(1).split())
        body = picture[picture.index("</defs>") + len("</defs>"):picture.rindex("</svg>")]
        body = body[body.index("/>") + 2:]          # without its background
        boxes.append((vx, vy, vw, vh))
        parts.append(body)
    beside = sum(b[2] for b in boxes) + gap * (len(boxes) - 1) <= width
    out, x, y = [], 0.0, 0.0
    for (vx, vy, vw, vh), body in zip(boxes, parts):
        out.append(f'<g transform="translate({x - vx:.1f},{y - vy:.1f})">{body}</g>')
        x, y = (x + vw + gap, y) if beside else (x, y + vh + gap)
    total_w = x - gap if beside else max((b[2] for b in boxes), default=1)
    total_h = max((b[3] for b in boxes), default=1) if beside else y - gap
    markers = picture[picture.index("<defs>"):picture.index("</defs>") + len("</defs>")] if pictures else ""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="me-tape-svg" width="{total_w:.0f}" height="{total_h:.0f}" '
            f'viewBox="0 0 {total_w:.1f} {total_h:.1f}" role="img" aria-label="{escape(label)}">{markers}'
            f'<rect x="0" y="0" width="100%" height="100%" fill="{c["bg"]}"/>' + "".join(out) + "</svg>")


def _place(x, y, w, h, taken, lr):
    """The spot nearest (x, y), moved across the edge, where a w x h label overlaps the least."""
    best, best_overlap = (x, y), None
    for k in (0, -1, 1, -2, 2, -3, 3, -4, 4):
        cx, cy = (x, y + k * 14) if lr else (x + k * 20, y)
        overlap = 0.0
        for x0, y0, x1, y1 in taken:
            ox = min(cx + w / 2 + 3, x1) - max(cx - w / 2 - 3, x0)
            oy = min(cy + h / 2 + 3, y1) - max(cy - h / 2 - 3, y0)
            if ox > 0 and oy > 0:
                overlap += ox * oy
        if overlap == 0:
            return cx, cy
        if best_overlap is None or overlap < best_overlap:
            best, best_overlap = (cx, cy), overlap
    return best


def _caption(data, mode, k, steps):
    if data.get("title"):
        return data["title"]
    if data.get("error"):
        return f"⚠ {data['error']}"
    if not data["nodes"]:
        return "This tape recorded nothing yet."
    if mode == "forward":
        return f"forward step {k + 1} / {len(steps)}"
    if not steps:
        n = len(data['forward_steps'])
        return f"GradientTape · {n} op{'s' if n != 1 else ''}"
    if k < 0:
        return f"backward: ready, {len(steps)} step{'s' if len(steps) != 1 else ''}"
    st = steps[k]
    return f"backward step {k + 1} / {len(steps)} · {st['op_name']}: {'; '.join(st['rule'])}"


def _node(n, left, top, w, h, c, is_current, is_upstream, mode):
    kind = n["kind"]
    hot = c["grad"] if mode == "backward" else c["fwd"]
    if kind in ("op", "layer", "cluster"):
        fill, stroke = (c["op-fill"], c["op-stroke"]) if kind != "cluster" else (c["bg-soft"], c["cluster-stroke"])
        if is_current:
            fill, stroke = c["grad-soft"] if mode == "backward" else c["fwd-soft"], hot
        rx = h / 2 if kind == "op" else 12
        mark, width, dash = _mark(n, c)
        stroke, width = (mark, width) if mark else (stroke, 3.5 if is_current else 1.5)
        out = [f'<rect x="{left:.1f}" y="{top:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{rx:.1f}" fill="{fill}" '
               f'stroke="{stroke}" stroke-width="{width}"{dash}/>']
        if kind == "op":
            out.append(_text(left + w / 2, top + h / 2 + 4.5, _truncate(n["label"], int((w - 20) / 7.6)), 12.5,
                             hot if is_current else c["op-stroke"], "middle", mono=True, weight="600"))
            if n.get("custom"):
                out.append(f'<rect x="{left + w - 52:.1f}" y="{top - 10:.1f}" width="50" height="16" rx="8" fill="{c["op-stroke"]}"/>')
                out.append(_text(left + w - 27, top + 1.5, "custom", 10, "#ffffff", "middle", weight="600"))
        else:
            sub = n.get("sublabel") or f"{len(n.get('members', []))} nodes (folded)"
            out.append(_text(left + 12, top + 22, _truncate(n["label"], int((w - 20) / 7.2)), 12.5, c["fg"], weight="600"))
            out.append(_text(left + 12, top + 40, _truncate(sub, int((w - 20) / 6.3)), 11, c["fg-muted"]))
        return out
    fill, stroke = c.get(f"{kind}-fill", c["tensor-fill"]), c.get(f"{kind}-stroke", c["tensor-stroke"])
    width = 2.2 if kind == "variable" else 2 if kind == "watched" else 1.5
    if is_current or is_upstream:
        stroke, width = hot, 2.5
    dash = ' stroke-dasharray="6 3"' if kind == "watched" else ""
    mark, mark_width, mark_dash = _mark(n, c)
    if mark:
        stroke, width, dash = mark, mark_width, mark_dash
    out = [f'<rect x="{left:.1f}" y="{top:.1f}" width="{w:.1f}" height="{h:.1f}" rx="9" fill="{fill}" '
           f'stroke="{stroke}" stroke-width="{width}"{dash}/>']
    if kind == "target":
        out.append(f'<rect x="{left + 3:.1f}" y="{top + 3:.1f}" width="{w - 6:.1f}" height="{h - 6:.1f}" rx="7" '
                   f'fill="none" stroke="{stroke}" opacity="0.6"/>')
    # The kind tag is upper case, bold and spaced (about 0.8 em a letter): the name stops before it,
    # with the same room as in the widget.
    room = w - 20 - (len(kind) * 9 * 0.8 + 10 if kind != "tensor" else 0)
    out.append(_text(left + 10, top + 19, _truncate(n["label"], int(room / (12.5 * 0.64))), 12.5, c["fg"], weight="600"))
    if kind != "tensor":
        out.append(_text(left + w - 9, top + 17, kind.upper(), 9, stroke, "end", weight="700"))
    shape = "×".join(map(str, n.get("shape") or [])) or "scalar"
    out.append(_text(left + 10, top + 36, f"{shape} · {n.get('dtype', '')}", 11, c["fg-muted"]))
    value = n.get("value")
    if mark:            # what the pass did, where a tape's tensor shows its value
        out.append(_text(left + 10, top + h - 11, _truncate(n.get("mark_text") or n["mark"], 24), 11, mark, weight="600"))
    elif value:
        text = _data_text(value["data"]) if value.get("full") else f"{fmt(value.get('min'))} … {fmt(value.get('max'))}"
        out.append(_text(left + 10, top + h - 11, _truncate(text, 21), 11, c["fg-soft"], mono=True))
    return out


def _mark(n, c):
    """(colour, stroke width, dash attribute) of what a pass did to node ``n``; (None, 0, "") for nothing."""
    if n.get("mark") not in MARKS:
        return None, 0, ""
    colour, gone = MARKS[n["mark"]]
    return c[colour], 3, ' stroke-dasharray="6 3"' if gone else ""


def _badge(p, s, value, kind, c):
    text = "∇ " + _truncate(compact(value, 3), 24)
    w = len(text) * 10.5 * 0.61 + 14
    x, y = p[0] + s[0] / 2 - w - 6, p[1] + s[1] / 2 - 7
    solid = kind in ("final", "upstream")
    fill = c["grad"] if solid else c["bg-sunk"] if kind == "none" else c["grad-soft"]
    stroke = c["fg-muted"] if kind == "none" else c["grad"]
    colour = "#ffffff" if solid else c["fg-muted"] if kind == "none" else c["grad-text"]
    return [f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="17" rx="8.5" fill="{fill}" stroke="{stroke}"/>',
            _text(x + w / 2, y + 12.2, text, 10.5, colour, "middle", mono=True, weight="700" if solid else "normal")]
