"""Vectorisable ``exp`` and ``tanh`` for numba loops.

Why not ``np.exp`` inside ``@njit``? Without Intel's SVML library (absent from the llvmlite
wheels), LLVM cannot vectorise calls to libm's ``exp``: every element becomes one scalar
function call, and NumPy's own SIMD ``exp`` is 3-5x faster. The textbook recipe below is
plain arithmetic, so LLVM turns the loop that calls it into AVX instructions:

    exp(x) = 2**n * exp(r),   n = round(x / ln2),   r = x - n*ln2  (|r| <= ln2/2)

``exp(r)`` is a short Taylor polynomial and ``2**n`` is written straight into the exponent bits
of a float. ``vexp`` computes in float64, so it serves float32 (where the result is then
correctly rounded in nearly all cases) and float64 (within ~2 ulp of NumPy); sigmoid, softplus
and softmax are built on it.

``vtanh`` also has a float32 version, computed in float32 throughout. A float64 takes two float32
slots of a vector register, so a float32 loop does twice the elements per instruction (16 per
AVX-512 instruction, 8 with AVX2), and float32 precision needs a polynomial of degree 6 where
float64 needs 14. It is what graph mode's fused chain ``tanh(x*w + b)*0.5 + x`` spends its time
on, so each instruction counts (``_tanh_f32``): tanh|v| = (1 - e) / (1 + e) with e = exp(-2|v|),
where e = s + 2s*h is assembled from s = 2**n (bits written from the rounding constant, no
float-to-int conversion) and a minimax polynomial h = expm1(2r)/2; since s and 2s*h are exact,
1 - e and 1 + e are each rounded once, and no separate nan test is needed (nan flows through).

Its error bound: **at most 2 ulp** of the exact tanh, measured at 1.93 ulp at worst (at
x = 0.51916277) by running it on every positive float32 (2**31 of them; tanh is odd and the sign
is copied exactly) against float64's tanh. An ulp here is the float32 spacing in the binade of the
exact value (2**-149 among the subnormals). It holds where the polynomial's multiply-adds are FMA
instructions (``fastmath={"contract"}``, below; every x86-64 CPU with AVX2 has them, and numba
compiles for the host CPU); AVX-512 and AVX2 code give the same bits on 10**7 inputs (AVX2 chosen
with ``NUMBA_CPU_NAME=haswell`` and ``NUMBA_CPU_FEATURES`` listing AVX2's features: the name
alone keeps the host's AVX-512). Without FMA the bound is unmeasured.
``tests/kernels/test_vecmath_bound.py`` checks it on 10**7 inputs (the edges, the worst case,
every exponent, and [-10, 10] densely) in the real loop, and that the fused chain equals the eager
ops bit for bit. The recipe it replaced (``-m / (2 + m)`` with ``m = expm1(-2|v|)``, a Taylor
series of degree 7) reached 2.5 ulp: the rounding of ``m`` counted twice. Below 2**-25, tanh(x)
is x itself; from 9.010914 on, exactly +-1; nan gives nan.

Its cost, per call of the fused chain on 1e6 float32 elements on one thread, counted by callgrind
(AVX2 code: valgrind has no AVX-512): 4.28 million instructions, against 5.05 million with the
recipe before and 14.8 million for NumPy's four ufunc calls; the AVX-512 loop body is 32
instructions per 16 elements (36 before). Timed on a 2-core AMD EPYC (Zen 4, AVX-512) at load ~1,
``me.function`` on two threads against NumPy (``bench/bench_graph.py --elementwise``, 2 runs each,
old and new alternating): 1e6 elements 3.6x faster (2.9-3.0x before), 1e7 5.5-5.7x (4.7-5.0x);
AVX2 code for both (see bench/README.md): 1e6 4.0x (3.2-3.3x), 1e7 5.0-5.3x (4.1-4.3x).
Then the two final sums became one FMA each (``_fmuladd_f32``; the same bits on all 2**32 float32
inputs, checked one by one): 31 instructions per 16 elements, and the loop 4% faster (one thread,
0.340-0.344 against 0.354-0.357 ms per 1e6 elements in the L2 cache).

exp and sigmoid stay on the float64 route (``vexp``): correctly rounded in nearly all cases; their
bound is also 2 ulp, and the 10**7 inputs of the same test measure 0.5 ulp at worst. A
float32 exp built the same way was tried: within 1.01 ulp of the exact value and 2.8x faster
than the float64 route, but up to 3 ulp from NumPy's own float32 exp (itself up to 2.54 ulp off),
where ``tests/fuzz`` allows 2; and fused kernels must compute what the eager loops compute.

float64 ``vtanh`` keeps the recipe the float32 one replaced, ``-m / (2 + m)`` with
``m = expm1(-2|x|)`` from a float64 ``_expm1_f64``: within 3 ulp of NumPy over 600,000 values
from 1e-300 to 25 (measured; ``tests/fuzz`` checks 4). Its earlier Taylor series near 0 stopped at
x**9 and was 73 ulp off.

Use these inside kernels compiled with ``fastmath={"contract"}``: it lets LLVM fuse each
``a * b + c`` of the polynomials into one FMA instruction (faster, and rounded once instead of
twice) without the other fastmath assumptions, so nan and inf still behave.
"""
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic, overload


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


# float32 constants: in numba, float32 combined with a Python float (a float64) gives float64,
# and the whole computation would silently move back to float64.
f32 = np.float32
_ROUND_F32 = f32(12582912.0)              # 1.5 * 2**23
_TWO_LOG2E_F32 = f32(2 * _LOG2E)
_HALF_LN2_F32 = f32(0.34657359027997264)  # ln2 / 2; n * its rounding error stays below 2**-23 for |n| <= 29
_TANH_LIMIT_F32 = f32(-10)                # tanh(10) rounds to 1 in float32 (from 9.01 on)
# expm1(2r) / 2 = r + r**2 * (c0 + c1 r + ... + c4 r**4) for |r| <= ln2/4: a minimax fit (weighted least
# squares iterated towards equal ripple), relative error below 1.8e-8 (0.3 ulp) with these float32 values.
_TANH_C0, _TANH_C1, _TANH_C2, _TANH_C3, _TANH_C4 = (
    f32(0.99999994), f32(0.66666174), f32(0.3333376), f32(0.13386528), f32(0.04442403))


@intrinsic
def _pow2_of_rounded_f32(typingctx, t):
    """2.0**n as float32, for t = n + 1.5 * 2**23 (n in [-126, 127]): t's low bits hold n, so the bits
    (t << 23) + (127 << 23) are 2**n (the higher bits of t shift out). No float-to-int conversion."""
    def codegen(context, builder, signature, args):
        i32 = ir.IntType(32)
        bits = builder.shl(builder.bitcast(args[0], i32), ir.Constant(i32, 23))
        return builder.bitcast(builder.add(bits, ir.Constant(i32, 127 << 23)), ir.FloatType())
    return types.float32(types.float32), codegen


@intrinsic
def _fmuladd_f32(typingctx, a, b, c):
    """a * b + c in float32 as one FMA instruction where the CPU has one (``llvm.fmuladd``), else a
    multiply and an add. Use it where ``a * b`` is exact (a power of two times a float32), so both
    round the same: the sum is then rounded once either way."""
    def codegen(context, builder, signature, args):
        f32_type = ir.FloatType()
        fmuladd = builder.module.declare_intrinsic("llvm.fmuladd", [f32_type],
                                                   ir.FunctionType(f32_type, [f32_type] * 3))
        return builder.call(fmuladd, args)
    return types.float32(types.float32, types.float32, types.float32), codegen


@njit(inline="always", error_model="numpy")
def _tanh_f32(v):
    """tanh of a float32, in float32: within 1.93 ulp of the exact value (see the module docstring)."""
    # tanh|v| = (1 - e) / (1 + e) with e = exp(-2|v|) in (0, 1]: no overflow, and 1 - e keeps full
    # precision near 0 because e is assembled from parts that are exact (below).
    y = -abs(v)
    y = _TANH_LIMIT_F32 if y < _TANH_LIMIT_F32 else y   # nan stays nan (the comparison is false)
    # e = exp(2y) = 2**n * exp(2r), n = round(2y / ln2), r = y - n * ln2/2 in [-ln2/4, ln2/4]. Adding
    # 1.5 * 2**23 rounds 2y / ln2 to an integer (np.round would be a libm call that blocks vectorising).
    t = y * _TWO_LOG2E_F32 + _ROUND_F32
    n = t - _ROUND_F32
    r = y - n * _HALF_LN2_F32            # one FMA: exact to far below float32 precision for |n| <= 29
    s = _pow2_of_rounded_f32(t)
    h = r + r * r * (_TANH_C0 + r * (_TANH_C1 + r * (_TANH_C2 + r * (_TANH_C3 + r * _TANH_C4))))
    # exp(2r) = 1 + 2h, so e = s + 2s*h, where s = 2**n and 2s*h are exact: 1 - e and 1 + e are each
    # rounded once, and the division once more (the errors measured in the module docstring). As
    # 2s*h is exact, each sum is one FMA with the same result (LLVM would not fuse a product used
    # twice: one instruction more; 4% of the fused chain's loop).
    s2 = s + s
    numerator = _fmuladd_f32(-s2, h, f32(1) - s)     # (1 - s) - 2s*h
    denominator = _fmuladd_f32(s2, h, f32(1) + s)    # (1 + s) + 2s*h
    return np.copysign(numerator / denominator, v)   # odd; -0.0 stays -0.0


@njit(inline="always", error_model="numpy")
def _expm1_f64(x):
    """exp(x) - 1 in float64 for x in [-40, 0] (all tanh needs), accurate also near 0.

    The reduction of ``vexp``, with the Taylor series of expm1(r) to r**13 / 13! (the next term is
    below 2**-56 of it for |r| <= ln2/2); 2**n * q + (2**n - 1) keeps q's full relative precision
    near 0, where 2**n - 1 is exact.
    """
    n = (x * _LOG2E + _ROUND) - _ROUND
    r = (x - n * _LN2_HI) - n * _LN2_LO
    q = r + r * r * (1 / 2 + r * (1 / 6 + r * (1 / 24 + r * (1 / 120 + r * (1 / 720 + r * (
        1 / 5040 + r * (1 / 40320 + r * (1 / 362880 + r * (1 / 3628800 + r * (
            1 / 39916800 + r * (1 / 479001600 + r * (1 / 6227020800))))))))))))
    s = _pow2(np.int64(n))
    return s * q + (s - 1.0)


@njit(inline="always", error_model="numpy")
def _tanh_f64(x):
    # tanh(a) = -m / (2 + m), m = expm1(-2a), in float64. A Taylor series of tanh
    # near 0 with (1 - e) / (1 + e) elsewhere was used before; it was 73 ulp off for |x| < 1/16
    # (the series stopped at x**9) and lost bits to the cancellation in 1 - e just above.
    v = np.float64(x)
    a = min(abs(v), 20.0)   # tanh(20) rounds to 1 in float64
    m = _expm1_f64(-(a + a))
    t = np.copysign(-m / (2.0 + m), v)   # tanh is odd; -0.0 stays -0.0
    return t if v == v else v


def vtanh(x):
    """tanh(x) of a scalar: computed in float32 for a float32 x, else in float64."""
    return _tanh_f32(x) if isinstance(x, np.float32) else _tanh_f64(x)


@overload(vtanh, inline="always")   # inlined into the kernel, so that its fastmath flags apply
def _vtanh_in_numba(x):
    """What numba compiles for ``vtanh(x)``: the version for x's type, chosen at compile time."""
    if x == types.float32:
        return lambda x: _tanh_f32(x)
    return lambda x: _tanh_f64(x)
