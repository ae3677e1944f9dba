"""Layers that rearrange each example without weights: Reshape, Permute, RepeatVector (as Keras's)."""
import math

from ...errors import InvalidArgumentError
from ...engine.tensor import TensorShape
from ...ops import _args
from ...ops.shape import broadcast_to, expand_dims, reshape, transpose
from .base import InputSpec, Layer, _shape_text


class Reshape(Layer):
    """(batch, ...) -> (batch, *target_shape), the same values in a new shape. One entry of
    ``target_shape`` may be -1: it is inferred from the size of an example."""

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = _args.integers(target_shape, "Reshape", "target_shape", minimum=-1)
        if self.target_shape.count(-1) > 1:
            raise InvalidArgumentError(
                f"Reshape: target_shape may have one -1 (inferred), got {list(self.target_shape)}.")

    def _example_shape(self, input_shape):
        """target_shape for inputs of ``input_shape`` (batch first), its -1 resolved; None where unknown."""
        dims, target = tuple(input_shape[1:]), self.target_shape
        size = None if None in dims else math.prod(dims)
        known = math.prod(d for d in target if d != -1)
        if size is None:                    # a size is only known when the layer runs
            return tuple(None if d == -1 else d for d in target)
        if -1 in target:
            if known and size % known == 0:
                return tuple(size // known if d == -1 else d for d in target)
            why = f"an example's {size} values are not a multiple of {known}, the product of the other sizes"
        elif size == known:
            return target
        else:
            why = f"an example has {size} values, the target shape {known}"
        raise InvalidArgumentError(
            f'Layer "{self.name}" (Reshape) cannot reshape inputs of shape {_shape_text((None,) + dims)} into '
            f"target_shape {_shape_text(target)}: {why}.")

    def call(self, inputs):
        return reshape(inputs, (inputs.shape[0],) + self._example_shape(inputs.shape))

    def compute_output_shape(self, input_shape):
        return TensorShape((input_shape[0],) + self._example_shape(input_shape))


class Permute(Layer):
    """Permutes the axes of each example: ``dims`` numbers them from 1 (the batch axis stays first), so
    ``Permute((2, 1))`` turns (batch, a, b) into (batch, b, a)."""

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = _args.integers(dims, "Permute", "dims")
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise InvalidArgumentError(
                f"Permute: dims must number each axis of an example once, counting from 1 (the batch axis 0 is "
                f"not permuted), e.g. (2, 1); got {list(self.dims)}.")
        self.input_spec = InputSpec(ndim=len(self.dims) + 1)

    def call(self, inputs):
        return transpose(inputs, (0,) + self.dims)

    def compute_output_shape(self, input_shape):
        self.input_spec.check(self, input_shape)
        return TensorShape((input_shape[0],) + tuple(input_shape[d] for d in self.dims))


class RepeatVector(Layer):
    """(batch, features) -> (batch, n, features): each example repeated ``n`` times."""

    input_spec = InputSpec(ndim=2)

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        self.n = _args.integer(n, "RepeatVector", "n", minimum=0)

    def call(self, inputs):
        return broadcast_to(expand_dims(inputs, 1), (inputs.shape[0], self.n, inputs.shape[1]))

    def compute_output_shape(self, input_shape):
        self.input_spec.check(self, input_shape)
        return TensorShape((input_shape[0], self.n, input_shape[1]))
