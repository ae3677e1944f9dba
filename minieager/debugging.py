"""``me.debugging``: catch NaN and Inf where they first appear; assert_equal and the other checks of values."""
import numpy as np

from .engine import dtypes, recording
from .engine.tensor import Tensor
from .errors import InvalidArgumentError
from .graph.effects import Assert  # noqa: F401
from .ops.creation import convert_to_tensor
from .ops.shape import identity


def check_numerics(tensor, message, name=None):
    """``tensor`` unchanged, or an InvalidArgumentError with ``message`` if it holds NaN or Inf."""
    t = convert_to_tensor(tensor)
    value = t._host()
    if t.dtype.is_floating and not np.isfinite(value).all():
        bad = "NaN" if np.isnan(value).any() else "Inf"
        raise InvalidArgumentError(f"{message} : Tensor had {bad} values (shape {tuple(t.shape)}).")
    return identity(t)


def enable_check_numerics():
    """From now on, every op checks its outputs and raises at the first NaN or Inf, naming the op."""
    recording.check_numerics = True


def disable_check_numerics():
    recording.check_numerics = False


def _assert_compare(kind, holds, x, y, message, summarize):
    """Raise InvalidArgumentError, as TF's assert_* ops, unless ``holds(x, y)`` for every element. Inside
    me.function the check is a py_function node: it runs on every call, on the values of that call."""
    x, y = convert_to_tensor(x), convert_to_tensor(y) if isinstance(y, Tensor) else _like(y, x)
    if x.dtype is not y.dtype:
        raise InvalidArgumentError(f"{kind}: x is {x.dtype.name} but y is {y.dtype.name}; cast one first "
                                   f"(me.cast(y, me.{x.dtype.name})).")

    def check(a, b):
        a, b = np.asarray(a), np.asarray(b)
        try:
            ok = holds(a, b)
        except ValueError:
            raise InvalidArgumentError(f"{kind}: shapes {a.shape} and {b.shape} are incompatible.") from None
        if not np.all(ok):
            n = summarize or 3
            where = np.argwhere(~np.broadcast_to(ok, np.broadcast_shapes(a.shape, b.shape)))
            lines = [message] if message else []
            lines += [f"{kind}: condition {_CONDITIONS[kind]} did not hold.",
                      f"Indices of first {min(len(where), n)} different values:", str(where[:n]),
                      f"First {min(a.size, n)} elements of x:", str(a.ravel()[:n]),
                      f"First {min(b.size, n)} elements of y:", str(b.ravel()[:n])]
            raise InvalidArgumentError("\n".join(lines))
        return np.bool_(True)

    if recording.tracer() is not None:
        from .graph.effects import numpy_function    # the check runs when the graph runs
        numpy_function(check, [x, y], Tout=dtypes.bool_)
        return None
    check(x._host(), y._host())
    return None


def _like(value, x):
    from .ops._operands import _convert_like
    return _convert_like(value, x.dtype, x._device, "assert")


_CONDITIONS = {"assert_equal": "x == y", "assert_less": "x < y", "assert_greater": "x > y",
               "assert_less_equal": "x <= y", "assert_greater_equal": "x >= y"}


def assert_equal(x, y, message=None, summarize=None, name=None):
    """Raise InvalidArgumentError unless x == y everywhere (broadcasting), as ``tf.debugging.assert_equal``."""
    return _assert_compare("assert_equal", np.equal, x, y, message, summarize)


def assert_less(x, y, message=None, summarize=None, name=None):
    """Raise InvalidArgumentError unless x < y everywhere."""
    return _assert_compare("assert_less", np.less, x, y, message, summarize)


def assert_greater(x, y, message=None, summarize=None, name=None):
    """Raise InvalidArgumentError unless x > y everywhere."""
    return _assert_compare("assert_greater", np.greater, x, y, message, summarize)


def assert_less_equal(x, y, message=None, summarize=None, name=None):
    return _assert_compare("assert_less_equal", np.less_equal, x, y, message, summarize)


def assert_greater_equal(x, y, message=None, summarize=None, name=None):
    return _assert_compare("assert_greater_equal", np.greater_equal, x, y, message, summarize)
