"""Map and zip: one GPU thread per output element, broadcasting by strides.

A GPU runs thousands of threads at once, grouped in blocks (see memory.py for the sizes). Here
each thread computes output elements ``i = its global index, + the whole grid's size, + ...``
(a grid-stride loop): a small array gets one element per thread, a huge one a few per thread,
and the launch never needs more blocks than memory.MAX_BLOCKS.

Broadcasting is done by strides, not copies. For each output element the thread turns its flat
index into a multi-index (the last axis varies fastest) and then into each input's flat index
with that input's strides, counted in elements. An input axis of length 1 (or missing) that is
broadcast gets stride 0: every output position along it reads the same input element. The same
trick makes ``transpose`` (an identity map with the input's strides permuted) and
``broadcast_to`` (an identity map with zero strides): layout changes are maps too.

Which function a map applies is an op code (an int) that ``unary``/``binary`` branch on: one
compiled kernel serves every op, cached on disk, and the branch is the same for every thread of
a launch, so it costs (almost) nothing. These kernels compile for float32 and float64; other
dtypes take the host round trip (host.py).
"""
import math

import numpy as np
from numba import cuda

from ..registry import _lookup, register_kernel
from .host import FLOATS, float_kernel, round_trip
from .memory import empty, flat, launch

UNARY = {name: code for code, name in enumerate([
    "identity", "negative", "abs", "exp", "expm1", "log", "log1p", "sqrt", "rsqrt", "square", "reciprocal",
    "sin", "cos", "tanh", "sigmoid", "relu", "softplus", "sign", "leaky_relu", "isnan", "isfinite"])}
BINARY = {name: code for code, name in enumerate([
    "add", "subtract", "multiply", "divide", "maximum", "minimum", "pow", "equal", "not_equal", "less",
    "less_equal", "greater", "greater_equal", "relu_grad", "tanh_grad", "sigmoid_grad"])}


@cuda.jit(device=True)
def unary(op, x, alpha):
    """The one-input function with op code ``op`` (UNARY) at ``x``; ``alpha`` is leaky_relu's slope."""
    if op == 0:
        return x
    if op == 1:
        return -x
    if op == 2:
        return abs(x)
    if op == 3:
        return math.exp(x)
    if op == 4:
        return math.expm1(x)
    if op == 5:                                       # the edges spelled out: the simulator runs
        return math.log(x) if x > 0 or x != x else (-math.inf if x == 0 else math.nan)   # Python's math, which raises
    if op == 6:
        return math.log1p(x) if x > -1 or x != x else (-math.inf if x == -1 else math.nan)
    if op == 7:
        return math.sqrt(x) if x >= 0 or x != x else math.nan
    if op == 8:
        return 1 / math.sqrt(x) if x >= 0 or x != x else math.nan
    if op == 9:
        return x * x
    if op == 10:
        return 1 / x
    if op == 11:
        return math.sin(x)
    if op == 12:
        return math.cos(x)
    if op == 13:
        return math.tanh(x)
    if op == 14:                                      # stable in both tails: exp never overflows
        e = math.exp(-abs(x))
        return 1 / (1 + e) if x >= 0 else e / (1 + e)
    if op == 15:
        return 0.0 if x < 0 else x                    # nan stays nan, as the CPU's relu does
    if op == 16:                                      # log(1 + exp(x)), stable for large |x|
        return max(x, 0) + math.log1p(math.exp(-abs(x)))
    if op == 17:
        return 1.0 if x > 0 else (-1.0 if x < 0 else x)   # 0 and nan stay themselves
    if op == 18:
        return x if x >= 0 else alpha * x
    if op == 19:
        return 1.0 if x != x else 0.0
    return 1.0 if not (math.isinf(x) or math.isnan(x)) else 0.0   # 20: isfinite


@cuda.jit(device=True)
def binary(op, a, b):
    """The two-input function with op code ``op`` (BINARY) at ``a``, ``b``. Comparisons give 1.0/0.0."""
    if op == 0:
        return a + b
    if op == 1:
        return a - b
    if op == 2:
        return a * b
    if op == 3:
        return a / b
    if op == 4:
        return a if a > b or a != a else b           # nan wins, as in np.maximum
    if op == 5:
        return a if a < b or a != a else b
    if op == 6:
        return a ** b
    if op == 7:
        return 1.0 if a == b else 0.0
    if op == 8:
        return 1.0 if a != b else 0.0
    if op == 9:
        return 1.0 if a < b else 0.0
    if op == 10:
        return 1.0 if a <= b else 0.0
    if op == 11:
        return 1.0 if a > b else 0.0
    if op == 12:
        return 1.0 if a >= b else 0.0
    if op == 13:
        return a if b > 0 else 0.0                    # relu_grad(dy, x)
    if op == 14:
        return a * (1 - b * b)                        # tanh_grad(dy, y)
    return a * b * (1 - b)                            # 15: sigmoid_grad(dy, y)


@cuda.jit(device=True)
def source_index(i, shape, strides):
    """The flat index, in an input with element ``strides``, of flat output element ``i``."""
    source = 0
    for d in range(len(shape) - 1, -1, -1):          # last axis first: it varies fastest
        index = i % shape[d]
        i //= shape[d]
        source += index * strides[d]
    return source


@cuda.jit(cache=True)
def map_kernel(op, out, shape, x, x_strides, alpha):
    """out[i] = unary(op, x[...]) for every flat output element i, broadcasting x by its strides."""
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):   # the grid-stride loop
        out[i] = unary(op, x[source_index(i, shape, x_strides)], alpha)


@cuda.jit(cache=True)
def zip_kernel(op, out, shape, a, a_strides, b, b_strides):
    """out[i] = binary(op, a[...], b[...]), broadcasting a and b by their strides."""
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        out[i] = binary(op, a[source_index(i, shape, a_strides)], b[source_index(i, shape, b_strides)])


# ----------------------------------------------------------------------------- launching
def contiguous_strides(shape):
    """Element strides of a C-contiguous array of ``shape``: (12, 4, 1) for (2, 3, 4)."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


def broadcast_strides(in_shape, out_shape):
    """Element strides that read a contiguous ``in_shape`` array as if broadcast to ``out_shape``:
    0 along every axis that is broadcast (length 1 in the input, or missing on its left)."""
    padded = (1,) * (len(out_shape) - len(in_shape)) + tuple(in_shape)
    return tuple(0 if n == 1 else s for n, s in zip(padded, contiguous_strides(padded)))


def _launch_shape(shape):
    # A 0-d output is one element of shape (1,): kernels index tuples, and an empty tuple has no items.
    return tuple(shape) or (1,)


def launch_map(op, x, out_shape, strides, out_dtype, alpha=0.0):
    """Run ``map_kernel`` for op code ``op``: a new array of ``out_shape`` read from ``x`` by ``strides``."""
    out = empty(out_shape, out_dtype)
    if out.size:
        shape = _launch_shape(out_shape)
        strides = tuple(strides) or (0,)
        map_kernel[launch(out.size)](op, flat(out), shape, flat(x), strides, alpha)
    return out


def launch_zip(op, a, b, out_dtype):
    out_shape = np.broadcast_shapes(a.shape, b.shape)
    out = empty(out_shape, out_dtype)
    if out.size:
        shape = _launch_shape(out_shape)
        a_strides = broadcast_strides(a.shape, shape) if a.ndim else (0,) * len(shape)
        b_strides = broadcast_strides(b.shape, shape) if b.ndim else (0,) * len(shape)
        zip_kernel[launch(out.size)](op, flat(out), shape, flat(a), a_strides, flat(b), b_strides)
    return out


# ----------------------------------------------------------------------------- registering
_BOOL_RESULTS = {"isnan", "isfinite", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}


def _unary_kernel(name):
    out_bool = name in _BOOL_RESULTS

    def kernel(x, **attrs):
        return launch_map(UNARY[name], x, x.shape, contiguous_strides(x.shape),
                          np.bool_ if out_bool else x.dtype, **attrs)
    kernel.__name__ = name
    return kernel


def _binary_kernel(name):
    out_bool = name in _BOOL_RESULTS

    def kernel(a, b):
        return launch_zip(BINARY[name], a, b, np.bool_ if out_bool else a.dtype)
    kernel.__name__ = name
    return kernel


for _name in UNARY:
    if _name != "identity":
        register_kernel(_name, "gpu")(float_kernel(_unary_kernel(_name), _lookup(_name, "cpu")))
for _name in BINARY:
    register_kernel(_name, "gpu")(float_kernel(_binary_kernel(_name), _lookup(_name, "cpu")))


# ----------------------------------------------------------------------------- layout ops that are maps
@register_kernel("identity", "gpu")
@register_kernel("stop_gradient", "gpu")
def identity(x):
    return x   # a tensor's array is never written to, so the output may share it


@register_kernel("reshape", "gpu")
def reshape(x, shape):
    return x.reshape(tuple(int(s) for s in shape))   # contiguous: a view, nothing moves


def transpose_array(x, perm):
    """``x`` transposed by ``perm`` into a new contiguous array: an identity map whose strides are
    the input's strides permuted (output axis k walks input axis perm[k])."""
    strides = contiguous_strides(x.shape)
    return launch_map(UNARY["identity"], x, tuple(x.shape[p] for p in perm), tuple(strides[p] for p in perm),
                      x.dtype)


def broadcast_array(x, shape):
    """``x`` broadcast to ``shape`` in a new array: an identity map with stride 0 along broadcast axes."""
    return launch_map(UNARY["identity"], x, tuple(shape), broadcast_strides(x.shape, tuple(shape)), x.dtype)


register_kernel("transpose", "gpu")(float_kernel(transpose_array, _lookup("transpose", "cpu")))
register_kernel("broadcast_to", "gpu")(float_kernel(broadcast_array, _lookup("broadcast_to", "cpu")))
_cast_on_host = round_trip(_lookup("cast", "cpu"))


@register_kernel("cast", "gpu")
def cast(x, dtype):
    """float32 <-> float64 on the device (an identity map into the other dtype); every other cast
    (to or from ints and bools) takes the round trip, where NumPy's rules for nan and overflow apply."""
    if x.dtype in FLOATS and dtype.np_dtype in FLOATS:
        return launch_map(UNARY["identity"], x, x.shape, contiguous_strides(x.shape), dtype.np_dtype)
    return _cast_on_host(x, dtype=dtype)
