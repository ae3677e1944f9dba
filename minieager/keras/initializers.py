"""``me.keras.initializers``: how layers fill their weights (the same objects as ``me.initializers``)."""
from ..nn.initializers import (  # noqa: F401
    Constant, GlorotNormal, GlorotUniform, HeNormal, HeUniform, Initializer, Ones, RandomNormal, RandomUniform,
    VarianceScaling, Zeros, get)


def __getattr__(name):
    from .._hints import missing
    raise missing(__name__, name)   # a TF name minieager lacks: say what to use instead
