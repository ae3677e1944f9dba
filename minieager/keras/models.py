"""``me.keras.models``: ``Sequential``, ``Model`` and ``load_model`` (the ``.keras`` files ``Model.save`` writes)."""
from ..nn.models import Model, Sequential  # noqa: F401
from .saving import load_model, save_model  # noqa: F401


def __getattr__(name):
    from .._hints import missing
    raise missing(__name__, name)   # a TF name minieager lacks: say what to use instead
