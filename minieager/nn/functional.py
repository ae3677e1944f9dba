"""Keras' functional API: ``me.keras.Input`` and ``me.Model(inputs, outputs)``.

    inputs = me.keras.Input(shape=(4,))
    hidden = me.layers.Dense(8, activation="relu")(inputs)
    model = me.Model(inputs, me.layers.Dense(1)(hidden))

``Input`` returns a ``KerasTensor``: no values, only a shape, a dtype and the layer call that
made it. Calling a layer on KerasTensors builds the layer and runs it once on a batch of one
example of zeros, to learn its output shape; the result is a KerasTensor that remembers the
call. ``Model(inputs, outputs)`` walks those calls back from the outputs and keeps them in
order; calling the model replays them on real tensors, eagerly, like a Sequential.
"""
from .. import nest
from ..engine import dtypes
from ..errors import InvalidArgumentError
from ..engine.tensor import TensorShape
from ..ops.creation import zeros

class KerasTensor:
    """A symbolic input or layer output of a functional model: a shape and a dtype, no values."""

    def __init__(self, shape, dtype, name=None, node=None):
        self.shape = TensorShape(shape)
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name
        self._node = node          # (layer, its inputs as given, the KerasTensors it returned) or None for an Input

    def _example(self):
        """Zeros of this shape with a batch of one (None sizes become 1): what a layer is tried on."""
        return zeros([1 if d is None else d for d in self.shape], self.dtype)

    def __repr__(self):
        return f"<KerasTensor shape={tuple(self.shape)} dtype={self.dtype.name} name={self.name!r}>"

    def _not_a_value(self, *args, **kwargs):
        raise TypeError(
            "A KerasTensor (from me.keras.Input or a layer called on one) has no values, so ops and operators "
            "cannot run on it. In a functional model every step must be a layer: wrap a computation in "
            "me.layers.Lambda(lambda x: ...), or subclass me.Model and write call() eagerly.")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __matmul__ = _not_a_value
    __getitem__ = __array__ = numpy = _not_a_value


def Input(shape=None, batch_size=None, name=None, dtype=None, batch_shape=None, **kwargs):  # noqa: N802 (Keras' name)
    """A symbolic input of one example's ``shape`` (the batch axis is added in front)."""
    if kwargs:
        raise TypeError(f"Input() got unexpected keyword arguments: {', '.join(kwargs)} (sparse and ragged inputs "
                        f"are not supported).")
    if batch_shape is None:
        if shape is None:
            raise InvalidArgumentError("Input: give shape=, the shape of one example, e.g. me.keras.Input(shape=(4,)).")
        batch_shape = (batch_size,) + tuple(shape if isinstance(shape, (tuple, list)) else (shape,))
    return KerasTensor(batch_shape, dtype or dtypes.float32, name or "input")


def is_symbolic(inputs):
    return any(isinstance(t, KerasTensor) for t in nest.flatten(inputs))


def call_symbolic(layer, inputs, kwargs):
    """``layer(inputs)`` on KerasTensors: build it, learn its output shape from a trial call, note the call."""
    trial = nest.map_structure(lambda t: t._example() if isinstance(t, KerasTensor) else t, inputs)
    outputs = layer(trial, **kwargs)
    symbolic = nest.map_structure(
        lambda out: KerasTensor((None,) + tuple(out.shape[1:]), out.dtype, name=layer.name), outputs)
    node = (layer, inputs, symbolic, kwargs)
    for t in nest.flatten(symbolic):
        t._node = node
    return symbolic


class Graph:
    """The layer calls from ``inputs`` to ``outputs``, in an order where each call's inputs exist already."""

    def __init__(self, inputs, outputs):
        self.inputs, self.outputs = inputs, outputs
        flat_inputs = nest.flatten(inputs)
        if not flat_inputs or not all(isinstance(t, KerasTensor) and t._node is None for t in flat_inputs):
            raise InvalidArgumentError(
                "Model(inputs, outputs): inputs must be me.keras.Input(...) tensors (or a list of them).")
        known, self.nodes = {id(t) for t in flat_inputs}, []
        for out in nest.flatten(outputs):
            if not isinstance(out, KerasTensor):
                raise InvalidArgumentError(
                    f"Model(inputs, outputs): outputs must come from layers called on the inputs, got "
                    f"{type(out).__name__}.")
            self._visit(out, known)
        self.layers = []
        for layer, *_ in self.nodes:
            if all(layer is not seen for seen in self.layers):
                self.layers.append(layer)

    def _visit(self, tensor, known):
        """Depth-first: the calls ``tensor`` needs, then the call that made it."""
        if id(tensor) in known:
            return
        if tensor._node is None:
            raise InvalidArgumentError(
                f"Model(inputs, outputs): the outputs depend on the Input {tensor.name!r}, which is not among the "
                f"model's inputs. Pass every Input the outputs use.")
        layer, inputs, outputs, _ = tensor._node
        for t in nest.flatten(inputs):
            if isinstance(t, KerasTensor):
                self._visit(t, known)
        self.nodes.append(tensor._node)
        known.update(id(t) for t in nest.flatten(outputs))

    def run(self, inputs, training):
        """Replay the layer calls on real tensors (``inputs`` in the structure of the model's inputs)."""
        flat_symbolic = nest.flatten(self.inputs)
        # One Input takes the value as it is (a nested list of numbers is one value, not several inputs).
        flat_given = [inputs] if len(flat_symbolic) == 1 else nest.flatten(inputs)
        if len(flat_given) != len(flat_symbolic):
            raise InvalidArgumentError(
                f"This functional model takes {len(flat_symbolic)} input(s), got {len(flat_given)}.")
        values = {id(s): v for s, v in zip(flat_symbolic, flat_given)}
        for layer, layer_inputs, layer_outputs, kwargs in self.nodes:
            args = nest.map_structure(lambda t: values[id(t)] if isinstance(t, KerasTensor) else t, layer_inputs)
            results = layer(args, training=training, **kwargs)
            for s, v in zip(nest.flatten(layer_outputs), nest.flatten(results)):
                values[id(s)] = v
        return nest.map_structure(lambda t: values[id(t)], self.outputs)
