"""Graph mode: ``me.function`` traces eager code into a ``Graph`` (ir.py) and runs it.

ir.py            Node, Graph, the SSA listing, ``run`` and the ``Interpreter`` to subclass
symbolic.py      SymbolicTensor: what a traced function computes with; get_static_value
tracing.py       Tracer: records op calls into a Graph (hooked into Op.__call__)
function.py      me.function, ConcreteFunction, signatures and retracing
effects.py       graph mode's EffectOps (engine/op.py): optimizer updates, me.print, me.py_function
control_flow.py  me.cond, me.while_loop (subgraphs; their gradients)
gradients.py     me.gradients (tf.gradients): gradient ops added to the graph being traced
autograph/       me.autograph: Python if/while/for on tensors rewritten into me.cond / me.while_loop
saved_model.py   me.saved_model: traced functions and variables saved to a folder and loaded back
compat/v1.py     me.compat.v1: Session, placeholder, py_func, get_variable, variable_scope, initializers
draw.py          Graph.draw(): the tape debugger's visual language
passes/          the optimisation passes and fusion
"""
from .ir import Graph, Interpreter, Node, run  # noqa: F401
from . import gradients  # noqa: F401,E402  (installs the tracing of a @custom_gradient's grad_fn)
