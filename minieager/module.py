"""``me.Module``: a named container of variables and other modules, as ``tf.Module``.

    class Dense(me.Module):
        def __init__(self, in_features, out_features, name=None):
            super().__init__(name=name)
            self.w = me.Variable(me.random.normal([in_features, out_features]), name="w")
            self.b = me.Variable(me.zeros([out_features]), name="b")

        def __call__(self, x):
            return me.nn.relu(me.matmul(x, self.w) + self.b)

Nothing is registered when an attribute is assigned: ``variables`` and ``submodules`` walk the
module's attributes when asked, as TF does: attribute names in sorted order, lists and tuples
in order, dicts by sorted key, each object once; a module's own variables come before those of
its submodules. A Checkpoint saves a module through the same walk (``_checkpoint_dependencies``), and a
variable made after a restore (on a first call) takes its saved value when it is assigned.
Keras layers and models (``me.keras.layers.Layer``) are Modules that keep their own, Keras, order.
"""
import functools
import re

from .autodiff.variable import Variable
from .engine.scope import name_scope
from .tracking import is_trackable

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def camel_to_snake(name):
    """"MyDenseLayer" -> "my_dense_layer": a module's default name, from its class."""
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()


def _leaves(path, value):
    """(path, item) for ``value`` itself, or for the items of a list, tuple or dict (keys sorted), at any depth."""
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _leaves(path + (i,), item)
    elif isinstance(value, dict):
        try:
            keys = sorted(value)
        except TypeError:           # keys of mixed types cannot be sorted: keep the dict's order
            keys = list(value)
        for key in keys:
            yield from _leaves(path + (key,), value[key])
    else:
        yield path, value


class Module:
    """Base class for objects that hold variables and other modules (``tf.Module``).

    name   default: the class name in snake_case ("my_model"); must be a Python identifier
    """

    def __init__(self, name=None):
        if name is None:
            name = camel_to_snake(type(self).__name__)
        elif not _IDENTIFIER.match(name):
            suggestion = re.sub(r"\W", "_", name)
            raise ValueError(f"{name!r} is not a valid module name. Module names must be valid Python identifiers "
                             f"(letters, digits and _, not starting with a digit), e.g. name={suggestion!r}.")
        self._name = name
        with name_scope(name) as scope:           # "outer/name/" if created inside another scope, as TF
            self._scope_name = scope

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        # A checkpoint restored before this variable existed (a module that makes its variables on the first
        # call) hands it its saved value now, as TF's delayed restoration does.
        restorer = self.__dict__.get("_deferred_restorer")
        if restorer is not None and name != "_deferred_restorer" and (
                is_trackable(value) or isinstance(value, (list, tuple, dict))):
            restorer()

    @property
    def name(self):
        return self._name

    @property
    def name_scope(self):
        """A ``me.name_scope`` for this module ("name/"): ops run in it are recorded under the module's name."""
        return name_scope(self._scope_name)

    # ---- the walk over attributes ---------------------------------------------------------------
    def _children(self):
        """(path, value) for every value this module holds directly: attributes sorted by name, then the
        items of lists, tuples and dicts. Layers override it to keep the order their attributes were set."""
        attributes = vars(self)
        for key in sorted(attributes):
            if key not in ("_name", "_scope_name", "_deferred_restorer"):
                yield from _leaves((key,), attributes[key])

    def _flatten(self, predicate, seen=None):
        """Every object below this module that ``predicate`` accepts, each once: this module's own first,
        then those of each submodule in turn (as ``tf.Module._flatten``)."""
        seen = {id(self)} if seen is None else seen
        submodules = []
        for _, leaf in self._children():
            if id(leaf) in seen:
                continue
            seen.add(id(leaf))
            if predicate(leaf):
                yield leaf
            if isinstance(leaf, Module):
                submodules.append(leaf)
        for module in submodules:
            yield from module._flatten(predicate, seen)

    @property
    def variables(self):
        """Every Variable held by this module and its submodules, each once (a tuple, as TF)."""
        return tuple(self._flatten(lambda x: isinstance(x, Variable)))

    def _frozen(self):
        """The ids of variables held by a frozen Keras layer (``layer.trainable = False``) here or below."""
        frozen = set()
        for module in (self,) + self.submodules:
            if getattr(module, "trainable", True) is False:
                frozen.update(id(v) for v in module.variables)
        return frozen

    @property
    def trainable_variables(self):
        """The variables created with ``trainable=True`` (and not in a frozen layer), in the order of ``variables``."""
        frozen = self._frozen()
        return tuple(v for v in self.variables if v.trainable and id(v) not in frozen)

    @property
    def non_trainable_variables(self):
        frozen = self._frozen()
        return tuple(v for v in self.variables if not v.trainable or id(v) in frozen)

    @property
    def submodules(self):
        """Every Module below this one, found through attributes, lists and dicts, at any depth, each once."""
        return tuple(self._flatten(lambda x: isinstance(x, Module)))

    def _checkpoint_dependencies(self):
        """The children a Checkpoint saves, [(name, object)]: variables and other trackables, each once."""
        seen, deps = set(), []
        for path, value in self._children():
            if is_trackable(value) and id(value) not in seen:
                seen.add(id(value))
                deps.append(("/".join(map(str, path)), value))
        return deps

    @classmethod
    def with_name_scope(cls, method):
        """Decorator: run ``method`` inside ``self.name_scope``, so the tape debugger groups its ops."""
        @functools.wraps(method)
        def method_with_name_scope(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)
        return method_with_name_scope

    def __repr__(self):
        return f"<{type(self).__name__} name={self._name!r}>"
