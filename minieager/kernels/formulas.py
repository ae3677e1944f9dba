"""Every elementwise op's formula, written once: what it computes from one element of each operand.

Each function below takes scalars and returns a scalar, and is the only place its op's formula
is written. Three backends compile these same functions, each with numba:

* the CPU loops (``cpu/loops/elementwise.py``): ``njit(inline="always")`` makes each formula
  part of a loop ``for i in prange(out.size): out[i] = formula(x[i])`` (``cpu/loops/scalar.py``);
* graph mode's fused kernels (``graph/passes/fused.py``) call those same compiled formulas, one
  line per fused op;
* the CUDA kernels (``cuda/elementwise.py``): ``numba.cuda.jit(device=True)`` compiles them into
  device functions, which every GPU thread calls on its element.

Only NumPy's path, which computes tiny tensors with NumPy's own functions (``cpu/elementwise.py``),
does not use them.

``math`` in a formula is the backend's math library, swapped in by ``with_math`` when a backend
compiles the formula: ``cpu/loops/cpumath.py`` on the CPU (exp and tanh that vectorise, libm for
the rest) and ``cuda/devmath.py`` on a GPU (CUDA's libdevice). Called by hand, a formula uses
Python's ``math``, which raises where the backends give inf or nan: ``formulas.sigmoid(0.5)``.

What keeps the backends in step with each other and with NumPy:

* a formula calls only ``math.*`` and Python's ``abs`` and ``max``, never another formula, so
  that swapping ``math`` is all a backend has to do;
* the result is converted to the output's dtype when it is stored (``out[i] = ...``): float32
  operands may be computed in float64 inside (sigmoid, softplus: ``math.exp`` of the CPU returns
  a float64), and comparisons return a bool;
* nan goes through: only maximum and minimum test for it (``a != a``), where nan must win.

This module imports neither numba nor anything of minieager: ``import minieager`` does not
compile (or import) numba, and a learner can read this file alone.
"""
import hashlib
import math
import types


# ----------------------------------------------------------------------------- one operand
def identity(x):
    """x itself: a float cast (the store converts it) and the CUDA layout maps (transpose, broadcast_to)."""
    return x


def negative(x):
    return -x


def absolute(x):
    """|x| (NumPy's name: ``abs`` would hide Python's abs, which the formulas use)."""
    return abs(x)


def sign(x):
    return 1 if x > 0 else (-1 if x < 0 else x)   # 0 -> 0 (-0.0 stays -0.0), nan -> nan


def square(x):
    return x * x


def sqrt(x):
    return math.sqrt(x)


def rsqrt(x):
    return 1 / math.sqrt(x)


def reciprocal(x):
    return 1 / x


def exp(x):
    return math.exp(x)


def log(x):
    return math.log(x)


def log1p(x):
    return math.log1p(x)


def expm1(x):
    return math.expm1(x)


def sin(x):
    return math.sin(x)


def cos(x):
    return math.cos(x)


def tanh(x):
    return math.tanh(x)


def sigmoid(x):
    """1 / (1 + exp(-x)), computed so that neither tail goes wrong.

    With e = exp(-|x|) <= 1 neither branch can overflow, and e / (1 + e) keeps full relative
    precision for very negative x, where 1 - 1 / (1 + exp(x)) would round to 0.
    """
    e = math.exp(-abs(x))
    return 1 / (1 + e) if x >= 0 else e / (1 + e)


def softplus(x):
    """log(1 + exp(x)) = max(x, 0) + log1p(exp(-|x|)): exp cannot overflow for large x."""
    return max(x, 0) + math.log1p(math.exp(-abs(x)))


def relu(x):
    return 0 if x < 0 else x   # nan stays nan


def leaky_relu(x, alpha):
    return x if x >= 0 else alpha * x


def erf(x):
    return math.erf(x)


def logical_not(x):
    return not x


def isnan(x):
    return math.isnan(x)


def isfinite(x):
    return math.isfinite(x)


# ----------------------------------------------------------------------------- two operands
def add(a, b):
    return a + b


def subtract(a, b):
    return a - b


def multiply(a, b):
    return a * b


def divide(a, b):
    return a / b   # x / 0 is +-inf (nan for 0 / 0): the backends compute IEEE division


def floordiv(a, b):
    """a // b rounded down, as Python and NumPy: -7 // 2 is -4.

    ``math.floordiv`` is ``//`` except in one integer case, where the CPU backend differs from
    NumPy (see cpu/loops/cpumath.py); Python's own math module has no floordiv, so use ``//``
    to try this one by hand.
    """
    return math.floordiv(a, b)


def mod(a, b):
    return a % b   # the sign of the divisor, like Python and NumPy; integer % 0 gives 0


def power(a, b):
    """a ** b (NumPy's name: ``pow`` would hide Python's)."""
    return a ** b


def maximum(a, b):
    return a if (a > b or a != a) else b   # a != a: a is nan, and nan wins; a tie gives b, as NumPy


def minimum(a, b):
    return a if (a < b or a != a) else b


def equal(a, b):
    return a == b


def not_equal(a, b):
    return a != b


def less(a, b):
    return a < b


def less_equal(a, b):
    return a <= b


def greater(a, b):
    return a > b


def greater_equal(a, b):
    return a >= b


def logical_and(a, b):
    return a and b


def logical_or(a, b):
    return a or b


def logical_xor(a, b):
    return a != b


# The backward passes of relu, tanh and sigmoid: one pass over the activations instead of three
# ops with two temporaries (see ops/elementwise.py).
def relu_grad(dy, x):
    return dy if x > 0 else 0


def tanh_grad(dy, y):
    return dy * (1 - y * y)


def sigmoid_grad(dy, y):
    return dy * y * (1 - y)


# ----------------------------------------------------------------------------- three operands
def where(cond, x, y):
    return x if cond else y


# ----------------------------------------------------------------------------- for the backends
FORMULAS = [identity, negative, absolute, sign, square, sqrt, rsqrt, reciprocal, exp, log, log1p, expm1,
            sin, cos, tanh, sigmoid, softplus, relu, leaky_relu, erf, logical_not, isnan, isfinite,
            add, subtract, multiply, divide, floordiv, mod, power, maximum, minimum, equal, not_equal,
            less, less_equal, greater, greater_equal, logical_and, logical_or, logical_xor,
            relu_grad, tanh_grad, sigmoid_grad, where]

# op name -> its formula: the formula's own name, but for abs and pow (see above) and for the ops
# that compute another op's formula.
OPS = {f.__name__: f for f in FORMULAS if f not in (identity, absolute, power)}
OPS.update({"abs": absolute, "pow": power, "bias_add": add, "cast": identity})


def with_math(formula, math_module):
    """``formula`` reading ``math_module`` where its source says ``math``.

    The same code object with other globals: numba compiles the function it is given from its
    bytecode, and looks its global names up in ``__globals__`` as it compiles. So the formula
    stays one function, and each backend compiles it with its own math library.
    """
    namespace = dict(formula.__globals__, math=math_module)
    function = types.FunctionType(formula.__code__, namespace, formula.__name__, formula.__defaults__)
    function.__qualname__, function.__doc__ = formula.__qualname__, formula.__doc__
    return function


# The formulas whose CPU loops are compiled with fastmath={"contract"} (one FMA for a * b + c inside
# the formula: their polynomials, cpu/loops/vecmath.py); a fused kernel calls them compiled the same way.
CONTRACT = ("exp", "tanh", "sigmoid", "softplus")


def compile_all(jit, math_module, names=None):
    """``{name: jit(formula with math_module)}`` for every formula, or those in ``names``."""
    return {f.__name__: jit(with_math(f, math_module)) for f in FORMULAS if names is None or f.__name__ in names}


def source_digest(*paths):
    """A short hash of this file's source and of the files at ``paths`` (a backend's math): compiled
    code that carries it in its name is compiled again after a formula is edited (cpu/loops/scalar.py)."""
    digest = hashlib.sha1()
    for path in (__file__,) + paths:
        with open(path, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()[:10]
