"""Random tensors, reproducible with seeds as in TensorFlow.

``me.random.set_seed(n)`` resets the global seed: the same seed gives the same numbers, in
the same order. An op-level ``seed=`` gives each call site its own reproducible stream.
"""
import numpy as np

from ..engine import dtypes
from ..engine.device import CPU, current_device
from ..engine.abstract import AbstractArray
from ..engine.op import EffectOp
from ..engine.recording import tracer
from ..engine.tensor import place, wrap
from ..errors import DTypeError, InvalidArgumentError, out_of_memory
from ..kernels.registry import get_kernel, register_kernel
from . import _args
from .creation import _shape_tuple, convert_to_tensor
from .indexing import gather

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


def _draw_kernel(draw, shape, dtype):
    return draw()


_draw_ops = {}    # kind ("normal", "uniform" ...) -> its EffectOp


def _draw_op(kind):
    """The effect op that draws ``kind`` numbers: one per kind, so a graph listing names it."""
    op = _draw_ops.get(kind)
    if op is None:
        register_kernel(f"random_{kind}")(_draw_kernel)
        op = _draw_ops[kind] = EffectOp(
            f"random_{kind}", (), f"random {kind} numbers",
            shape_rule=lambda draw, shape, dtype: AbstractArray(shape, dtype.np_dtype),
            traced=lambda tracer, attrs, outputs: None)
    return op


def _random(kind, draw, shape, dtype, device=None):
    """The tensor ``draw()`` returns. Inside me.function, an effect node that draws anew on every
    run (the generator's state changes, so two draws are never merged; a random tensor made while
    tracing would otherwise be a constant: the same numbers every call)."""
    if tracer() is not None:
        return _draw_op(kind)(draw=draw, shape=tuple(shape), dtype=dtype)
    try:
        return place(draw(), device or current_device())
    except MemoryError as err:
        raise out_of_memory(f"random.{kind}", err) from None


def _on_gpu(kernel_name, shape, rng, a, b, dtype, device):
    """A float tensor drawn by the GPU kernel ``kernel_name`` from one 63-bit seed that ``rng`` gives,
    so a seeded program draws the same numbers on every run (not the CPU's numbers: another generator)."""
    seed = int(rng.integers(0, 2**63 - 1))
    return wrap(get_kernel(kernel_name, device)(shape, seed, a, b, dtype.np_dtype), device)


def _on_gpu_now():
    """Whether new random tensors are drawn by a GPU kernel (on a GPU device, outside me.function)."""
    return current_device() != CPU and tracer() is None


def _float_dtype(dtype, op):
    dtype = _args.dtype(dtype, op)
    if not dtype.is_floating:
        raise DTypeError(f"{op}: dtype must be floating, got {dtype.name}.")
    return dtype


def _number(value, op, arg, positive=False):
    """A finite Python float from ``value`` (a number or a one-element tensor), >= 0 if ``positive``."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"{op}: {arg} must be a number, got {value!r:.80}.") from None
    if not np.isfinite(value) or (positive and value < 0):
        raise InvalidArgumentError(f"{op}: {arg} must be a finite{' non-negative' if positive else ''} number, "
                                   f"got {value}.")
    return value + 0.0   # -0.0 -> 0.0 (NumPy's samplers refuse a scale of -0.0)


def normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    dtype = _float_dtype(dtype, "random.normal")
    mean, stddev = _number(mean, "random.normal", "mean"), _number(stddev, "random.normal", "stddev", True)
    shape = _shape_tuple(shape, "random.normal")
    if _on_gpu_now():   # drawn on the GPU (kernels/cuda/random.py)
        return _on_gpu("random_normal", shape, _generator(seed), mean, stddev, dtype, current_device())

    def draw():
        return _generator(seed).normal(mean, stddev, shape).astype(dtype.np_dtype)
    return _random("normal", draw, shape, dtype)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normal samples, redrawn until they lie within two standard deviations of the mean."""
    dtype = _float_dtype(dtype, "random.truncated_normal")
    mean = _number(mean, "random.truncated_normal", "mean")
    stddev = _number(stddev, "random.truncated_normal", "stddev", True)
    shape = _shape_tuple(shape, "random.truncated_normal")

    def draw():
        rng = _generator(seed)
        values = rng.standard_normal(shape)
        bad = np.abs(values) > 2
        while bad.any():
            values[bad] = rng.standard_normal(int(bad.sum()))
            bad = np.abs(values) > 2
        return (values * stddev + mean).astype(dtype.np_dtype)
    return _random("truncated_normal", draw, shape, dtype)


def uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Uniform in [minval, maxval) (maxval defaults to 1 for floats; required for ints)."""
    dtype = _args.dtype(dtype, "random.uniform")
    shape = _shape_tuple(shape, "random.uniform")
    if dtype.is_bool:
        raise DTypeError("random.uniform: dtype must be a number type, got bool.")
    if dtype.is_integer:
        if maxval is None:
            raise InvalidArgumentError("random.uniform: maxval is required for integer dtypes.")
        low = _args.integer(minval, "random.uniform", "minval")
        high = _args.integer(maxval, "random.uniform", "maxval")
        if not dtype.min <= low < high <= dtype.max + 1:
            raise InvalidArgumentError(
                f"random.uniform: [minval, maxval) must be a non-empty range within {dtype.name} "
                f"({dtype.min}..{dtype.max}), got [{low}, {high}).")
    else:
        low = _number(minval, "random.uniform", "minval")
        high = 1.0 if maxval is None else _number(maxval, "random.uniform", "maxval")
        if not low <= high:
            raise InvalidArgumentError(f"random.uniform: minval must not exceed maxval, got [{low}, {high}).")
        if _on_gpu_now():   # drawn on the GPU
            return _on_gpu("random_uniform", shape, _generator(seed), low, high, dtype, current_device())

    def draw():
        rng = _generator(seed)
        values = rng.integers(low, high, shape) if dtype.is_integer else rng.uniform(low, high, shape)
        return values.astype(dtype.np_dtype)
    return _random("uniform", draw, shape, dtype)


def shuffle(value, seed=None, name=None):
    """The tensor with its first axis randomly permuted."""
    value = convert_to_tensor(value)
    if value.ndim == 0:
        raise InvalidArgumentError("random.shuffle: needs a tensor of rank >= 1 to shuffle along its first axis, got a scalar.")
    n = value.shape[0]

    def draw():
        return _generator(seed).permutation(n).astype(np.int64)
    return gather(value, _random("permutation", draw, (n,), dtypes.int64, value._device))
