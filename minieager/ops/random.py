"""Random tensors, reproducible with seeds as in TensorFlow.

``me.random.set_seed(n)`` resets the global seed: the same seed gives the same numbers, in
the same order. An op-level ``seed=`` gives each call site its own reproducible stream.
"""
import numpy as np

from ..engine import dtypes
from ..engine.device import CPU, current_device
from ..engine.errors import InvalidArgumentError
from ..engine.tensor import place, wrap
from .creation import _shape_tuple

_global_seed = None
_generators = {}    # op seed (or None) -> numpy Generator


def set_seed(seed):
    """Make every random op reproducible from here on."""
    global _global_seed
    _global_seed = int(seed)
    _generators.clear()


def get_seed():
    return _global_seed


def _generator(seed):
    if seed not in _generators:
        if _global_seed is None and seed is None:
            _generators[seed] = np.random.default_rng()
        else:
            _generators[seed] = np.random.default_rng([_global_seed or 0, 0 if seed is None else int(seed) + 1])
    return _generators[seed]


def _float_dtype(dtype, op):
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise InvalidArgumentError(f"{op}: dtype must be floating, got {dtype.name}.")
    return dtype


def normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    dtype = _float_dtype(dtype, "random.normal")
    shape, device = _shape_tuple(shape, "random.normal"), current_device()
    if device != CPU:   # drawn on the GPU from a seed the generator gives (kernels/cuda/random.py)
        return _on_gpu("random_normal", shape, _generator(seed), float(mean), float(stddev), dtype, device)
    values = _generator(seed).normal(float(mean), float(stddev), shape)
    return wrap(values.astype(dtype.np_dtype), device)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normal samples, redrawn until they lie within two standard deviations of the mean."""
    dtype = _float_dtype(dtype, "random.truncated_normal")
    rng, shape = _generator(seed), _shape_tuple(shape, "random.truncated_normal")
    values = rng.standard_normal(shape)
    bad = np.abs(values) > 2
    while bad.any():
        values[bad] = rng.standard_normal(int(bad.sum()))
        bad = np.abs(values) > 2
    return place((values * float(stddev) + float(mean)).astype(dtype.np_dtype), current_device())


def uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Uniform in [minval, maxval) (maxval defaults to 1 for floats; required for ints)."""
    dtype = dtypes.as_dtype(dtype)
    shape = _shape_tuple(shape, "random.uniform")
    rng = _generator(seed)
    if dtype.is_integer:
        if maxval is None:
            raise InvalidArgumentError("random.uniform: maxval is required for integer dtypes.")
        values = rng.integers(int(minval), int(maxval), shape)
    else:
        low, high = float(minval), 1.0 if maxval is None else float(maxval)
        if current_device() != CPU:
            return _on_gpu("random_uniform", shape, rng, low, high, dtype, current_device())
        values = rng.uniform(low, high, shape)
    return place(values.astype(dtype.np_dtype), current_device())


def _on_gpu(kernel_name, shape, rng, a, b, dtype, device):
    """A float tensor drawn by the GPU kernel ``kernel_name`` from one 63-bit seed that ``rng`` gives,
    so a seeded program draws the same numbers on every run (not the CPU's numbers: another generator)."""
    from ..kernels.registry import get_kernel
    seed = int(rng.integers(0, 2**63 - 1))
    return wrap(get_kernel(kernel_name, "gpu")(shape, seed, a, b, dtype.np_dtype), device)


def shuffle(value, seed=None, name=None):
    """The tensor with its first axis randomly permuted."""
    from .indexing import gather
    from .creation import convert_to_tensor
    value = convert_to_tensor(value)
    order = _generator(seed).permutation(value.shape[0])
    return gather(value, place(order.astype(np.int64), value.device))
