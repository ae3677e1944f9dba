"""``me.initializers``: how a layer fills its weights when it builds them.

An initializer is called as ``init(shape, dtype)`` and returns a Tensor. The random ones draw
from ``me.random``, so ``me.random.set_seed(n)`` makes a model's initial weights reproducible.
Fans follow Keras: a Dense kernel (in, out) has fan_in = in, fan_out = out; a Conv2D kernel
(kh, kw, in, out) multiplies both by the window size kh * kw.
"""
import math

from ..engine import dtypes
from ..ops import random
from ..ops.creation import fill, ones as _ones, zeros as _zeros
from ._config import Configurable
from ._lookup import by_name

# The standard deviation of a unit normal truncated at +-2: dividing by it keeps the variance exact.
_TRUNCATED_STDDEV = 0.87962566103423978


def _fans(shape):
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive = math.prod(shape[:-2])
    return shape[-2] * receptive, shape[-1] * receptive


class Initializer(Configurable):
    """Base class: ``__call__(shape, dtype=me.float32)`` returns a new Tensor."""

    def __call__(self, shape, dtype=dtypes.float32):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}()"


class Zeros(Initializer):
    def __call__(self, shape, dtype=dtypes.float32):
        return _zeros(shape, dtype)


class Ones(Initializer):
    def __call__(self, shape, dtype=dtypes.float32):
        return _ones(shape, dtype)


class Constant(Initializer):
    def __init__(self, value=0.0):
        self.value = value

    def __call__(self, shape, dtype=dtypes.float32):
        return fill(shape, dtypes.as_dtype(dtype).np_dtype.type(self.value))


class RandomNormal(Initializer):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=dtypes.float32):
        return random.normal(shape, self.mean, self.stddev, dtype=dtype, seed=self.seed)


class RandomUniform(Initializer):
    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape, dtype=dtypes.float32):
        return random.uniform(shape, self.minval, self.maxval, dtype=dtype, seed=self.seed)


class VarianceScaling(Initializer):
    """Samples with variance ``scale / n``, n being fan_in, fan_out or their average."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None):
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed

    def __call__(self, shape, dtype=dtypes.float32):
        fan_in, fan_out = _fans(tuple(shape))
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[self.mode]
        variance = self.scale / max(1.0, n)
        if self.distribution == "uniform":
            limit = math.sqrt(3.0 * variance)
            return random.uniform(shape, -limit, limit, dtype=dtype, seed=self.seed)
        stddev = math.sqrt(variance) / _TRUNCATED_STDDEV
        return random.truncated_normal(shape, 0.0, stddev, dtype=dtype, seed=self.seed)


class GlorotUniform(VarianceScaling):
    """Uniform in [-limit, limit], limit = sqrt(6 / (fan_in + fan_out))."""

    def __init__(self, seed=None):
        super().__init__(1.0, "fan_avg", "uniform", seed)


class GlorotNormal(VarianceScaling):
    """Truncated normal with stddev sqrt(2 / (fan_in + fan_out))."""

    def __init__(self, seed=None):
        super().__init__(1.0, "fan_avg", "truncated_normal", seed)


class HeNormal(VarianceScaling):
    """Truncated normal with stddev sqrt(2 / fan_in): suits relu layers."""

    def __init__(self, seed=None):
        super().__init__(2.0, "fan_in", "truncated_normal", seed)


class HeUniform(VarianceScaling):
    """Uniform in [-limit, limit], limit = sqrt(6 / fan_in)."""

    def __init__(self, seed=None):
        super().__init__(2.0, "fan_in", "uniform", seed)


# Keras' function-style names: ``me.initializers.glorot_uniform()`` makes an initializer.
zeros, ones, constant = Zeros, Ones, Constant
random_normal, random_uniform = RandomNormal, RandomUniform
glorot_uniform, glorot_normal, he_normal, he_uniform = GlorotUniform, GlorotNormal, HeNormal, HeUniform

_BY_NAME = {"zeros": Zeros, "ones": Ones, "constant": Constant, "random_normal": RandomNormal,
            "random_uniform": RandomUniform, "uniform": RandomUniform, "glorot_uniform": GlorotUniform,
            "glorot_normal": GlorotNormal, "he_normal": HeNormal, "he_uniform": HeUniform}


def get(identifier):
    """An initializer from a name ("glorot_uniform"), an Initializer, or any callable(shape, dtype=...)."""
    return by_name("an initializer", _BY_NAME, identifier, create=True)