"""Random numbers on the GPU, counter-based: every thread computes its own from (seed, position).

A CPU generator is a state that each draw advances, one number after another. Thousands of GPU
threads cannot share one state, so a counter-based generator hashes the element's position with
the seed instead: ``bits = hash(seed, i)``. No state, no order, the same numbers for the same seed
however the threads are scheduled (and the simulator gives the same bits as a real GPU).

The hash is ``mix32`` (Chris Wellons' "lowbias32" integer hash, applied three times to mix in the
64-bit seed and counter). Uniform floats take its top 24 bits: ``bits / 2^24`` lies in [0, 1) and
is exact in float32. Normal floats come from two uniforms by the Box-Muller transform. The
arithmetic is on 64-bit integers masked to 32 bits, which is exact both on a GPU (where a product
wraps around) and in Python (where it does not). Production generators (Philox, used by cuRAND,
PyTorch and JAX) follow the same idea with a stronger, cryptography-inspired mixing function.
"""
import math

from numba import cuda

from ..registry import register_kernel
from .memory import empty, flat, launch

MASK = 0xFFFFFFFF


@cuda.jit(device=True)
def mix32(x):
    x &= MASK
    x ^= x >> 16
    x = (x * 0x7FEB352D) & MASK
    x ^= x >> 15
    x = (x * 0x846CA68B) & MASK
    x ^= x >> 16
    return x


@cuda.jit(device=True)
def uniform01(seed_lo, seed_hi, counter):
    """A float in [0, 1) from the seed's two halves and a 64-bit counter: 24 random bits / 2^24."""
    bits = mix32(mix32(mix32((counter & MASK) ^ seed_lo) + (counter >> 32)) ^ seed_hi)
    return (bits >> 8) * (1.0 / 16777216.0)


@cuda.jit(cache=True)
def uniform_kernel(seed_lo, seed_hi, low, high, out):
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        out[i] = low + (high - low) * uniform01(seed_lo, seed_hi, i)


@cuda.jit(cache=True)
def normal_kernel(seed_lo, seed_hi, mean, stddev, out):
    """Box-Muller: u1 in (0, 1] and u2 in [0, 1) from counters 2i and 2i + 1 give one normal number."""
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        u1 = 1.0 - uniform01(seed_lo, seed_hi, 2 * i)          # never 0, so the log is finite
        u2 = uniform01(seed_lo, seed_hi, 2 * i + 1)
        out[i] = mean + stddev * math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


def _draw(kernel):
    def draw(shape, seed, a, b, dtype):
        """A new ``shape`` array of ``dtype`` from the 63-bit ``seed``; (a, b) = (low, high) or (mean, stddev)."""
        out = empty(shape, dtype)
        if out.size:
            kernel[launch(out.size)](seed & MASK, seed >> 32, float(a), float(b), flat(out))
        return out
    return draw


register_kernel("random_uniform", "gpu")(_draw(uniform_kernel))
register_kernel("random_normal", "gpu")(_draw(normal_kernel))
