"""Arithmetic simplification: calls that give back their input unchanged are bypassed.

``x * 1``, ``1 * x``, ``x / 1``, ``x + 0``, ``0 + x``, ``x - 0``, ``-(-x)`` and ``reshape(x)`` to
x's own shape all equal ``x``; their users read ``x`` instead and the call goes. A rule applies
only when the result has exactly x's shape and dtype: ``x * ones((3, 4))`` with ``x`` of shape
(4,) broadcasts, so it is not ``x``. (``x + 0`` turns -0.0 into 0.0; dropping it keeps -0.0, as
TensorFlow's simplifier does.)
"""
import numpy as np

from ._rewrite import is_pure_call, remove, replace_uses
from .report import graph_pass


def _is_constant(node, number):
    return node.kind == "constant" and bool(np.all(np.asarray(node.value) == number))


def _same_value(node):
    """The node ``node`` always equals, or None."""
    name, inputs = node.op.name, node.inputs
    if name == "negative" and inputs[0].kind == "call" and inputs[0].op is node.op:
        candidate = inputs[0].inputs[0]                 # -(-x)
    elif name == "reshape":
        candidate = inputs[0]
    elif len(inputs) != 2:
        return None
    elif name in ("multiply", "divide") and _is_constant(inputs[1], 1):
        candidate = inputs[0]
    elif name == "multiply" and _is_constant(inputs[0], 1):
        candidate = inputs[1]
    elif name in ("add", "subtract") and _is_constant(inputs[1], 0):
        candidate = inputs[0]
    elif name == "add" and _is_constant(inputs[0], 0):
        candidate = inputs[1]
    else:
        return None
    if node.shape is None or None in node.shape or candidate.shape != node.shape or candidate.dtype != node.dtype:
        return None   # (None: a size known only at run time, which two nodes need not share)
    # A variable's value is read where its node stands; a user that now read it directly could
    # see it before an assign that the bypassed call came after.
    return None if candidate.kind == "variable" else candidate


@graph_pass("arithmetic simplification")
def arithmetic_simplification(graph, report):
    bypassed = set()
    for node in list(graph.nodes):
        if not is_pure_call(node) or node.index is not None:
            continue
        same = _same_value(node)
        if same is not None:
            replace_uses(graph, node, same)
            report.simplified[node.name] = same.name
            bypassed.add(node)
    # The bypassed calls are unused now; so may their inputs be (the -x of -(-x), the constant 1),
    # which dead-code elimination removes.
    remove(graph, bypassed)
    report.removed = [node.name for node in bypassed]
    return graph
