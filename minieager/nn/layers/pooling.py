"""Pooling layers over NHWC images: max and average windows, and the global average."""
from ...engine.tensor import TensorShape
from ...ops import _args
from ...ops.nn import avg_pool2d, max_pool2d
from ...ops.reductions import reduce_mean
from .base import InputSpec, Layer
from .conv import conv_output_size


class _Pool2D(Layer):
    _pool = None
    input_spec = InputSpec(ndim=4)

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", **kwargs):
        super().__init__(**kwargs)
        self.pool_size = _args.window_pair(pool_size, type(self).__name__, "pool_size")
        self.strides = _args.window_pair(strides if strides is not None else self.pool_size, type(self).__name__,
                                         "strides")
        self.padding = _args.padding(padding, type(self).__name__)

    def call(self, inputs):
        return type(self)._pool(inputs, self.pool_size, self.strides, self.padding)

    def compute_output_shape(self, input_shape):
        n, h, w, c = input_shape
        return TensorShape((n, conv_output_size(h, self.pool_size[0], self.strides[0], self.padding),
                            conv_output_size(w, self.pool_size[1], self.strides[1], self.padding), c))


class MaxPool2D(_Pool2D):
    """The maximum of each pool_size window (default 2x2, stride = pool_size)."""
    _pool = max_pool2d


class AveragePooling2D(_Pool2D):
    """The mean of each pool_size window (default 2x2, stride = pool_size)."""
    _pool = avg_pool2d


class GlobalAveragePooling2D(Layer):
    """(batch, height, width, channels) -> (batch, channels): the mean over all positions."""

    input_spec = InputSpec(ndim=4)

    def call(self, inputs):
        return reduce_mean(inputs, axis=[1, 2])

    def compute_output_shape(self, input_shape):
        return TensorShape((input_shape[0], input_shape[3]))


MaxPooling2D, AvgPool2D = MaxPool2D, AveragePooling2D
GlobalAvgPool2D = GlobalAveragePooling2D
