"""Python's operators on tensors (``a + b``, ``x[0]``, ``a @ b``, ``-x``, ``t.gpu()``), installed
onto ``Tensor`` from here, above it.

``engine/tensor.py`` defines what a tensor *is* (its value, dtype, device, printing); it knows no
op. This module, which sits above both the Tensor and the ops, binds each operator to the op it
means, from one table. (JAX installs its array methods the same way, in ``array_methods.py``.)

The arithmetic operators are bound straight to the op functions, with no method in between: on
small tensors an operator is all overhead. An op function may carry a faster twin for operator
use in ``.operator`` (see ``ops/elementwise.py``).
"""
from ..engine.device import CPU, check_available
from ..engine.tensor import Tensor
from . import elementwise as ew
from .indexing import getitem
from .linalg import matmul
from .shape import copy_to_device

# name -> op: ``t <name> u`` is ``op(t, u)``, and the reflected ``u <name> t`` (a Python number or
# a NumPy array on the left) is ``op(u, t)``.
BINARY = {
    "add": ew.add, "sub": ew.subtract, "mul": ew.multiply, "truediv": ew.divide, "floordiv": ew.floordiv,
    "mod": ew.mod, "pow": ew.pow, "matmul": matmul,
    "and": ew.logical_and, "or": ew.logical_or, "xor": ew.logical_xor,
}
COMPARISONS = {"lt": ew.less, "le": ew.less_equal, "gt": ew.greater, "ge": ew.greater_equal}
UNARY = {"neg": ew.negative, "abs": ew.abs, "invert": ew.logical_not}


def _reflected(name, op):
    """``other <op> tensor``, for Python numbers and arrays on the left: ``op(other, tensor)``."""
    def method(self, other):
        return op(other, self)
    method.__name__ = method.__qualname__ = f"__r{name}__"
    return method


def _eq(self, other):
    if other is None:          # as in TensorFlow: `t == None` is False, not an elementwise op
        return False
    return ew.equal(self, other)


def _ne(self, other):
    if other is None:
        return True
    return ew.not_equal(self, other)


def _pos(self):
    return self


def cpu(self):
    """This tensor's value on the CPU (the tensor itself if it is there already).

    A copy that a GradientTape records, as any op: gradients flow back to this tensor's device.
    """
    return self if self._device == CPU else copy_to_device(self, CPU)


def gpu(self, index=0):
    """This tensor's value on GPU ``index`` (itself if it is there already); recorded as ``cpu()`` is."""
    name = f"/gpu:{int(index)}"
    check_available(name)
    return copy_to_device(self, name)


def install(cls=Tensor):
    """Bind every operator above onto ``cls``."""
    for name, op in BINARY.items():
        setattr(cls, f"__{name}__", getattr(op, "operator", op))   # t + u  ->  me.add(t, u)
        setattr(cls, f"__r{name}__", _reflected(name, op))          # 2 + t  ->  me.add(2, t)
    for name, op in COMPARISONS.items():
        setattr(cls, f"__{name}__", op)
    for name, op in UNARY.items():
        setattr(cls, f"__{name}__", op)
    cls.__eq__, cls.__ne__, cls.__pos__ = _eq, _ne, _pos
    cls.__getitem__ = getitem
    cls.cpu, cls.gpu = cpu, gpu


install()
