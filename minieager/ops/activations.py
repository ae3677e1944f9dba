"""Activations built from other ops: relu6, elu, selu, gelu and silu (swish), with TF's formulas.

Each one is a composition, so its gradient comes from the ops it is made of. Where ``where`` picks
between two branches, the branch it leaves out must stay finite: its gradient is multiplied by 0,
and 0 * inf is nan. So elu's exp(x) - 1 is computed on min(x, 0), never on a large x.
"""
import math

from ..errors import InvalidArgumentError
from ..engine.tensor import Tensor
from . import _args
from . import elementwise as ew
from ._operands import check_float, operands
from .creation import convert_to_tensor

# SELU's constants (Klambauer et al., 2017), the values TF uses.
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _floats(op_name, features):
    x = convert_to_tensor(features)
    check_float(op_name, x)
    return x


def relu6(features, name=None):
    """min(max(x, 0), 6)."""
    x = _floats("relu6", features)
    # 6 first: at x == 6 minimum sends the gradient to its first argument, so x gets 0 there, as
    # from TF's Relu6Grad (dy where 0 < x < 6).
    return ew.minimum(6.0, ew.relu(x))


def _exp_minus_one(x):
    """exp(x) - 1 where x <= 0, and 0 where x > 0 (the branch elu and selu do not pick there)."""
    return ew.expm1(ew.minimum(x, 0.0))


def elu(features, name=None):
    """x where x > 0, else exp(x) - 1."""
    x = _floats("elu", features)
    return ew.where(ew.greater(x, 0.0), x, _exp_minus_one(x))


def selu(features, name=None):
    """scale * x where x > 0, else scale * alpha * (exp(x) - 1), with SELU's alpha and scale."""
    x = _floats("selu", features)
    negative_part = ew.multiply(_exp_minus_one(x), _SELU_ALPHA)
    return ew.multiply(ew.where(ew.greater(x, 0.0), x, negative_part), _SELU_SCALE)


def gelu(features, approximate=False, name=None):
    """x * P(X <= x) for a standard normal X: 0.5 x (1 + erf(x / sqrt(2))). With approximate=True,
    TF's tanh form: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))."""
    x = _floats("gelu", features)
    if approximate:
        cubic = ew.add(x, ew.multiply(ew.multiply(ew.square(x), x), 0.044715))
        bracket = ew.add(ew.tanh(ew.multiply(cubic, math.sqrt(2 / math.pi))), 1.0)
    else:
        bracket = ew.add(ew.erf(ew.divide(x, math.sqrt(2))), 1.0)
    return ew.multiply(ew.multiply(x, 0.5), bracket)


def silu(features, beta=1.0, name=None):
    """x * sigmoid(beta * x), the Sigmoid Linear Unit; TF's swish is the same function. ``beta`` is a
    number or a scalar tensor (a Variable, to learn it)."""
    x = _floats("silu", features)
    if not isinstance(beta, Tensor) and _args.number(beta, "silu", "beta") == 1:
        return ew.multiply(x, ew.sigmoid(x))
    x, beta = operands("silu", x, beta)   # a beta that does not fit x's dtype: an error naming silu
    if beta.shape != ():
        raise InvalidArgumentError(f"silu: beta must be a scalar, got a tensor of shape {tuple(beta.shape)}.")
    return ew.multiply(x, ew.sigmoid(ew.multiply(x, beta)))


swish = silu
