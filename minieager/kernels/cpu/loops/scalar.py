"""The formulas of ``kernels/formulas.py``, compiled for the CPU: one numba function per formula.

``scalar.add``, ``scalar.sigmoid`` ... are the formulas with ``cpumath`` as their ``math``, made
to be called from numba code: the elementwise loops (``elementwise.py``) and graph mode's fused
kernels (``graph/passes/fused.py``) call them per element, and ``inline="always"`` puts their
code straight into the calling loop (at numba's level, before LLVM sees it), so that

* LLVM vectorises the loop as if the formula were written in it, and
* the loop's compiler options apply to it: ``fastmath={"contract"}`` where the loop has it.

``DIGEST`` changes whenever ``formulas.py``, ``cpumath.py`` or ``vecmath.py`` does. numba's disk
cache checks only the file of the function it compiled (the loop's, not the formula's), so the
loops carry ``DIGEST`` in their ``__qualname__`` and the fused kernels in their file's name:
after an edit to a formula they are compiled again instead of loaded stale.
"""
from numba import njit

from ... import formulas
from . import cpumath, formulas_digest

DIGEST = formulas_digest()

_compiled = formulas.compile_all(njit(inline="always", error_model="numpy"), cpumath)
NAMES = tuple(_compiled)
globals().update(_compiled)   # scalar.add, scalar.sigmoid ...

# The formulas whose eager loops allow FMA contraction inside them (elementwise.CONTRACT), compiled
# once more with that flag and *not* inlined: a fused kernel calls these, so each rounds as its eager
# loop does, while no multiply and add of two different fused lines are contracted (LLVM contracts
# only instructions that both carry the flag). scalar.exp_contracted ...
CONTRACT = formulas.CONTRACT
globals().update({f"{name}_contracted": f for name, f in formulas.compile_all(
    njit(error_model="numpy", fastmath={"contract"}), cpumath, CONTRACT).items()})
