"""What every pass needs: who uses a node, replacing one node by another, which nodes may move.

Passes are pure: each works on ``graph.copy()`` and returns it, so the graph it was given (the
one the widget shows as "before") never changes. These helpers edit that private copy.
"""
from ...engine import recording


def users(graph):
    """``{node: [nodes that take it as an input]}`` (output nodes included)."""
    found = {node: [] for node in graph.nodes}
    for node in graph.nodes:
        for source in node.inputs:
            found[source].append(node)
    return found


def replace_uses(graph, old, new):
    """Every input (and graph output) that was ``old`` becomes ``new``."""
    for node in graph.nodes:
        if any(source is old for source in node.inputs):
            node.inputs = tuple(new if source is old else source for source in node.inputs)
    graph.outputs = [new if node is old else node for node in graph.outputs]


def remove(graph, doomed):
    """Drop the nodes in ``doomed`` (a set) from the node list, keeping the order of the rest."""
    graph.nodes = [node for node in graph.nodes if node not in doomed]


def derived(template, **fields):
    """A new node like ``template`` with some fields changed."""
    return template.copy(**fields)


def fresh_name(graph, stem):
    """An SSA name not yet used in ``graph``: ``%fold0``, ``%fused1`` ..."""
    taken = {node.name for node in graph.nodes}
    i = 0
    while f"%{stem}{i}" in taken:
        i += 1
    return f"%{stem}{i}"


def is_pure_call(node):
    """A call that only computes: no side effect, and an op that gives the same output for the
    same inputs. Only these may be folded, merged, fused or moved."""
    return node.kind == "call" and not node.effect and node.op is not None


def effect_segments(graph):
    """``{node: number of effect nodes before it}``. A pass that moves or merges computations never
    does so across an effect: a variable read before an ``assign`` is not the same as one after."""
    segment, count = {}, 0
    for node in graph.nodes:
        segment[node] = count
        if node.effect:
            count += 1
    return segment


def no_observers():
    """Run ops with no tape (or tracer) watching: a pass computes at compile time, and nothing it
    computes is part of the user's program."""
    return recording.paused(tracers=True)
