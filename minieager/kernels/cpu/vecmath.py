"""A vectorisable ``exp`` for numba loops.

Why not ``np.exp`` inside ``@njit``? Without Intel's SVML library (absent from the llvmlite
wheels), LLVM cannot vectorise calls to libm's ``exp``: every element becomes one scalar
function call, and NumPy's own SIMD ``exp`` is 3-5x faster. The textbook recipe below is
plain arithmetic, so LLVM turns the loop that calls it into AVX instructions:

    exp(x) = 2**n * exp(r),   n = round(x / ln2),   r = x - n*ln2  (|r| <= ln2/2)

``exp(r)`` is a short Taylor polynomial and ``2**n`` is written straight into the exponent bits
of a float64. Everything is computed in float64, so the same helper serves float32 (where the
result is then correctly rounded in nearly all cases) and float64 (within ~2 ulp of NumPy).
tanh, sigmoid and softmax are all built on this one function.
"""
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic


@intrinsic
def _pow2(typingctx, n):
    """2.0**n for an int64 n in [-1022, 1023]: the bits ((n + 1023) << 52) read as a float64."""
    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        bits = builder.shl(builder.add(args[0], ir.Constant(i64, 1023)), ir.Constant(i64, 52))
        return builder.bitcast(bits, ir.DoubleType())
    return types.float64(types.int64), codegen


_LOG2E = 1.4426950408889634
_ROUND = 6755399441055744.0   # 1.5 * 2**52
# ln2 split in a high part with trailing zero bits and a low correction (Cody-Waite), so that
# n * _LN2_HI is exact and r keeps full precision even for large n.
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10


@njit(inline="always", error_model="numpy")
def vexp(x):
    """exp(x) as float64 for a float32/float64 scalar; nan stays nan, +-inf give inf / 0."""
    xd = min(max(np.float64(x), -746.0), 710.0)   # beyond these, exp is 0 or inf in float64
    # round(x / ln2): adding then subtracting 1.5 * 2**52 leaves no fraction bits, so the FPU
    # rounds to the nearest integer; np.floor here would be a libm call that blocks vectorising.
    n = (xd * _LOG2E + _ROUND) - _ROUND
    r = (xd - n * _LN2_HI) - n * _LN2_LO
    # Taylor series of exp(r) to r**13 / 13!: the truncation error is below 1e-17 for |r| <= ln2/2.
    p = 1.0 + r * (1.0 + r * (1 / 2 + r * (1 / 6 + r * (1 / 24 + r * (1 / 120 + r * (
        1 / 720 + r * (1 / 5040 + r * (1 / 40320 + r * (1 / 362880 + r * (
            1 / 3628800 + r * (1 / 39916800 + r * (1 / 479001600 + r * (1 / 6227020800)))))))))))))
    # Two factors of 2**(n/2) keep subnormal results (n < -1022) and n = 1024 representable.
    k = np.int64(n)
    half = k >> 1   # floor(k / 2); numba's // adds sign and zero checks that stop vectorisation
    result = p * _pow2(half) * _pow2(k - half)
    return result if x == x else np.float64(x)
