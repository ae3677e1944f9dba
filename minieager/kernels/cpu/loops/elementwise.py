"""Elementwise loops: one numba loop per op, each built from the op's formula (``kernels/formulas.py``).

Each loop runs over 1-D operands that ``broadcast.run_elementwise`` has already broadcast to
the output size, and writes into ``out``, which it allocated. Every loop is one of the three
templates below, with ``formula`` standing for its op's formula (compiled in ``scalar.py``)::

    for i in prange(out.size):
        out[i] = formula(x[i])

Binary and ternary ops read their operands as ``item(a, i)``: ``a[i]`` for an array, and ``a``
itself for the scalar that a one-element operand (``x * 0.5``) arrives as (see broadcast.py);
so does leaky_relu its ``alpha``. Loops are named after their formula (``absolute`` and
``power`` for the ops abs and pow, see formulas.py).

Compiler options, and why:

* ``parallel=True`` + ``prange``: the loop can be split over the numba threads; threads.py
  decides per call how many it gets (all of them only for large arrays), and broadcast.py when
  NumPy does the work instead.
* ``error_model="numpy"``: x / 0 gives inf or nan (and integer // 0 gives 0) as in NumPy, with no
  Python exception checks in the loop, which also lets LLVM vectorise it.
* no ``fastmath``: it would let LLVM assume there are no nan/inf, which breaks ``isnan``,
  ``isfinite`` and the nan propagation of ``maximum``/``minimum``, and these loops have no
  reductions for it to speed up. The one exception, ``CONTRACT`` (exp, tanh, sigmoid, softplus),
  allows only ``"contract"``: fusing ``a * b + c`` into one FMA instruction, which speeds up the
  polynomials of their exp and tanh (vecmath.py) and changes nothing about nan and inf.
* ``cache=True``: compiled machine code is kept on disk, so a new Python process does not
  compile again.

How a template becomes a loop: ``_loop`` gives the template's code a namespace in which
``formula`` is the op's compiled formula, and a name of its own. numba compiles a function from
its code and looks its globals up as it compiles, and it names its cache files after the
function's ``__qualname__``: each loop gets ``<op>_<scalar.DIGEST>``, so that no two loops share
cache files and a formula edited since the last run is compiled again (see scalar.py).
"""
import types as pytypes

import numpy as np
from numba import njit, prange, types
from numba.extending import overload

from . import scalar

_kernel = njit(parallel=True, cache=True, error_model="numpy")
_math_kernel = njit(parallel=True, cache=True, error_model="numpy", fastmath={"contract"})
CONTRACT = scalar.CONTRACT       # exp, tanh, sigmoid, softplus


def item(x, i):
    """Element ``i`` of a kernel operand: ``x[i]`` for an array, ``x`` itself for a scalar."""
    return x[i] if isinstance(x, np.ndarray) else x


@overload(item)
def _item_in_numba(x, i):
    """What numba compiles for ``item(x, i)``: chosen by x's type when the loop is compiled."""
    if isinstance(x, types.Array):
        return lambda x, i: x[i]
    return lambda x, i: x


# ----------------------------------------------------------------------------- the templates
def _one(x, out):
    for i in prange(out.size):
        out[i] = formula(x[i])   # noqa: F821 (each loop's own namespace has it)


def _two(a, b, out):
    for i in prange(out.size):
        out[i] = formula(item(a, i), item(b, i))   # noqa: F821


def _three(a, b, c, out):
    for i in prange(out.size):
        out[i] = formula(item(a, i), item(b, i), item(c, i))   # noqa: F821


def _loop(name):
    """The numba loop of formula ``name``: the template for its number of operands, compiled with it."""
    compiled = getattr(scalar, name)
    template = {1: _one, 2: _two, 3: _three}[compiled.py_func.__code__.co_argcount]
    loop = pytypes.FunctionType(template.__code__, dict(globals(), formula=compiled), name)
    loop.__qualname__ = f"{name}_{scalar.DIGEST}"
    loop.__doc__ = f"out[i] = {name}(...) of element i of each operand: see kernels/formulas.py."
    return (_math_kernel if name in CONTRACT else _kernel)(loop)


# Every formula but identity (which needs no loop) as a loop of its name: loops.elementwise.add ...
globals().update({name: _loop(name) for name in scalar.NAMES if name != "identity"})
