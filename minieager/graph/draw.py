"""Draw a Graph in the tape debugger's visual language (minieager/debugger/svg.py).

The graph becomes the debugger's trace data (docs/trace-format.md): each node is a tensor box
(placeholder, constant, variable, or an op's result, outputs framed as targets) and each call an
op pill between them, so a traced graph and a recorded tape look alike. The debugger's renderer
draws it; hovering a box shows the line of user code that created the node.
"""
from xml.sax.saxutils import escape

from ..debugger.geometry import add_sizes
from ..debugger.png import to_png
from ..debugger.svg import render
from ..debugger.trace import FORMAT_VERSION

PICTURE_WIDTH = 1100       # px, as the tape debugger's saved picture (widgets/tape_debugger.py)
_KINDS = {"placeholder": "placeholder", "constant": "constant", "variable": "variable"}


def trace_data(graph, title=None, direction="LR"):
    """The graph as the debugger's trace data (a dict): nodes, edges, no steps."""
    nodes, edges, sources = [], [], {}
    outputs = {id(n) for n in graph.outputs}
    op_of_call = {}            # multi-output siblings share one op pill

    def box(node, kind):
        nodes.append({"id": node.name, "kind": kind, "op": None, "name": node.name, "label": node.name,
                      "shape": _shape(node.shape), "dtype": node.type_text.split("[")[0], "value": None,
                      "cluster": None})
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
            nodes.append({"id": op_id, "kind": "op", "op": node.op.name, "name": label, "label": label,
                          "attrs": {}, "rule": [], "custom": False, "cluster": None})
            sources[op_id] = node.source
            for k, i in enumerate(node.inputs):
                edge(i.name, op_id, k)
        if node.dtype is not None:          # an effect with no result draws as the op alone
            box(node, "target" if id(node) in outputs else "tensor")
            edge(op_id, node.name, None)
    data = {"version": FORMAT_VERSION, "direction": direction, "nodes": nodes, "edges": edges, "clusters": [],
            "forward_steps": [], "target": None, "sources": [], "steps": [], "gradients": [], "unreached": [],
            "layout": None, "truncated": None, "error": None,
            "title": title or f"graph '{graph.name}' · {graph.count('call')} calls · {len(graph.nodes)} nodes"}
    return add_sizes(data), sources


def _shape(shape):
    """The shape as the renderers print it: ``?`` for a dimension known only at run time, ``...`` for
    an unknown rank (``?×784``, as the listing's ``[?,784]``)."""
    if shape is None:
        return ["..."]
    return ["?" if d is None else d for d in shape]


class Drawing:
    """A drawn graph: shows itself as SVG in a notebook; ``to_svg()`` for the text."""

    def __init__(self, graph, title=None, direction="LR", builtin_layout=True):
        self.data, self._sources = trace_data(graph, title, direction)
        self.builtin_layout = builtin_layout

    def to_svg(self):
        # A long graph is drawn in rows, as the debugger's saved picture is: it fits a notebook.
        svg = render(self.data, mode="forward", builtin_layout=self.builtin_layout,
                     wrap=PICTURE_WIDTH if self.builtin_layout else None)
        for node_id, source in self._sources.items():     # hover: the user's line that made the node
            if source is not None:
                tooltip = f"<title>{escape(f'line {source[1]}: {source[2]}')}</title>"
                svg = svg.replace(f'<g data-node-id="{escape(node_id)}">', f'<g data-node-id="{escape(node_id)}">'
                                  + tooltip, 1)
        return svg

    def save(self, path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_svg())

    def to_png(self):
        """The same picture as PNG bytes (needs Pillow)."""
        return to_png(self.to_svg())

    def _repr_svg_(self):
        # max-width: the picture shrinks to its output's width instead of running off its edge.
        return self.to_svg().replace("<svg ", '<svg style="max-width:100%;height:auto" ', 1)

    def _repr_png_(self):       # what an untrusted notebook shows (its sanitiser drops SVG)
        return self.to_png()

    def __repr__(self):
        return f"<Drawing: {self.data['title']}>"


def draw(graph, title=None, direction="LR", builtin_layout=True):
    """A Drawing of ``graph``. ``builtin_layout=False`` lays it out with Graphviz when installed (the
    built-in layout gives the same picture on every machine, for saved notebook outputs)."""
    return Drawing(graph, title, direction, builtin_layout)
