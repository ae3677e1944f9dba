"""Effect ops: graph nodes that change the world instead of computing a value from their inputs.

Assigning a variable, an optimizer's update, ``me.print`` and ``me.py_function`` must happen
every time the graph runs, in program order, and never be folded, merged or removed. Each is an
``EffectOp``: an Op (so the graph, the listing and ``run`` treat it like any call) whose kernel,
registered like every other, does the effect. Eagerly, calling one runs its kernel at once;
while tracing, the tracer records it without running it, asking ``stand_in`` what it will
return and ``traced`` what it changes (an assignment is what later reads of that variable see).
"""
import builtins
import sys

import numpy as np

from ..engine import dtypes
from ..engine.device import CPU, to_device
from ..engine.errors import InvalidArgumentError
from ..engine.op import Op
from ..engine.recording import tracers
from ..engine.tensor import Tensor, wrap
from ..kernels.registry import register_kernel
from .symbolic import UnknownShape


class EffectOp(Op):
    """An Op with a side effect (see the module docstring). Not differentiable."""

    __slots__ = ("stand_in", "traced")
    effect = True

    def __init__(self, name, inputs, formula, stand_in, traced, num_outputs=1):
        super().__init__(name, inputs, formula, num_outputs=num_outputs)
        self.stand_in = stand_in     # stand_in(input stand-ins, **attrs) -> one result per output
        self.traced = traced         # traced(tracer, attrs, outputs): what the effect changes

    def __call__(self, *inputs, **attrs):
        if tracers:
            return tracers[-1].effect(self, inputs, attrs)
        kernel = self._kernels.get(CPU) or self._load_kernel(CPU)
        result = kernel(*[t._value for t in inputs], **attrs)
        if result is None:
            return None
        if self.num_outputs == 1:
            return wrap(result)
        return tuple(wrap(r) for r in result)


def _forget_reads(tracer, attrs, outputs):
    tracer.forget_reads()


# ---- variables -------------------------------------------------------------------------------
@register_kernel("assign_variable")
def _assign_kernel(value, variable):
    variable._set(to_device(value, variable._device))   # on a GPU this kernel runs on a host copy
    return value


def _assigned(tracer, attrs, outputs):
    variable = attrs["variable"]
    tracer._reads[variable._id] = (variable, outputs[0])   # later reads see the assigned value


assign_variable = EffectOp("assign_variable", ("value",), "variable := value",
                           stand_in=lambda values, variable: (values[0],), traced=_assigned)


def trace_assign(tracer, variable, value, method):
    """``variable.assign(value)`` (or assign_add / assign_sub) inside a trace: an assign node."""
    from ..ops.elementwise import add, subtract
    if method == "assign":
        new = variable._checked(value, "assign")
    else:
        delta = variable._checked(value, method)
        new = (add if method == "assign_add" else subtract)(tracer.read(variable), delta)
    assign_variable(new, variable=variable)
    return variable


@register_kernel("apply_gradients")
def _apply_gradients_kernel(*grads, optimizer, variables, global_step):
    optimizer.apply_gradients(zip([wrap(g) for g in grads], variables), global_step=global_step)
    return optimizer.iterations._value


apply_gradients = EffectOp(
    "apply_gradients", ("grads",), "optimizer.apply_gradients(zip(grads, variables))",
    stand_in=lambda values, optimizer, variables, global_step: (optimizer.iterations._value,),
    traced=_forget_reads)


def trace_apply_gradients(tracer, optimizer, grads_and_vars, global_step):
    """``optimizer.apply_gradients`` inside a trace: one effect node that runs the eager update
    (the optimizers update arrays in place with NumPy, so the graph calls that very code)."""
    pairs = optimizer._checked_pairs(grads_and_vars, stacklevel=4)
    grads = [g for g, _ in pairs]
    apply_gradients(*grads, optimizer=optimizer, variables=tuple(v for _, v in pairs), global_step=global_step)
    return optimizer.iterations


# ---- random numbers ----------------------------------------------------------------------------
def _random_kernel(draw, shape, dtype):
    return draw()


_random_ops = {}


def trace_random(kind, draw, shape, dtype):
    """A random op inside a trace: an effect node whose kernel draws new numbers on every run (the
    generator's state changes, so two draws are never merged)."""
    op = _random_ops.get(kind)
    if op is None:
        register_kernel(f"random_{kind}")(_random_kernel)
        op = _random_ops[kind] = EffectOp(
            f"random_{kind}", (), f"random {kind} numbers",
            stand_in=lambda values, draw, shape, dtype: (np.zeros(shape, dtype.np_dtype),),
            traced=lambda tracer, attrs, outputs: None)
    return op(draw=draw, shape=tuple(shape), dtype=dtype)


# ---- printing ---------------------------------------------------------------------------------
@register_kernel("print")
def _print_kernel(*arrays, template, sep, end, stream):
    values = iter(arrays)
    parts = [str(next(values)) if item is None else str(item) for item in template]
    builtins.print(*parts, sep=sep, end=end, file=sys.stdout if stream is None else stream)


print_op = EffectOp("print", ("inputs",), "print(inputs)", stand_in=lambda values, **attrs: (None,),
                    traced=lambda tracer, attrs, outputs: None)


def print(*inputs, output_stream=None, sep=" ", end="\n", summarize=None, name=None):
    """``me.print``: print tensors (their values) and other objects, every time it runs, also
    inside ``me.function`` where Python's ``print`` runs only while tracing."""
    tensors = tuple(x for x in inputs if isinstance(x, Tensor))
    template = tuple(None if isinstance(x, Tensor) else x for x in inputs)
    print_op(*tensors, template=template, sep=sep, end=end, stream=output_stream)


# ---- calling Python from a graph ----------------------------------------------------------------
def _as_specs(Tout):
    """Tout as a list of (shape or None, DType), and whether it was a single one."""
    from .function import TensorSpec
    single = not isinstance(Tout, (list, tuple))
    specs = []
    for t in [Tout] if single else Tout:
        if isinstance(t, TensorSpec):
            specs.append((t.shape, t.dtype))
        else:
            specs.append((None, dtypes.as_dtype(t)))
    return specs, single


@register_kernel("py_function")
def _py_function_kernel(*arrays, func, specs, numpy_inputs):
    args = [np.array(a) for a in arrays] if numpy_inputs else [wrap(a) for a in arrays]
    result = func(*args)
    results = list(result) if isinstance(result, (list, tuple)) else [result]
    if len(results) != len(specs):
        raise InvalidArgumentError(
            f"py_function: {getattr(func, '__name__', 'func')} returned {len(results)} values, Tout declares "
            f"{len(specs)}.")
    out = []
    for r, (shape, dtype) in zip(results, specs):
        array = np.asarray(r._value if isinstance(r, Tensor) else r, dtype=dtype.np_dtype)
        if shape is not None and array.shape != tuple(shape):
            raise InvalidArgumentError(
                f"py_function: {getattr(func, '__name__', 'func')} returned shape {array.shape}, Tout declares "
                f"{tuple(shape)}.")
        out.append(array)
    return out[0] if len(out) == 1 else tuple(out)


def _py_stand_in(values, func, specs, numpy_inputs):
    return tuple(UnknownShape("py_function", dtype) if shape is None else np.zeros(shape, dtype.np_dtype)
                 for shape, dtype in specs)


def _py_call(func, inp, Tout, numpy_inputs, kind):
    from ..ops.creation import convert_to_tensor
    if not callable(func):
        raise TypeError(f"{kind}: func must be callable, got {type(func).__name__}.")
    specs, single = _as_specs(Tout)
    inputs = [convert_to_tensor(x) for x in (inp if isinstance(inp, (list, tuple)) else [inp])]
    # One Op per call: its number of outputs is Tout's. One kernel serves both functions.
    op = EffectOp("py_function", tuple(f"x{i}" for i in range(len(inputs))),
                  f"{getattr(func, '__name__', 'func')}(...)", stand_in=_py_stand_in, traced=_forget_reads,
                  num_outputs=len(specs))
    out = op(*inputs, func=func, specs=tuple(specs), numpy_inputs=numpy_inputs)
    if single or not isinstance(out, tuple):
        return out
    return list(out)


def py_function(func, inp, Tout, name=None):
    """Call the Python function ``func`` on eager tensors ``inp``, every time the graph runs (an opaque
    node: the passes never fold, merge or remove it). ``Tout``: a dtype, a ``me.TensorSpec`` (a known
    shape lets later ops use the result while tracing), or a list of them."""
    return _py_call(func, inp, Tout, numpy_inputs=False, kind="py_function")


def numpy_function(func, inp, Tout, name=None):
    """Like ``py_function``, but ``func`` receives NumPy arrays."""
    return _py_call(func, inp, Tout, numpy_inputs=True, kind="numpy_function")
