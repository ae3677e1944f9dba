"""Graph mode: ``me.function`` traces eager code into a ``Graph`` (ir.py) and runs it.

ir.py       Node, Graph, the SSA listing and ``run`` (the interpreter)
"""
from .ir import Graph, Node, run  # noqa: F401
