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
a launch, so it costs (almost) nothing. Each branch calls its op's formula (``kernels/formulas.py``,
the same function the CPU loops are built from), compiled as a device function with ``devmath``
as its math library. These kernels compile for float32 and float64; other dtypes take the host
round trip (host.py).
"""
from types import ModuleType

import numpy as np
from numba import cuda

from .. import formulas
from ..registry import _lookup, register_kernel
from . import devmath
from .host import FLOATS, float_kernel, round_trip
from .memory import empty, flat, launch

UNARY = {name: code for code, name in enumerate([
    "identity", "negative", "abs", "exp", "expm1", "log", "log1p", "sqrt", "rsqrt", "square", "reciprocal",
    "sin", "cos", "tanh", "sigmoid", "relu", "softplus", "sign", "leaky_relu", "isnan", "isfinite"])}
BINARY = {name: code for code, name in enumerate([
    "add", "subtract", "multiply", "divide", "maximum", "minimum", "pow", "equal", "not_equal", "less",
    "less_equal", "greater", "greater_equal", "relu_grad", "tanh_grad", "sigmoid_grad"])}


def formula_name(op):
    """The name of ``op``'s formula in formulas.py: the op's own, but absolute for abs, power for pow."""
    return "identity" if op == "identity" else formulas.OPS[op].__name__


# The formulas of these ops as device functions: f.negative, f.sigmoid ... A module, so that the
# kernels below can name them (numba resolves f.sigmoid when it compiles the kernel).
f = ModuleType(f"{__name__}.f", "The formulas (kernels/formulas.py) compiled as CUDA device functions.")
f.__dict__.update(formulas.compile_all(cuda.jit(device=True), devmath, {formula_name(op) for op in [*UNARY, *BINARY]}))


@cuda.jit(device=True)
def unary(op, x, alpha):
    """The formula of the op with code ``op`` (UNARY) at ``x``; ``alpha`` is leaky_relu's slope."""
    if op == 0:
        return f.identity(x)
    if op == 1:
        return f.negative(x)
    if op == 2:
        return f.absolute(x)
    if op == 3:
        return f.exp(x)
    if op == 4:
        return f.expm1(x)
    if op == 5:
        return f.log(x)
    if op == 6:
        return f.log1p(x)
    if op == 7:
        return f.sqrt(x)
    if op == 8:
        return f.rsqrt(x)
    if op == 9:
        return f.square(x)
    if op == 10:
        return f.reciprocal(x)
    if op == 11:
        return f.sin(x)
    if op == 12:
        return f.cos(x)
    if op == 13:
        return f.tanh(x)
    if op == 14:
        return f.sigmoid(x)
    if op == 15:
        return f.relu(x)
    if op == 16:
        return f.softplus(x)
    if op == 17:
        return f.sign(x)
    if op == 18:
        return f.leaky_relu(x, alpha)
    if op == 19:
        return f.isnan(x)
    return f.isfinite(x)   # 20


@cuda.jit(device=True)
def binary(op, a, b):
    """The formula of the op with code ``op`` (BINARY) at ``a``, ``b``."""
    if op == 0:
        return f.add(a, b)
    if op == 1:
        return f.subtract(a, b)
    if op == 2:
        return f.multiply(a, b)
    if op == 3:
        return f.divide(a, b)
    if op == 4:
        return f.maximum(a, b)
    if op == 5:
        return f.minimum(a, b)
    if op == 6:
        return f.power(a, b)
    if op == 7:
        return f.equal(a, b)
    if op == 8:
        return f.not_equal(a, b)
    if op == 9:
        return f.less(a, b)
    if op == 10:
        return f.less_equal(a, b)
    if op == 11:
        return f.greater(a, b)
    if op == 12:
        return f.greater_equal(a, b)
    if op == 13:
        return f.relu_grad(a, b)
    if op == 14:
        return f.tanh_grad(a, b)
    return f.sigmoid_grad(a, b)   # 15


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


@register_kernel("custom_gradient_output", "gpu")
def custom_gradient_output(*arrays, n=1):
    """autodiff/custom_gradient.py: the first ``n`` inputs unchanged (the rest feed only its gradient)."""
    return arrays[0] if n == 1 else tuple(arrays[:n])


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
