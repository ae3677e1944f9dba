"""``me.keras.callbacks``: what ``fit`` calls as it trains (EarlyStopping, ModelCheckpoint, ...)."""
from ..nn.callbacks import (  # noqa: F401
    Callback, EarlyStopping, LearningRateScheduler, ModelCheckpoint, TensorBoard)
from ..nn.training import History  # noqa: F401


def __getattr__(name):
    from .._hints import missing
    raise missing(__name__, name)   # a TF name minieager lacks: say what to use instead
