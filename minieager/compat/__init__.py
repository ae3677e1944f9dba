"""``me.compat``: ``import minieager.compat.v1 as tf`` for TensorFlow 1 code (``v1``), as ``tensorflow.compat``.

A thin facade: the TF 1 graph names live in ``minieager/graph/compat/v1.py``; ``v1`` here forwards to
them and, for every other name (``tf.constant``, ``tf.matmul`` ...), to ``minieager`` itself.
"""
from . import v1  # noqa: F401


def __getattr__(name):
    from .._hints import missing
    raise missing(__name__, name)
