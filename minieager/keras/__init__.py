"""``me.keras``: the ``tf.keras`` module layout, as real modules over minieager's own pieces.

    from minieager.keras.layers import Dense          # as `from tensorflow.keras.layers import Dense`
    model = me.keras.models.Sequential([Dense(10)])

Each submodule re-exports the pieces that live elsewhere (layers, models and training in
``minieager/nn``), so ``me.keras.layers.Dense is me.layers.Dense``; what only Keras has
(``models.load_model``, ``saving``, ``datasets``, ``backend``) is written here.
"""
from . import (activations, backend, callbacks, datasets, initializers, layers, losses, metrics, models,  # noqa: F401
               optimizers, saving, utils)
from ..nn.functional import Input  # noqa: F401
from ..nn.models import Model, Sequential  # noqa: F401


def __getattr__(name):
    from .._hints import missing
    raise missing(__name__, name)   # a TF name minieager lacks: say what to use instead
