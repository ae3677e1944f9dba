"""Which objects hold state: Variables, and anything that lists its children.

Layers use this to track the sub-layers and variables assigned to them, and checkpoints to walk
the object graph. An object is *trackable* if it is a Variable or has ``_checkpoint_dependencies()``.
"""
from .autodiff.variable import Variable


def is_trackable(value):
    return isinstance(value, Variable) or hasattr(value, "_checkpoint_dependencies")


def flatten_trackables(path, value):
    """(path, trackable) pairs in ``value``: a trackable itself, or lists and dicts of them."""
    if is_trackable(value):
        yield path, value
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from flatten_trackables(f"{path}/{i}", item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from flatten_trackables(f"{path}/{key}", item)
