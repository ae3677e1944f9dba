"""``me.keras``: the ``tf.keras`` names the guide uses, pointing at minieager's own pieces.

``me.keras.layers.Dense`` is ``me.layers.Dense``, ``me.keras.Sequential`` is ``me.Sequential``, and so on.
"""
from types import SimpleNamespace

from .nn import activations, initializers, layers, losses, metrics, optimizers  # noqa: F401
from .nn.layers.base import clear_session
from .nn.models import Model, Sequential  # noqa: F401
from .nn import callbacks, utils  # noqa: F401
from .nn.functional import Input  # noqa: F401

backend = SimpleNamespace(clear_session=clear_session)


def __getattr__(name):
    from ._hints import missing
    raise missing(__name__, name)   # a TF name minieager lacks: say what to use instead
