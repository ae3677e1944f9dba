"""Elementwise fusion: a chain or tree of elementwise calls becomes one ``FusedOp`` call.

Working back from each elementwise call not yet fused (the root), the group takes in every
elementwise input whose users are all in the group already and that is not itself a graph
output: its value is then needed only inside the loop, so it never has to be stored. A group of
two or more becomes one call of a ``FusedOp`` (``fused.py``) in the root's place, whose inputs
are the values the group reads from outside.

What can join: the ops in ``fused.FUSIBLE`` on float32, float64 and bool values, never an
effect node, never across an effect (see ``_rewrite.effect_segments``).

Only groups whose output has at least ``MIN_SIZE`` elements are fused: below that the eager ops
run in NumPy (``kernels/cpu/broadcast.py``), where one more pass costs about a microsecond, while
a new generated kernel costs a numba compile (about a second, once per machine).
"""
import math

from ...engine.op import Op
from ...kernels.cpu.broadcast import SMALL_SIZE
from ._rewrite import derived, effect_segments, fresh_name, is_pure_call, remove, replace_uses, users
from .fused import FUSIBLE, FUSIBLE_DTYPES, FusedOp, Member
from .report import graph_pass

MIN_SIZE = SMALL_SIZE


def fusible(node):
    """Whether ``node`` is an elementwise call the code generator can write."""
    if not is_pure_call(node) or type(node.op) is not Op or node.op.name not in FUSIBLE:
        return False
    if node.index is not None or set(node.attrs) - {"alpha", "dtype"}:
        return False
    if node.op.name == "cast" and not node.dtype.is_floating:   # the template casts to floats only
        return False
    return all(n.dtype in FUSIBLE_DTYPES and n.shape is not None for n in (node, *node.inputs))


def _grow(root, use, segment, outputs, taken):
    """The group rooted at ``root``: the inputs it can take in, repeated until nothing changes."""
    group, changed = {root}, True
    while changed:
        changed = False
        for node in list(group):
            for source in node.inputs:
                if (source not in group and source not in taken and source not in outputs
                        and fusible(source) and segment[source] == segment[root]
                        and all(user in group for user in use[source])):
                    group.add(source)
                    changed = True
    return group


def _formula(members, k):
    """The group as one expression of its inputs, for the op's printed formula."""
    text = [f"in{n}" for n in range(k)]
    for member in members:
        inner = [text[a] for a in member.args]
        op = member.op
        if len(inner) == 2 and op.formula.startswith("a ") and op.formula.endswith(" b"):
            text.append(f"({inner[0]}{op.formula[1:-1]}{inner[1]})")      # "a + b" -> "(x + y)"
        else:
            text.append(f"{op.name}({', '.join(inner)})")
    expression = text[-1]
    return expression[1:-1] if expression.startswith("(") and expression.endswith(")") else expression


def fuse(nodes, root):
    """A ``FusedOp`` for ``nodes`` (in graph order, ``root`` last) and the outside values it reads."""
    inside = set(nodes)
    external = []
    for node in nodes:
        for source in node.inputs:
            if source not in inside and source not in external:
                external.append(source)
    index = {node: n for n, node in enumerate(external)}
    members = []
    for node in nodes:
        index[node] = len(index)
        members.append(Member(node.op, tuple(index[s] for s in node.inputs), dict(node.attrs), node.dtype))
    op = FusedOp(members, [s.shape for s in external], root.shape, root.dtype, _formula(members, len(external)))
    return op, external


@graph_pass("elementwise fusion")
def elementwise_fusion(graph, report):
    use, segment, outputs = users(graph), effect_segments(graph), set(graph.outputs)
    taken = set()
    for root in reversed(list(graph.nodes)):
        # (a size known only at run time, None, counts as large: a batch of unknown size)
        if root in taken or not fusible(root) or None not in root.shape and math.prod(root.shape) < MIN_SIZE:
            continue
        group = _grow(root, use, segment, outputs, taken)
        if len(group) < 2:
            continue
        taken |= group
        nodes = [node for node in graph.nodes if node in group]
        op, external = fuse(nodes, root)
        fused = derived(root, name=fresh_name(graph, "fused"), op=op, inputs=tuple(external), attrs={}, index=None)
        graph.nodes[graph.nodes.index(root)] = fused
        replace_uses(graph, root, fused)
        remove(graph, group - {root})
        report.fused[fused.name] = [node.name for node in nodes]
    return graph
