"""Elementwise kernels: which numba loop or NumPy function computes each op.

The loops themselves are in ``loops/elementwise.py``, one per op, each built from the op's
formula in ``kernels/formulas.py``; the NumPy functions below compute the same ops with NumPy's
own functions. ``broadcast.run_elementwise`` decides, per call, whether the loop or NumPy does
the work, and the tiny-tensor path below skips even that decision. Each op is registered with the name of its loop, which is looked up
only when the loop runs, so that an op that NumPy does alone never imports numba (see
``loops/__init__.py``).
"""
import numpy as np

from ..registry import register_kernel
from .broadcast import SMALL_SIZE, run_elementwise, upcast


# ----------------------------------------------------------------------------- registration
def _runner(name, arity, loop, numpy_fn, out_dtype=None):
    """The kernel function ``name(*operands)``: the loop named ``loop`` for real sizes, ``numpy_fn`` for tiny ones."""
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
        return run_elementwise(loop, numpy_fn, x, out_dtype=out_dtype, into=into)

    def run_binary(a, b, into=None):
        if a.size < SMALL_SIZE and a.shape == b.shape:
            result = numpy_fn(a, b)
            if type(result) is not np.ndarray:
                result = np.asarray(result)
            if result.dtype is (a.dtype if out_dtype is None else out_dtype):
                return result
        return run_elementwise(loop, numpy_fn, a, b, out_dtype=out_dtype, into=into)

    def run_ternary(*operands):
        return run_elementwise(loop, numpy_fn, *operands, out_dtype=out_dtype)

    run = {1: run_unary, 2: run_binary, 3: run_ternary}[arity]
    run.__name__ = run.__qualname__ = name
    return run


def _in_float32(numpy_fn):
    """``numpy_fn`` computed in float32 for float16 operands, as the numba loops compute it.

    For the formulas of several NumPy calls below: in float16 each step would round (``1 - y * y``
    overflows at |y| > 256), and the two paths of one op would disagree.
    """
    def run(*operands):
        return numpy_fn(*[upcast(a) for a in operands])
    return run


def _sigmoid(x):
    """1 / (1 + exp(-x)), written as the loop does: with e = exp(-|x|) nothing overflows, and e / (1 + e)
    keeps full precision for very negative x (exp(-logaddexp(0, -x)) lost 8 ulp there)."""
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def _erf(x):
    """erf from SciPy (NumPy has none), imported on the first call: SciPy takes a while to import."""
    from scipy.special import erf
    return erf(x)


def _leaky_relu(x, alpha):
    w = upcast(x)   # alpha in the compute dtype, as the loop gets it (float16's 0.2 is 0.19995)
    return np.where(w >= 0, w, w.dtype.type(alpha) * w)


# (op, the NumPy function that computes the same thing). Each op's loop in loops/elementwise.py
# has the name of its formula: the op's, but for the two that would hide a Python builtin.
_LOOP_NAMES = {"abs": "absolute", "pow": "power"}

_UNARY = [
    ("negative", np.negative),
    ("abs", np.abs),
    ("sign", np.sign),
    ("square", np.square),
    ("sqrt", np.sqrt),
    ("rsqrt", _in_float32(lambda x: 1 / np.sqrt(x))),
    ("reciprocal", np.reciprocal),
    ("exp", np.exp),
    ("log", np.log),
    ("log1p", np.log1p),
    ("expm1", np.expm1),
    ("sin", np.sin),
    ("cos", np.cos),
    ("tanh", np.tanh),
    ("sigmoid", _in_float32(_sigmoid)),
    ("softplus", _in_float32(lambda x: np.logaddexp(0, x))),
    ("relu", lambda x: np.where(x < 0, 0, x)),
    ("erf", _erf),
]
_BINARY = [
    ("add", np.add),
    ("subtract", np.subtract),
    ("multiply", np.multiply),
    ("floordiv", np.floor_divide),
    ("mod", np.mod),
    ("pow", np.power),
    ("maximum", np.maximum),
    ("minimum", np.minimum),
    ("relu_grad", lambda dy, x: np.where(x > 0, dy, 0)),
    ("tanh_grad", _in_float32(lambda dy, y: dy * (1 - y * y))),
    ("sigmoid_grad", _in_float32(lambda dy, y: dy * y * (1 - y))),
]
_UNARY_BOOL = [
    ("logical_not", np.logical_not),
    ("isnan", np.isnan),
    ("isfinite", np.isfinite),
]
_BINARY_BOOL = [
    ("equal", np.equal),
    ("not_equal", np.not_equal),
    ("less", np.less),
    ("less_equal", np.less_equal),
    ("greater", np.greater),
    ("greater_equal", np.greater_equal),
    ("logical_and", np.logical_and),
    ("logical_or", np.logical_or),
    ("logical_xor", np.logical_xor),
]
for _table, _arity, _out_dtype in [(_UNARY, 1, None), (_BINARY, 2, None),
                                   (_UNARY_BOOL, 1, np.bool_), (_BINARY_BOOL, 2, np.bool_),
                                   ([("where", np.where)], 3, None)]:
    for _name, _numpy_fn in _table:
        register_kernel(_name, "cpu")(_runner(_name, _arity, _LOOP_NAMES.get(_name, _name), _numpy_fn, _out_dtype))


# Rounding is exact in every dtype (float16 too) and one NumPy pass that only moves memory: a loop
# would gain nothing. round is np.rint: half to even (0.5 -> 0, 2.5 -> 2), as TF's Round.
def _rounding(ufunc):
    def run(x, into=None):
        return np.asarray(ufunc(x, out=into))   # np.asarray: a 0-d input gives a NumPy scalar
    return run


for _name, _ufunc in [("floor", np.floor), ("ceil", np.ceil), ("round", np.rint)]:
    register_kernel(_name, "cpu")(_rounding(_ufunc))

_divide_floats = _runner("divide", 2, "divide", np.true_divide)


@register_kernel("divide", "cpu")
def divide(a, b):
    """True division; integer inputs give float64, as in NumPy and tf.math.divide."""
    if a.dtype.kind in "iub":
        return run_elementwise("divide", np.true_divide, a, b, out_dtype=np.dtype(np.float64))
    return _divide_floats(a, b)


@register_kernel("leaky_relu", "cpu")
def leaky_relu(x, alpha=0.2):
    return run_elementwise("leaky_relu", _leaky_relu, x, attrs=(alpha,))
