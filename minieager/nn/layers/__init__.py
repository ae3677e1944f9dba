"""``me.layers`` (also ``me.keras.layers``): the Layer base class and the built-in layers."""
from .base import InputSpec, Layer  # noqa: F401
from ..functional import Input  # noqa: F401  (keras.layers.Input, as Keras)
from .conv import Conv2D, Convolution2D  # noqa: F401
from .core import Activation, Dense, Dropout, Embedding, Flatten, Lambda, ReLU, Rescaling, Softmax  # noqa: F401
from .merging import (  # noqa: F401
    Add, Average, Concatenate, Maximum, Minimum, Multiply, Subtract, add, average, concatenate, maximum, minimum,
    multiply, subtract)
from .normalization import BatchNormalization, LayerNormalization  # noqa: F401
from .pooling import (  # noqa: F401
    AveragePooling2D, AvgPool2D, GlobalAveragePooling2D, GlobalAvgPool2D, MaxPool2D, MaxPooling2D)
from .reshaping import Permute, RepeatVector, Reshape  # noqa: F401


def __getattr__(name):
    from ..._hints import missing
    raise missing(__name__, name)   # a TF name minieager lacks: say what to use instead
