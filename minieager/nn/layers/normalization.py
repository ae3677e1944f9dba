"""BatchNormalization (each channel, with batch statistics while training, moving ones after) and
LayerNormalization (each example over its features)."""
from ...engine.tensor import TensorShape
from ...ops import elementwise as ew
from ...ops.reductions import reduce_mean
from ...ops.shape import reshape, stop_gradient
from .base import InputSpec, Layer


class BatchNormalization(Layer):
    """``gamma * (x - mean) / sqrt(variance + epsilon) + beta`` per feature of ``axis``.

    training=True uses the batch's mean and (biased) variance and moves the non-trainable
    ``moving_mean`` / ``moving_variance`` towards them: ``moving = momentum * moving +
    (1 - momentum) * batch``. Otherwise the moving statistics are used and nothing changes.
    """

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True, **kwargs):
        super().__init__(**kwargs)
        self.axis, self.momentum, self.epsilon = axis, float(momentum), float(epsilon)
        self.center, self.scale = center, scale

    def build(self, input_shape):
        axis = self.axis % len(input_shape)
        self._reduce_axes = [i for i in range(len(input_shape)) if i != axis]
        # (features,) broadcasts against the input by itself when the features are the last axis.
        self._param_shape = None if axis == len(input_shape) - 1 else [
            input_shape[i] if i == axis else 1 for i in range(len(input_shape))]
        size = [input_shape[axis]]
        self.gamma = self.add_weight("gamma", size, initializer="ones") if self.scale else None
        self.beta = self.add_weight("beta", size, initializer="zeros") if self.center else None
        self.moving_mean = self.add_weight("moving_mean", size, initializer="zeros", trainable=False)
        self.moving_variance = self.add_weight("moving_variance", size, initializer="ones", trainable=False)
        self.input_spec = InputSpec(ndim=len(input_shape), axes={axis: input_shape[axis]})

    def _per_feature(self, t):
        """A (features,) tensor shaped to broadcast against the input."""
        return t if self._param_shape is None else reshape(t, self._param_shape)

    def call(self, inputs, training=None):
        if training:
            mean = reduce_mean(inputs, axis=self._reduce_axes, keepdims=True)
            variance = reduce_mean(ew.square(ew.subtract(inputs, mean)), axis=self._reduce_axes, keepdims=True)
            self._update_moving(self.moving_mean, mean)
            self._update_moving(self.moving_variance, variance)
        else:
            mean, variance = self._per_feature(self.moving_mean), self._per_feature(self.moving_variance)
        scale = ew.rsqrt(ew.add(variance, self.epsilon))
        if self.scale:
            scale = ew.multiply(scale, self._per_feature(self.gamma))
        outputs = ew.multiply(ew.subtract(inputs, mean), scale)
        if self.center:
            outputs = ew.add(outputs, self._per_feature(self.beta))
        return outputs

    def _update_moving(self, moving, batch_value):
        # stop_gradient: the update is bookkeeping, not part of what the tape differentiates.
        batch_value = reshape(stop_gradient(batch_value), moving.shape)
        moving.assign(ew.add(ew.multiply(moving._snapshot(), self.momentum),
                             ew.multiply(batch_value, 1.0 - self.momentum)))

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)



class LayerNormalization(Layer):
    """``gamma * (x - mean) / sqrt(variance + epsilon) + beta`` over the feature ``axis`` of each example.

    Unlike BatchNormalization the statistics are each example's own, so training and inference
    compute the same thing and there are no moving statistics. Built from ordinary ops: the tape
    differentiates it like any other composition.
    """

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True, **kwargs):
        super().__init__(**kwargs)
        self.axis, self.epsilon = axis, float(epsilon)
        self.center, self.scale = center, scale

    def build(self, input_shape):
        rank = len(input_shape)
        axes = self.axis if isinstance(self.axis, (list, tuple)) else [self.axis]
        self._axes = sorted(a % rank for a in axes)
        size = [input_shape[a] for a in self._axes]
        # gamma and beta cover the normalized axes; reshaped to broadcast unless those are the trailing ones.
        self._param_shape = None if self._axes == list(range(rank - len(size), rank)) else [
            input_shape[i] if i in self._axes else 1 for i in range(rank)]
        self.gamma = self.add_weight("gamma", size, initializer="ones") if self.scale else None
        self.beta = self.add_weight("beta", size, initializer="zeros") if self.center else None
        self.input_spec = InputSpec(ndim=rank, axes={a: input_shape[a] for a in self._axes})

    def _per_feature(self, t):
        return t if self._param_shape is None else reshape(t, self._param_shape)

    def call(self, inputs):
        mean = reduce_mean(inputs, axis=self._axes, keepdims=True)
        centered = ew.subtract(inputs, mean)
        variance = reduce_mean(ew.square(centered), axis=self._axes, keepdims=True)
        outputs = ew.multiply(centered, ew.rsqrt(ew.add(variance, self.epsilon)))
        if self.scale:
            outputs = ew.multiply(outputs, self._per_feature(self.gamma))
        if self.center:
            outputs = ew.add(outputs, self._per_feature(self.beta))
        return outputs

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)
