"""Common-subexpression elimination: two nodes that compute the same thing become one.

Two pure calls are the same when they run the same op on the same input nodes with equal
attributes (and, for an op with several outputs, pick the same output); two constants are the
same when their dtype, shape and values are. The later one is dropped and its users read the
earlier one. Walking in order, with inputs already merged, finds whole repeated expressions:
``tanh(x * w)`` written twice merges ``x * w`` first, then the two ``tanh``.

A variable's value can change at an effect (``v.assign(...)``), so an expression that reads a
variable is never merged across one: ``v * 2`` before an assign and ``v * 2`` after it differ.
"""
import numpy as np

from ._rewrite import effect_segments, is_pure_call, remove, replace_uses
from .report import graph_pass

MAX_MERGED_CONSTANT = 1 << 16   # elements: comparing bigger constants costs more than it saves


def freeze(value):
    """A hashable stand-in for an attribute value (tuples, lists, arrays, slices, dtypes ...).

    Floats are compared by their bits, not by ``==``: -0.0 is not 0.0 (``x / -0.0`` is -inf), and
    every nan is one value (``nan != nan`` would make each nan new)."""
    if isinstance(value, (float, np.floating)):
        return ("float", np.dtype(type(value)).str, _bits(value))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(freeze(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((k, freeze(v)) for k, v in value.items())))
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, slice):
        return ("slice", freeze(value.start), freeze(value.stop), freeze(value.step))
    hash(value)   # TypeError for anything else unhashable: the caller then leaves the node alone
    return (type(value).__name__, value)


def _bits(value):
    """A float's bytes, with every nan written as one nan."""
    value = np.asarray(value)
    return (np.full_like(value, np.nan) if np.isnan(value) else value).tobytes()


def _key(node):
    if node.kind == "constant":
        value = np.asarray(node.value)
        if value.size > MAX_MERGED_CONSTANT:
            return None
        return ("constant", value.dtype.str, value.shape, value.tobytes())   # (bytes: -0.0 is not 0.0)
    if not is_pure_call(node):
        return None
    try:
        attrs = freeze(dict(node.attrs))
    except TypeError:
        return None
    return ("call", id(node.op), node.index, tuple(id(source) for source in node.inputs), attrs)


@graph_pass("common-subexpression elimination")
def common_subexpression_elimination(graph, report):
    segment = effect_segments(graph)
    reads_state = set()   # nodes whose value depends on a variable
    seen = {}             # key -> first node with that key
    doomed = set()
    for node in list(graph.nodes):
        if node.kind == "variable" or any(source in reads_state for source in node.inputs):
            reads_state.add(node)
        key = _key(node)
        if key is None:
            continue
        if node in reads_state:
            key = key + (segment[node],)   # never merged across an effect
        first = seen.setdefault(key, node)
        if first is not node:
            replace_uses(graph, node, first)   # later nodes' keys then name `first`
            report.merged[node.name] = first.name
            doomed.add(node)
    remove(graph, doomed)
    return graph
