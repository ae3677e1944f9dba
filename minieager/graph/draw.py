"""Draw a Graph in the tape debugger's visual language (minieager/debugger/svg.py).

The graph becomes the debugger's trace data (docs/trace-format.md): each node is a tensor box
(placeholder, constant, variable, or an op's result, outputs framed as targets) and each call an
op pill between them, so a traced graph and a recorded tape look alike. It is laid out as the
debugger lays out a tape (Graphviz's dot, ``debugger/layout.views``: no two boxes overlap, edges
routed around the boxes) and drawn by the debugger's renderer; the pass viewer draws its graphs
with the same data, in the widget's front-end. Hovering a box shows the line of user code that
created the node.
"""
from xml.sax.saxutils import escape

from ..debugger import layout as layout_mod
from ..debugger.geometry import add_sizes
from ..debugger.png import to_png
from ..debugger.source import code_line
from ..debugger.svg import render
from ..debugger.trace import FORMAT_VERSION

# px: the widest picture whose 11 px text stays at 10 px or more once shrunk into JupyterLab's
# output at 1280x800 (848 px with the file browser open, 968 px without). A graph wider than this
# left to right is drawn top to bottom.
FIT_WIDTH = 930
_KINDS = {"placeholder": "placeholder", "constant": "constant", "variable": "variable"}


def trace_data(graph, title=None, direction="LR", marks=None):
    """The graph as the debugger's trace data (a dict): nodes, edges, no steps.

    marks  ``{node name: (what, text)}``: what a pass did to the node ("removed", "merged",
           "folded", "simplified", "fused"; ``debugger/svg.MARKS``) and the words shown on it
    """
    nodes, edges, sources = [], [], {}
    outputs = {id(n) for n in graph.outputs}
    op_of_call = {}            # multi-output siblings share one op pill
    marks = marks or {}

    def marked(entry, node):
        # The user's line that made the node (shown by the widget's inspector, as a tape op's).
        entry["code"] = code_line(node.source[:2]) if node.source else None
        if node.name in marks:
            entry["mark"], entry["mark_text"] = marks[node.name]
        return entry

    def box(node, kind):
        nodes.append(marked({"id": node.name, "kind": kind, "op": None, "name": node.name, "label": node.name,
                             "shape": _shape(node.shape), "dtype": node.type_text.split("[")[0], "value": None,
                             "cluster": None}, node))
        sources[node.name] = node.source

    def edge(source, target, k):
        edges.append({"id": f"e{len(edges)}", "source": source, "target": target,
                      "input_index": k if not source.startswith("op:") else None})

    for node in graph.nodes:
        if node.kind != "call":
            box(node, "target" if id(node) in outputs else _KINDS[node.kind])
            continue
        key = (node.op, tuple(id(i) for i in node.inputs), id(node.attrs)) if node.index is not None else id(node)
        op_id = op_of_call.get(key)
        if op_id is None:
            op_id = op_of_call[key] = f"op:{node.name}"
            label = node.op.name + (" (effect)" if node.effect else "")
            nodes.append(marked({"id": op_id, "kind": "op", "op": node.op.name, "name": label, "label": label,
                                 "attrs": {}, "rule": [], "custom": False, "cluster": None}, node))
            sources[op_id] = node.source
            for k, i in enumerate(node.inputs):
                edge(i.name, op_id, k)
        if node.dtype is not None:          # an effect with no result draws as the op alone
            box(node, "target" if id(node) in outputs else "tensor")
            edge(op_id, node.name, None)
    data = {"version": FORMAT_VERSION, "direction": direction, "nodes": nodes, "edges": edges, "clusters": [],
            "forward_steps": [], "target": None, "sources": [], "steps": [], "gradients": [], "unreached": [],
            "layout": None, "truncated": None, "error": None, "views": None,
            "title": title or f"graph '{graph.name}' · {graph.count('call')} calls · {len(graph.nodes)} nodes"}
    return add_sizes(data), sources


def laid_out(graphs, direction=None, width=FIT_WIDTH):
    """Trace data for each ``(graph, title, marks)``, laid out by dot as the debugger lays out a
    tape (``data["views"]``, None without Graphviz), all in one direction: ``direction``, else left
    to right when each drawing is at most ``width`` px wide that way, top to bottom when not."""
    def make(d):
        datas = [trace_data(g, title, d, marks) for g, title, marks in graphs]
        for data, _ in datas:
            data["views"] = layout_mod.views(data)
        return datas

    def clearly_too_wide(data):
        # The built-in layout (pure Python, instant) spaces ranks wider than dot does: a graph
        # half as wide again as ``width`` by it is too wide for dot too, so dot runs once, not twice.
        sized = [(n["id"], n["size"]) for n in data["nodes"]]
        return layout_mod.layered(sized, data["edges"], "LR")["width"] > 1.5 * width

    if direction is None and any(clearly_too_wide(trace_data(g, title, "LR", marks)[0]) for g, title, marks in graphs):
        direction = "TB"
    datas = make(direction or "LR")
    too_wide = any(data["views"] and data["views"][""]["width"] > width for data, _ in datas)
    return make("TB") if direction is None and too_wide else datas


def _shape(shape):
    """The shape as the renderers print it: ``?`` for a dimension known only at run time, ``...`` for
    an unknown rank (``?×784``, as the listing's ``[?,784]``)."""
    if shape is None:
        return ["..."]
    return ["?" if d is None else d for d in shape]


class Drawing:
    """A drawn graph: shows itself as SVG in a notebook (PNG where a notebook is untrusted);
    ``to_svg()`` for the text."""

    def __init__(self, graph, title=None, direction=None, builtin_layout=False):
        if builtin_layout:      # the same picture on every machine, Graphviz or not: long graphs in rows
            self.data, self._sources = trace_data(graph, title, direction or "LR")
        else:
            ((self.data, self._sources),) = laid_out([(graph, title, None)], direction)
        self.builtin_layout = builtin_layout

    def to_svg(self):
        # Without dot's layout (builtin_layout, or no Graphviz) a long graph is drawn in rows, as the
        # debugger's saved picture is, so that it fits a notebook.
        svg = render(self.data, mode="forward", builtin_layout=self.builtin_layout or not self.data["views"],
                     wrap=FIT_WIDTH)
        return with_tooltips(svg, self._sources)

    def save(self, path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_svg())

    def to_png(self):
        """The same picture as PNG bytes (needs Pillow)."""
        return to_png(self.to_svg())

    def _repr_svg_(self):
        return fit_output(self.to_svg())

    def _repr_png_(self):       # what an untrusted notebook shows (its sanitiser drops SVG)
        return self.to_png()

    def __repr__(self):
        return f"<Drawing: {self.data['title']}>"


def with_tooltips(svg, sources):
    """``svg`` with each node's source line (``{node id: (file, line, text)}``) as its hover text."""
    for node_id, source in sources.items():
        if source is not None:
            tooltip = f"<title>{escape(f'line {source[1]}: {source[2]}')}</title>"
            svg = svg.replace(f'<g data-node-id="{escape(node_id)}">', f'<g data-node-id="{escape(node_id)}">'
                              + tooltip, 1)
    return svg


def fit_output(svg):
    """max-width: the picture shrinks to its output's width instead of running off its edge."""
    return svg.replace("<svg ", '<svg style="max-width:100%;height:auto" ', 1)


def draw(graph, title=None, direction=None, builtin_layout=False):
    """A Drawing of ``graph``, laid out by Graphviz's dot when it is installed (as the tape debugger
    is), left to right when that fits a notebook, else top to bottom (``direction`` "LR" or "TB"
    picks). ``builtin_layout=True`` gives the same picture on every machine, Graphviz or not."""
    return Drawing(graph, title, direction, builtin_layout)
