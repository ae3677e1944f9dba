"""SavedModel: an object's traced functions and variables written to a folder, and loaded back without
the Python code that made them (TF's ``tf.saved_model``).

    me.saved_model.save(module, "/tmp/adder")        # every me.function with an input_signature (or traced)
    loaded = me.saved_model.load("/tmp/adder")       # no class needed: the graphs run, the variables train
    loaded(me.constant(3.0)); loaded.signatures["serving_default"](x=me.constant(3.0))

The folder holds only data, never code (nothing is unpickled or executed on load):

    saved_model.json   the object tree, each function's graphs (nodes in the IR's own listing format,
                       one JSON object per node with its listing line) and the signatures
    variables.npz      the variables' values (NumPy, read with allow_pickle=False)
    constants.npz      the graphs' constant arrays
    manifest.json      the format version and the SHA-256 of each file above

A graph node names its Op (``"op": "matmul"``); loading finds the Op object of that name among
minieager's ops, so a saved graph can use only minieager's own ops (no me.py_function, whose Python
function cannot be saved). ``python -m minieager.saved_model show PATH`` prints a saved folder.
"""
import hashlib
import io
import json
import os
import shutil
import sys
import tempfile
import types

import numpy as np

from .. import nest
from ..autodiff.variable import Variable
from ..engine import dtypes
from ..engine.abstract import AbstractArray, compatible
from ..engine.op import EffectOp, Op, op_named
from ..engine.spec import TensorSpec
from ..engine.tensor import Tensor
from ..errors import InvalidArgumentError
from ..ops.creation import convert_to_tensor
from . import control_flow
from .function import BoundFunction, ConcreteFunction, Function
from .ir import Graph, Node
from . import passes

FORMAT = "minieager SavedModel"
VERSION = 1
FILES = ("saved_model.json", "variables.npz", "constants.npz")


class SavedModelError(InvalidArgumentError):
    """A folder that is not a saved model, is corrupt, or was written by a newer minieager."""


# ==== saving =====================================================================================
def save(obj, export_dir, signatures=None):
    """Write ``obj``'s functions (each ``me.function`` found in its attributes, lists and dicts, with
    its input_signature or the traces it has) and variables to the folder ``export_dir``.

    ``signatures``: a function or ConcreteFunction (saved as "serving_default"), or a dict of them;
    by default ``obj.__call__`` if it is an me.function with an input_signature, as in TF."""
    _Writer().walk(obj, "obj")     # first trace every function: a trace may create variables (a layer's build)
    writer = _Writer()
    tree = writer.walk(obj, "obj")
    writer.signatures = writer.signature_map(obj, signatures)
    if not writer.functions:
        raise InvalidArgumentError(
            f"saved_model.save: found no me.function with a trace in {type(obj).__name__}: give the methods to "
            f"save an input_signature (@me.function(input_signature=[me.TensorSpec(...)])) or call them once.")
    document = {"format": FORMAT, "version": VERSION, "object": tree, "functions": writer.functions,
                "signatures": writer.signatures, "variables": writer.variable_entries()}
    _write_folder(export_dir, {
        "saved_model.json": json.dumps(document, indent=1).encode(),
        "variables.npz": _npz({k: v.numpy() for k, v in writer.variable_values()}),
        "constants.npz": _npz(writer.arrays),
    })


def _npz(arrays):
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def _write_folder(export_dir, files):
    """All files into a new temporary folder beside ``export_dir``, which then replaces it: a crash
    halfway leaves the previous save as it was (as me.train.Checkpoint writes its files)."""
    export_dir = os.path.abspath(export_dir)
    if os.path.exists(export_dir) and (not os.path.isdir(export_dir) or (
            os.listdir(export_dir) and not os.path.exists(os.path.join(export_dir, "manifest.json")))):
        raise SavedModelError(f"saved_model.save: '{export_dir}' exists and is not a saved model; refusing to "
                              f"replace it. Choose a new folder.")
    parent = os.path.dirname(export_dir)
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(dir=parent, prefix=f".{os.path.basename(export_dir)}.", suffix=".tmp")
    try:
        manifest = {"format": FORMAT, "version": VERSION, "sha256": {}}
        for name, data in files.items():
            with open(os.path.join(tmp, name), "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            manifest["sha256"][name] = hashlib.sha256(data).hexdigest()
        with open(os.path.join(tmp, "manifest.json"), "w") as f:
            json.dump(manifest, f, indent=1)
        old = None
        if os.path.exists(export_dir):
            old = export_dir + ".old"
            shutil.rmtree(old, ignore_errors=True)
            os.rename(export_dir, old)
        os.rename(tmp, export_dir)
        if old:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


class _Writer:
    """Walks the object, numbering variables and arrays, turning each trace into JSON."""

    def __init__(self):
        self.functions = {}        # key -> {"name", "concrete": [...]}
        self.variables = {}        # id(variable) -> (key, variable, path)
        self.arrays = {}           # key -> array (constants.npz)
        self.seen = {}             # id(object) -> its path (each object is saved once)
        self.function_keys = {}    # id(Function or ConcreteFunction), instance -> key
        self.concrete_keys = {}    # id(ConcreteFunction) -> (function key, index of the trace)

    # ---- the object tree ----------------------------------------------------------------------
    def walk(self, value, path, depth=0):
        """A JSON picture of ``value`` holding only what is saved, or None if it holds nothing."""
        if isinstance(value, Variable):
            return {"variable": self.variable_key(value, path)}
        if isinstance(value, (Function, BoundFunction, ConcreteFunction)):
            key = self.function_key(value, path)
            return {"function": key} if key else None
        if isinstance(value, Tensor) or depth > 20:
            return None
        if isinstance(value, (list, tuple)):
            items = [self.walk(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)]
            return {"list": items} if any(items) else None
        if isinstance(value, dict):
            items = {str(k): self.walk(v, f"{path}[{k!r}]", depth + 1) for k, v in value.items()}
            items = {k: v for k, v in items.items() if v}
            return {"dict": items} if items else None
        if not _is_object(value):
            return None
        if id(value) in self.seen:
            return {"same_as": self.seen[id(value)]}
        self.seen[id(value)] = path
        attributes = {}
        for name in _attribute_names(value):
            try:
                attr = getattr(value, name)
            except Exception:       # a property that fails (e.g. needs a built model): not saved
                continue
            entry = self.walk(attr, f"{path}.{name}", depth + 1)
            if entry:
                attributes[name] = entry
        return {"object": type(value).__name__, "attributes": attributes} if attributes else None

    def variable_key(self, variable, path=None):
        entry = self.variables.get(variable._id)
        if entry is None:
            entry = self.variables[variable._id] = (f"v{len(self.variables)}", variable, path)
        elif entry[2] is None and path is not None:
            self.variables[variable._id] = (entry[0], variable, path)
        return entry[0]

    def variable_entries(self):
        return {key: {"name": v.name, "path": path, "shape": list(v.shape), "dtype": v.dtype.name,
                      "trainable": v.trainable} for key, v, path in self.variables.values()}

    def variable_values(self):
        return [(key, v) for key, v, _ in self.variables.values()]

    def function_key(self, fn, path):
        ident = (id(fn.function), id(fn.instance)) if isinstance(fn, BoundFunction) else (id(fn), None)
        if ident in self.function_keys:
            return self.function_keys[ident]
        concretes = self.concretes_of(fn, path)
        if not concretes:
            return None
        key = f"f{len(self.functions)}"
        self.function_keys[ident] = key
        for i, c in enumerate(concretes):
            self.concrete_keys[id(c)] = (key, i)
        self.functions[key] = {"name": getattr(fn, "name", path), "path": path,
                               "concrete": [self.concrete(c) for c in concretes]}
        return key

    @staticmethod
    def concretes_of(fn, path):
        """The traces to save: the input_signature's, else every trace made so far."""
        if isinstance(fn, ConcreteFunction):
            return [fn]
        function = fn.function if isinstance(fn, BoundFunction) else fn
        if function.input_signature is not None:
            return [fn.get_concrete_function()]
        if not isinstance(fn, BoundFunction):
            return list(function._concrete.values())
        # A method's traces are keyed by the instance (its first argument): keep this instance's.
        return [c for key, c in function._concrete.items() if key and _is_instance_part(key[0][2], fn.instance)]

    def concrete(self, concrete):
        graph = concrete.graph
        return {"name": concrete.name, "graph": self.graph(graph),
                "inputs": [{"name": n.name, "shape": list(n.shape), "dtype": n.dtype.name} for n in graph.inputs],
                "outputs": _structure_to_json(concrete.structured_outputs)}

    def signature_map(self, obj, signatures):
        if signatures is None:
            call = getattr(obj, "__call__", None)
            if isinstance(call, (Function, BoundFunction)) and call.input_signature is not None:
                signatures = call
            else:
                return {}
        if not isinstance(signatures, dict):
            signatures = {"serving_default": signatures}
        out = {}
        for name, fn in signatures.items():
            if isinstance(fn, (Function, BoundFunction)):
                if fn.input_signature is None:
                    raise InvalidArgumentError(
                        f"saved_model.save: signature '{name}' must be a ConcreteFunction or an me.function with an "
                        f"input_signature (a signature has fixed inputs); use f.get_concrete_function(...).")
                self.function_key(fn, f"signatures[{name!r}]")      # (the same key if already saved)
                fn = fn.get_concrete_function()
            if not isinstance(fn, ConcreteFunction):
                raise TypeError(f"saved_model.save: signature '{name}' must be an me.function or ConcreteFunction, "
                                f"got {type(fn).__name__}.")
            if id(fn) not in self.concrete_keys:
                self.function_key(fn, f"signatures[{name!r}]")
            key, index = self.concrete_keys[id(fn)]
            out[name] = {"function": key, "trace": index}
        return out

    # ---- graphs ------------------------------------------------------------------------------
    def graph(self, graph):
        listing = str(graph).splitlines()[1:-1]        # one line per node that is not a placeholder
        lines = iter(listing)
        nodes = []
        for node in graph.nodes:
            entry = {"name": node.name, "kind": node.kind,
                     "line": None if node.kind == "placeholder" else next(lines).strip(),
                     "shape": None if node.shape is None else list(node.shape),
                     "dtype": None if node.dtype is None else node.dtype.name}
            if node.kind == "constant":
                entry["value"] = self.array(node.value)
            elif node.kind == "variable":
                entry["value"] = {"variable": self.variable_key(node.value)}
            elif node.kind == "call":
                entry.update(op=node.op.name, inputs=[i.name for i in node.inputs], index=node.index,
                             effect=node.effect, num_outputs=node.op.num_outputs,
                             attrs={k: self.attr(node, k, v) for k, v in node.attrs.items()})
            nodes.append(entry)
        return {"name": graph.name, "inputs": [n.name for n in graph.inputs],
                "outputs": [n.name for n in graph.outputs], "nodes": nodes}

    def array(self, value):
        if hasattr(value, "copy_to_host"):
            value = value.copy_to_host()
        key = f"c{len(self.arrays)}"
        self.arrays[key] = np.asarray(value)
        return {"array": key}

    def attr(self, node, name, v):
        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        if isinstance(v, (np.generic, np.ndarray)):
            return self.array(v)
        if isinstance(v, tuple):
            return {"tuple": [self.attr(node, name, x) for x in v]}
        if isinstance(v, list):
            return [self.attr(node, name, x) for x in v]
        if isinstance(v, dict) and all(isinstance(k, str) for k in v):
            return {"dict": {k: self.attr(node, name, x) for k, x in v.items()}}
        if isinstance(v, dtypes.DType):
            return {"dtype": v.name}
        if isinstance(v, Variable):
            return {"variable": self.variable_key(v)}
        if isinstance(v, Graph):
            return {"graph": self.graph(v)}
        if v is sys.stdout or v is sys.stderr:
            return {"stream": "stdout" if v is sys.stdout else "stderr"}
        raise InvalidArgumentError(
            f"saved_model.save: graph node {node.name} ({node.op.name}) has attribute {name}={type(v).__name__}, "
            f"which cannot be saved: a SavedModel holds data only, never Python objects or code. "
            f"{'me.py_function calls Python, so a function using it cannot be saved. ' if 'py' in node.op.name else ''}"
            f"Save a function that uses minieager ops only.")


def _is_instance_part(parts, instance):
    return len(parts) == 1 and (parts[0] == ("object", id(instance)) or parts[0][-1] is instance)


_NOT_WALKED = ("builtins", "numpy", "types", "functools", "io", "_io", "sys", "minieager.nn.optimizers")


def _is_object(value):
    """An object whose attributes may hold functions and variables (a module, a layer, a model); not a
    class, a function, a Python module, a NumPy value or an optimizer (its slots are not saved)."""
    module = getattr(type(value), "__module__", "") or ""
    return (hasattr(value, "__dict__") and not isinstance(value, (type, types.ModuleType, types.FunctionType,
                                                                  types.MethodType))
            and not any(module == m or module.startswith(m + ".") for m in _NOT_WALKED))


def _attribute_names(value):
    """Instance attributes, then me.function methods of its class, in a stable order."""
    names = sorted(vars(value))
    for cls in type(value).__mro__:
        for name, attr in vars(cls).items():
            if isinstance(attr, Function) and name not in names:
                names.append(name)
    return names


def _structure_to_json(structure):
    if structure is None:
        return None
    if isinstance(structure, tuple):
        return {"tuple": [_structure_to_json(s) for s in structure]}
    if isinstance(structure, list):
        return [_structure_to_json(s) for s in structure]
    if isinstance(structure, dict):
        return {"dict": {str(k): _structure_to_json(v) for k, v in structure.items()}}
    return "tensor"


def _structure_from_json(data):
    if data is None:
        return None
    if data == "tensor":
        return 0
    if isinstance(data, list):
        return [_structure_from_json(s) for s in data]
    if "tuple" in data:
        return tuple(_structure_from_json(s) for s in data["tuple"])
    return {k: _structure_from_json(v) for k, v in data["dict"].items()}


# ==== loading ====================================================================================
def read(export_dir):
    """The checked contents of a saved folder: (document, variable arrays, constant arrays)."""
    export_dir = os.path.abspath(export_dir)
    manifest_path = os.path.join(export_dir, "manifest.json")
    if not os.path.isdir(export_dir) or not os.path.exists(manifest_path):
        what = "does not exist" if not os.path.exists(export_dir) else \
            "is not a folder" if not os.path.isdir(export_dir) else "has no manifest.json"
        raise SavedModelError(f"saved_model.load: '{export_dir}' is not a saved model: it {what}. A saved model is "
                              f"the folder me.saved_model.save(obj, path) wrote.")
    try:
        with open(manifest_path) as f:
            manifest = json.load(f)
    except (OSError, ValueError) as e:
        raise SavedModelError(f"saved_model.load: '{manifest_path}' is corrupt ({e}).") from None
    if manifest.get("format") != FORMAT:
        raise SavedModelError(f"saved_model.load: '{export_dir}' is not a minieager saved model (its manifest "
                              f"says format {manifest.get('format')!r}).")
    if not isinstance(manifest.get("version"), int) or manifest["version"] > VERSION:
        raise SavedModelError(f"saved_model.load: '{export_dir}' was saved in format version {manifest.get('version')}"
                              f", newer than this minieager reads ({VERSION}). Update minieager to load it.")
    data = {}
    for name in FILES:
        path = os.path.join(export_dir, name)
        try:
            with open(path, "rb") as f:
                data[name] = f.read()
        except OSError:
            raise SavedModelError(f"saved_model.load: '{export_dir}' is corrupt: {name} is missing.") from None
        if hashlib.sha256(data[name]).hexdigest() != manifest.get("sha256", {}).get(name):
            raise SavedModelError(f"saved_model.load: '{export_dir}' is corrupt: the checksum of {name} does not "
                                  f"match the manifest (the file was changed or cut short). Save the model again.")
    document = json.loads(data["saved_model.json"])
    with np.load(io.BytesIO(data["variables.npz"]), allow_pickle=False) as v, \
            np.load(io.BytesIO(data["constants.npz"]), allow_pickle=False) as c:
        return document, dict(v), dict(c)


def load(export_dir):
    """The saved object, rebuilt without its class: its functions run the saved graphs, its variables
    are restored (and train); ``loaded.signatures`` maps names to the signature functions."""
    document, variable_arrays, arrays = read(export_dir)
    variables = {key: Variable(variable_arrays[key], trainable=entry["trainable"], name=entry["name"].split(":")[0])
                 for key, entry in document["variables"].items()}
    reader = _Reader(variables, arrays)
    functions = {key: RestoredFunction(entry["name"], [reader.concrete(c) for c in entry["concrete"]])
                 for key, entry in document["functions"].items()}
    objects = {}
    built = _build(document["object"], functions, variables, objects, "obj")
    root = built if isinstance(built, Loaded) else Loaded()
    if isinstance(built, RestoredFunction):      # me.saved_model.save(some_function, path): loaded(...) calls it
        root.__call__ = built
    root.signatures = {name: SignatureFunction(name, functions[s["function"]].concrete_functions[s["trace"]])
                       for name, s in document["signatures"].items()}
    root._all_variables = list(variables.values())
    return root


class Loaded:
    """A loaded object: attributes as saved (functions, variables, nested objects), no Python class."""

    @property
    def variables(self):
        return list(getattr(self, "_all_variables", None) or _collect(self, Variable))

    @property
    def trainable_variables(self):
        return [v for v in self.variables if v.trainable]

    def __call__(self, *args, **kwargs):
        call = self.__dict__.get("__call__")
        if call is None:
            raise TypeError("this loaded object had no me.function __call__ when it was saved.")
        return call(*args, **kwargs)

    def __repr__(self):
        names = ", ".join(k for k in vars(self) if not k.startswith("_") and k != "signatures")
        return f"<loaded saved model object: {names}>"


def _collect(obj, kind, seen=None):
    seen = set() if seen is None else seen
    out = []
    for v in vars(obj).values():
        if isinstance(v, kind) and id(v) not in seen:
            seen.add(id(v))
            out.append(v)
        elif isinstance(v, Loaded):
            out.extend(_collect(v, kind, seen))
    return out


def _build(entry, functions, variables, objects, path):
    if entry is None:
        return None
    if "variable" in entry:
        return variables[entry["variable"]]
    if "function" in entry:
        return functions[entry["function"]]
    if "list" in entry:
        return [_build(e, functions, variables, objects, f"{path}[{i}]") for i, e in enumerate(entry["list"])]
    if "dict" in entry:
        return {k: _build(e, functions, variables, objects, f"{path}[{k!r}]") for k, e in entry["dict"].items()}
    if "same_as" in entry:
        return objects.get(entry["same_as"])
    obj = objects[path] = Loaded()
    for name, e in entry["attributes"].items():
        setattr(obj, name, _build(e, functions, variables, objects, f"{path}.{name}"))
    return obj


class _Reader:
    """JSON nodes -> Nodes: each op found by name among minieager's ops."""

    def __init__(self, variables, arrays):
        self.variables, self.arrays = variables, arrays

    def concrete(self, entry):
        graph = self.graph(entry["graph"])
        concrete = ConcreteFunction(graph, _structure_from_json(entry["outputs"]), entry["name"])
        concrete.run_graph, concrete.pass_reports = passes.optimize(graph)
        return concrete

    def graph(self, data):
        nodes = {}
        for e in data["nodes"]:
            dtype = None if e["dtype"] is None else dtypes.as_dtype(e["dtype"])
            common = dict(shape=None if e["shape"] is None else tuple(e["shape"]), dtype=dtype)
            if e["kind"] == "placeholder":
                node = Node("placeholder", e["name"], **common)
            elif e["kind"] == "constant":
                node = Node("constant", e["name"], value=self.arrays[e["value"]["array"]], **common)
            elif e["kind"] == "variable":
                node = Node("variable", e["name"], value=self.variables[e["value"]["variable"]], **common)
            else:
                attrs = {k: self.attr(v) for k, v in e["attrs"].items()}
                node = Node("call", e["name"], op=self.op(e, attrs), inputs=[nodes[i] for i in e["inputs"]],
                            attrs=attrs, index=e["index"], effect=e["effect"], **common)
            nodes[e["name"]] = node
        return Graph(nodes.values(), [nodes[n] for n in data["inputs"]], [nodes[n] for n in data["outputs"]],
                     name=data["name"])

    def attr(self, v):
        if isinstance(v, list):
            return [self.attr(x) for x in v]
        if not isinstance(v, dict):
            return v
        (kind, value), = v.items()
        if kind == "tuple":
            return tuple(self.attr(x) for x in value)
        if kind == "dict":
            return {k: self.attr(x) for k, x in value.items()}
        if kind == "array":
            return self.arrays[value]
        if kind == "dtype":
            return dtypes.as_dtype(value)
        if kind == "variable":
            return self.variables[value]
        if kind == "graph":
            return self.graph(value)
        if kind == "stream":
            return getattr(sys, value)
        raise SavedModelError(f"saved_model.load: unknown attribute kind {kind!r} (a newer format?).")

    def op(self, e, attrs):
        name = e["op"]
        if name in ("cond", "while"):       # made per call by me.cond / me.while_loop: made again here
            return _control_flow_op(name, e)
        op = op_named(name)
        if op is None:
            raise SavedModelError(f"saved_model.load: the saved graph calls op '{name}', which this minieager does "
                                  f"not have (saved by another version?).")
        return op


def _control_flow_op(name, e):
    n = e["num_outputs"]
    rule = lambda *inputs, **attrs: _results(attrs, name)   # noqa: E731 (what a trace through it records)
    if e["effect"]:
        return EffectOp(name, ("pred", "captured") if name == "cond" else ("loop_vars", "captured"), name,
                        shape_rule=rule, traced=lambda tracer, attrs, outputs: tracer.forget_reads(), num_outputs=n)
    if name == "cond":
        return Op("cond", ("pred", "captured"), "true_graph if pred else false_graph",
                  grads=(None, "cond(pred, d true_graph, d false_graph)"), vjp=control_flow._cond_vjp, num_outputs=n,
                  shape_rule=rule)
    return Op("while", ("loop_vars", "captured"), "while cond_graph(v): v = body_graph(v)", num_outputs=n,
              shape_rule=rule)


def _results(attrs, name):
    """The outputs of a loaded cond or while node: those of its branch's (body's) graph."""
    graph = attrs["true_graph"] if name == "cond" else attrs["body_graph"]
    results = tuple(AbstractArray(node.shape, node.dtype.np_dtype) for node in graph.outputs)
    return results[0] if len(results) == 1 else results


class RestoredFunction:
    """A loaded function: its saved traces; a call runs the first whose inputs fit the arguments' shapes
    (a saved `None` dimension fits any size) and dtypes."""

    def __init__(self, name, concrete_functions):
        self.name, self.concrete_functions = name, concrete_functions

    def __call__(self, *args, **kwargs):
        if kwargs:
            names = [n.name for n in self.concrete_functions[0].inputs]
            args = tuple(args) + tuple(kwargs.pop(n) for n in names[len(args):] if n in kwargs)
            if kwargs:
                raise TypeError(f"{self.name}(): unexpected arguments {sorted(kwargs)}; it takes {names}.")
        tensors = [a if isinstance(a, Tensor) else convert_to_tensor(a) for a in nest.flatten(list(args))]
        for concrete in self.concrete_functions:
            inputs = concrete.inputs
            if len(inputs) == len(tensors) and all(
                    compatible(n.shape, tuple(t.shape)) and (n.dtype is t.dtype or not isinstance(a, Tensor))
                    for n, t, a in zip(inputs, tensors, nest.flatten(list(args)))):
                return concrete(*tensors)
        raise InvalidArgumentError(
            f"loaded function '{self.name}' has no saved trace for arguments "
            f"({', '.join(f'{t.dtype.name}{list(t.shape)}' for t in tensors)}); it was saved for: "
            + "; ".join("(" + ", ".join(n.type_text for n in c.inputs) + ")" for c in self.concrete_functions)
            + ". Save the function with an input_signature (or call it with these shapes) before saving.")

    def get_concrete_function(self, *args):
        return self.concrete_functions[0]

    def __repr__(self):
        return f"<loaded me.function {self.name}: {len(self.concrete_functions)} trace(s)>"


class SignatureFunction:
    """``loaded.signatures["serving_default"]``: called with keyword arguments named as the inputs,
    returns a dict of outputs (``output_0`` ... unless the function returned a dict), as in TF."""

    def __init__(self, name, concrete):
        self.name, self.concrete = name, concrete
        self.structured_input_signature = tuple(TensorSpec(n.shape, n.dtype, name=n.name) for n in concrete.inputs)

    def __call__(self, *args, **kwargs):
        names = [n.name for n in self.concrete.inputs]
        unknown = sorted(set(kwargs) - set(names))
        if unknown:
            raise TypeError(f"signature '{self.name}' takes inputs {names}, got unexpected {unknown}.")
        values = list(args) + [kwargs[n] for n in names[len(args):] if n in kwargs]
        result = self.concrete(*values)
        if isinstance(result, dict):
            return result
        return {f"output_{i}": t for i, t in enumerate(nest.flatten(result))}

    @property
    def inputs(self):
        return self.concrete.inputs

    def __repr__(self):
        return f"<signature {self.name}({', '.join(n.name + ': ' + n.type_text for n in self.concrete.inputs)})>"


# ==== show ===================================================================================
def show(export_dir, file=None):
    """Print a saved folder as ``saved_model_cli show`` does: the signatures, the functions with their
    inputs and outputs, the variables, and each graph's listing."""
    document, variable_arrays, _ = read(export_dir)
    out = file or sys.stdout
    w = lambda text="": print(text, file=out)   # noqa: E731
    w(f"SavedModel {export_dir} (format version {document['version']})")
    w("\nSignatures:")
    for name, s in document["signatures"].items():
        c = document["functions"][s["function"]]["concrete"][s["trace"]]
        w(f"  {name}: {_signature_text(c)}")
    if not document["signatures"]:
        w("  (none)")
    w("\nVariables:")
    for key, v in document["variables"].items():
        w(f"  {key}  {v['dtype']}[{','.join(map(str, v['shape']))}]  {v['path'] or v['name']}"
          f"{'' if v['trainable'] else '  (not trainable)'}")
    w("\nFunctions:")
    for key, f in document["functions"].items():
        for c in f["concrete"]:
            w(f"\n  {f['path']}: {_signature_text(c)}")
            for line in _listing(c["graph"]):
                w("    " + line)


def _signature_text(c):
    args = ", ".join(f"{i['name']}: {i['dtype']}[{','.join(map(str, i['shape']))}]" for i in c["inputs"])
    return f"({args})"


def _listing(graph, indent=""):
    args = ", ".join(graph["inputs"])
    lines = [f"{indent}def {graph['name']}({args}):"]
    for e in graph["nodes"]:
        if e["line"] is not None:
            lines.append(f"{indent}    {e['line']}")
    lines.append(f"{indent}    return {', '.join(graph['outputs']) or '()'}")
    for e in graph["nodes"]:
        for v in (e.get("attrs") or {}).values():
            if isinstance(v, dict) and "graph" in v:
                lines.extend(_listing(v["graph"], indent + "  "))
    return lines

