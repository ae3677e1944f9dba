"""Graph optimisation passes, each a pure function ``Graph -> Graph``.

``optimize(graph)`` runs them in order and returns the optimised graph with one ``PassReport``
per pass (what it folded, simplified, merged, removed or fused), which the pass-stepping widget
shows. Every pass leaves effect nodes (variable assigns, ``me.print``, ``py_function``) where
they are: never folded, merged, removed, fused or moved.

    constant_folding                  pure calls of constants become constants
    arithmetic_simplification         x * 1, x + 0, -(-x), reshape to the same shape -> x
    common_subexpression_elimination  the same op on the same inputs is computed once
    dead_code_elimination             nodes that no output or effect needs go
    conv_epilogue_fusion              conv2d + bias_add (+ relu) -> one fused_conv2d call
    elementwise_fusion                chains of elementwise ops become one generated numba loop
"""
from .conv_fusion import conv_epilogue_fusion
from .cse import common_subexpression_elimination
from .dce import dead_code_elimination
from .fold import constant_folding
from .fused import FusedKernel, FusedOp
from .fusion import elementwise_fusion
from .report import PassReport
from .simplify import arithmetic_simplification

PASSES = (constant_folding, arithmetic_simplification, common_subexpression_elimination,
          dead_code_elimination, conv_epilogue_fusion, elementwise_fusion)

__all__ = ["PASSES", "FusedKernel", "FusedOp", "PassReport", "fused_kernels", "arithmetic_simplification", "common_subexpression_elimination",
           "constant_folding", "conv_epilogue_fusion", "dead_code_elimination", "elementwise_fusion", "optimize"]


def optimize(graph, passes=PASSES):
    """Run ``passes`` in order: ``(optimised graph, [PassReport per pass])``; ``graph`` is unchanged."""
    reports = []
    for graph_pass in passes:
        graph, report = graph_pass.with_report(graph)
        reports.append(report)
    return graph, reports


def fused_kernels(graph):
    """The generated kernels of ``graph``'s fused nodes, in order (``print(k.source)`` shows one)."""
    return [node.op.kernel for node in graph.nodes if isinstance(node.op, FusedOp)]
