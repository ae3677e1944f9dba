"""Where each node goes: Graphviz's ``dot`` when it is installed, else a built-in layered layout.

``compute(nodes, edges, clusters, direction)`` returns the trace's ``layout`` entry: node
centres in px, y pointing down. The sizes it lays out are the nodes' own (``geometry.py``);
the layout does not repeat them. The built-in layout is the longest-path layering
in recording order; it is plainer than dot's, so a layout made because Graphviz is missing
carries a one-line ``hint`` on how to install it, which the widget shows in its footer. Nothing is printed: a line on stderr would fail every saved notebook under nbval.

``views(data)`` lays out the fold states the widget shows (layers folded or open) with dot, each
open layer a ``subgraph cluster_*``: the trace's ``views`` (see "fold views" below).
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


# ---- fold views: the layouts of the graph as the widget shows it, layers folded or open ----------
#
# The widget shows a trace with some clusters (layers, name scopes) folded into one node each.
# Every such view is laid out by dot with its open clusters as `subgraph cluster_*`, so that dot
# guarantees what hand-made placement cannot: no two boxes overlap, a cluster's box holds its own
# nodes and no other, its title has room above them, and edges are routed around the boxes. The
# trace carries the views a reader reaches without a kernel (all folded, all open, each cluster
# open alone); a live widget asks the kernel for any other (``view_layout``).

MAX_SINGLE_VIEWS = 12      # above this many clusters, "each cluster open alone" is asked for on demand
TITLE_FONT = 13.0          # px, the cluster title the widget draws (dot reserves room for it)


def view_key(folded):
    """The key of a fold state in ``trace["views"]``: the folded cluster ids, sorted, one a line."""
    return "\n".join(sorted(folded))


def fold_homes(data):
    """{node id: cluster id} for every node that folds into a cluster: its members, and an input
    (a layer's kernel and bias) that only that cluster's ops read. The widget computes the same
    (``prepareTrace`` in tape_debugger.js); a view that does not cover its nodes is not used."""
    nodes = data["nodes"]
    by_id = {n["id"]: n for n in nodes}
    cluster_of = {n["id"]: n["cluster"] for n in nodes if n.get("cluster") is not None}
    for c in data.get("clusters") or ():
        for m in c["nodes"]:
            if m in by_id:
                cluster_of[m] = c["id"]
    produced = {out for f in data.get("forward_steps") or () for out in f["outputs"]}
    readers = {}
    for e in data["edges"]:
        if e["source"] in by_id and by_id.get(e["target"], {}).get("kind") == "op":
            readers.setdefault(e["source"], set()).add(cluster_of.get(e["target"]))
    homes = dict(cluster_of)
    for node_id, clusters in readers.items():
        if node_id in cluster_of or node_id in produced or len(clusters) != 1 or node_id == data.get("target"):
            continue
        (c,) = clusters
        if c is not None:
            homes[node_id] = c
    return homes


def visible_graph(data, folded, homes=None):
    """(nodes [(id, (w, h), cluster or None)], edges [(edge id, from, to)]) with ``folded`` folded."""
    homes = fold_homes(data) if homes is None else homes
    folded_size = {c["id"]: tuple(c.get("folded_size") or (184.0, 54.0)) for c in data.get("clusters") or ()}
    rep, vnodes, seen = {}, [], set()
    for n in data["nodes"]:
        c = homes.get(n["id"])
        if c is not None and c in folded:
            vid = f"cluster:{c}"
            if vid not in seen:
                seen.add(vid)
                vnodes.append((vid, folded_size.get(c, (184.0, 54.0)), None))
        else:
            vid = n["id"]
            vnodes.append((vid, tuple(n["size"]), c))
        rep[n["id"]] = vid
    vedges = [(e["id"], rep[e["source"]], rep[e["target"]]) for e in data["edges"]
              if e["source"] in rep and e["target"] in rep and rep[e["source"]] != rep[e["target"]]]
    return vnodes, vedges


def _view_source(vnodes, vedges, labels, direction):
    lines = [f"digraph view {{ rankdir={direction}; nodesep=0.35; ranksep=0.75; outputorder=edgesfirst;",
             'node [shape=box, fixedsize=true, label=""]; edge [arrowsize=0.6];']
    members = {}
    for vid, _, c in vnodes:
        if c is not None:
            members.setdefault(c, []).append(vid)
    # dot knows each node by its index ("n3"): its -Tjson output rewrites some names (a graph
    # node "%0" came back as "%3"), and _read_view maps the indices back.
    dot_name = {vid: f"n{k}" for k, (vid, _, _) in enumerate(vnodes)}
    for k, (c, ids) in enumerate(members.items()):
        # The label is the title the widget draws ("▾ name"), padded: dot sizes its room from it.
        title = "▾ " + str(labels.get(c, c)) + "    "
        lines.append(f"subgraph cluster_{k} {{ label={_quote(title)}; labelloc=t; labeljust=l; "
                     f"fontsize={TITLE_FONT + 2:g}; margin=14; id={_quote(c)};")
        lines.extend(f"{dot_name[m]};" for m in ids)
        lines.append("}")
    for vid, (w, h), _ in vnodes:
        lines.append(f"{dot_name[vid]} [width={w / POINTS_PER_INCH:.3f}, height={h / POINTS_PER_INCH:.3f}];")
    cluster_of = {vid: c for vid, _, c in vnodes}
    for k, (_, a, b) in enumerate(vedges):
        # An edge into another layer spans two ranks: the layer's own inputs (its kernel, its bias)
        # then sit in the rank between, not beside the previous layer's last node, so consecutive
        # layers follow each other instead of stepping down the page.
        long = cluster_of.get(a) != cluster_of.get(b) and cluster_of.get(b) is not None
        lines.append(f"{dot_name[a]} -> {dot_name[b]} [id=e{k}{', minlen=2' if long else ''}];")
    lines.append("}")
    return "\n".join(lines)


def _points(text):
    return [float(v) for v in text.split(",")]


def _view_input(data, folded, homes, direction):
    vnodes, vedges = visible_graph(data, set(folded), homes)
    labels = {c["id"]: c.get("label", c["id"]) for c in data.get("clusters") or ()}
    return _view_source(vnodes, vedges, labels, direction or data.get("direction", "LR")), vnodes, vedges


def _read_view(out, vnodes, vedges):
    """dot's -Tjson output as a view (see ``layout_view``)."""
    import json
    g = json.loads(out)
    _, _, width, height = _points(g["bb"])
    flip = lambda x, y: [round(x, 1), round(height - y, 1)]       # noqa: E731 (dot's y points up)
    nodes, clusters = {}, {}
    for o in g.get("objects", []):
        if "bb" in o and o.get("name", "").startswith("cluster_"):
            x0, y0, x1, y1 = _points(o["bb"])
            clusters[o["id"]] = [round(x0, 1), round(height - y1, 1), round(x1 - x0, 1), round(y1 - y0, 1)]
        elif "pos" in o:
            nodes[vnodes[int(o["name"][1:])][0]] = flip(*_points(o["pos"]))
    edges = {}
    for e in g.get("edges", []):
        tip, pts = None, []
        for part in e["pos"].split():
            if part.startswith("e,"):
                tip = flip(*_points(part[2:]))
            elif not part.startswith("s,"):
                pts.append(flip(*_points(part)))
        edges[vedges[int(e["id"][1:])][0]] = pts + ([tip] if tip else [])
    if set(nodes) != {vid for vid, _, _ in vnodes} or len(edges) != len(vedges):
        raise ValueError("dot did not lay out every node and edge of the view")
    return {"nodes": nodes, "clusters": clusters, "edges": edges, "width": round(width, 1), "height": round(height, 1)}


def layout_view(dot, data, folded, homes=None, direction=None):
    """One fold state laid out by dot: {"nodes": {vid: [x, y]}, "clusters": {id: [x, y, w, h]},
    "edges": {edge id: [[x, y], ...]} (cubic Bézier points, then the arrow's tip), "width", "height"}.
    Coordinates are px with y down; node positions are box centres."""
    source, vnodes, vedges = _view_input(data, folded, homes, direction)
    out = subprocess.run([dot, "-Tjson"], input=source, capture_output=True, text=True, timeout=60, check=True).stdout
    return _read_view(out, vnodes, vedges)


def views(data, max_single=MAX_SINGLE_VIEWS):
    """The fold states a reader reaches without a kernel, laid out by dot: {key: view}, or None
    without Graphviz (the widget then lays folded graphs out itself)."""
    dot = find_dot()
    clusters = [c["id"] for c in data.get("clusters") or ()]
    if dot is None or not data["nodes"]:
        return None
    states = [set(clusters)] if clusters else []
    if len(data["nodes"]) <= 1500:          # all open: a big truncated tape only ever opens one group
        states.append(set())
    if len(clusters) <= max_single:
        states.extend(set(clusters) - {c} for c in clusters)
    homes = fold_homes(data)
    jobs = {}
    for folded in states:
        jobs.setdefault(view_key(folded), folded)
    result, running = {}, []
    try:
        # One dot per view, all at once: they are small, and the cores share the work.
        for key, folded in jobs.items():
            source, vnodes, vedges = _view_input(data, folded, homes, None)
            proc = subprocess.Popen([dot, "-Tjson"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
            proc.stdin.write(source)        # dot reads all of it before it writes: no deadlock
            proc.stdin.close()
            running.append((key, proc, source, vnodes, vedges))
        for key, proc, source, vnodes, vedges in running:
            out = proc.stdout.read()
            proc.stderr.read()
            if proc.wait(timeout=60):
                raise subprocess.CalledProcessError(proc.returncode, dot)
            result[key] = _read_view(out, vnodes, vedges)
    except (OSError, subprocess.SubprocessError, ValueError, KeyError):
        for _, proc, *_ in running:
            proc.kill()
            proc.wait()
        return None             # a broken Graphviz install: the widget's own layout still draws
    return result
