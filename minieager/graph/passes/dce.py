"""Dead-code elimination: drop every node that no output and no side effect needs.

Walk backwards from the roots (the output nodes, the effect nodes, and the placeholders, which
are the function's arguments even when unused) marking every input as live; the rest goes.
"""
from ._rewrite import remove
from .report import graph_pass


@graph_pass("dead-code elimination")
def dead_code_elimination(graph, report):
    live = set()
    for node in reversed(graph.nodes):   # users come after their inputs, so one backward sweep
        if node in live or node.kind in ("output", "placeholder") or node.effect or node in graph.outputs:
            live.add(node)
            live.update(node.inputs)
    dead = [node for node in graph.nodes if node not in live]
    report.removed = [node.name for node in dead]
    remove(graph, set(dead))
    return graph
