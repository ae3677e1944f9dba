"""``me.io``: the ``tf.io`` names tutorials use on strings (``decode_raw``); defined with ``me.strings``
(``minieager/ops/strings.py``)."""
from .ops.strings import decode_raw  # noqa: F401


def __getattr__(name):
    from ._hints import missing
    raise missing(__name__, name)
