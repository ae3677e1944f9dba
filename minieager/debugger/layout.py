"""Where each node goes: Graphviz's ``dot`` when it is installed, else a built-in layered layout.

``compute(nodes, edges, clusters, direction)`` returns the trace's ``layout`` entry: node
centres in px, y pointing down. The sizes it lays out are the nodes' own (``geometry.py``);
the layout does not repeat them. The built-in layout is the longest-path layering
in recording order; it is plainer than dot's, so a layout made because Graphviz is missing
carries a one-line ``hint`` on how to install it, which the widget shows in its footer. Nothing is printed: a line on stderr would fail every saved notebook under nbval.
"""
import shutil
import subprocess

POINTS_PER_INCH = 72.0
INSTALL_HINT = ("minieager.debugger: Graphviz's `dot` was not found, so graphs use a simple built-in layout; "
                "for a better one install Graphviz (apt-get install graphviz, conda install graphviz or "
                "brew install graphviz).")


def find_dot():
    """The path of the ``dot`` program, or None."""
    return shutil.which("dot")


def compute(nodes, edges, clusters=(), direction="LR"):
    """nodes: [(id, (width, height))] in recording order; edges: dicts with source/target."""
    dot = find_dot()
    if dot is not None:
        try:
            return _with_dot(dot, nodes, edges, clusters, direction)
        except (OSError, subprocess.SubprocessError, ValueError):
            pass        # a broken Graphviz install: the built-in layout still draws the graph
    return dict(layered(nodes, edges, direction), hint=INSTALL_HINT)


def _quote(text):
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _dot_source(nodes, edges, clusters, direction):
    lines = [f"digraph tape {{ rankdir={direction}; nodesep=0.3; ranksep=0.9;",
             'node [shape=box, fixedsize=true, label=""];']
    in_cluster = set()
    for k, c in enumerate(clusters):
        lines.append(f"subgraph cluster_{k} {{ label={_quote(c['label'])}; fontsize=13; margin=16;")
        lines.extend(f"{_quote(m)};" for m in c["nodes"])
        lines.append("}")
        in_cluster.update(c["nodes"])
    for node_id, (w, h) in nodes:
        lines.append(f"{_quote(node_id)} [width={w / POINTS_PER_INCH:.3f}, height={h / POINTS_PER_INCH:.3f}];")
    known = {node_id for node_id, _ in nodes}
    for e in edges:
        if e["source"] in known and e["target"] in known:
            lines.append(f"{_quote(e['source'])} -> {_quote(e['target'])};")
    lines.append("}")
    return "\n".join(lines)


def _with_dot(dot, nodes, edges, clusters, direction):
    clusters = [c for c in clusters if c["nodes"]]
    out = subprocess.run([dot, "-Tplain"], input=_dot_source(nodes, edges, clusters, direction),
                         capture_output=True, text=True, timeout=60, check=True).stdout
    positions, width, height = {}, 0.0, 0.0
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] == "graph":
            width, height = float(parts[2]), float(parts[3])
        elif parts and parts[0] == "node":
            name = parts[1].strip('"')
            # -Tplain has y pointing up, in inches; the trace has px with y pointing down.
            positions[name] = [round(float(parts[2]) * POINTS_PER_INCH, 1),
                               round((height - float(parts[3])) * POINTS_PER_INCH, 1)]
    if set(positions) != {node_id for node_id, _ in nodes}:
        raise ValueError("dot did not place every node")
    return {"engine": "dot", "width": round(width * POINTS_PER_INCH, 1), "height": round(height * POINTS_PER_INCH, 1),
            "positions": positions}


def layered(nodes, edges, direction, gap_main=80.0, gap_cross=30.0, wrap=None):
    """The built-in layout: longest-path layers in recording order (pure Python, deterministic).

    wrap   a long left-to-right chain breaks into rows at most this many px wide, read like lines
           of text (the static picture of a 20-op tape stays legible in a notebook's width)
    """
    order = [node_id for node_id, _ in nodes]
    sizes = dict(nodes)
    preds = {n: [] for n in order}
    succs = {n: [] for n in order}
    for e in edges:
        if e["source"] in preds and e["target"] in preds:
            preds[e["target"]].append(e["source"])
            succs[e["source"]].append(e["target"])
    # Recording order is a topological order, so one pass gives each node its longest path.
    rank = {}
    for n in order:
        rank[n] = max((rank[p] + 1 for p in preds[n] if p in rank), default=0)
    for n in order:        # an input sits just before its first consumer, not at the far left
        if not preds[n] and succs[n]:
            rank[n] = max(0, min(rank[s] for s in succs[n]) - 1)
    layers = {}
    for n in order:
        layers.setdefault(rank[n], []).append(n)
    lr = direction == "LR"
    main = (lambda n: sizes[n][0]) if lr else (lambda n: sizes[n][1])
    cross = (lambda n: sizes[n][1]) if lr else (lambda n: sizes[n][0])
    extents = {r: sum(cross(n) for n in layer) + gap_cross * (len(layer) - 1) for r, layer in layers.items()}
    # Rows of consecutive layers (one row unless `wrap` asks for more, and only left to right).
    if not order:
        return {"engine": "builtin", "width": 0.0, "height": 0.0, "positions": {}}
    rows, m = [[]], 0.0
    for r in sorted(layers):
        span = max(main(n) for n in layers[r])
        if wrap and lr and rows[-1] and m + span > wrap:
            rows.append([])
            m = 0.0
        rows[-1].append(r)
        m += span + gap_main
    positions, width, offset = {}, 0.0, 0.0
    for row in rows:
        widest = max(extents[r] for r in row)
        m = 0.0
        for r in row:
            layer = layers[r]
            span = max(main(n) for n in layer)
            c = offset + (widest - extents[r]) / 2         # centre each layer across the flow
            for n in layer:
                along, across = m + span / 2, c + cross(n) / 2
                positions[n] = [round(along, 1), round(across, 1)] if lr else [round(across, 1), round(along, 1)]
                c += cross(n) + gap_cross
            m += span + gap_main
        width = max(width, m - gap_main)
        offset += widest + gap_main
    depth = max(0.0, offset - gap_main)
    width, height = (width, depth) if lr else (depth, width)
    return {"engine": "builtin", "width": round(width, 1), "height": round(height, 1), "positions": positions}
