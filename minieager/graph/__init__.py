"""Graph mode: ``me.function`` traces eager code into a ``Graph`` (ir.py) and runs it.

ir.py            Node, Graph, the SSA listing and ``run`` (the interpreter)
symbolic.py      SymbolicTensor: what a traced function computes with
tracing.py       Tracer: records op calls into a Graph (hooked into Op.__call__)
function.py      me.function, ConcreteFunction, TensorSpec, signatures and retracing
effects.py       EffectOp: assign, optimizer updates, me.print, me.py_function
control_flow.py  me.cond, me.while_loop (subgraphs)
compat/v1.py     me.compat.v1: Session, placeholder, py_func
draw.py          Graph.draw(): the tape debugger's visual language
passes/          the optimisation passes and fusion
"""
from .ir import Graph, Node, run  # noqa: F401
