"""Keras 3's whole-model files: ``model.save("m.keras")`` and ``load_model("m.keras")``.

A ``.keras`` file is a zip archive of three members, as Keras 3 writes it:

    metadata.json        which program wrote it, and when
    config.json          the architecture: {"class_name", "config", "build_config", "compile_config"}
    model.weights.npz    the values of ``model.weights``, in that order (NumPy's npz; Keras writes .h5)

Nothing is pickled: the config is JSON and the arrays are read with ``allow_pickle=False``, so
loading a file runs no code from it. A layer's config is its constructor's arguments
(``Layer.get_config``); a Sequential's is its layers; a functional model's is its layers and the
calls between them; a subclassed model's is its own ``get_config`` plus the input shape it was
built for. Custom classes are found by their registered name (``register_keras_serializable``)
or in ``custom_objects``. The optimizer's slots are not saved: ``load_model`` compiles a fresh
optimizer of the same settings.
"""
import datetime
import inspect
import io
import json
import os
import warnings
import zipfile

import numpy as np

from .. import nest
from ..errors import InvalidArgumentError
from ..ops.creation import zeros
from . import functional, layers as layers_module, losses, metrics as metrics_lib, optimizers
from ._config import find_class, serialize, to_json, value_from
from .layers.base import Layer

_WEIGHTS = "model.weights.npz"


def _builtin_layers():
    from .models import Model, Sequential    # here: models imports this module
    table = {name: obj for name, obj in vars(layers_module).items() if isinstance(obj, type) and issubclass(obj, Layer)}
    table.update(Sequential=Sequential, Model=Model, Functional=Model)
    return table


def serialize_layer(layer):
    return serialize(layer)


def deserialize_layer(entry, custom_objects=None):
    cls = find_class(entry, _builtin_layers(), custom_objects)
    if "custom_objects" in inspect.signature(cls.from_config).parameters:    # models: their layers may be custom
        return cls.from_config(entry["config"], custom_objects=custom_objects)
    return cls.from_config(entry["config"])


# ---- functional models: the layer calls, with references in place of KerasTensors ------------------
def functional_config(model):
    graph = model._graph
    flat_inputs = nest.flatten(graph.inputs)
    refs = {id(t): ["input", i] for i, t in enumerate(flat_inputs)}
    layer_index = {id(layer): i for i, layer in enumerate(graph.layers)}
    nodes = []
    for j, (layer, inputs, outputs, kwargs) in enumerate(graph.nodes):
        nodes.append({"layer": layer_index[id(layer)], "inputs": _encode(inputs, refs), "kwargs": _encode(kwargs, refs)})
        for k, t in enumerate(nest.flatten(outputs)):
            refs[id(t)] = ["node", j, k]
    return {"name": model.name, "trainable": model.trainable,
            "layers": [serialize_layer(layer) for layer in graph.layers],
            "inputs": [{"shape": list(t.shape), "dtype": t.dtype.name, "name": t.name} for t in flat_inputs],
            "input_structure": _encode(graph.inputs, refs), "nodes": nodes,
            "outputs": _encode(graph.outputs, refs)}


def _encode(structure, refs):
    if isinstance(structure, functional.KerasTensor):
        return {"ref": refs[id(structure)]}
    if isinstance(structure, (list, tuple)):
        return [_encode(s, refs) for s in structure]
    if isinstance(structure, dict):
        return {"dict": {str(k): _encode(v, refs) for k, v in structure.items()}}
    if structure is None or isinstance(structure, (bool, int, float, str)):
        return structure
    raise TypeError(f"Model.save: a functional model passes {structure!r:.60} to a layer, which cannot be saved as JSON.")


def _decode(data, tensors):
    if isinstance(data, dict) and "ref" in data:
        return tensors[tuple(data["ref"])]
    if isinstance(data, dict) and "dict" in data:
        return {k: _decode(v, tensors) for k, v in data["dict"].items()}
    if isinstance(data, list):
        return [_decode(d, tensors) for d in data]
    return data


def functional_from_config(cls, config, custom_objects=None):
    layers = [deserialize_layer(entry, custom_objects) for entry in config["layers"]]
    tensors = {}
    for i, spec in enumerate(config["inputs"]):
        tensors[("input", i)] = functional.Input(batch_shape=tuple(spec["shape"]), dtype=spec["dtype"], name=spec["name"])
    for j, node in enumerate(config["nodes"]):
        outputs = layers[node["layer"]](_decode(node["inputs"], tensors), **_decode(node["kwargs"], tensors))
        for k, t in enumerate(nest.flatten(outputs)):
            tensors[("node", j, k)] = t
    inputs, outputs = _decode(config["input_structure"], tensors), _decode(config["outputs"], tensors)
    model = cls(inputs, outputs, name=config["name"])
    model.trainable = config.get("trainable", True)
    return model


# ---- whole models ----------------------------------------------------------------------------------------------
def model_entry(model):
    """The JSON that describes ``model``: class, config, the shape it was built for, its compile settings."""
    entry = serialize(model)
    if model._graph is None and "_stack" not in model.__dict__:     # a subclassed model: rebuilt by a call
        shape = model.__dict__.get("_build_input_shape")
        if shape is None:
            raise InvalidArgumentError(
                f'Model.save: the model "{model.name}" has not been built, so it has no weights to save yet. Call it '
                f"on a batch first (or fit it).")
        entry["build_config"] = {"input_shape": list(shape)}
    compile_config = _compile_config(model)
    if compile_config is not None:
        entry["compile_config"] = compile_config
    return entry


def _compile_config(model):
    parts = model._compiled
    if parts is None:
        return None
    def entry(obj, key):       # a Loss or Metric by its config; a function by name (see _config.to_json)
        return obj if isinstance(obj, str) else serialize(obj) if hasattr(obj, "get_config") else to_json(model, key, obj)
    try:
        config = {"optimizer": serialize(model.optimizer), "loss": entry(parts["loss"], "loss"),
                  "metrics": [entry(m, "metrics") for m in parts["metric_ids"]]}
        json.dumps(config)
    except TypeError as error:
        warnings.warn(f"Model.save: the compile settings cannot be saved as JSON ({error}); load_model returns the "
                      f"model uncompiled. Compile it again after loading.", stacklevel=4)
        return None
    return config


def save_model(model, filepath, overwrite=True):
    """Write ``model`` to ``filepath`` (which must end in ``.keras``) as a zip of config JSON and weights."""
    filepath = os.fspath(filepath)
    if not filepath.endswith(".keras"):
        raise InvalidArgumentError(
            f"Invalid filepath extension for saving: {filepath!r}. Add the .keras extension for the Keras format "
            f"(model.save('model.keras')), or save only the weights with model.save_weights(path).")
    if not overwrite and os.path.exists(filepath):
        raise InvalidArgumentError(f"Model.save: {filepath} exists and overwrite=False.")
    if not model.built:
        raise InvalidArgumentError(
            f'Model.save: the model "{model.name}" has not been built, so it has no weights to save yet. Call it on a '
            f"batch first, or give input_shape= to its first layer.")
    config = json.dumps(model_entry(model), indent=1)
    weights = io.BytesIO()
    np.savez(weights, names=np.array([v.name for v in model.weights], dtype=str),
             **{f"w{i}": v.numpy() for i, v in enumerate(model.weights)})
    metadata = {"keras_version": "3 (minieager)", "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S")}
    with zipfile.ZipFile(filepath, "w") as archive:
        archive.writestr("metadata.json", json.dumps(metadata))
        archive.writestr("config.json", config)
        archive.writestr(_WEIGHTS, weights.getvalue())


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """The model ``Model.save`` wrote to ``filepath``: rebuilt from its config, with its weights (and compiled)."""
    filepath = os.fspath(filepath)
    if not zipfile.is_zipfile(filepath):
        raise InvalidArgumentError(
            f"load_model: {filepath} is not a .keras file (a zip archive that model.save('model.keras') writes). For "
            f"weights saved with model.save_weights, rebuild the model and call model.load_weights(path).")
    with zipfile.ZipFile(filepath) as archive:
        entry = json.loads(archive.read("config.json"))
        weights = np.load(io.BytesIO(archive.read(_WEIGHTS)), allow_pickle=False)
        values = [weights[f"w{i}"] for i in range(len(weights.files) - 1)]
        names = list(weights["names"])
    model = deserialize_layer(entry, custom_objects)
    if "build_config" in entry:
        shape = entry["build_config"]["input_shape"]
        model(zeros([1 if d is None else d for d in shape]), training=False)
    if len(model.weights) != len(values):
        raise InvalidArgumentError(
            f"load_model: the file holds {len(values)} weights ({', '.join(names)}), but the rebuilt model has "
            f"{len(model.weights)}. Its class's code has changed since it was saved, or its get_config is incomplete.")
    model.set_weights(values)
    if compile and "compile_config" in entry:
        c = entry["compile_config"]
        model.compile(optimizer=_from_entry(c["optimizer"], optimizers, optimizers.Optimizer),
                      loss=_from_entry(c["loss"], losses, losses.Loss),
                      metrics=[_from_entry(m, metrics_lib, metrics_lib.Metric) for m in c["metrics"]])
    return model


def _from_entry(entry, module, base):
    if isinstance(entry, str):
        return entry
    if entry.get("class_name") == "function":
        return value_from(entry)
    table = {name: obj for name, obj in vars(module).items() if isinstance(obj, type) and issubclass(obj, base)}
    return find_class(entry, table).from_config(entry["config"])


# ---- save_weights("name.weights.h5"): Keras 3's weights file, through h5py --------------------------------
def _h5py(what, filepath):
    try:
        import h5py
    except ImportError:
        raise ImportError(
            f"{what}: {filepath!r} is an HDF5 (.h5) file, which needs the h5py package: pip install h5py. Or use "
            f"another name: model.save_weights('ckpt/weights') writes a minieager checkpoint, and "
            f"model.save('model.keras') the whole model.") from None
    return h5py


def save_weights_h5(model, filepath):
    """Every weight of ``model`` into an HDF5 file, as datasets "weights/0", "weights/1" ... in ``model.weights``
    order, each with its variable's name."""
    h5py = _h5py("save_weights", filepath)
    with h5py.File(filepath, "w") as f:
        group = f.create_group("weights")
        for i, v in enumerate(model.weights):
            group.create_dataset(str(i), data=v.numpy()).attrs["name"] = v.name


def load_weights_h5(model, filepath):
    """Read a file ``save_weights_h5`` wrote into ``model`` (built the same way), checking count and shapes."""
    h5py = _h5py("load_weights", filepath)
    with h5py.File(filepath, "r") as f:
        group = f["weights"]
        values = [group[str(i)][()] for i in range(len(group))]
    model.set_weights(values)
