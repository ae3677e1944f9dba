"""``me.keras.optimizers``: SGD, Adam, RMSprop, Adagrad (the same objects as ``me.optimizers``)."""
from ..nn.optimizers import SGD, Adagrad, Adam, Optimizer, RMSprop, get  # noqa: F401


def __getattr__(name):
    from .._hints import missing
    raise missing(__name__, name)   # a TF name minieager lacks: say what to use instead
