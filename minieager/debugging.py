"""``me.debugging``: catch NaN and Inf where they first appear."""
import numpy as np

from .engine import recording
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
