"""Elementwise kernels: one small numba loop per op.

Each loop runs over 1-D operands that ``broadcast.run_elementwise`` has already broadcast to
the output size, and writes into ``out``, which it allocated. A learner can read any op as::

    for i in prange(out.size):
        out[i] = <formula of x[i]>

Binary and ternary ops read their operands as ``item(a, i)``: ``a[i]`` for an array, and ``a``
itself for the scalar that a one-element operand (``x * 0.5``) arrives as (see broadcast.py).

Compiler options, and why:

* ``parallel=True`` + ``prange``: the loop can be split over the numba threads; threads.py
  decides per call how many it gets (all of them only for large arrays), and broadcast.py when
  NumPy does the work instead.
* ``error_model="numpy"``: x / 0 gives inf or nan (and integer // 0 gives 0) as in NumPy, with no
  Python exception checks in the loop, which also lets LLVM vectorise it.
* no ``fastmath``: it would let LLVM assume there are no nan/inf, which breaks ``isnan``,
  ``isfinite`` and the nan propagation of ``maximum``/``minimum``, and these loops have no
  reductions for it to speed up. The one exception, ``_math_kernel`` (exp, tanh, sigmoid,
  softplus), allows only ``"contract"``: fusing ``a * b + c`` into one FMA instruction, which
  speeds up their polynomials and changes nothing about nan and inf.
* ``cache=True``: compiled machine code is kept on disk, so a new Python process does not
  compile again.

exp, sigmoid, softplus (and softmax in nn.py) use ``vecmath.vexp`` and tanh ``vecmath.vtanh``,
which vectorise; np.log, np.sin & co. inside @njit are scalar libm calls (numba has no vector
math library without Intel SVML).
"""
import numpy as np
from numba import njit, prange

from ..registry import register_kernel
from .broadcast import SMALL_SIZE, item, run_elementwise
from .vecmath import vexp, vtanh

_kernel = njit(parallel=True, cache=True, error_model="numpy")
_math_kernel = njit(parallel=True, cache=True, error_model="numpy", fastmath={"contract"})


# ----------------------------------------------------------------------------- unary
@_kernel
def _negative(x, out):
    for i in prange(out.size):
        out[i] = -x[i]


@_kernel
def _abs(x, out):
    for i in prange(out.size):
        out[i] = abs(x[i])


@_kernel
def _sign(x, out):
    for i in prange(out.size):
        v = x[i]
        out[i] = 1 if v > 0 else (-1 if v < 0 else v)   # 0 -> 0, nan -> nan


@_kernel
def _square(x, out):
    for i in prange(out.size):
        out[i] = x[i] * x[i]


@_kernel
def _sqrt(x, out):
    for i in prange(out.size):
        out[i] = np.sqrt(x[i])


@_kernel
def _rsqrt(x, out):
    for i in prange(out.size):
        out[i] = 1 / np.sqrt(x[i])


@_kernel
def _reciprocal(x, out):
    for i in prange(out.size):
        out[i] = 1 / x[i]


@_math_kernel
def _exp(x, out):
    for i in prange(out.size):
        out[i] = vexp(x[i])


@_kernel
def _log(x, out):
    for i in prange(out.size):
        out[i] = np.log(x[i])


@_kernel
def _log1p(x, out):
    for i in prange(out.size):
        out[i] = np.log1p(x[i])


@_kernel
def _expm1(x, out):
    for i in prange(out.size):
        out[i] = np.expm1(x[i])


@_kernel
def _sin(x, out):
    for i in prange(out.size):
        out[i] = np.sin(x[i])


@_kernel
def _cos(x, out):
    for i in prange(out.size):
        out[i] = np.cos(x[i])


@_math_kernel
def _tanh(x, out):
    for i in prange(out.size):
        out[i] = vtanh(x[i])


@_math_kernel
def _sigmoid(x, out):
    for i in prange(out.size):
        v = np.float64(x[i])
        # With e = exp(-|v|) <= 1 neither branch can overflow, and e / (1 + e) keeps full relative
        # precision for very negative v, where 1 - 1 / (1 + exp(v)) would round to 0.
        e = vexp(-abs(v))
        out[i] = 1 / (1 + e) if v >= 0 else e / (1 + e)


@_math_kernel
def _softplus(x, out):
    for i in prange(out.size):
        v = x[i]
        # log(1 + exp(v)) = max(v, 0) + log1p(exp(-|v|)): stable for large |v|
        out[i] = max(v, 0) + np.log1p(vexp(-abs(v)))


@_kernel
def _relu(x, out):
    for i in prange(out.size):
        v = x[i]
        out[i] = 0 if v < 0 else v   # nan stays nan


@_kernel
def _leaky_relu(x, alpha, out):
    for i in prange(out.size):
        v = x[i]
        out[i] = v if v >= 0 else alpha * v


@_kernel
def _logical_not(x, out):
    for i in prange(out.size):
        out[i] = not x[i]


@_kernel
def _isnan(x, out):
    for i in prange(out.size):
        out[i] = np.isnan(x[i])


@_kernel
def _isfinite(x, out):
    for i in prange(out.size):
        out[i] = np.isfinite(x[i])


# ----------------------------------------------------------------------------- binary
@_kernel
def _add(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) + item(b, i)


@_kernel
def _subtract(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) - item(b, i)


@_kernel
def _multiply(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) * item(b, i)


@_kernel
def _divide(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) / item(b, i)


@_kernel
def _floordiv(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) // item(b, i)   # numba's // floors like Python; integer // 0 gives 0 (error_model)


@_kernel
def _mod(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) % item(b, i)   # sign of the divisor, like Python and NumPy; integer % 0 gives 0


@_kernel
def _pow(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) ** item(b, i)


@_kernel
def _maximum(a, b, out):
    for i in prange(out.size):
        x, y = item(a, i), item(b, i)
        out[i] = x if (x >= y or x != x) else y   # x != x: x is nan, and nan wins as in NumPy


@_kernel
def _minimum(a, b, out):
    for i in prange(out.size):
        x, y = item(a, i), item(b, i)
        out[i] = x if (x <= y or x != x) else y


@_kernel
def _equal(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) == item(b, i)


@_kernel
def _not_equal(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) != item(b, i)


@_kernel
def _less(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) < item(b, i)


@_kernel
def _less_equal(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) <= item(b, i)


@_kernel
def _greater(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) > item(b, i)


@_kernel
def _greater_equal(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) >= item(b, i)


@_kernel
def _logical_and(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) and item(b, i)


@_kernel
def _logical_or(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) or item(b, i)


@_kernel
def _logical_xor(a, b, out):
    for i in prange(out.size):
        out[i] = item(a, i) != item(b, i)


# ----------------------------------------------------------------------------- activation gradients
# The backward passes of relu, tanh and sigmoid, each one loop over the activations instead of
# three ops with two temporaries (see ops/elementwise.py).
@_kernel
def _relu_grad(dy, x, out):
    for i in prange(out.size):
        out[i] = item(dy, i) if item(x, i) > 0 else 0


@_kernel
def _tanh_grad(dy, y, out):
    for i in prange(out.size):
        out[i] = item(dy, i) * (1 - item(y, i) * item(y, i))


@_kernel
def _sigmoid_grad(dy, y, out):
    for i in prange(out.size):
        out[i] = item(dy, i) * item(y, i) * (1 - item(y, i))


# ----------------------------------------------------------------------------- ternary
@_kernel
def _where(cond, x, y, out):
    for i in prange(out.size):
        out[i] = item(x, i) if item(cond, i) else item(y, i)


# ----------------------------------------------------------------------------- registration
def _runner(name, kernel, numpy_fn, out_dtype=None):
    """The kernel function ``name(*operands)``: ``kernel`` for real sizes, ``numpy_fn`` for tiny ones."""
    out_dtype = None if out_dtype is None else np.dtype(out_dtype)

    # The per-op fast path for tiny tensors: NumPy, nothing else. Every other size goes through
    # run_elementwise, which decides between NumPy and the numba loop (see broadcast.py). One
    # function per arity, because ``numpy_fn(*operands)`` costs more than the addition it computes.
    # NumPy gives a scalar for 0-d inputs; a dtype that is not the expected one goes the long way.
    def run_unary(x, into=None):
        if x.size < SMALL_SIZE:
            result = numpy_fn(x)
            if type(result) is not np.ndarray:
                result = np.asarray(result)
            if result.dtype is (x.dtype if out_dtype is None else out_dtype):
                return result
        return run_elementwise(kernel, numpy_fn, x, out_dtype=out_dtype, into=into)

    def run_binary(a, b, into=None):
        if a.size < SMALL_SIZE and a.shape == b.shape:
            result = numpy_fn(a, b)
            if type(result) is not np.ndarray:
                result = np.asarray(result)
            if result.dtype is (a.dtype if out_dtype is None else out_dtype):
                return result
        return run_elementwise(kernel, numpy_fn, a, b, out_dtype=out_dtype, into=into)

    def run_ternary(*operands):
        return run_elementwise(kernel, numpy_fn, *operands, out_dtype=out_dtype)

    arity = kernel.py_func.__code__.co_argcount - 1   # the kernel's inputs, without ``out``
    run = {1: run_unary, 2: run_binary, 3: run_ternary}[arity]
    run.__name__ = run.__qualname__ = name
    return run


def _register(name, kernel, numpy_fn, out_dtype=None):
    register_kernel(name, "cpu")(_runner(name, kernel, numpy_fn, out_dtype))


for _name, _kern, _np_fn in [
    ("negative", _negative, np.negative),
    ("abs", _abs, np.abs),
    ("sign", _sign, np.sign),
    ("square", _square, np.square),
    ("sqrt", _sqrt, np.sqrt),
    ("rsqrt", _rsqrt, lambda x: 1 / np.sqrt(x)),
    ("reciprocal", _reciprocal, np.reciprocal),
    ("exp", _exp, np.exp),
    ("log", _log, np.log),
    ("log1p", _log1p, np.log1p),
    ("expm1", _expm1, np.expm1),
    ("sin", _sin, np.sin),
    ("cos", _cos, np.cos),
    ("tanh", _tanh, np.tanh),
    ("sigmoid", _sigmoid, lambda x: np.exp(-np.logaddexp(0, -x))),   # stable in both tails
    ("softplus", _softplus, lambda x: np.logaddexp(0, x)),
    ("relu", _relu, lambda x: np.where(x < 0, 0, x)),
    ("add", _add, np.add),
    ("subtract", _subtract, np.subtract),
    ("multiply", _multiply, np.multiply),
    ("floordiv", _floordiv, np.floor_divide),
    ("mod", _mod, np.mod),
    ("pow", _pow, np.power),
    ("maximum", _maximum, np.maximum),
    ("minimum", _minimum, np.minimum),
    ("where", _where, np.where),
    ("relu_grad", _relu_grad, lambda dy, x: np.where(x > 0, dy, 0)),
    ("tanh_grad", _tanh_grad, lambda dy, y: dy * (1 - y * y)),
    ("sigmoid_grad", _sigmoid_grad, lambda dy, y: dy * y * (1 - y)),
]:
    _register(_name, _kern, _np_fn)

for _name, _kern, _np_fn in [
    ("logical_not", _logical_not, np.logical_not),
    ("isnan", _isnan, np.isnan),
    ("isfinite", _isfinite, np.isfinite),
    ("equal", _equal, np.equal),
    ("not_equal", _not_equal, np.not_equal),
    ("less", _less, np.less),
    ("less_equal", _less_equal, np.less_equal),
    ("greater", _greater, np.greater),
    ("greater_equal", _greater_equal, np.greater_equal),
    ("logical_and", _logical_and, np.logical_and),
    ("logical_or", _logical_or, np.logical_or),
    ("logical_xor", _logical_xor, np.logical_xor),
]:
    _register(_name, _kern, _np_fn, out_dtype=np.bool_)


_divide_floats = _runner("divide", _divide, np.true_divide)


@register_kernel("divide", "cpu")
def divide(a, b):
    """True division; integer inputs give float64, as in NumPy and tf.math.divide."""
    if a.dtype.kind in "iub":
        return run_elementwise(_divide, np.true_divide, a, b, out_dtype=np.dtype(np.float64))
    return _divide_floats(a, b)


@register_kernel("leaky_relu", "cpu")
def leaky_relu(x, alpha=0.2):
    return run_elementwise(_leaky_relu, lambda v, a: np.where(v >= 0, v, a * v), x, attrs=(alpha,))
