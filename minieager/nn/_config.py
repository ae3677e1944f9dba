"""Keras-style ``get_config`` / ``from_config``: an object's config is the arguments it was made with.

A Layer, Loss or Optimizer remembers the arguments its constructor was called with (``remember_init_args``,
called from ``__new__``, as Keras 3's automatic config). ``get_config`` turns them into JSON values:
activation functions become their names, initializers and layers ``{"class_name", "config"}`` dicts.
A value that has no JSON form (a Python function in ``Lambda``) is an error that says what to do.

The registry (``register_serializable``) names custom classes, so ``load_model`` can find them again.
"""
import inspect
import sys

from . import activations

_REGISTRY = {}            # "package>Name" -> class
_NAMES = {}               # class -> "package>Name"


def register_serializable(package="Custom", name=None):
    """Decorator: let ``load_model`` rebuild this class (or find this function) by its saved name ``"package>Name"``."""
    def register(cls):
        key = f"{package}>{name or cls.__name__}"
        if inspect.isclass(cls) and not hasattr(cls, "get_config"):
            raise ValueError(f"Cannot register {cls.__name__}: it has no get_config() method.")
        _REGISTRY[key], _NAMES[cls] = cls, key       # a notebook cell run again registers its new class, as Keras
        return cls
    return register


def registered_name(cls):
    return _NAMES.get(cls)


def remember_init_args(obj, cls, args, kwargs):
    """Keep ``cls(*args, **kwargs)``'s arguments, defaults filled in, as ``obj._init_config`` (or None if they
    cannot be named: a ``*args`` signature)."""
    signature = inspect.signature(cls.__init__)
    try:
        bound = signature.bind(obj, *args, **kwargs)
    except TypeError:
        return      # __init__ raises the proper error in a moment
    bound.apply_defaults()
    config = {}
    for name, value in list(bound.arguments.items())[1:]:
        kind = signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_KEYWORD:
            config.update(value)
        elif kind is inspect.Parameter.VAR_POSITIONAL:
            if value:
                config = None
                break
        else:
            config[name] = value
    obj.__dict__["_init_config"] = config


class Configurable:
    """Mixin: ``get_config()`` is the constructor's arguments, ``from_config(config)`` calls it with them."""

    def __new__(cls, *args, **kwargs):
        obj = super().__new__(cls)
        remember_init_args(obj, cls, args, kwargs)
        return obj

    def get_config(self):
        return config_of(self)

    @classmethod
    def from_config(cls, config):
        return cls(**{key: value_from(value) for key, value in config.items()})


def _activation_name(fn):
    for name, candidate in activations._BY_NAME.items():
        if candidate is fn:
            return name
    return None


def to_json(owner, key, value):
    """``value`` (an argument of ``owner``'s constructor) as a JSON value, or a TypeError saying why it cannot be."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if hasattr(value, "item") and getattr(value, "shape", None) == ():     # a NumPy scalar
        return value.item()
    if isinstance(value, (list, tuple)):
        return [to_json(owner, key, v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json(owner, key, v) for k, v in value.items()}
    if hasattr(value, "get_config"):        # an initializer, layer, loss ...
        return serialize(value)
    if callable(value) and key.endswith("activation") and _activation_name(value):
        return _activation_name(value)          # activation=me.nn.relu is saved as "relu", as Keras does
    if callable(value):     # a function is saved by name; load_model finds it again only where that is safe
        module, name = getattr(value, "__module__", None), getattr(value, "__qualname__", "?")
        if "<locals>" in name and getattr(sys.modules.get(module), getattr(value, "__name__", ""), None) is value:
            name = value.__name__       # made by a factory (me.nn.relu) but reachable by its name in its module
        entry = {"class_name": "function", "config": {"module": module, "name": name}}
        if registered_name(value):
            entry["registered_name"] = registered_name(value)
        return entry
    raise TypeError(
        f"{type(owner).__name__} {getattr(owner, 'name', '')!r}: cannot save the argument {key}={value!r:.80} as "
        f"JSON. Pass a name instead (e.g. activation='relu'), or give the class get_config() and from_config() that "
        f"describe it in numbers and strings (and register it with me.keras.saving.register_keras_serializable).")


def config_of(obj):
    """The JSON form of ``obj``'s remembered constructor arguments."""
    config = obj.__dict__.get("_init_config")
    if config is None:
        raise TypeError(
            f"{type(obj).__name__}: cannot describe this object by its constructor arguments (it takes *args, or "
            f"was made without calling the constructor). Give the class get_config() and from_config().")
    return {key: to_json(obj, key, value) for key, value in config.items()}


def serialize(obj):
    """``{"class_name", "config"}`` (and "registered_name" for a registered class), as ``keras.saving``."""
    cls = type(obj)
    entry = {"class_name": cls.__name__, "config": obj.get_config()}
    if registered_name(cls):
        entry["registered_name"] = registered_name(cls)
    return entry


def find_class(entry, builtins, custom_objects=None):
    """The class an entry names: ``custom_objects`` first, then the registry, then the built-in classes."""
    custom_objects = custom_objects or {}
    for key in (entry.get("registered_name"), entry["class_name"]):
        if key in custom_objects:
            return custom_objects[key]
    if entry.get("registered_name") in _REGISTRY:
        return _REGISTRY[entry["registered_name"]]
    if entry["class_name"] in builtins:
        return builtins[entry["class_name"]]
    raise TypeError(
        f"Could not find the class {entry['class_name']!r} (saved as {entry.get('registered_name') or 'unregistered'}). "
        f"Decorate it with @me.keras.saving.register_keras_serializable() before saving, or pass "
        f"custom_objects={{{entry['class_name']!r}: {entry['class_name']}}} to load_model.")


def function_from(config):
    """A function saved by name: a registered one, or one of minieager's own. No code is read from the file,
    so a lambda or a function defined inside another cannot come back."""
    module, name = config.get("module"), config.get("name", "?")
    if "<lambda>" in name or "<locals>" in name:
        raise ValueError(
            f"The saved model uses the Python function {name} (from {module}), whose code a .keras file does not hold "
            f"(Keras stores a lambda's bytecode and loads it only with safe_mode=False; minieager never runs code "
            f"from a file). Write it as a module-level function registered with "
            f"@me.keras.saving.register_keras_serializable(), or as a Layer subclass, and save again.")
    if module and (module == "minieager" or module.startswith("minieager.")):
        import importlib
        found = importlib.import_module(module)
        for part in name.split("."):
            found = getattr(found, part)
        return found
    raise ValueError(
        f"The saved model uses the function {module}.{name}, which is not registered. Decorate it with "
        f"@me.keras.saving.register_keras_serializable() before saving and loading, so load_model can find it.")


def value_from(value):
    """A constructor argument as saved: functions by name, initializers as dicts, anything else as it is."""
    if isinstance(value, dict) and value.get("class_name") == "function":
        if value.get("registered_name") in _REGISTRY:
            return _REGISTRY[value["registered_name"]]
        return function_from(value["config"])
    return initializer_from(value)


def initializer_from(value):
    """An initializer argument as saved: a name, or a ``{"class_name", "config"}`` dict."""
    from . import initializers     # here: initializers use this module's Configurable
    if isinstance(value, dict) and "class_name" in value:
        cls = getattr(initializers, value["class_name"], None)
        if not (isinstance(cls, type) and issubclass(cls, initializers.Initializer)):
            raise TypeError(f"Unknown initializer class {value['class_name']!r} in a saved config.")
        return cls(**value["config"])
    return value
