"""Constant folding: a pure call whose inputs are all constants is computed once, now.

The call runs through its own eager ``Op`` (the same kernel the graph would run), and the node
becomes a constant holding the result. Its constant inputs usually become dead; dead-code
elimination removes them. Walking in order folds whole constant expressions: ``2.0 * 3.0 + 1.0``
folds the product first, then the sum.
"""
import numpy as np

from ...engine.tensor import wrap
from ._rewrite import derived, fresh_name, is_pure_call, no_observers, replace_uses
from .report import graph_pass

# Folding ``broadcast_to(0.0, (4096, 4096))`` would store 64 MB in the graph to save one fill.
MAX_FOLDED_ELEMENTS = 1 << 20


def _run(node):
    """The outputs of ``node``'s op on its constant inputs (a tuple, one array per output)."""
    inputs = [wrap(np.asarray(source.value)) for source in node.inputs]
    with no_observers():
        result = node.op(*inputs, **dict(node.attrs))
    results = result if isinstance(result, (tuple, list)) else (result,)
    return tuple(np.asarray(r.numpy()) for r in results)


@graph_pass("constant folding")
def constant_folding(graph, report):
    computed = {}   # (id(op), input ids, attrs id) -> outputs, so a split's outputs run once
    for node in list(graph.nodes):
        if not (is_pure_call(node) and node.inputs and all(s.kind == "constant" for s in node.inputs)):
            continue
        if node.shape is None or None in node.shape or int(np.prod(node.shape)) > MAX_FOLDED_ELEMENTS:
            continue   # (None: a shape known only at run time, as unique's gives)
        key = (id(node.op), tuple(id(s) for s in node.inputs), id(node.attrs))
        try:
            outputs = computed[key] if key in computed else computed.setdefault(key, _run(node))
        except Exception:   # noqa: BLE001 - an op that fails here fails at run time with its own message
            continue
        value = outputs[0 if node.index is None else node.index]
        constant = derived(node, kind="constant", name=fresh_name(graph, "const"), op=None, inputs=(),
                           attrs={}, index=None, value=value)
        graph.nodes[graph.nodes.index(node)] = constant
        replace_uses(graph, node, constant)
        report.folded[node.name] = constant.name
    return graph
