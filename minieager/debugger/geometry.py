"""How big each box of a debugger drawing is: the one place node sizes are defined.

Every drawing of a trace uses these sizes: Graphviz's layout (``layout.py``), the static
SVG/PNG pictures (``svg.py``, ``png.py``: what a saved or untrusted notebook shows) and the
live widget (``widgets/tape_debugger.js``). The trace carries them: each node has ``size``
and each cluster ``folded_size`` (the box it is drawn as when folded), both ``[width, height]``
in px. The front-end defines no sizes of its own; it draws, and lays out where it must (while
a tape records, in rows that fit its canvas, the other direction), with the sizes it receives.

An op's box grows with its name, at 0.61 em a character of 12.5 px monospace text, so that
``tensor_scatter_nd_update`` fits in its pill.
"""
TENSOR_SIZE = (156.0, 64.0)       # a tensor: name and kind tag, shape and dtype, its value (and heatmap)
OP_SIZE = (112.0, 36.0)           # an op pill, at its narrowest
LAYER_SIZE = (180.0, 54.0)        # a layer of plot_model, at its narrowest
FOLDED_SIZE = (184.0, 54.0)       # a cluster (a layer, a name scope) folded into one node
OP_CHAR_WIDTH = 12.5 * 0.61       # px per character of an op's name (12.5 px monospace)
OP_PADDING = 36.0
LAYER_CHAR_WIDTH = 12.5 * 0.6
LAYER_PADDING = 24.0


def node_size(node):
    """(width, height) in px of ``node`` (a trace node dict) as every drawing draws it."""
    kind = node.get("kind")
    if kind == "cluster":
        return FOLDED_SIZE
    label = str(node.get("label") or "")
    if kind == "op":
        return (round(max(OP_SIZE[0], len(label) * OP_CHAR_WIDTH + OP_PADDING), 1), OP_SIZE[1])
    if kind == "layer":
        return (round(max(LAYER_SIZE[0], len(label) * LAYER_CHAR_WIDTH + LAYER_PADDING), 1), LAYER_SIZE[1])
    return TENSOR_SIZE


def size_of(node):
    """The size ``node`` carries (``node["size"]``), else the one ``node_size`` gives it."""
    size = node.get("size")
    return (float(size[0]), float(size[1])) if size else node_size(node)


def add_sizes(data):
    """Give every node of trace data ``data`` its ``size`` and every cluster its ``folded_size``."""
    for n in data["nodes"]:
        n["size"] = list(node_size(n))
    for c in data.get("clusters") or ():
        c["folded_size"] = list(FOLDED_SIZE)
    return data


def with_sizes(data):
    """``data`` when all its nodes and clusters carry their sizes, else a copy given them.

    For traces saved before format 2 (a notebook's widget state keeps the trace it was run
    with), so that today's front-end can draw them: their boxes are these same sizes.
    """
    nodes, clusters = data.get("nodes") or [], data.get("clusters") or []
    if all("size" in n for n in nodes) and all("folded_size" in c for c in clusters):
        return data
    data = dict(data, nodes=[dict(n) for n in nodes], clusters=[dict(c) for c in clusters])
    for n in data["nodes"]:
        n.setdefault("size", list(node_size(n)))
    for c in data["clusters"]:
        c.setdefault("folded_size", list(FOLDED_SIZE))
    return data
