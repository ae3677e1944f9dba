"""Symbolic tensors: what a traced function computes with while ``me.function`` records it.

A ``SymbolicTensor`` is a Tensor that stands for a node of the graph being recorded. It carries
an ``AbstractArray`` (the node's dtype and shape, ``None`` for a dimension known only when the
graph runs; engine/abstract.py) in ``_value``, so the eager op functions (which read
``x._value.shape`` to check their arguments) work on it unchanged, and the tracer learns each
op's outputs from the op's shape rule (see tracing.py). It has no values, so everything that
would read them (``.numpy()``, ``bool()``, a Python ``if``) raises an error that says why and
what to use instead.
"""

from ..autodiff.variable import Variable
from ..engine.tensor import Tensor, TensorShape
from ..errors import InaccessibleTensorError, InvalidArgumentError, OperatorNotAllowedInGraphError


def no_value_error(t, what):
    return OperatorNotAllowedInGraphError(
        f"{what} needs the value of tensor '{t._node.name}' ({t._node.type_text}), but me.function is "
        f"tracing '{t._tracer.name}': while tracing, tensors are symbolic and get a value only when the "
        f"graph runs. A Python `if`/`while` on a tensor cannot be recorded: use me.cond(pred, true_fn, "
        f"false_fn) or me.while_loop(cond, body, loop_vars). To print values on every call use me.print; "
        f"to debug with real values run the function eagerly: me.config.run_functions_eagerly(True).")


class NoValue:
    """What a symbolic tensor whose trace is over (kept in a list, a global, returned from a
    branch ...) holds instead of its AbstractArray: any use fails with ``why``."""

    __slots__ = ("name", "dtype", "why")

    def __init__(self, name, dtype, why):
        self.name, self.dtype, self.why = name, dtype, why

    def __getattr__(self, attr):
        raise InvalidArgumentError(f"Tensor '{self.name}' {self.why}")

    @classmethod
    def trace_over(cls, name, trace):
        return cls(name, None,
                   f"belongs to the trace of '{trace}', which is over: a symbolic tensor cannot leave the function "
                   f"(or graph) that made it. Return it from the function instead.")

class LeakedTensorError(InaccessibleTensorError, AttributeError):
    """``.numpy()`` of a symbolic tensor whose trace is over: also an AttributeError, as TF's
    "'SymbolicTensor' object has no attribute 'numpy'"."""


class SymbolicTensor(Tensor):
    """A tensor being traced: node ``_node`` of the graph that ``_tracer`` records."""

    __slots__ = ("_node", "_tracer")

    @property
    def shape(self):
        """Its node's shape: known after the trace too (structured_outputs, a tensor kept in a list)."""
        if isinstance(self._value, NoValue) and self._node.shape is not None:
            return TensorShape(self._node.shape)
        return Tensor.shape.fget(self)

    def eval(self, feed_dict=None, session=None):
        """TF 1's ``tensor.eval()`` in a me.compat.v1 graph: ``sess.run(tensor, feed_dict)`` with the
        default session (the one of the enclosing ``with me.compat.v1.Session() as sess:``)."""
        from .compat.v1 import eval_tensor
        return eval_tensor(self, feed_dict, session)

    def numpy(self):
        if isinstance(self._value, NoValue):      # leaked out of a trace that is over
            raise LeakedTensorError(f"Tensor '{self._value.name}' {self._value.why} It has no value: .numpy() "
                                    f"works on the tensors a function returns.")
        raise no_value_error(self, ".numpy()")

    def _host(self):
        raise no_value_error(self, "Reading its values")

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


def get_static_value(tensor, partial=False):
    """The value of ``tensor`` as a NumPy array: in eager execution every tensor's value is known.

    A Variable gives None, as in TF: its value can change, so it is not a static (constant) value.
    So does a symbolic tensor of a trace: its value is known only when the graph runs. Anything that
    is not a tensor is returned as it is.
    """
    if isinstance(tensor, (Variable, SymbolicTensor)):
        return None
    return tensor.numpy() if isinstance(tensor, Tensor) else tensor
