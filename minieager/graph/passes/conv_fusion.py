"""Convolution epilogues: ``relu(bias_add(conv2d(x, w), b))`` becomes one ``fused_conv2d`` call.

A Conv2D layer computes a convolution, adds its bias and applies its activation: three ops, each a
pass over the whole output (for the guide's CNN, 1.4 MB per layer at batch 32). ``fused_conv2d``
(``ops/nn.py``) adds the bias and applies relu to each chunk of the convolution's output right
after that chunk's matrix product, while it is still in the cache, as TF's remapper does with
``_FusedConv2D``. It computes the same numbers, to the bit.

The pattern: a ``conv2d`` whose only user is a ``bias_add`` of it, optionally followed by a
``relu`` that is the bias_add's only user. Neither intermediate may be a graph output (its value
would be needed) and all three must be float32 or float64 (float16 is computed in float32 and
rounded after each op, which one pass could not repeat). relu's gradient reads relu's output, not
its input, so a training step's backward pass does not keep the bias_add's value alive.

Runs before elementwise fusion, which would otherwise take the bias_add and relu into a loop of
their own.
"""
from ...engine import dtypes
from ...ops.nn import fused_conv2d
from ._rewrite import derived, effect_segments, fresh_name, is_pure_call, remove, replace_uses, users
from .report import graph_pass

_DTYPES = (dtypes.float32, dtypes.float64)


def _call_of(node, name):
    return is_pure_call(node) and node.op.name == name and node.index is None and node.dtype in _DTYPES


def _only_user(node, name, use, outputs, segment):
    """The single user of ``node`` if it is a ``name`` call in the same effect segment, else None."""
    if node in outputs or len(use[node]) != 1:
        return None
    user = use[node][0]
    if not _call_of(user, name) or user.inputs[0] is not node or segment[user] != segment[node]:
        return None
    return user


@graph_pass("convolution epilogue fusion")
def conv_epilogue_fusion(graph, report):
    use, segment, outputs = users(graph), effect_segments(graph), set(graph.outputs)
    for conv in [node for node in graph.nodes if _call_of(node, "conv2d")]:
        bias = _only_user(conv, "bias_add", use, outputs, segment)
        if bias is None:
            continue
        relu = _only_user(bias, "relu", use, outputs, segment)
        last = relu or bias
        x, w = conv.inputs
        fused = derived(last, name=fresh_name(graph, "conv"), op=fused_conv2d, inputs=(x, w, bias.inputs[1]),
                        attrs={**conv.attrs, "activation": "relu" if relu else None}, index=None)
        graph.nodes[graph.nodes.index(last)] = fused
        replace_uses(graph, last, fused)
        members = [conv, bias] + ([relu] if relu else [])
        remove(graph, set(members) - {last})
        report.fused[fused.name] = [node.name for node in members]
    return graph
