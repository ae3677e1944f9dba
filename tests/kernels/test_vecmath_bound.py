"""float32 tanh's, exp's and sigmoid's documented error bounds (kernels/cpu/loops/vecmath.py): at
most 2 ulp of the exact value (tanh: 1.93 measured; exp and sigmoid, on the float64 route: 0.5).

The float32 loop computes tanh in float32 (``vecmath._tanh_f32``), in the eager loop and in graph
mode's fused kernels alike. Its bound was measured on every positive float32 (tanh is odd, and the
sign is copied exactly): 1.93 ulp at worst. Here 10**7 inputs, run through the real loop (vector
body and scalar tail) and compared in float64 with float64's tanh, keep it honest in CI.

An ulp is the spacing of float32 numbers in the binade of the exact value, 2**(floor(log2|t|) - 23)
(2**-149 among the subnormals): the strict choice, that never measures against a wider spacing.
"""
import math

import numpy as np
import pytest
from numba import njit, prange

import minieager as me
import minieager.kernels.cpu  # noqa: F401  (registers the kernels)
from minieager.kernels.cpu import broadcast
from minieager.kernels.registry import get_kernel

BOUND_ULPS = 2.0            # the documented bound
WORST_INPUT = 0.51916277    # the worst float32 input of the exhaustive measurement (1.93 ulp)
SATURATES = np.float32(9.010914)    # the first float32 whose tanh rounds to 1
F32 = np.finfo(np.float32)
RNG = np.random.default_rng(20)
FLOAT32_MAX = float(F32.max)   # a plain float, for the numba function below

pytestmark = pytest.mark.usefixtures("numba_loops_from_small_size")


@njit(parallel=True, error_model="numpy")
def ulps_from_exact(got, x):
    """|got - tanh(x)| in units of the float32 spacing at the exact tanh(x), in float64; nan for a nan x."""
    out = np.empty(x.size)
    for i in prange(x.size):
        exact = math.tanh(np.float64(x[i]))
        exponent = math.frexp(abs(exact))[1]                    # |exact| in [2**(e-1), 2**e)
        out[i] = abs(np.float64(got[i]) - exact) / math.ldexp(1.0, max(exponent - 1, -126) - 23)
    return out


def neighbours(values, k=64):
    """Each of ``values`` with the k float32 numbers on either side of it."""
    bits = np.asarray(values, np.float32).view(np.int32)[:, None] + np.arange(-k, k + 1, dtype=np.int32)
    return bits.reshape(-1).view(np.float32)


def sample(size=10 ** 7):
    """``size`` float32 inputs: the edges, then a log-uniform spread over every exponent, then [-10, 10]."""
    edges = np.array([0.0, -0.0, np.inf, -np.inf, F32.smallest_subnormal, -F32.smallest_subnormal,
                      F32.tiny, -F32.tiny, F32.max, -F32.max], np.float32)
    near = neighbours([F32.smallest_subnormal * 2 ** 10, F32.tiny, 2 ** -25,
                       0.00035211,             # below it, the exact tanh(x) rounds to x
                       WORST_INPUT, 0.5493061,  # atanh(0.5)
                       SATURATES, 10.0, 89.0, F32.max / 2])
    n = size - 2 * (len(edges) + len(near)) - 1
    spread = RNG.integers(0, 2 ** 32, n // 2, dtype=np.uint32).view(np.float32)   # every exponent
    dense = RNG.uniform(-10, 10, n - n // 2).astype(np.float32)
    x = np.concatenate([edges, near, -near, spread, dense, edges, np.float32([np.nan])])
    assert x.size == size
    return x


def test_float32_tanh_is_within_two_ulp_of_exact_on_ten_million_inputs():
    x = sample()                           # odd length: the loop's scalar tail runs the edges again
    assert x.size > broadcast.SMALL_SIZE   # the numba loop, not NumPy
    got = get_kernel("tanh", "cpu")(x)
    assert got.dtype == np.float32
    numbers = ~np.isnan(x)
    ulps = ulps_from_exact(got, x)
    where = np.nanargmax(ulps)
    assert ulps[where] <= BOUND_ULPS, f"tanh({x[where]!r}) is {ulps[where]:.3f} ulp from exact"
    assert np.isnan(got[~numbers]).all()
    assert np.array_equal(np.signbit(got[numbers]), np.signbit(x[numbers]))   # odd: -0.0 stays -0.0
    big = np.abs(x) >= SATURATES
    assert np.array_equal(got[big], np.sign(x[big]))    # exactly +-1 where tanh rounds to 1, inf included
    tiny = np.abs(x) < np.float32(2 ** -25)
    assert np.array_equal(got[tiny], x[tiny])           # x itself, subnormals included: 1 - e, 1 + e exact


def test_the_documented_worst_case_measures_as_documented():
    """The exhaustive run's worst input (in the sample above) is 1.93 ulp off, as vecmath.py says."""
    x = np.array([WORST_INPUT], np.float32)
    got = get_kernel("tanh", "cpu")(np.resize(x, broadcast.SMALL_SIZE + 1))[:1]
    assert 1.92 <= ulps_from_exact(got, x)[0] <= 1.93


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_tanh_chain_equals_eager_bit_for_bit(dtype):
    """``me.function`` fuses tanh(x * w + b) * 0.5 + x into one loop; it rounds as the eager ops do."""
    with np.errstate(invalid="ignore"):   # signalling nan bit patterns, quieted by the cast
        x = sample(4 * broadcast.SMALL_SIZE + 5).astype(dtype)
    tx, w, b = me.constant(x), me.constant(dtype(0.7)), me.constant(dtype(0.1))

    def chain(x, w, b):
        return me.tanh(x * w + b) * 0.5 + x
    traced = me.function(chain)
    assert traced.get_concrete_function(tx, w, b).fused_kernels      # it did fuse
    np.testing.assert_array_equal(traced(tx, w, b).numpy(), chain(tx, w, b).numpy())


@njit(parallel=True, error_model="numpy")
def ulps_from_exact_exp_or_sigmoid(got, x, sigmoid):
    """|got - f(x)| in float32 spacings at the exact f(x), f = exp or sigmoid, computed in float64.

    A float64 result off by ~1e-16 relative is exact at float32's scale (2**-24). Where exp(x)
    overflows float32, the answer must be inf (0 ulp) or it counts as infinitely far.
    """
    out = np.empty(x.size)
    for i in prange(x.size):
        v = np.float64(x[i])
        if sigmoid:    # each branch divides by a number >= 1: no overflow, no cancellation
            exact = 1.0 / (1.0 + math.exp(-v)) if v >= 0 else math.exp(v) / (1.0 + math.exp(v))
        else:
            exact = math.exp(v)
        if exact > FLOAT32_MAX:
            out[i] = 0.0 if got[i] == np.inf else np.inf
            continue
        exponent = math.frexp(abs(exact))[1]
        out[i] = abs(np.float64(got[i]) - exact) / math.ldexp(1.0, max(exponent - 1, -126) - 23)
    return out


@pytest.mark.parametrize("name", ["exp", "sigmoid"])
def test_float32_exp_and_sigmoid_are_within_two_ulp_of_exact_on_ten_million_inputs(name):
    """They compute in float64 (vexp) and round once to float32: measured at 0.5 ulp, bound 2."""
    x = sample()
    with np.errstate(over="ignore"):
        got = get_kernel(name, "cpu")(x)
    assert got.dtype == np.float32
    ulps = ulps_from_exact_exp_or_sigmoid(got, x, name == "sigmoid")
    where = np.nanargmax(ulps)
    assert ulps[where] <= BOUND_ULPS, f"{name}({x[where]!r}) = {got[where]!r} is {ulps[where]:.3f} ulp from exact"
    assert np.isnan(got[np.isnan(x)]).all()
    if name == "exp":
        assert got[x == -np.inf][0] == 0.0 and got[x == np.inf][0] == np.inf
    else:
        assert got[x == -np.inf][0] == 0.0 and got[x == np.inf][0] == 1.0
