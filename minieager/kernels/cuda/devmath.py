"""The math library the formulas (``kernels/formulas.py``) are compiled with for a GPU.

A formula says ``math.exp(x)``; compiled for the GPU, that is the function of the same name here.
Most are Python's ``math`` functions, which numba.cuda compiles to CUDA's libdevice (``math.exp``
of a float32 is ``__nv_expf``). ``log``, ``log1p`` and ``sqrt`` are spelled out at the edges of
their domain, where CUDA gives nan or -inf: under the simulator (``NUMBA_ENABLE_CUDASIM=1``)
device functions run as Python, and Python's math raises there instead. A nan goes through
itself (``x != x``), as it does on the CPU.
"""
import math

from numba import cuda

exp, expm1, sin, cos, tanh = math.exp, math.expm1, math.sin, math.cos, math.tanh
isnan, isfinite = math.isnan, math.isfinite


@cuda.jit(device=True)
def log(x):
    return math.log(x) if x > 0 or x != x else (-math.inf if x == 0 else math.nan)


@cuda.jit(device=True)
def log1p(x):
    return math.log1p(x) if x > -1 or x != x else (-math.inf if x == -1 else math.nan)


@cuda.jit(device=True)
def sqrt(x):
    return math.sqrt(x) if x >= 0 or x != x else math.nan
