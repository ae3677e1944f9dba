"""One-element versions of the elementwise loops whose formula needs a branch or a helper.

The fused kernels that graph mode generates (``minieager/graph/passes/fused.py``) compute a
whole chain of elementwise ops per element, so they need each op as an expression of one value.
Simple ops are written inline there (``a + b``, ``vtanh(x)``); these are the rest, with the same
formulas as their loops in ``elementwise.py``. ``inline="always"`` puts them straight into the
fused loop, so LLVM can still vectorise it.
"""
import numpy as np
from numba import njit

from .vecmath import vexp

_scalar = njit(inline="always", cache=True, error_model="numpy", fastmath={"contract"})


@_scalar
def sign(v):
    return 1 if v > 0 else (-1 if v < 0 else v)   # 0 -> 0, nan -> nan


@_scalar
def relu(v):
    return 0 if v < 0 else v                      # nan stays nan


@_scalar
def sigmoid(x):
    v = np.float64(x)
    e = vexp(-abs(v))                             # stable in both tails, as the loop
    return 1 / (1 + e) if v >= 0 else e / (1 + e)


@_scalar
def softplus(v):
    return max(v, 0) + np.log1p(vexp(-abs(v)))


@_scalar
def maximum(x, y):
    return x if (x > y or x != x) else y         # nan wins, a tie gives y: as in NumPy


@_scalar
def minimum(x, y):
    return x if (x < y or x != x) else y
