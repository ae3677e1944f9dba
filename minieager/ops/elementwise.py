"""Elementwise ops: each output element depends on the matching input elements only.

Each primitive is an ``Op`` carrying its forward formula and its gradient (VJP) next to each
other. VJPs are written with minieager ops, so a second tape can differentiate them again.
Broadcasting: a VJP may return a gradient of the broadcast output shape; the tape sums it back
to each input's shape (``ops/reductions.unbroadcast``).
"""
import math

import numpy as np

from ..engine import dtypes, temporaries
from ..engine.abstract import broadcast, broadcast_bool, dtype_attr, of, same
from ..engine.abstract import where as where_rule
from ..engine.device import to_host
from ..errors import DTypeError, InvalidArgumentError
from ..engine.op import Op, string_error
from ..engine.recording import tracing
from ..engine.temporaries import MIN_SIZE
from ..engine.tensor import Tensor
from . import _args
from ._operands import broadcast_shape, check_broadcast, check_float, check_not_bool, operands
from .creation import convert_to_tensor, ones_like, zeros_like


# ---- binary arithmetic ----------------------------------------------------------------
def _binary(op, arithmetic=True):
    """The checked function ``f(x, y)`` that runs the two-input ``op``, broadcasting x and y.

    ``arithmetic`` ops refuse bool tensors (comparisons take them). Every binary op's public
    function (``me.add``, ``me.less`` ...) is one of these, and its operator (``+``, ``<`` ...)
    is the twin in ``f.operator``; they differ in how they recognise a temporary operand whose
    array the result may overwrite (arithmetic only, see ``engine/temporaries.py``). The common
    case, two tensors of one dtype and shape, runs four tests before the op itself. Checks of
    values (integer division by zero) are the op's own (``Op.check``): they run with the kernel.
    """
    assert op.num_outputs == 1, "Op.binary wraps one output"
    name = op.name
    bool_, string_ = dtypes.bool_, dtypes.string
    run = op.binary

    def make(temporary):
        def apply(x, y, name=None):
            if type(x) is not Tensor or type(y) is not Tensor or x._dtype is not y._dtype:
                x, y = operands(op.name, x, y)   # scalars, arrays, variables, mixed dtypes
            if arithmetic and x._dtype is bool_:
                check_not_bool(op.name, x)
            elif x._dtype is string_:
                return _string_binary(op, x, y)
            if x._value.shape != y._value.shape:
                check_broadcast(op.name, x, y)
            if arithmetic and not tracing and x._value.size >= MIN_SIZE:   # (a trace's sizes may be None)
                into = temporary(x)
                if into is None and y._value.size >= MIN_SIZE:
                    into = temporary(y)
                if into is not None:
                    return op(x, y, into=into)
            return run(x, y)
        apply.__name__ = apply.__qualname__ = name
        apply.__doc__ = f"Elementwise {op.formula}, broadcasting x and y." if arithmetic else \
            f"Elementwise {name}, returning a bool tensor."
        return apply

    function = make(temporaries.argument)
    function.operator = make(temporaries.operand)
    return function


# == and != of string tensors compare the bytes (NumPy, kernels/cpu/strings.py); every other binary op
# refuses strings, naming itself.
_STRING_COMPARISONS = {
    "equal": Op("string_equal", ("a", "b"), "a == b (strings)", strings=True, shape_rule=broadcast_bool),
    "not_equal": Op("string_not_equal", ("a", "b"), "a != b (strings)", strings=True, shape_rule=broadcast_bool),
}


def _string_binary(op, x, y):
    compare = _STRING_COMPARISONS.get(op.name)
    if compare is None:
        raise string_error(op.name)
    if x._value.shape != y._value.shape:
        check_broadcast(op.name, x, y)
    return compare(x, y)


def _selective(grad_a, grad_b):
    """A VJP from the two gradient formulas that runs only the ones the backward pass needs.

    ``x * w`` with a constant ``x`` (the data) needs no gradient for ``x``: skipping it saves a
    whole op per step (see ``Op.selective``).
    """
    def vjp(dy, a, b, out, needs):
        return (grad_a(dy, a, b, out) if needs[0] else None,
                grad_b(dy, a, b, out) if needs[1] else None)
    return vjp


def _pow_grad_b(dy, a, b, out):
    # d(a^b)/db = a^b * log(a), defined where a > 0 (TF uses the same convention: 0 elsewhere).
    safe_log = log(where(greater(a, 0), a, ones_like(a)))
    return multiply(dy, multiply(out, safe_log))


def _integer_divisor(op_name):
    """A value check: an integer divisor has no zeros (TF raises there; NumPy would give 0 and warn)."""
    def check(x, y):
        if y.dtype.kind in "iu" and y.size:
            divisor = to_host(y)
            if not divisor.all():
                where = np.unravel_index(int(np.argmin(divisor != 0)), divisor.shape)
                raise InvalidArgumentError(
                    f"{op_name}: integer division by zero ({x.dtype.name} {tuple(x.shape)} by {y.dtype.name} "
                    f"{tuple(y.shape)}, which is 0 at index {tuple(int(i) for i in where)}). Replace the zeros "
                    f"first (me.where(y == 0, 1, y)), or divide as floats: x / y gives inf.")
    return check


def _integer_power(x, y):
    """A value check: integers to negative integer powers are refused, as in TF."""
    if y.dtype.kind in "iu" and y.size and to_host(y).min() < 0:
        raise InvalidArgumentError(
            "pow: integers to negative integer powers are not allowed (as in TensorFlow). "
            "Cast to a float first, e.g. me.cast(x, me.float32) ** -1.")


_add = Op("add", ("a", "b"), "a + b", ("dy", "dy"), vjp=lambda dy, a, b, out: (dy, dy), shape_rule=broadcast)
_subtract = Op("subtract", ("a", "b"), "a - b", ("dy", "-dy"), selective=True, vjp=_selective(
    lambda dy, a, b, out: dy,
    lambda dy, a, b, out: negative(dy)), shape_rule=broadcast)
_multiply = Op("multiply", ("a", "b"), "a * b", ("dy * b", "dy * a"), selective=True, vjp=_selective(
    lambda dy, a, b, out: multiply(dy, b),
    lambda dy, a, b, out: multiply(dy, a)), shape_rule=broadcast)
_divide = Op("divide", ("a", "b"), "a / b", ("dy / b", "-dy * a / b^2"), selective=True, vjp=_selective(
    lambda dy, a, b, out: divide(dy, b),
    lambda dy, a, b, out: negative(multiply(dy, divide(out, b)))), shape_rule=broadcast)
_floordiv = Op("floordiv", ("a", "b"), "a // b", shape_rule=broadcast, check=_integer_divisor("floordiv"))
_mod = Op("mod", ("a", "b"), "a % b", ("dy", "-dy * floor(a / b)"), selective=True, vjp=_selective(
    lambda dy, a, b, out: dy,
    lambda dy, a, b, out: negative(multiply(dy, floordiv(a, b)))),
          shape_rule=broadcast, check=_integer_divisor("mod"))
_pow = Op("pow", ("a", "b"), "a ^ b", ("dy * b * a^(b-1)", "dy * a^b * log(a)"), selective=True, vjp=_selective(
    lambda dy, a, b, out: multiply(dy, multiply(b, pow(a, subtract(b, 1)))),
    _pow_grad_b), shape_rule=broadcast, check=_integer_power)

# At ties (a == b) maximum sends the whole gradient to a, as TensorFlow does.
_maximum = Op("maximum", ("a", "b"), "max(a, b)", ("dy * (a >= b)", "dy * (a < b)"), selective=True, vjp=_selective(
    lambda dy, a, b, out: multiply(dy, cast(greater_equal(a, b), dy.dtype)),
    lambda dy, a, b, out: multiply(dy, cast(less(a, b), dy.dtype))), shape_rule=broadcast)
_minimum = Op("minimum", ("a", "b"), "min(a, b)", ("dy * (a <= b)", "dy * (a > b)"), selective=True, vjp=_selective(
    lambda dy, a, b, out: multiply(dy, cast(less_equal(a, b), dy.dtype)),
    lambda dy, a, b, out: multiply(dy, cast(greater(a, b), dy.dtype))), shape_rule=broadcast)


add = _binary(_add)
subtract = _binary(_subtract)
multiply = _binary(_multiply)


floordiv = _binary(_floordiv)
mod = _binary(_mod)
maximum = _binary(_maximum)
minimum = _binary(_minimum)
_checked_divide = _binary(_divide)
_checked_pow = _binary(_pow)
floormod = mod


def divide(x, y, name=None):
    """True division. Integer tensors are divided as floats (int32 -> float64, as in TF)."""
    x, y = operands("divide", x, y)
    check_not_bool("divide", x)
    if x.dtype.is_integer:
        wide = dtypes.float32 if x.dtype is dtypes.uint8 else dtypes.float64
        x, y = cast(x, wide), cast(y, wide)
    return _checked_divide(x, y)


truediv = divide


def pow(x, y, name=None):  # noqa: A001 (TF's name)
    x, y = operands("pow", x, y)
    return _checked_pow(x, y)


def squared_difference(x, y, name=None):
    """(x - y)^2, elementwise, broadcasting x and y."""
    x, y = operands("squared_difference", x, y)
    check_not_bool("squared_difference", x)
    check_broadcast("squared_difference", x, y)
    return square(subtract(x, y))


def _float_pair(op_name, x, y):
    x, y = operands(op_name, x, y)
    check_float(op_name, x)
    check_broadcast(op_name, x, y)
    return x, y


def divide_no_nan(x, y, name=None):
    """x / y, and 0 where y == 0 (even where x is inf or nan), as tf.math.divide_no_nan."""
    x, y = _float_pair("divide_no_nan", x, y)
    # Divide 0 by 1 where y == 0 rather than mask x / y afterwards: then no inf or nan is ever
    # computed, so none can reach the gradients (where's VJP would multiply it by 0: nan).
    zero = equal(y, 0)
    return divide(where(zero, zeros_like(x), x), where(zero, ones_like(y), y))


def xlogy(x, y, name=None):
    """x * log(y), and 0 where x == 0 (even where y is 0 or nan), as tf.math.xlogy."""
    x, y = _float_pair("xlogy", x, y)
    # log(1) = 0 where x == 0: no -inf or nan is computed there, and both gradients are 0 there, as
    # TF's (d/dx is log(y) only where x != 0).
    return multiply(x, log(where(equal(x, 0), ones_like(y), y)))


def add_n(inputs, name=None):
    """The elementwise sum of a list of tensors of one shape and dtype (no broadcasting, as in TF)."""
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise InvalidArgumentError(f"add_n: inputs must be a non-empty list of tensors, got {inputs!r:.80}.")
    tensors = operands("add_n", *inputs)
    check_not_bool("add_n", tensors[0])
    shapes = [tuple(t._value.shape) for t in tensors]
    if len(set(shapes)) > 1:
        raise InvalidArgumentError(
            f"add_n: inputs must all have the same shape (add_n does not broadcast), got shapes "
            f"{', '.join(map(str, shapes))}. Broadcast them first (me.broadcast_to), or add them with +.")
    total = tensors[0]
    for t in tensors[1:]:
        total = add(total, t)
    return total


# ---- comparisons and logic (no gradients) ------------------------------------------------------
def _comparison(name):
    return _binary(Op(name, ("a", "b"), shape_rule=broadcast_bool), arithmetic=False)


equal = _comparison("equal")
not_equal = _comparison("not_equal")
less = _comparison("less")
less_equal = _comparison("less_equal")
greater = _comparison("greater")
greater_equal = _comparison("greater_equal")


def _logical(name):
    checked = _binary(Op(name, ("a", "b"), shape_rule=broadcast_bool), arithmetic=False)

    def logic(x, y, name=None):
        x, y = operands(checked.__name__, x, y)
        if not x.dtype.is_bool:
            raise DTypeError(f"{checked.__name__} works on bool tensors, got {x.dtype.name}. "
                            f"Compare first (x > 0) or cast with me.cast(x, me.bool).")
        return checked(x, y)
    logic.__name__ = logic.__qualname__ = checked.__name__
    logic.__doc__ = f"Elementwise {checked.__name__} of two bool tensors."
    return logic


logical_and = _logical("logical_and")
logical_or = _logical("logical_or")
logical_xor = _logical("logical_xor")
_logical_not = Op("logical_not", ("x",), shape_rule=same)


def logical_not(x, name=None):
    x = convert_to_tensor(x)
    if not x.dtype.is_bool:
        raise DTypeError(f"logical_not (~) works on bool tensors, got {x.dtype.name}.")
    return _logical_not(x)


# ---- unary math -----------------------------------------------------------------------------
def _unary(name, formula, grad, vjp, float_only=True):
    """Define a one-input op and its public function (``me.exp``, ``me.tanh`` ...)."""
    op = Op(name, ("x",), formula, (grad,), vjp=vjp, shape_rule=same)

    def apply(x, name=None):
        x = convert_to_tensor(x)
        if float_only:
            check_float(op.name, x)
        else:
            check_not_bool(op.name, x)
        if x._value.size is not None and x._value.size >= MIN_SIZE:   # (None: an unknown size, tracing)
            into = temporaries.argument(x)   # x an unnamed result, as in me.tanh(x * w + b)?
            if into is not None:
                return op(x, into=into)
        return op(x)
    apply.__name__ = name
    apply.__doc__ = f"Elementwise {formula}."
    apply.op = op
    return apply


negative = _unary("negative", "-x", "-dy", lambda dy, x, out: (negative(dy),), float_only=False)
abs = _unary("abs", "|x|", "dy * sign(x)", lambda dy, x, out: (multiply(dy, sign(x)),), float_only=False)  # noqa: A001
sign = _unary("sign", "sign(x)", "0", lambda dy, x, out: (zeros_like(dy),), float_only=False)
square = _unary("square", "x^2", "dy * 2x", lambda dy, x, out: (multiply(dy, multiply(x, 2)),), float_only=False)
sqrt = _unary("sqrt", "sqrt(x)", "dy / (2 sqrt(x))", lambda dy, x, out: (divide(dy, multiply(out, 2)),))
rsqrt = _unary("rsqrt", "1/sqrt(x)", "-dy / (2 x^1.5)",
               lambda dy, x, out: (multiply(dy, multiply(pow(out, 3), -0.5)),))
reciprocal = _unary("reciprocal", "1/x", "-dy / x^2", lambda dy, x, out: (negative(multiply(dy, square(out))),))
exp = _unary("exp", "exp(x)", "dy * exp(x)", lambda dy, x, out: (multiply(dy, out),))
log = _unary("log", "log(x)", "dy / x", lambda dy, x, out: (divide(dy, x),))
log1p = _unary("log1p", "log(1 + x)", "dy / (1 + x)", lambda dy, x, out: (divide(dy, add(x, 1)),))
expm1 = _unary("expm1", "exp(x) - 1", "dy * exp(x)", lambda dy, x, out: (multiply(dy, add(out, 1)),))
sin = _unary("sin", "sin(x)", "dy * cos(x)", lambda dy, x, out: (multiply(dy, cos(x)),))
cos = _unary("cos", "cos(x)", "-dy * sin(x)", lambda dy, x, out: (negative(multiply(dy, sin(x))),))
tanh = _unary("tanh", "tanh(x)", "dy * (1 - tanh(x)^2)", lambda dy, x, out: (tanh_grad(dy, out),))
sigmoid = _unary("sigmoid", "sigmoid(x)", "dy * s * (1 - s)", lambda dy, x, out: (sigmoid_grad(dy, out),))
# relu's gradient reads its output, as TF's ReluGrad does (out > 0 exactly where x > 0, nan
# included): then nothing needs x after the forward pass, so graph mode can fuse the bias_add
# that makes x into the same pass as relu (or into the convolution before it) and never store x.
relu = _unary("relu", "relu(x)", "dy * (x > 0)", lambda dy, x, out: (relu_grad(dy, out),))
softplus = _unary("softplus", "log(1 + exp(x))", "dy * sigmoid(x)", lambda dy, x, out: (multiply(dy, sigmoid(x)),))
erf = _unary("erf", "erf(x)", "dy * 2/sqrt(pi) * exp(-x^2)",
             lambda dy, x, out: (multiply(dy, multiply(exp(negative(square(x))), 2 / math.sqrt(math.pi))),))

# Rounding is piecewise constant: TF registers no gradient for it, so a tape gives None (not zeros).
floor = _unary("floor", "floor(x)", None, None)
ceil = _unary("ceil", "ceil(x)", None, None)
_round = _unary("round", "round(x), half to even", None, None)


def round(x, name=None):  # noqa: A001 (TF's name)
    """Round to the nearest integer, half to even (0.5 -> 0, 1.5 -> 2, as np.round and TF).
    Integer tensors are returned as they are, as TF does."""
    x = convert_to_tensor(x)
    return x if x.dtype.is_integer else _round(x)


# ---- activations' gradients, each one op ----------------------------------------------------
# The backward pass of relu, tanh and sigmoid as one fused op each (TensorFlow has ReluGrad,
# TanhGrad and SigmoidGrad for the same reason): one pass over the activations instead of three
# ops and two temporaries. Their own VJPs keep second derivatives working.
_relu_grad = Op("relu_grad", ("dy", "x"), "dy * (x > 0)", ("g * (x > 0)", None),
                vjp=lambda g, dy, x, out: (relu_grad(g, x), None), shape_rule=same)
_tanh_grad = Op("tanh_grad", ("dy", "y"), "dy * (1 - y^2)", ("g * (1 - y^2)", "-2 g dy y"),
                vjp=lambda g, dy, y, out: (tanh_grad(g, y), multiply(g, multiply(dy, multiply(y, -2)))),
                shape_rule=same)
_sigmoid_grad = Op("sigmoid_grad", ("dy", "y"), "dy * y * (1 - y)", ("g * y * (1 - y)", "g dy (1 - 2y)"),
                   vjp=lambda g, dy, y, out: (sigmoid_grad(g, y), multiply(g, multiply(dy, subtract(1, multiply(y, 2))))),
                   shape_rule=same)


def relu_grad(dy, x):
    """The gradient of relu at ``x`` times ``dy``: ``dy`` where ``x > 0``, else 0."""
    return _relu_grad(dy, x)


def tanh_grad(dy, y):
    """The gradient of tanh times ``dy``, from tanh's output ``y``: ``dy * (1 - y^2)``."""
    return _tanh_grad(dy, y)


def sigmoid_grad(dy, y):
    """The gradient of sigmoid times ``dy``, from sigmoid's output ``y``: ``dy * y * (1 - y)``."""
    return _sigmoid_grad(dy, y)


_leaky_relu = Op("leaky_relu", ("x",), "max(x, alpha x)", ("dy * (1 if x > 0 else alpha)",),
                 vjp=lambda dy, x, out, alpha: (where(greater(x, 0), dy, multiply(dy, alpha)),), shape_rule=same)


def leaky_relu(features, alpha=0.2, name=None):
    x = convert_to_tensor(features)
    check_float("leaky_relu", x)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.integer, np.floating)):
        raise InvalidArgumentError(f"leaky_relu: alpha must be a number, got {alpha!r:.80}.")
    return _leaky_relu(x, alpha=float(alpha))


_isnan, _isfinite = Op("isnan", ("x",), shape_rule=of(np.bool_)), Op("isfinite", ("x",), shape_rule=of(np.bool_))


def is_nan(x, name=None):
    x = convert_to_tensor(x)
    check_float("is_nan", x)
    return _isnan(x)


def is_finite(x, name=None):
    x = convert_to_tensor(x)
    check_float("is_finite", x)
    return _isfinite(x)


isnan, isfinite = is_nan, is_finite


def is_inf(x, name=None):
    """Elementwise: True where x is +inf or -inf."""
    x = convert_to_tensor(x)
    check_float("is_inf", x)
    return equal(abs(x), float("inf"))


# ---- selection and casting -------------------------------------------------------------------
_where = Op("where", ("cond", "x", "y"), "cond ? x : y", (None, "dy where cond", "dy where not cond"),
            vjp=lambda dy, c, x, y, out: (None, where(c, dy, zeros_like(dy)), where(c, zeros_like(dy), dy)),
            shape_rule=where_rule)


def where(condition, x=None, y=None, name=None):
    """Pick from ``x`` where ``condition`` is True, else from ``y`` (broadcasting all three)."""
    condition = convert_to_tensor(condition)
    if x is None and y is None:
        from .indexing import where_indices
        return where_indices(condition)
    if not condition.dtype.is_bool:
        raise DTypeError(f"where: condition must be a bool tensor, got {condition.dtype.name}.")
    x, y = operands("where", x, y)
    check_broadcast("where", condition, x, y)
    return _where(condition, x, y)


def _cast_vjp(dy, x, out, dtype):
    return (cast(dy, x.dtype) if x.dtype.is_floating else None,)


_cast = Op("cast", ("x",), "cast(x)", ("cast(dy) back to x's dtype",), vjp=_cast_vjp, shape_rule=dtype_attr)


def cast(x, dtype, name=None):
    """``x`` converted to ``dtype`` (floats to ints truncate toward zero, as in NumPy and TF)."""
    x = convert_to_tensor(x)
    dtype = _args.dtype(dtype, "cast")
    if x.dtype is dtype:
        return x
    return _cast(x, dtype=dtype)


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Clamp to ``[min, max]``; the gradient flows where ``min <= t <= max``."""
    t, low, high = operands("clip_by_value", t, clip_value_min, clip_value_max)
    check_not_bool("clip_by_value", t)
    if broadcast_shape(t._value.shape, low._value.shape, high._value.shape) != t._value.shape:
        raise InvalidArgumentError(
            f"clip_by_value: clip_value_min {tuple(low.shape)} and clip_value_max {tuple(high.shape)} must "
            f"broadcast to the shape of t {tuple(t.shape)}.")
    return maximum(minimum(t, high), low)
