"""Elementwise loops: one small numba loop per op, named after it.

Each loop runs over 1-D operands that ``broadcast.run_elementwise`` has already broadcast to
the output size, and writes into ``out``, which it allocated. A learner can read any op as::

    for i in prange(out.size):
        out[i] = <formula of x[i]>

Binary and ternary ops read their operands as ``item(a, i)``: ``a[i]`` for an array, and ``a``
itself for the scalar that a one-element operand (``x * 0.5``) arrives as (see broadcast.py).
Loops are named after their op, except ``absolute`` and ``power`` (NumPy's names), which keep
Python's ``abs`` usable inside the loops.

Compiler options, and why:

* ``parallel=True`` + ``prange``: the loop can be split over the numba threads; threads.py
  decides per call how many it gets (all of them only for large arrays), and broadcast.py when
  NumPy does the work instead.
* ``error_model="numpy"``: x / 0 gives inf or nan (and integer // 0 gives 0) as in NumPy, with no
  Python exception checks in the loop, which also lets LLVM vectorise it.
* no ``fastmath``: it would let LLVM assume there are no nan/inf, which breaks ``isnan``,
  ``isfinite`` and the nan propagation of ``maximum``/``minimum``, and these loops have no
  reductions for it to speed up. The one exception, ``_math_kernel`` (exp, tanh, sigmoid,
  softplus), allows only ``"contract"``: fusing ``a * b + c`` into one FMA instruction, which
  speeds up their polynomials and changes nothing about nan and inf.
* ``cache=True``: compiled machine code is kept on disk, so a new Python process does not
  compile again.

exp, sigmoid, softplus (and softmax in nn.py) use ``vecmath.vexp`` and tanh ``vecmath.vtanh``,
which vectorise; np.log, np.sin & co. inside @njit are scalar libm calls (numba has no vector
math library without Intel SVML).
"""
import math

import numpy as np
from numba import njit, prange, types
from numba.extending import overload

from .vecmath import vexp, vtanh

_kernel = njit(parallel=True, cache=True, error_model="numpy")
_math_kernel = njit(parallel=True, cache=True, error_model="numpy", fastmath={"contract"})


def item(x, i):
    """Element ``i`` of a kernel operand: ``x[i]`` for an array, ``x`` itself for a scalar."""
    return x[i] if isinstance(x, np.ndarray) else x


@overload(item)
def _item_in_numba(x, i):
    """What numba compiles for ``item(x, i)``: chosen by x's type when the loop is compiled."""
    if isinstance(x, types.Array):
        return lambda x, i: x[i]
    return lambda x, i: x


# ----------------------------------------------------------------------------- unary
@_kernel
def negative(x, out):
    for i in prange(out.size):
        out[i] = -x[i]


@_kernel
def absolute(x, out):
    for i in prange(out.size):
        out[i] = abs(x[i])


@_kernel
def sign(x, out):
    for i in prange(out.size):
        v = x[i]
        out[i] = 1 if v > 0 else (-1 if v < 0 else v)   # 0 -> 0, nan -> nan


@_kernel
def square(x, out):
    for i in prange(out.size):
        out[i] = x[i] * x[i]


@_kernel
def sqrt(x, out):
    for i in prange(out.size):
        out[i] = np.sqrt(x[i])


@_kernel
def rsqrt(x, out):
    for i in prange(out.size):
        out[i] = 1 / np.sqrt(x[i])


@_kernel
def reciprocal(x, out):
    for i in prange(out.size):
        out[i] = 1 / x[i]


@_math_kernel
def exp(x, out):
    for i in prange(out.size):
        out[i] = vexp(x[i])


@_kernel
def log(x, out):
    for i in prange(out.size):
        out[i] = np.log(x[i])


@_kernel
def log1p(x, out):
    for i in prange(out.size):
        out[i] = np.log1p(x[i])


@_kernel
def expm1(x, out):
    for i in prange(out.size):
        out[i] = np.expm1(x[i])


@_kernel
def sin(x, out):
    for i in prange(out.size):
        out[i] = np.sin(x[i])


@_kernel
def cos(x, out):
    for i in prange(out.size):
        out[i] = np.cos(x[i])


@_math_kernel
def tanh(x, out):
    for i in prange(out.size):
        out[i] = vtanh(x[i])


@_math_kernel
def sigmoid(x, out):
    for i in prange(out.size):
        v = np.float64(x[i])
        # With e = exp(-|v|) <= 1 neither branch can overflow, and e / (1 + e) keeps full relative
        # precision for very negative v, where 1 - 1 / (1 + exp(v)) would round to 0.
        e = vexp(-abs(v))
        out[i] = 1 / (1 + e) if v >= 0 else e / (1 + e)


@_math_kernel
def softplus(x, out):
    for i in prange(out.size):
        v = x[i]
        # log(1 + exp(v)) = max(v, 0) + log1p(exp(-|v|)): stable for large |v|
        out[i] = max(v, 0) + np.log1p(vexp(-abs(v)))


@_kernel
def relu(x, out):
    for i in prange(out.size):
        v = x[i]
        out[i] = 0 if v < 0 else v   # nan stays nan


@_kernel
def leaky_relu(x, alpha, out):
    for i in prange(out.size):
        v = x[i]
        out[i] = v if v >= 0 else alpha * v


@_kernel
def erf(x, out):
    for i in prange(out.size):
        out[i] = math.erf(x[i])   # libm's erf (erff for float32): NumPy has no np.erf


@_kernel
def logical_not(x, out):
    for i in prange(out.size):
        out[i] = not x[i]


@_kernel
def isnan(x, out):
    for i in prange(out.size):
        out[i] = np.isnan(x[i])


@_kernel
def isfinite(x, out):
    for i in prange(out.size):
        out[i] = np.isfinite(x[i])


# ----------------------------------------------------------------------------- binary
@_kernel
def add(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) + item(b, i)


@_kernel
def subtract(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) - item(b, i)


@_kernel
def multiply(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) * item(b, i)


@_kernel
def divide(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) / item(b, i)


def _floordiv(x, y):
    return x // y


@overload(_floordiv)
def _floordiv_in_numba(x, y):
    """numba's // floors like Python, and integer // 0 gives 0 (error_model), as NumPy. One case
    differs: the lowest integer // -1, whose true result does not fit, is 0 in numba and that
    lowest integer itself in NumPy (the two's-complement wrap of -MIN). Written as -x, it agrees."""
    if isinstance(x, types.Integer) and x.signed:
        return lambda x, y: -x if y == -1 else x // y
    return lambda x, y: x // y


@_kernel
def floordiv(a, b, out):
    for i in prange(out.size):
        out[i] = _floordiv(item(a, i), item(b, i))


@_kernel
def mod(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) % item(b, i)   # sign of the divisor, like Python and NumPy; integer % 0 gives 0


@_kernel
def power(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) ** item(b, i)


@_kernel
def maximum(a, b, out):
    for i in prange(out.size):
        x, y = item(a, i), item(b, i)
        out[i] = x if (x > y or x != x) else y   # x != x: x is nan, and nan wins; a tie gives y, as in NumPy


@_kernel
def minimum(a, b, out):
    for i in prange(out.size):
        x, y = item(a, i), item(b, i)
        out[i] = x if (x < y or x != x) else y


@_kernel
def equal(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) == item(b, i)


@_kernel
def not_equal(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) != item(b, i)


@_kernel
def less(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) < item(b, i)


@_kernel
def less_equal(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) <= item(b, i)


@_kernel
def greater(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) > item(b, i)


@_kernel
def greater_equal(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) >= item(b, i)


@_kernel
def logical_and(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) and item(b, i)


@_kernel
def logical_or(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) or item(b, i)


@_kernel
def logical_xor(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) != item(b, i)


# ----------------------------------------------------------------------------- activation gradients
# The backward passes of relu, tanh and sigmoid, each one loop over the activations instead of
# three ops with two temporaries (see ops/elementwise.py).
@_kernel
def relu_grad(dy, x, out):
    for i in prange(out.size):
        out[i] = item(dy, i) if item(x, i) > 0 else 0


@_kernel
def tanh_grad(dy, y, out):
    for i in prange(out.size):
        out[i] = item(dy, i) * (1 - item(y, i) * item(y, i))


@_kernel
def sigmoid_grad(dy, y, out):
    for i in prange(out.size):
        out[i] = item(dy, i) * item(y, i) * (1 - item(y, i))


# ----------------------------------------------------------------------------- ternary
@_kernel
def where(cond, x, y, out):
    for i in prange(out.size):
        out[i] = item(x, i) if item(cond, i) else item(y, i)
