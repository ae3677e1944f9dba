"""``plot_model(model)``: a model's layers drawn top to bottom, as Keras' plot_model does.

Duck-typed on the nn engineer's Keras-style API (``model.layers``, ``layer.name``, output shapes
when known) and drawn by the debugger's SVG renderer, so it shares the tape debugger's look.
"""
from ..debugger.geometry import add_sizes
from ..debugger.png import to_png
from ..debugger.svg import render
from ..debugger.trace import FORMAT_VERSION


def _output_shape(layer):
    # Keras' public name, then the one minieager's layers note when first called (may be "multiple").
    for attr in ("output_shape", "_output_shape"):
        shape = getattr(layer, attr, None)
        if shape is not None and not callable(shape):
            return shape if isinstance(shape, str) else tuple(None if d is None else int(d) for d in shape)
    return None


class ModelPlot:
    """An SVG drawing of a model; shows itself in a notebook as SVG, and as PNG where a notebook
    opened untrusted drops SVG (no HTML: a sanitiser would turn it into a text dump)."""

    def __init__(self, svg):
        self.svg = svg

    def _repr_svg_(self):
        return self.svg

    def _repr_png_(self):
        return to_png(self.svg)

    def save(self, path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.svg)


def model_graph(model, direction="TB", show_shapes=True):
    """The drawing data (a trace-like dict) for ``model``'s layers, in order."""
    layers = list(getattr(model, "layers", []))
    nodes, edges = [], []
    for k, layer in enumerate(layers):
        name = getattr(layer, "name", None) or f"layer_{k}"
        shape = _output_shape(layer) if show_shapes else None
        sub = f"output {shape}" if shape is not None else ""
        nodes.append({"id": f"l{k}", "kind": "layer", "label": f"{name} ({type(layer).__name__})", "sublabel": sub})
        if k:
            edges.append({"id": f"e{k - 1}", "source": f"l{k - 1}", "target": f"l{k}", "input_index": 0})
    title = f"{getattr(model, 'name', None) or 'model'} ({type(model).__name__}) · {len(layers)} layers"
    return add_sizes({"version": FORMAT_VERSION, "direction": direction, "title": title, "nodes": nodes, "edges": edges,
                      "clusters": [], "forward_steps": [], "steps": [], "gradients": [], "unreached": [], "layout": None,
                      "truncated": None})


def plot_model(model, direction="TB", show_shapes=True):
    """Draw ``model``'s layers (Keras' ``plot_model``); returns a ModelPlot (``.svg``, ``.save(path)``)."""
    return ModelPlot(render(model_graph(model, direction, show_shapes)))
