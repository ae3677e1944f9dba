"""User names for tensors: ``me.debugger.name(h, "h1")`` labels ``h`` in every later drawing.

Names are kept by the tensor's stable id and forgotten when the tensor is garbage-collected,
so naming a tensor never keeps it (or its memory) alive.
"""
import weakref

from ..engine.tensor import Tensor

_names = {}


def name(tensor, label):
    """Give ``tensor`` a name for the debugger's drawings; returns the tensor, so it chains."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"name() labels a Tensor or Variable, not {type(tensor).__name__}.")
    if tensor._id not in _names:
        weakref.finalize(tensor, _names.pop, tensor._id, None)
    _names[tensor._id] = str(label)
    return tensor


def name_of(tensor):
    """The name given with ``name()``, else the Variable's own name, else None."""
    given = _names.get(tensor._id)
    if given is not None:
        return given
    return getattr(tensor, "name", None)     # only a Variable has one
