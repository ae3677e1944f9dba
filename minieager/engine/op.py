"""``Op``: one primitive operation, with its forward kernel and its gradient rule side by side.

Calling an Op runs the kernel registered for ``(op.name, device)`` on the inputs' arrays,
wraps the result in a new Tensor, and, only when a GradientTape is open, hands the call to
the tape so that it can be played backwards later. Everything the public op set offers
(``me.add``, ``me.reduce_mean``, ``me.conv2d`` ...) is either an Op or a composition of Ops.
"""
import functools
from types import MappingProxyType

import numpy as np

from ..errors import DTypeError, InvalidArgumentError, ResourceExhaustedError, out_of_memory
from ..kernels.registry import get_kernel
from . import recording
from .dtypes import string as _STRING
from .device import CPU
# every thread's open observers and tracers (lists only ever mutated, so these names stay valid), and
# this thread's: the eager path reads the thread-local only when one of the two lists is non-empty
from .recording import observing, this_thread, tracing
from .tensor import wrap

NO_ATTRS = MappingProxyType({})   # the attrs of every attribute-less call: one shared, read-only mapping


# Every op name -> the first Op defined under it (the op modules define theirs when imported): how a
# saved graph (graph/saved_model.py), which stores op names, finds the ops again.
_BY_NAME = {}


def op_named(name):
    """The Op defined under ``name`` (the first, where several share it), or None."""
    return _BY_NAME.get(name)


class Op:
    """A primitive op.

    name      the kernel key and the name the tape records ("multiply")
    inputs    the names of the tensor inputs, used in rule text ("a", "b")
    formula   the forward in math, e.g. "a * b"
    grads     the gradient sent to each input, in math, e.g. ("dy * b", "dy * a");
              None where an input gets no gradient
    vjp       ``vjp(dy, *inputs, out=..., **attrs)`` -> one gradient (Tensor or None) per input,
              written with minieager ops so that an outer tape can differentiate it again;
              None for ops that are not differentiable (comparisons, argmax, ...)
    num_outputs  ops such as ``split`` return several tensors; their vjp receives a list of dys
    selective ``vjp`` also takes ``needs``, one bool per input, and returns None where it is
              False: for ops whose input gradients cost as much as the op itself (matmul,
              conv2d), so that the gradient of a constant input (the data) is never computed
    strings   whether the op takes string tensors: only ops that move, pick or compare elements
              (reshape, getitem, concat ...) and me.strings' ops do; any other op gets a clear error
              before its kernel (a numba loop cannot take Python bytes objects; a NumPy one would
              silently concatenate them in a sum)
    shape_rule ``shape_rule(*inputs, **attrs)`` -> the output's ``AbstractArray`` (a tuple of them
              for several outputs), from the inputs' ``AbstractArray``s (dtype and shape, no
              values; see engine/abstract.py): what ``me.function`` traces with
    check     ``check(*arrays, **attrs)`` raises the op's error for inputs whose *values* it cannot
              take (an index out of range, an integer division by zero): it runs before the
              kernel on every call, eager or in a graph. The checks that need only dtypes and
              shapes stay in the op's function, which runs once, while tracing.
    """

    __slots__ = ("name", "inputs", "formula", "grads", "vjp", "num_outputs", "selective", "strings",
                 "shape_rule", "check", "_kernels")

    def __init__(self, name, inputs, formula=None, grads=None, vjp=None, num_outputs=1, selective=False,
                 strings=False, shape_rule=None, check=None):
        self.name = name
        self.inputs = tuple(inputs)
        self.formula = formula or f"{name}({', '.join(self.inputs)})"
        self.grads = tuple(grads) if grads else (None,) * len(self.inputs)
        self.vjp = vjp
        self.num_outputs = num_outputs
        self.selective = selective
        self.strings = strings   # whether string tensors may reach its kernel (see string_error)
        self.shape_rule = shape_rule
        self.check = check
        self._kernels = {}   # device name -> kernel (with the value check before it), one dict lookup
        _BY_NAME.setdefault(name, self)

    @property
    def differentiable(self):
        return self.vjp is not None

    @property
    def rule(self):
        """The gradient rule in words, one line per input: ``d(a * b)/da = dy * b``.

        An op given a ``vjp`` but no words for it (``Op("my_sigmoid", inputs=("x",), vjp=...)``)
        reads ``d(my_sigmoid(x))/dx = (code)``: its rule is the vjp's code, not "no gradient".
        """
        in_code = self.vjp is not None and not any(self.grads)
        return [f"d({self.formula})/d{name} = {grad}" if grad
                else f"d({self.formula})/d{name} = (code)" if in_code
                else f"d({self.formula})/d{name}: no gradient"
                for name, grad in zip(self.inputs, self.grads)]

    def __call__(self, *inputs, **attrs):
        # This runs for every op a program executes, so it is written for speed: one dict lookup
        # for the kernel, the common one- and two-input cases spelled out, no temporary lists,
        # no ``**attrs`` unpacking when there are none. ``into=`` (an operand's array that an
        # elementwise kernel may write its result over, see temporaries.py) travels as an attr;
        # it is only ever given when no tape is open, so no tape records it.
        if inputs[0]._dtype is _STRING and not self.strings:
            raise string_error(self.name)
        if tracing and this_thread.tracers:          # me.function is tracing: record, do not run
            return this_thread.tracers[-1].call(self, inputs, attrs)
        device = inputs[0]._device
        kernel = self._kernels.get(device) or self._load_kernel(device)
        try:                                         # (free in Python 3.11 unless it raises)
            if attrs:                                # axis=, strides= ...
                if len(inputs) == 1:
                    result = kernel(inputs[0]._value, **attrs)
                else:
                    self._check_devices(inputs, device)
                    result = kernel(*[t._value for t in inputs], **attrs)
            elif len(inputs) == 2 and inputs[1]._device == device:
                result = kernel(inputs[0]._value, inputs[1]._value)
            elif len(inputs) == 1:
                result = kernel(inputs[0]._value)
            else:
                self._check_devices(inputs, device)
                result = kernel(*[t._value for t in inputs])
        except MemoryError as err:                   # NumPy's bare "Unable to allocate": say which op
            raise out_of_memory(self.name, err) from None
        if self.num_outputs == 1:
            output = wrap(result, device)
            if observing:                    # a GradientTape (or a variable watcher) is open:
                for observer in this_thread.observers:   # recording.record, spelled out
                    observer._observe(self, inputs, (output,), attrs)
            if recording.check_numerics:
                _check_numerics(self.name, (output,))
            return output
        outputs = tuple(wrap(r, device) for r in result)
        if observing:
            for observer in this_thread.observers:
                observer._observe(self, inputs, outputs, attrs)
        if recording.check_numerics:
            _check_numerics(self.name, outputs)
        return outputs

    def binary(self, a, b):
        """``self(a, b)`` for a two-input op without attributes, on tensors of one device.

        The same steps as ``__call__``, for the ops Python code calls most (``+``, ``*``, ``<`` ...):
        a plain method call costs less than ``op(a, b)``, which packs ``*inputs`` and ``**attrs``.
        """
        device = a._device
        if b._device != device or tracing or a._dtype is _STRING:
            return self(a, b)                # __call__ explains the mismatch, or records the call
        kernel = self._kernels.get(device) or self._load_kernel(device)
        output = wrap(kernel(a._value, b._value), device)
        if observing:
            inputs, outputs = (a, b), (output,)
            for observer in this_thread.observers:
                observer._observe(self, inputs, outputs, NO_ATTRS)
        if recording.check_numerics:
            _check_numerics(self.name, (output,))
        return output

    def abstract(self, *inputs, **attrs):
        """The outputs' ``AbstractArray``s for inputs' ``AbstractArray``s: the op's shape rule."""
        if self.shape_rule is None:
            raise InvalidArgumentError(
                f"Op '{self.name}' has no shape rule, so me.function cannot trace it. Give it one: "
                f"Op(..., shape_rule=lambda x, **attrs: x) for an op whose output has its input's "
                f"shape and dtype (see minieager/engine/abstract.py).")
        return self.shape_rule(*inputs, **attrs)

    def checked_grads(self, sent, inputs):
        """What ``vjp`` returned, checked: a tuple or list with one gradient (or None) per input.

        A gradient function written by hand (``Op(..., vjp=...)``) that returns a bare tensor, or
        fewer or more gradients than the op has inputs, is stopped here with its op named; without
        the check a bare tensor would be iterated element by element and a missing gradient
        silently dropped.
        """
        if isinstance(sent, (tuple, list)) and len(sent) == len(inputs):
            return sent
        names = ", ".join(self.inputs) if len(self.inputs) == len(inputs) else f"{len(inputs)} inputs"
        one_each = f"one gradient per input ({names}), None for an input that gets no gradient"
        if not isinstance(sent, (tuple, list)):
            fix = "write `return (grad,)` with the comma" if len(inputs) == 1 else "return a tuple"
            raise InvalidArgumentError(
                f"{self.name}: its gradient function (vjp) returned {_kind_of(sent)} where a tuple is needed: "
                f"{one_each}. {fix[0].upper() + fix[1:]}.")
        raise InvalidArgumentError(
            f"{self.name}: its gradient function (vjp) returned {len(sent)} gradient(s) for {len(inputs)} "
            f"input(s): return {one_each}.")

    def _load_kernel(self, device):
        """The kernel for ``device`` from the registry, kept so later calls need one dict lookup; for
        an op with a value check, the kernel that runs the check first."""
        kernel = get_kernel(self.name, device)
        if self.check is not None:
            kernel = _checked(self.check, kernel)
        self._kernels[device] = kernel
        return kernel

    def _check_devices(self, inputs, device):
        for t in inputs:
            if t._device != device:
                raise InvalidArgumentError(
                    f"{self.name}: inputs live on different devices ({device} and {t._device}); "
                    f"move them with .cpu() or .gpu() first.")

    def __repr__(self):
        return f"<Op {self.name}: {self.formula}>"


class EffectOp(Op):
    """An Op that changes the world instead of computing a value from its inputs: assigning a
    variable, an optimizer's update, ``me.print``, ``me.py_function``, drawing random numbers.

    Such a call must happen every time a graph runs, in program order, and never be folded,
    merged or removed. Called eagerly, it runs its kernel (registered like every other) at once.
    While ``me.function`` traces, it goes through the same door as every op, to the tracer, which
    records it without running it: its ``shape_rule`` says what it will return (as every Op's),
    ``traced(tracer, attrs, outputs)`` what it changes (an assignment is what later reads of that
    variable see). Not differentiable.
    """

    __slots__ = ("traced",)
    effect = True

    def __init__(self, name, inputs, formula, shape_rule, traced, num_outputs=1):
        super().__init__(name, inputs, formula, num_outputs=num_outputs, shape_rule=shape_rule)
        self.traced = traced         # traced(tracer, attrs, outputs): what the effect changes

    def __call__(self, *inputs, **attrs):
        if tracing and this_thread.tracers:
            return this_thread.tracers[-1].effect(self, inputs, attrs)
        kernel = self._kernels.get(CPU) or self._load_kernel(CPU)
        try:
            result = kernel(*[t._value for t in inputs], **attrs)
        except MemoryError as err:
            raise out_of_memory(self.name, err) from None
        if result is None:
            return None
        if self.num_outputs == 1:
            return wrap(result)
        return tuple(wrap(r) for r in result)


def _checked(check, kernel):
    """``kernel`` with the op's value check run before it, on every call (the graph's too: a graph
    calls the same kernels). ``into`` (a temporary to write over) is the kernel's business only."""
    def checked_kernel(*arrays, **attrs):
        if attrs:
            check(*arrays, **{k: v for k, v in attrs.items() if k != "into"})
        else:
            check(*arrays)
        return kernel(*arrays, **attrs)
    checked_kernel.__name__ = getattr(kernel, "__name__", "kernel")
    checked_kernel.unchecked = kernel
    return checked_kernel


def string_error(op_name):
    """The error for a string tensor given to an op that takes numbers."""
    return DTypeError(
        f"{op_name}: string tensors are not numbers, and {op_name} takes numbers. Strings go through the ops "
        f"that move or compare elements (==, indexing, reshape, concat, gather ...) and me.strings "
        f"(length, to_number, join ...); me.strings.to_number(s) makes numbers from them.")


def names_memory_errors(op_name):
    """Decorate a function that allocates its result directly (``zeros``, ``fill`` ...), not through an Op,
    so that running out of memory raises a ResourceExhaustedError naming ``op_name``, as Ops do."""
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except MemoryError as err:
                if isinstance(err, ResourceExhaustedError):
                    raise
                raise out_of_memory(op_name, err) from None
        return wrapper
    return decorate


def _kind_of(value):
    """'a Tensor of shape (4,)', 'None', 'a float': what a gradient function returned, for an error."""
    if value is None:
        return "None"
    shape = getattr(value, "shape", None)
    kind = type(value).__name__
    article = "an" if kind[0].lower() in "aeiou" else "a"
    return f"{article} {kind} of shape {tuple(shape)}" if shape is not None else f"{article} {kind}"


def _check_numerics(name, outputs):
    for out in outputs:
        value = out._host()
        if value.dtype.kind == "f" and not np.isfinite(value).all():
            bad = "NaN" if np.isnan(value).any() else "Inf"
            raise InvalidArgumentError(
                f"check_numerics: op '{name}' produced {bad} in an output of shape {tuple(out.shape)}. "
                f"(Turn this check off with me.debugging.disable_check_numerics().)")
