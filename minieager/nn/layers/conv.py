"""Conv2D: 2-D convolution over NHWC images (batch, height, width, channels), as in TensorFlow."""
from ...engine.tensor import TensorShape
from ...ops import _args
from ...ops.nn import bias_add, conv2d
from .. import activations
from .base import InputSpec, Layer


def conv_output_size(size, window, stride, padding):
    """One spatial output size: ceil(size / stride) for SAME, ceil((size - window + 1) / stride) for VALID."""
    if size is None:
        return None
    return -(-size // stride) if padding == "SAME" else -(-(size - window + 1) // stride)


class Conv2D(Layer):
    """``activation(conv2d(inputs, kernel) + bias)``; kernel (kh, kw, in_channels, filters)."""

    def __init__(self, filters, kernel_size, strides=1, padding="valid", activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros", **kwargs):
        super().__init__(**kwargs)
        self.filters = int(filters)
        self.kernel_size = _args.window_pair(kernel_size, "Conv2D", "kernel_size")
        self.strides = _args.window_pair(strides, "Conv2D", "strides")
        self.padding = _args.padding(padding, "Conv2D")
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer, self.bias_initializer = kernel_initializer, bias_initializer
        self.input_spec = InputSpec(ndim=4)

    def build(self, input_shape):
        channels = input_shape[-1]
        self.kernel = self.add_weight("kernel", list(self.kernel_size) + [channels, self.filters],
                                      initializer=self.kernel_initializer)
        self.bias = self.add_weight("bias", [self.filters], initializer=self.bias_initializer) if self.use_bias else None
        self.input_spec = InputSpec(ndim=4, axes={-1: channels})

    def call(self, inputs):
        outputs = conv2d(inputs, self.kernel, strides=self.strides, padding=self.padding)
        if self.use_bias:
            outputs = bias_add(outputs, self.bias)
        return self.activation(outputs)

    def compute_output_shape(self, input_shape):
        n, h, w, _ = input_shape
        return TensorShape((n, conv_output_size(h, self.kernel_size[0], self.strides[0], self.padding),
                            conv_output_size(w, self.kernel_size[1], self.strides[1], self.padding), self.filters))


Convolution2D = Conv2D
