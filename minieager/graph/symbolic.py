"""Symbolic tensors: what a traced function computes with while ``me.function`` records it.

A ``SymbolicTensor`` is a Tensor that stands for a node of the graph being recorded. It carries
a *stand-in* array of the node's shape and dtype in ``_value``, so the eager op functions (which
read ``x._value.shape`` to check their arguments) work on it unchanged, and the tracer learns
each op's output shape and dtype by running the op's kernel on the stand-ins (see tracing.py).
Its *values* mean nothing, so everything that would read them (``.numpy()``, ``bool()``, a
Python ``if``) raises an error that says why and what to use instead.
"""
import numpy as np

from ..autodiff.variable import Variable
from ..engine.tensor import Tensor
from ..errors import InvalidArgumentError, OperatorNotAllowedInGraphError


def no_value_error(t, what):
    return OperatorNotAllowedInGraphError(
        f"{what} needs the value of tensor '{t._node.name}' ({t._node.type_text}), but me.function is "
        f"tracing '{t._tracer.name}': while tracing, tensors are symbolic and get a value only when the "
        f"graph runs. A Python `if`/`while` on a tensor cannot be recorded: use me.cond(pred, true_fn, "
        f"false_fn) or me.while_loop(cond, body, loop_vars). To print values on every call use me.print; "
        f"to debug with real values run the function eagerly: me.config.run_functions_eagerly(True).")


class NoValue:
    """The stand-in array of a symbolic tensor that has nothing to compute with: any use fails with
    ``why``, instead of computing with a meaningless stand-in. Two cases make one:

    ``unknown_shape(name, dtype)``  a tensor whose shape is unknown until it runs (a placeholder
                                    declared without a shape, a py_function given only a dtype)
    ``trace_over(name, trace)``     a symbolic tensor whose trace is over (kept in a list, a global,
                                    returned from a branch ...)
    """

    __slots__ = ("name", "dtype", "why")

    def __init__(self, name, dtype, why):
        self.name, self.dtype, self.why = name, dtype, why

    def __getattr__(self, attr):
        raise InvalidArgumentError(f"Tensor '{self.name}' {self.why}")

    @classmethod
    def unknown_shape(cls, name, dtype):
        return cls(name, dtype,
                   "has no known shape while the graph is built, so ops that need it cannot be recorded. Give it "
                   "a shape: me.compat.v1.placeholder(dtype, shape=[...]), or Tout=me.TensorSpec(shape, dtype) "
                   "for a py_function.")

    @classmethod
    def trace_over(cls, name, trace):
        return cls(name, None,
                   f"belongs to the trace of '{trace}', which is over: a symbolic tensor cannot leave the function "
                   f"(or graph) that made it. Return it from the function instead.")

class SymbolicTensor(Tensor):
    """A tensor being traced: node ``_node`` of the graph that ``_tracer`` records."""

    __slots__ = ("_node", "_tracer")

    def numpy(self):
        raise no_value_error(self, ".numpy()")

    def __array__(self, dtype=None, copy=None):
        raise no_value_error(self, "Converting it to a NumPy array")

    def __bool__(self):
        raise no_value_error(self, "Using it as a Python bool (if, while, and, or, not)")

    def __float__(self):
        raise no_value_error(self, "float()")

    def __int__(self):
        raise no_value_error(self, "int()")

    def __index__(self):
        raise no_value_error(self, "Using it as a Python index")

    def __format__(self, spec):
        return str(self)

    def __repr__(self):
        return f"<me.Tensor '{self._node.name}' {self._node.type_text} (symbolic, traced in '{self._tracer.name}')>"

    __str__ = __repr__
    __hash__ = Tensor.__hash__


def stand_in(shape, dtype, name):
    """The array a fresh placeholder computes with while tracing: ones for floats (no log(0), no
    division by zero), zeros for integers (a valid index or label for any size), b"0" for strings, or an
    ``NoValue`` when the shape is not known."""
    if shape is None:
        return NoValue.unknown_shape(name, dtype)
    if dtype.is_string:
        return np.full(shape, b"0", dtype=object)   # bytes a string op can take (to_number too)
    return (np.zeros if dtype.is_integer else np.ones)(shape, dtype.np_dtype)


def get_static_value(tensor, partial=False):
    """The value of ``tensor`` as a NumPy array: in eager execution every tensor's value is known.

    A Variable gives None, as in TF: its value can change, so it is not a static (constant) value.
    So does a symbolic tensor of a trace: its value is known only when the graph runs. Anything that
    is not a tensor is returned as it is.
    """
    if isinstance(tensor, (Variable, SymbolicTensor)):
        return None
    return tensor.numpy() if isinstance(tensor, Tensor) else tensor
