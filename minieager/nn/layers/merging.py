"""Merge layers, as Keras's: each joins a list of tensors into one (the branches of a functional model).

``Add``, ``Subtract``, ``Multiply``, ``Average``, ``Maximum`` and ``Minimum`` work elementwise on
inputs of one shape (a size of 1 broadcasts, as in Keras); ``Concatenate`` joins them along an axis.
``me.layers.add([a, b])`` and the other lower-case names make the layer and call it. No weights:
the gradient of each input is that of the op that joins them.
"""
import functools

import numpy as np

from ...errors import InvalidArgumentError
from ...engine.tensor import TensorShape
from ...ops import _args, elementwise as ew
from ...ops._axes import normalize_axis
from ...ops.shape import concat
from .base import Layer, _shape_text


def _shapes_text(shapes):
    return ", ".join(_shape_text(s) for s in shapes)


class _Merge(Layer):
    """A layer called on a list of tensors: the shapes are checked (on KerasTensors too) before anything runs."""

    _count = None      # the exact number of inputs, where the layer needs one

    def __call__(self, inputs, *args, **kwargs):
        self._merged_shape(self._shapes_of(inputs))
        return super().__call__(inputs, *args, **kwargs)

    def _shapes_of(self, inputs):
        if not isinstance(inputs, (list, tuple)):
            got = f"of shape {_shape_text(inputs.shape)}" if hasattr(inputs, "shape") else repr(inputs)[:60]
            self._not_a_list(f"one {type(inputs).__name__} {got}")
        return [tuple(t.shape) if hasattr(t, "shape") else np.shape(t) for t in inputs]

    def _not_a_list(self, got):
        raise InvalidArgumentError(
            f'Layer "{self.name}" ({type(self).__name__}) must be called on a list of tensors, e.g. '
            f"me.layers.{type(self).__name__}()([a, b]); got {got}.")

    def _merged_shape(self, shapes):
        """The output shape for input ``shapes`` (batch first, None where unknown), or an error naming them."""
        if len(shapes) != self._count if self._count else not shapes:
            need = f"exactly {self._count} tensors" if self._count else "at least 1 tensor"
            raise InvalidArgumentError(
                f'Layer "{self.name}" ({type(self).__name__}) must be called on a list of {need}, got {len(shapes)}.')
        if len({len(s) for s in shapes}) > 1:
            raise InvalidArgumentError(
                f'Layer "{self.name}" ({type(self).__name__}) got inputs of different ranks: {_shapes_text(shapes)}. '
                f"Reshape one of them first (me.layers.Reshape), so that their axes line up.")
        return self._join(shapes)

    def _join(self, shapes):
        """Elementwise: on each axis the known sizes agree, or are 1 and broadcast; the batch never broadcasts."""
        out = []
        for axis, sizes in enumerate(zip(*shapes)):
            known = {n for n in sizes if n is not None}
            if axis > 0 and len(known) > 1:
                known.discard(1)
            if len(known) > 1:
                what = "batch sizes" if axis == 0 else f"sizes on axis {axis}"
                raise InvalidArgumentError(
                    f'Layer "{self.name}" ({type(self).__name__}) cannot merge inputs of shapes '
                    f"{_shapes_text(shapes)}: their {what} differ ({', '.join(map(str, sorted(known)))}); each size must match"
                    f"{'' if axis == 0 else ', or be 1 to broadcast'}.")
            out.append(None if None in sizes else known.pop())
        return tuple(out)

    def _prepare(self, inputs):
        return [Layer._prepare(self, t) for t in inputs]   # each one converted (and cast) as a single input

    def call(self, inputs):
        return functools.reduce(type(self)._op, inputs)

    def compute_output_shape(self, input_shape):
        if not all(isinstance(s, (tuple, list)) for s in input_shape):     # one shape (in a Sequential)
            self._not_a_list(f"one input of shape {_shape_text(input_shape)}")
        return TensorShape(self._merged_shape([tuple(s) for s in input_shape]))


class Add(_Merge):
    """``inputs[0] + inputs[1] + ...``, elementwise."""
    _op = staticmethod(ew.add)


class Subtract(_Merge):
    """``inputs[0] - inputs[1]``, elementwise: exactly two inputs."""
    _op, _count = staticmethod(ew.subtract), 2


class Multiply(_Merge):
    """``inputs[0] * inputs[1] * ...``, elementwise."""
    _op = staticmethod(ew.multiply)


class Average(_Merge):
    """The elementwise mean of the inputs."""
    _op = staticmethod(ew.add)

    def call(self, inputs):
        return ew.divide(super().call(inputs), len(inputs))


class Maximum(_Merge):
    """The elementwise maximum of the inputs."""
    _op = staticmethod(ew.maximum)


class Minimum(_Merge):
    """The elementwise minimum of the inputs."""
    _op = staticmethod(ew.minimum)


class Concatenate(_Merge):
    """Joins the inputs along ``axis`` (default the last); every other axis must match."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = _args.integer(axis, "Concatenate", "axis")

    def _join(self, shapes):
        axis = normalize_axis(self.axis, len(shapes[0]), f'Layer "{self.name}" (Concatenate)')
        out = []
        for i, sizes in enumerate(zip(*shapes)):
            known = {n for n in sizes if n is not None}
            if i == axis:
                out.append(None if None in sizes else sum(sizes))
                continue
            if len(known) > 1:
                raise InvalidArgumentError(
                    f'Layer "{self.name}" (Concatenate) cannot join inputs of shapes {_shapes_text(shapes)} along '
                    f"axis {self.axis}: every other axis must match, but axis {i} has sizes "
                    f"{', '.join(map(str, sorted(known)))}.")
            out.append(known.pop() if known else None)
        return tuple(out)

    def call(self, inputs):
        return concat(inputs, self.axis)


def _functional(layer_class):
    """The lower-case function of a merge layer: ``add(inputs, **kwargs)`` is ``Add(**kwargs)(inputs)``."""
    def merge(inputs, **kwargs):
        return layer_class(**kwargs)(inputs)
    merge.__name__ = merge.__qualname__ = layer_class.__name__.lower()
    merge.__doc__ = f"``{layer_class.__name__}(**kwargs)(inputs)``, as Keras's ``layers.{merge.__name__}``."
    return merge


add, subtract, multiply, average, maximum, minimum = (
    _functional(c) for c in (Add, Subtract, Multiply, Average, Maximum, Minimum))


def concatenate(inputs, axis=-1, **kwargs):
    """``Concatenate(axis, **kwargs)(inputs)``, as Keras's ``layers.concatenate``."""
    return Concatenate(axis=axis, **kwargs)(inputs)
