"""``me.layers.Layer``: the base class of every layer and model.

A layer owns its variables. Subclasses create them in ``build(input_shape)``, which runs once,
on the first call, so their shapes can follow the input; ``call(inputs, training=None)`` is the
forward pass. Calling a layer is ordinary eager code: its ops run at once and record on any
open GradientTape.

Attributes that hold layers, variables, optimizers or metrics (or lists/dicts of them) are
tracked as they are assigned, which gives ``variables`` and ``_checkpoint_dependencies()``
(the object graph a Checkpoint walks) without any global collection.
"""
import collections
import inspect
import itertools
import re

import numpy as np

from ... import nest
from ...autodiff.variable import Variable
from ...engine import dtypes
from ...errors import InvalidArgumentError
from ...engine.recording import outside_traces
from ...engine.scope import name_scope
from ...engine.tensor import Tensor, TensorShape
from ...ops.creation import convert_to_tensor, zeros
from ...ops.elementwise import cast
from .. import functional, initializers
from .._config import config_of, remember_init_args, value_from
from ...module import Module
from ...tracking import flatten_trackables, is_trackable

_name_counts = collections.defaultdict(itertools.count)
_training = [None]          # the training flag of the enclosing layer call, inherited by sublayers
_takes_training = {}        # call function -> whether it accepts a ``training`` argument


def clear_session():
    """Restart layer names ("dense", "dense_1" ...), as ``tf.keras.backend.clear_session``."""
    _name_counts.clear()


def _snake_case(name):
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def _unique_name(base):
    n = next(_name_counts[base])
    return base if n == 0 else f"{base}_{n}"


def _accepts_training(fn):
    if fn not in _takes_training:
        params = inspect.signature(fn).parameters
        _takes_training[fn] = "training" in params or any(
            p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    return _takes_training[fn]


def _shape_text(shape):
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


class InputSpec:
    """What a layer accepts: an exact rank (``ndim``) or a minimum one, and fixed axis sizes."""

    def __init__(self, ndim=None, min_ndim=None, axes=None):
        self.ndim, self.min_ndim, self.axes = ndim, min_ndim, dict(axes or {})

    def describe(self):
        if self.ndim is None:
            last = [self.axes.get(-1)] if -1 in self.axes else []
            return "(" + ", ".join(["..."] + [str(d) for d in last]) + ")"
        shape = [None] * self.ndim
        for axis, size in self.axes.items():
            shape[axis] = size
        return _shape_text(shape)

    def check(self, layer, shape):
        rank = len(shape)
        if (self.ndim is not None and rank != self.ndim) or (self.min_ndim is not None and rank < self.min_ndim):
            want = f"rank {self.ndim}" if self.ndim is not None else f"rank >= {self.min_ndim}"
            raise InvalidArgumentError(
                f'Layer "{layer.name}" ({type(layer).__name__}) expects inputs of {want}, shape '
                f"{self.describe()}, but got shape {_shape_text(shape)} (rank {rank}).")
        for axis, size in self.axes.items():
            if shape[axis] != size:
                raise InvalidArgumentError(
                    f'Layer "{layer.name}" ({type(layer).__name__}) was built for inputs of shape '
                    f"{self.describe()} but got shape {_shape_text(shape)}: axis {axis} has size "
                    f"{shape[axis]}, expected {size}.")


class Layer(Module):
    """Base class for layers: override ``build(input_shape)`` and ``call(inputs, training=None)``.

    A Layer is a ``me.Module`` (``submodules``, ``name_scope``, ``with_name_scope``) whose
    ``variables`` follow Keras: trainable ones first, in the order they were created or assigned.

    trainable    False freezes every variable of the layer (and of its sublayers)
    name         default: the class name in snake_case, made unique ("dense", "dense_1", ...)
    dtype        the dtype of the variables; floating inputs are cast to it (default float32)
    input_shape  the shape of one example, for the first layer of a Sequential
    """

    input_spec = None

    def __new__(cls, *args, **kwargs):
        layer = super().__new__(cls)
        remember_init_args(layer, cls, args, kwargs)     # get_config() is these arguments, as Keras 3
        return layer

    def __init__(self, trainable=True, name=None, dtype=None, input_shape=None, batch_input_shape=None, **kwargs):
        if kwargs:
            raise TypeError(f"{type(self).__name__}() got unexpected keyword arguments: {', '.join(kwargs)}.")
        if input_shape is not None and batch_input_shape is None:
            batch_input_shape = (None,) + tuple(input_shape)
        self.__dict__.update(
            _tracked=self.__dict__.get("_tracked", []),   # attribute names holding trackables, in order
            _weights=[],                                   # (name, Variable) made by add_weight
            _output_shape=None,                            # for summary(): (None, ...) or "multiple"
            _batch_input_shape=None if batch_input_shape is None else tuple(batch_input_shape),
            _deferred_restorer=None,                       # set by a Checkpoint restoring before build
            _name=name or _unique_name(_snake_case(type(self).__name__)),
            _dtype=dtypes.as_dtype(dtype or dtypes.float32),
            built=False,
            trainable=bool(trainable))

    dtype = property(lambda self: self._dtype)

    @property
    def name_scope(self):
        """The scope the layer's calls run in: its name, inside the calling layer's (as ``__call__`` uses)."""
        return name_scope(self._name)

    def _children(self):
        """For Module's walk (``submodules``): what the layer holds, in the order it was created or assigned."""
        for name, variable in self._weights:
            yield (name,), variable
        yield from self._tracked_items()

    # ---- config: what Model.save writes and load_model reads back --------------------------------
    def get_config(self):
        """The layer's constructor arguments as JSON values (activations by name, initializers as dicts), with
        its name, trainable flag and dtype; ``type(layer).from_config(config)`` makes the same layer again."""
        return {**config_of(self), "name": self.name, "trainable": self.trainable, "dtype": self.dtype.name}

    @classmethod
    def from_config(cls, config):
        """A new layer from ``get_config()``'s dict; name/trainable/dtype are set afterwards if __init__ lacks them."""
        config = {key: value_from(value) for key, value in config.items()}
        params = inspect.signature(cls.__init__).parameters
        open_kwargs = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
        later = {k: config.pop(k) for k in ("name", "trainable", "dtype") if k in config and k not in params
                 and not open_kwargs}
        try:
            layer = cls(**config)
        except TypeError as error:
            raise TypeError(
                f"{cls.__name__}.from_config: {error}. Its __init__ does not take the arguments its config holds; "
                f"override get_config() to return them and from_config(config) to make the layer from them.") from None
        if "name" in later:
            layer.__dict__["_name"] = later["name"]
        if "trainable" in later:
            layer.trainable = bool(later["trainable"])
        return layer

    # ---- attribute tracking -----------------------------------------------------------
    def __setattr__(self, name, value):
        tracked = self.__dict__.setdefault("_tracked", [])
        if is_trackable(value) or isinstance(value, (list, tuple, dict)):
            if name not in tracked:
                tracked.append(name)
        elif name in tracked:
            tracked.remove(name)
        object.__setattr__(self, name, value)

    def __getattr__(self, name):
        # Called only for a name the layer lacks (or a property that raised AttributeError: raise its error).
        prop = getattr(type(self), name, None)
        if isinstance(prop, property):
            return prop.__get__(self)
        from ..._hints import missing_attribute
        raise missing_attribute(self, name)

    def __delattr__(self, name):
        if name in self._tracked:
            self._tracked.remove(name)
        object.__delattr__(self, name)

    def _tracked_items(self):
        """(path, object) for every trackable held in an attribute, in assignment order."""
        for attr in self._tracked:
            yield from flatten_trackables(attr, self.__dict__.get(attr))

    def _checkpoint_dependencies(self):
        """The children a Checkpoint saves: [(name, object)], own weights first, each object once."""
        seen, deps = set(), []
        for name, obj in itertools.chain(self._weights, self._tracked_items()):
            if id(obj) not in seen:
                seen.add(id(obj))
                deps.append((name, obj))
        return deps

    def _on_build(self):
        """Called once the weights exist: lets a pending checkpoint restore them (delayed restoration)."""
        if self._deferred_restorer is not None:
            self._deferred_restorer(self)

    # ---- weights ------------------------------------------------------------------------
    def add_weight(self, name=None, shape=None, dtype=None, initializer=None, trainable=True, **kwargs):
        """Create a variable owned by this layer (named "layer_name/name:0")."""
        dtype = dtypes.as_dtype(dtype or self._dtype)
        if initializer is None:
            initializer = "glorot_uniform" if dtype.is_floating else "zeros"
        with outside_traces():   # built inside me.function: the initial value is drawn now, eagerly, once
            # dtype by keyword, as Keras calls initializers: a function such as me.random.normal works too
            value = initializers.get(initializer)(tuple(int(d) for d in (shape or ())), dtype=dtype)
        variable = Variable(value, trainable=trainable, name=f"{self._name}/{name or 'weight'}", dtype=dtype)
        self._weights.append((name or f"weight_{len(self._weights)}", variable))
        return variable

    add_variable = add_weight    # the TF 1 spelling the guide uses

    def _sublayers(self):
        seen = []
        for _, obj in self._tracked_items():
            if isinstance(obj, Layer) and all(obj is not s for s in seen):
                seen.append(obj)
        return seen

    def _collect(self, trainable, out, seen, frozen=False):
        """Walk this layer and its sublayers once each, adding variables whose trainability matches."""
        frozen = frozen or not self.trainable
        owned, sublayers = [v for _, v in self._weights], []
        for _, obj in self._tracked_items():      # one walk finds both (the same order as _sublayers)
            if isinstance(obj, Variable):
                owned.append(obj)
            elif isinstance(obj, Layer):
                if all(obj is not s for s in sublayers):
                    sublayers.append(obj)
            elif isinstance(obj, Module):         # a plain me.Module: its variables count as the layer's own
                owned.extend(obj.variables)
        for v in owned:
            if id(v) not in seen and (v._trainable and not frozen) == trainable:
                seen.add(id(v))
                out.append(v)
        for layer in sublayers:
            layer._collect(trainable, out, seen, frozen)
        return out

    @property
    def trainable_variables(self):
        return self._collect(True, [], set())

    @property
    def non_trainable_variables(self):
        return self._collect(False, [], set())

    @property
    def variables(self):
        """Every variable, trainable ones first, each once (a reused layer's are listed once)."""
        return self.trainable_variables + self.non_trainable_variables

    weights, trainable_weights, non_trainable_weights = variables, trainable_variables, non_trainable_variables

    def count_params(self):
        return int(sum(v.shape.num_elements() for v in self.variables))

    def get_weights(self):
        """The values of ``weights`` as new NumPy arrays, in that order (Keras's ``get_weights``)."""
        return [v.numpy() for v in self.weights]

    def set_weights(self, weights):
        """Give the layer's ``weights`` the values of ``weights`` (arrays in ``get_weights()`` order).

        Every array is checked before any variable changes, so a wrong list changes nothing."""
        variables, weights = self.weights, [np.asarray(w) for w in weights]
        if len(weights) != len(variables):
            hint = "" if self.built else " It is not built yet: call it once, or build(input_shape), first."
            raise InvalidArgumentError(
                f"{self.name}.set_weights: got {len(weights)} arrays, but the layer has {len(variables)} weights "
                f"({', '.join(v.name for v in variables) or 'none'}).{hint}")
        for v, w in zip(variables, weights):
            if w.shape != tuple(v.shape):
                raise InvalidArgumentError(
                    f"{self.name}.set_weights: weight '{v.name}' has shape {tuple(v.shape)}, but the array given "
                    f"for it has shape {w.shape}.")
        for v, w in zip(variables, weights):
            v.assign(w.astype(v.dtype.np_dtype, copy=False))

    # ---- building and calling -------------------------------------------------------------
    def build(self, input_shape):
        """Create the variables, knowing the input's shape. Runs once, before the first call."""

    def call(self, inputs, training=None):
        return inputs

    def compute_output_shape(self, input_shape):
        """The output shape for ``input_shape`` (None for unknown sizes), found by a trial call."""
        trial = zeros([1 if d is None else d for d in input_shape], self._dtype)
        return TensorShape((input_shape[0],) + tuple(self(trial).shape[1:]))

    def _build_for(self, input_shape):
        if isinstance(input_shape, TensorShape):      # kept for Model.save: a loaded model is built the same way
            self.__dict__["_build_input_shape"] = (None,) + tuple(input_shape)[1:]
        with name_scope(self._name):
            self.build(input_shape)
        self.built = True
        self._on_build()

    def _prepare(self, inputs):
        if isinstance(inputs, (np.ndarray, np.generic, list, float, int)):
            inputs = convert_to_tensor(inputs)
        if isinstance(inputs, Tensor):
            if inputs._dtype is not self._dtype and inputs._dtype.is_floating and self._dtype.is_floating:
                inputs = cast(inputs, self._dtype)
            if self.input_spec is not None:
                self.input_spec.check(self, inputs._value.shape)
        return inputs

    def __call__(self, inputs, *args, training=None, **kwargs):
        if type(inputs) is not Tensor and not args and functional.is_symbolic(inputs):   # functional API
            return functional.call_symbolic(self, inputs, kwargs)
        inputs = self._prepare(inputs)
        if not self.built:
            self._build_for(inputs.shape if isinstance(inputs, Tensor) else
                            nest.pack_sequence_as(inputs, [t.shape for t in nest.flatten(inputs)]))
        if training is None:
            training = _training[-1]
        if _accepts_training(type(self).call):
            kwargs["training"] = training
        _training.append(training)
        try:
            with name_scope(self._name):
                outputs = self.call(inputs, *args, **kwargs)
        finally:
            _training.pop()
        if isinstance(outputs, Tensor):
            self._note_output_shape((None,) + outputs._value.shape[1:])
        return outputs

    @property
    def output_shape(self):
        """The batch shape of the layer's output, e.g. (None, 10), known once it has run or been built in a model."""
        if self._output_shape is None:
            raise AttributeError(f'The layer "{self.name}" has never been called and thus has no defined output '
                                 f"shape. Call it (or the model holding it) on a batch first.")
        if self._output_shape == "multiple":
            raise AttributeError(f'The layer "{self.name}" has been called on inputs of different shapes, so it has '
                                 f"no single output shape.")
        return tuple(self._output_shape)

    def _note_output_shape(self, shape):
        if self._output_shape is None:
            self.__dict__["_output_shape"] = shape
        elif self._output_shape != shape:
            self.__dict__["_output_shape"] = "multiple"

    def __repr__(self):
        return f"<{type(self).__name__} name={self._name!r} built={self.built}>"
