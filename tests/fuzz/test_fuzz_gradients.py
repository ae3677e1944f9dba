"""The tape's gradients against central finite differences, in float64, for random shapes.

Inputs are kept away from the points where an op has no derivative (relu at 0, abs at 0,
max at ties, log near 0), where a finite difference straddles the kink.
"""
import numpy as np
from hypothesis import given, strategies as st

import minieager as me

from ._util import examples

UNARY = ["exp", "log", "sqrt", "tanh", "sigmoid", "softplus", "sin", "cos", "square", "abs", "relu",
         "log1p", "expm1", "reciprocal", "rsqrt", "negative"]
POSITIVE = {"log", "sqrt", "rsqrt", "reciprocal", "log1p"}
BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "pow", "squared_difference"]
REDUCE = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_logsumexp"]

small_shapes = st.lists(st.integers(1, 4), min_size=0, max_size=3).map(tuple)


def _away_from_kinks(rng, shape, positive=False):
    """Values with |x| in [0.3, 1.5], all distinct (no ties for max, min and pools)."""
    size = int(np.prod(shape))
    mags = 0.3 + 1.2 * (rng.permutation(size) + rng.random(size) * 0.5) / max(size, 1)
    signs = 1 if positive else rng.choice([-1.0, 1.0], size)
    return (mags * signs).reshape(shape)


@examples(30)
@given(name=st.sampled_from(UNARY), shape=small_shapes, seed=st.integers(0, 2**31))
def test_unary_gradients(name, shape, seed):
    x = _away_from_kinks(np.random.default_rng(seed), shape, positive=name in POSITIVE)
    me.testing.check_gradients(getattr(me, name), x)


@examples(30)
@given(name=st.sampled_from(BINARY), shape=small_shapes, data=st.data(), seed=st.integers(0, 2**31))
def test_binary_gradients_with_broadcasting(name, shape, data, seed):
    rng = np.random.default_rng(seed)
    shape_b = tuple(1 if data.draw(st.booleans()) else n for n in shape)[data.draw(st.integers(0, len(shape))):]
    a = _away_from_kinks(rng, shape, positive=name == "pow")
    b = _away_from_kinks(rng, shape_b, positive=name == "divide") + (0.05 if name in ("maximum", "minimum") else 0)
    me.testing.check_gradients(getattr(me, name), a, b)


@examples(30)
@given(name=st.sampled_from(REDUCE), shape=small_shapes.filter(len), data=st.data(), seed=st.integers(0, 2**31))
def test_reduction_gradients(name, shape, data, seed):
    axis = data.draw(st.none() | st.lists(st.integers(0, len(shape) - 1), unique=True))
    keepdims = data.draw(st.booleans())
    x = _away_from_kinks(np.random.default_rng(seed), shape)
    me.testing.check_gradients(lambda t: getattr(me, name)(t, axis=axis, keepdims=keepdims), x)


@examples(20)
@given(data=st.data(), seed=st.integers(0, 2**31))
def test_conv_and_pool_gradients(data, seed):
    rng = np.random.default_rng(seed)
    n, h, w, c, f = (data.draw(st.integers(1, hi)) for hi in (2, 5, 5, 2, 2))
    kh, kw = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    padding = data.draw(st.sampled_from(["SAME", "VALID"]))
    if padding == "VALID":
        kh, kw = min(kh, h), min(kw, w)
    strides = (data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3)))
    x, k = _away_from_kinks(rng, (n, h, w, c)), rng.standard_normal((kh, kw, c, f))
    me.testing.check_gradients(lambda a, b: me.nn.conv2d(a, b, strides, padding), x, k)
    me.testing.check_gradients(lambda a: me.nn.max_pool2d(a, (kh, kw), strides, padding), x)
    me.testing.check_gradients(lambda a: me.nn.avg_pool2d(a, (kh, kw), strides, padding), x)


@examples(20)
@given(shape=small_shapes.filter(len), data=st.data(), seed=st.integers(0, 2**31))
def test_shape_op_gradients(shape, data, seed):
    x = _away_from_kinks(np.random.default_rng(seed), shape)
    perm = data.draw(st.permutations(range(len(shape))))
    axis = data.draw(st.integers(0, len(shape) - 1))
    me.testing.check_gradients(lambda t: me.transpose(t, perm), x)
    me.testing.check_gradients(lambda t: me.concat([t, me.square(t)], axis), x)
    me.testing.check_gradients(lambda t: me.nn.softmax(t, axis), x)
    me.testing.check_gradients(lambda t: me.cumsum(t, axis, reverse=True), x)
    me.testing.check_gradients(lambda t: t[::-1] * 2.0, x)
    me.testing.check_gradients(lambda t: me.gather(t, [0, shape[axis] - 1, 0], axis=axis), x)
    shift, counts, k = data.draw(st.integers(-5, 5)), data.draw(st.integers(0, 2)), data.draw(st.integers(0, shape[-1]))
    begin = [data.draw(st.integers(0, n - 1)) for n in shape]
    exclusive, reverse = data.draw(st.booleans()), data.draw(st.booleans())
    me.testing.check_gradients(lambda t: me.roll(me.reverse(t, [axis]), shift, axis) * t, x)
    me.testing.check_gradients(lambda t: me.repeat(t, counts, axis), x)
    me.testing.check_gradients(lambda t: me.slice(t, begin, [-1] * len(shape)), x)
    me.testing.check_gradients(lambda t: me.math.top_k(t, k).values, x)
    me.testing.check_gradients(lambda t: me.math.cumprod(t, axis, exclusive, reverse), x)
