"""``me.math``: the elementwise and reduction ops under their TensorFlow ``tf.math`` names."""
from .ops.elementwise import (  # noqa: F401
    abs, add, add_n, ceil, cos, divide, divide_no_nan, equal, erf, exp, expm1, floor, floordiv, floormod, greater,
    greater_equal, is_finite, is_inf, is_nan, less, less_equal, log, log1p, logical_and, logical_not, logical_or,
    logical_xor, maximum, minimum, mod, multiply, negative, not_equal, pow, reciprocal, round, rsqrt, sigmoid, sign,
    sin, softplus, sqrt, square, squared_difference, subtract, tanh, truediv, xlogy)
from .ops.linalg import norm  # noqa: F401
from .ops.normalization import l2_normalize  # noqa: F401
from .ops.reductions import (  # noqa: F401
    argmax, argmin, count_nonzero, cumsum, reduce_all, reduce_any, reduce_euclidean_norm, reduce_logsumexp,
    reduce_max, reduce_mean, reduce_min, reduce_prod, reduce_std, reduce_sum, reduce_variance)
from .ops.nn import log_softmax, softmax  # noqa: F401
from .ops.sorting import argsort, sort  # noqa: F401
from .ops.reductions import cumprod  # noqa: F401
from .ops.segments import segment_sum, unsorted_segment_sum  # noqa: F401
from .ops.sorting import top_k  # noqa: F401


def __getattr__(name):
    from ._hints import missing
    raise missing(__name__, name)   # a TF name minieager lacks: say what to use instead
