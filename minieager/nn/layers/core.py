"""The everyday layers: Dense, Activation (and Softmax, ReLU), Rescaling, Flatten, Dropout, Embedding, Lambda."""
from ...engine.tensor import TensorShape
from ...ops import nn as nn_ops
from ...ops.elementwise import add, cast, multiply, relu
from ...ops.indexing import gather
from ...ops.linalg import matmul
from ...ops.shape import reshape
from .. import activations
from .base import InputSpec, Layer


class Dense(Layer):
    """``activation(inputs @ kernel + bias)`` over the last axis: (..., in) -> (..., units)."""

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", **kwargs):
        super().__init__(**kwargs)
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer, self.bias_initializer = kernel_initializer, bias_initializer
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape):
        features = input_shape[-1]
        self.kernel = self.add_weight("kernel", [features, self.units], initializer=self.kernel_initializer)
        self.bias = self.add_weight("bias", [self.units], initializer=self.bias_initializer) if self.use_bias else None
        self.input_spec = InputSpec(min_ndim=2, axes={-1: features})

    def call(self, inputs):
        if inputs.ndim == 2:
            outputs = matmul(inputs, self.kernel)
        else:   # (..., in): one 2-D matmul over all leading axes, then the leading axes back
            outputs = reshape(matmul(reshape(inputs, (-1, inputs.shape[-1])), self.kernel),
                              tuple(inputs.shape[:-1]) + (self.units,))
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias)
        return self.activation(outputs)

    def compute_output_shape(self, input_shape):
        return TensorShape(tuple(input_shape[:-1]) + (self.units,))


class Activation(Layer):
    """Applies an activation function by name ("relu", "softmax", ...) or a callable."""

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)


class Softmax(Layer):
    """``softmax(inputs)`` along ``axis``: logits to probabilities (as ``keras.layers.Softmax``)."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs):
        return nn_ops.softmax(inputs, axis=self.axis)

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)


class ReLU(Layer):
    """``max(inputs, 0)`` (as ``keras.layers.ReLU`` with its default arguments)."""

    def call(self, inputs):
        return relu(inputs)

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)


class Rescaling(Layer):
    """``inputs * scale + offset``, e.g. ``Rescaling(1 / 255)`` for pixel values (as ``keras.layers.Rescaling``)."""

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.scale, self.offset = float(scale), float(offset)

    def call(self, inputs):
        return add(multiply(cast(inputs, self.dtype), self.scale), self.offset)

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)


class Flatten(Layer):
    """(batch, d1, d2, ...) -> (batch, d1 * d2 * ...)."""

    input_spec = InputSpec(min_ndim=1)

    def call(self, inputs):
        return reshape(inputs, (inputs.shape[0], -1))

    def compute_output_shape(self, input_shape):
        rest = input_shape[1:]
        size = None if None in rest else int(TensorShape(rest).num_elements())
        return TensorShape((input_shape[0], size))


class Dropout(Layer):
    """Zeroes a fraction ``rate`` of the inputs (scaling the rest by 1/(1-rate)), only when training=True."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate, self.noise_shape, self.seed = float(rate), noise_shape, seed

    def call(self, inputs, training=None):
        if not training or self.rate == 0:
            return inputs
        return nn_ops.dropout(inputs, self.rate, noise_shape=self.noise_shape, seed=self.seed)

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)


class Embedding(Layer):
    """Integer ids (any shape) -> rows of a trainable (input_dim, output_dim) table."""

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform", **kwargs):
        super().__init__(**kwargs)
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        self.embeddings_initializer = embeddings_initializer

    def build(self, input_shape):
        self.embeddings = self.add_weight("embeddings", [self.input_dim, self.output_dim],
                                          initializer=self.embeddings_initializer)

    def call(self, inputs):
        ids = inputs if inputs.dtype.is_integer else cast(inputs, "int32")
        return gather(self.embeddings, ids)

    def compute_output_shape(self, input_shape):
        return TensorShape(tuple(input_shape) + (self.output_dim,))


class Lambda(Layer):
    """Wraps a function of the inputs as a layer (no variables): a step of a functional model.

    Given a list of inputs, the function receives the list (``Lambda(lambda xs: me.concat(xs, -1))``
    joins two branches), where other layers would make one tensor of it.
    """

    def __init__(self, function, **kwargs):
        super().__init__(**kwargs)
        self.function = function

    def _prepare(self, inputs):
        if isinstance(inputs, (list, tuple)):
            return type(inputs)(Layer._prepare(self, t) for t in inputs)
        return super()._prepare(inputs)

    def call(self, inputs):
        return self.function(inputs)
