"""``me.keras.layers``: the Layer base class and the built-in layers (the same objects as ``me.layers``)."""
from ..nn.functional import Input  # noqa: F401
from ..nn.layers import (  # noqa: F401
    Activation, Add, Average, AveragePooling2D, AvgPool2D, BatchNormalization, Concatenate, Conv2D, Convolution2D,
    Dense, Dropout, Embedding, Flatten, GlobalAveragePooling2D, GlobalAvgPool2D, InputSpec, Lambda, Layer,
    LayerNormalization, MaxPool2D, MaxPooling2D, Maximum, Minimum, Multiply, Permute, ReLU, RepeatVector, Rescaling,
    Reshape, Softmax, Subtract,
    add, average, concatenate, maximum, minimum, multiply, subtract)


def __getattr__(name):
    from .._hints import missing
    raise missing(__name__, name)   # a TF name minieager lacks: say what to use instead
