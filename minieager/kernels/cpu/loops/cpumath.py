"""The math library the formulas (``kernels/formulas.py``) are compiled with on the CPU.

A formula says ``math.exp(x)``; compiled for the CPU, that is the function of the same name here.

* ``exp`` and ``tanh`` are ``vecmath``'s: plain arithmetic that LLVM vectorises, where libm's
  exp would be one scalar function call per element (see vecmath.py).
* the rest are numba's versions of NumPy's functions, which call libm (``np.log`` of a float32
  calls ``logf``), and ``math.erf`` (NumPy has no erf).
* ``floordiv`` is ``//`` with one case made to agree with NumPy (below).
"""
import math

import numpy as np
from numba import types
from numba.extending import overload

from .vecmath import vexp as exp, vtanh as tanh   # noqa: F401 (read by the formulas)

sqrt, log, log1p, expm1, sin, cos = np.sqrt, np.log, np.log1p, np.expm1, np.sin, np.cos
isnan, isfinite = np.isnan, np.isfinite
erf = math.erf   # libm's erf (erff for float32)


def floordiv(x, y):
    return x // y


@overload(floordiv)
def _floordiv_in_numba(x, y):
    """numba's // floors like Python, and integer // 0 gives 0 (error_model), as NumPy. One case
    differs: the lowest integer // -1, whose true result does not fit, is 0 in numba and that
    lowest integer itself in NumPy (the two's-complement wrap of -MIN). Written as -x, it agrees."""
    if isinstance(x, types.Integer) and x.signed:
        return lambda x, y: -x if y == -1 else x // y
    return lambda x, y: x // y
