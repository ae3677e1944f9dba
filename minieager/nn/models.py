"""``me.Model`` (subclass it) and ``me.Sequential`` (a stack of layers).

A Model is a Layer that holds layers: its ``variables`` are theirs, each once, in the order the
layers were assigned. ``compile``/``fit``/``evaluate``/``predict`` (``nn/training.py``) are there
for Keras-style training; a custom loop with a GradientTape works just as well.
"""
import os

from .. import nest
from ..engine.tensor import TensorShape
from ..errors import InvalidArgumentError
from ..train import Checkpoint
from . import functional, saving, training
from .layers.base import Layer, _shape_text


class Model(Layer):
    """Subclass, create layers in ``__init__`` and write the forward pass in ``call``; or, as Keras'
    functional API, ``me.Model(inputs, outputs)`` from ``me.keras.Input`` and layers called on it."""

    def __init__(self, *args, **kwargs):
        inputs, outputs = kwargs.pop("inputs", None), kwargs.pop("outputs", None)
        if args and functional.is_symbolic(args[0]):          # Model(inputs, outputs, ...)
            inputs, args = args[0], args[1:]
            if args:
                outputs, args = args[0], args[1:]
        super().__init__(*args, **kwargs)
        self.__dict__["_compiled"] = None
        self.__dict__["_graph"] = None
        if inputs is not None or outputs is not None:
            if inputs is None or outputs is None:
                raise InvalidArgumentError("Model: a functional model needs both inputs= and outputs=.")
            self.__dict__["_graph"] = functional.Graph(inputs, outputs)
            self.built = True

    def _prepare(self, inputs):
        if self._graph is not None:          # a list is several inputs; each layer converts what it gets
            return inputs
        return super()._prepare(inputs)

    def _tracked_items(self):
        if self._graph is not None:          # a functional model holds the layers of its graph
            for i, layer in enumerate(self._graph.layers):
                yield f"layer-{i}", layer
        yield from super()._tracked_items()

    @property
    def layers(self):
        """The layers this model holds directly, in the order they were assigned."""
        return self._sublayers()

    def get_layer(self, name=None, index=None):
        """The layer called ``name``, or at position ``index`` of ``layers``, as Keras."""
        if (name is None) == (index is None):
            raise InvalidArgumentError("get_layer: give either name= or index=, not both or neither.")
        layers = self.layers
        if index is not None:
            if not -len(layers) <= index < len(layers):
                raise InvalidArgumentError(
                    f"Was asked to retrieve layer at index {index} but model only has {len(layers)} layers.")
            return layers[index]
        for layer in layers:
            if layer.name == name:
                return layer
        raise InvalidArgumentError(f"No such layer: {name}. Existing layers are: {[layer.name for layer in layers]}.")

    @property
    def input_shape(self):
        """The batch shape of the model's input, e.g. (None, 3) (known once built, or from an Input)."""
        if self._graph is not None:
            shapes = [tuple(t.shape) for t in nest.flatten(self._graph.inputs)]
            return shapes[0] if len(shapes) == 1 else shapes
        layers = self.layers
        if layers and layers[0]._batch_input_shape is not None:
            return tuple(layers[0]._batch_input_shape)
        if self._batch_input_shape is not None:
            return tuple(self._batch_input_shape)
        raise AttributeError(f'Model "{self.name}" has no input_shape yet: it is not built. Give the first layer '
                             f"input_shape=, or call the model on a batch first.")

    @property
    def output_shape(self):
        """The batch shape of the model's output, e.g. (None, 10)."""
        if self._graph is not None:
            shapes = [tuple(t.shape) for t in nest.flatten(self._graph.outputs)]
            return shapes[0] if len(shapes) == 1 else shapes
        if self._output_shape is None and self.__dict__.get("_stack") and self.built:   # a Sequential built from input_shape
            return self.layers[-1].output_shape
        return super().output_shape

    def call(self, inputs, training=None):
        if self._graph is not None:
            return self._graph.run(inputs, training)
        raise NotImplementedError(f"{type(self).__name__} must define call(self, inputs) (the forward pass).")

    # ---- summary ------------------------------------------------------------------------
    def summary(self, print_fn=print):
        """Print each layer with its output shape and parameter count, then the totals."""
        if not self.built:
            raise InvalidArgumentError(
                f'Model "{self.name}" has not been built yet, so its layers have no variables to count. Call it '
                f"on a batch first, or give input_shape= to its first layer.")
        names = [f" {layer.name} ({type(layer).__name__})" for layer in self.layers]
        widths = (max([29] + [len(n) + 2 for n in names]), 26, 10)
        rule = "_" * sum(widths)

        def row(*cells):
            return "".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()

        lines = [f'Model: "{self.name}"', rule, row(" Layer (type)", "Output Shape", "Param #"), "=" * sum(widths)]
        for name, layer in zip(names, self.layers):
            shape = layer._output_shape
            shape = "?" if shape is None else shape if isinstance(shape, str) else _shape_text(shape)
            lines.append(row(name, shape, layer.count_params()))
        trainable = sum(v.shape.num_elements() for v in self.trainable_variables)
        frozen = sum(v.shape.num_elements() for v in self.non_trainable_variables)
        lines += ["=" * sum(widths), f"Total params: {trainable + frozen:,}", f"Trainable params: {trainable:,}",
                  f"Non-trainable params: {frozen:,}", rule]
        print_fn("\n".join(lines))

    # ---- Keras-style training -----------------------------------------------------------
    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None, weighted_metrics=None,
                run_eagerly=False, steps_per_execution=1, jit_compile="auto"):
        """Choose the optimizer, loss and metrics that ``fit`` and ``evaluate`` use (Keras 3's defaults).

        ``run_eagerly``, ``jit_compile`` and ``steps_per_execution=1`` are accepted for Keras' code: minieager's fit
        always runs its steps eagerly, one batch at a time (wrap a custom step in ``me.function`` for a graph).
        """
        if loss_weights is not None or weighted_metrics is not None:
            raise InvalidArgumentError("compile: loss_weights and weighted_metrics are not supported (fit trains one "
                                       "output with one loss); weight the loss in a custom training step instead.")
        if steps_per_execution != 1:
            raise InvalidArgumentError(f"compile: steps_per_execution must be 1 (fit runs one batch per step), "
                                       f"got {steps_per_execution}.")
        self.optimizer, self.__dict__["_compiled"] = training.compile_parts(optimizer, loss, metrics)

    def fit(self, x=None, y=None, batch_size=32, epochs=1, verbose=1, callbacks=None, validation_split=0.0,
            validation_data=None, shuffle=True, seed=None):
        """Train for ``epochs`` passes over (x, y) or a Dataset of (x, y) batches; returns a History.

        ``callbacks``: ``me.keras.callbacks`` objects (EarlyStopping, ModelCheckpoint, ...) fit calls as it goes.
        ``validation_split``: hold out the last fraction of (x, y) (arrays only) and report val_ metrics on it;
        ``validation_data`` (an (x, y) pair or a dataset) takes precedence, as in Keras.
        """
        return training.fit(self, x, y, batch_size, epochs, verbose, validation_data, shuffle, seed, callbacks,
                            validation_split)

    # ---- saving ---------------------------------------------------------------------------
    def get_config(self):
        """A functional model: its layers and the calls between them; a Sequential: its layers; a subclassed
        model: its constructor's arguments (override get_config/from_config when they are not numbers/strings)."""
        if self._graph is not None and type(self) is Model:
            return saving.functional_config(self)
        return super().get_config()

    @classmethod
    def from_config(cls, config, custom_objects=None):
        if "nodes" in config and "inputs" in config:
            return saving.functional_from_config(cls, config, custom_objects)
        return super().from_config(config)

    def save(self, filepath, overwrite=True):
        """Write the whole model (architecture, weights, compile settings) to ``filepath`` ending in ``.keras``;
        ``me.keras.models.load_model(filepath)`` reads it back, as Keras 3."""
        saving.save_model(self, filepath, overwrite)

    def save_weights(self, filepath, overwrite=True):
        """Write every variable of the model to ``filepath``: a ``.weights.h5`` file (needs h5py, as Keras 3),
        or, for any other name, a minieager checkpoint (TF's checkpoint format for weights)."""
        filepath = os.fspath(filepath)
        if filepath.endswith(".h5"):
            return saving.save_weights_h5(self, filepath)
        if filepath.endswith(".keras"):
            raise InvalidArgumentError("save_weights: a .keras file holds a whole model: use model.save(filepath), "
                                       "or name the weights file 'name.weights.h5'.")
        return Checkpoint(model=self).write(filepath)

    def load_weights(self, filepath):
        """Read the weights ``save_weights`` wrote into this model (built the same way); returns the status."""
        filepath = os.fspath(filepath)
        if filepath.endswith(".h5"):
            return saving.load_weights_h5(self, filepath)
        return Checkpoint(model=self).restore(filepath)

    def evaluate(self, x=None, y=None, batch_size=32, verbose=0):
        """The loss (and the compiled metrics: then a list [loss, metric, ...]) over (x, y)."""
        return training.evaluate(self, x, y, batch_size, verbose)

    def predict(self, x, batch_size=32, verbose=0):
        """The model's outputs for x, computed batch by batch with training=False, as a NumPy array."""
        return training.predict(self, x, batch_size, verbose)


class Sequential(Model):
    """A linear stack of layers: each one's output is the next one's input.

    With ``input_shape=`` on the first layer the model builds at once (so ``summary()`` works
    before any call); otherwise it builds on the first call.
    """

    def __init__(self, layers=None, name=None, trainable=True):
        super().__init__(name=name, trainable=trainable)
        self.__dict__["_stack"] = []
        for layer in layers or ():
            self._append(layer)
        self._build_if_shape_known()

    def get_config(self):
        """Its layers, in order (each as {"class_name", "config"}), and the input shape it was built for."""
        config = {"name": self.name, "trainable": self.trainable,
                  "layers": [saving.serialize_layer(layer) for layer in self._stack]}
        if self.__dict__.get("_build_input_shape") is not None:
            config["build_input_shape"] = list(self._build_input_shape)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        model = cls([saving.deserialize_layer(entry, custom_objects) for entry in config["layers"]],
                    name=config.get("name"), trainable=config.get("trainable", True))
        if "build_input_shape" in config and not model.built:
            model.build(tuple(config["build_input_shape"]))
        return model

    def add(self, layer):
        """Put ``layer`` on top of the stack."""
        self._append(layer)
        self._build_if_shape_known()

    def _append(self, layer):
        if not isinstance(layer, Layer):
            raise TypeError(f"Sequential takes layers, got {type(layer).__name__}: {layer!r:.80}.")
        self._stack.append(layer)

    def _build_if_shape_known(self):
        if self._stack and self._stack[0]._batch_input_shape is not None:
            self.build(self._stack[0]._batch_input_shape)

    def _tracked_items(self):
        for i, layer in enumerate(self._stack):
            yield f"layer-{i}", layer
        yield from super()._tracked_items()

    def build(self, input_shape=None):
        """Build every layer for inputs of ``input_shape`` (batch first, None where unknown)."""
        if input_shape is None:
            return
        self.__dict__["_build_input_shape"] = tuple(input_shape)
        shape = TensorShape(tuple(input_shape))
        for layer in self._stack:
            if not layer.built:
                layer._build_for(shape)
            shape = layer.compute_output_shape(shape)
            layer._note_output_shape((None,) + tuple(shape[1:]))
        self.built = True

    def call(self, inputs, training=None):
        outputs = inputs
        for layer in self._stack:
            outputs = layer(outputs, training=training)
        return outputs
