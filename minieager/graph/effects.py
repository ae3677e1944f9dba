"""Graph mode's effect ops: an optimizer's update, a metric's update and result, ``me.print`` and
``me.py_function``.

Each is an ``EffectOp`` (``engine/op.py``): an Op that changes the world, so it runs every time
the graph runs, in program order, and is never folded, merged or removed. The effects of lower
layers are defined where they belong and reach the tracer through the same door: assigning a
variable in ``autodiff/variable.py``, drawing random numbers in ``ops/random.py``.
"""
import builtins
import functools
import sys

import numpy as np

from ..engine import dtypes
from ..engine.abstract import AbstractArray, abstract, compatible
from ..engine.op import EffectOp
from ..engine.spec import TensorSpec
from ..engine.tensor import Tensor, wrap
from ..errors import InvalidArgumentError
from ..kernels.registry import register_kernel
from ..ops.creation import convert_to_tensor


def _forget_reads(tracer, attrs, outputs):
    tracer.forget_reads()


# ---- optimizers ------------------------------------------------------------------------------
@register_kernel("apply_gradients")
def _apply_gradients_kernel(*grads, optimizer, variables, global_step):
    optimizer.apply_gradients(zip([wrap(g) for g in grads], variables), global_step=global_step)
    return optimizer.iterations._value


apply_gradients = EffectOp(
    "apply_gradients", ("grads",), "optimizer.apply_gradients(zip(grads, variables))",
    shape_rule=lambda *grads, optimizer, variables, global_step: abstract(optimizer.iterations._value),
    traced=_forget_reads)


def trace_apply_gradients(tracer, optimizer, grads_and_vars, global_step):
    """``optimizer.apply_gradients`` inside a trace: one effect node that runs the eager update
    (the optimizers update arrays in place with NumPy, so the graph calls that very code)."""
    pairs = optimizer._checked_pairs(grads_and_vars, stacklevel=4)
    grads = [g for g, _ in pairs]
    apply_gradients(*grads, optimizer=optimizer, variables=tuple(v for _, v in pairs), global_step=global_step)
    return optimizer.iterations


# ---- Keras metrics --------------------------------------------------------------------------------
@register_kernel("metric_update")
def _metric_update_kernel(*arrays, metric, keywords):
    metric.update_state(**{name: wrap(a) for name, a in zip(keywords, arrays)})


metric_update = EffectOp("metric_update", ("values",), "metric.update_state(values)",
                         shape_rule=lambda *values, metric, keywords: None, traced=_forget_reads)


@register_kernel("metric_result")
def _metric_result_kernel(metric):
    return np.asarray(metric.result()._host())


metric_result = EffectOp("metric_result", (), "metric.result()",
                         shape_rule=lambda metric: AbstractArray((), metric.dtype.np_dtype),
                         traced=lambda tracer, attrs, outputs: None)


def trace_metric_update(metric, arguments):
    """``metric.update_state(...)`` inside a trace: one effect node that runs the eager update when the
    graph runs (metrics count with NumPy on the host, as the optimizers update). ``arguments``: the
    update's arguments by name; None (no sample_weight) is left out."""
    given = {name: convert_to_tensor(v) for name, v in arguments.items() if v is not None}
    metric_update(*given.values(), metric=metric, keywords=tuple(given))


def trace_metric_result(metric):
    """``metric.result()`` inside a trace: an effect node (it reads what the updates before it counted)."""
    return metric_result(metric=metric)


# ---- printing ---------------------------------------------------------------------------------
@register_kernel("print")
def _print_kernel(*arrays, template, sep, end, stream):
    values = iter(arrays)
    parts = [str(next(values)) if item is None else str(item) for item in template]
    builtins.print(*parts, sep=sep, end=end, file=sys.stdout if stream is None else stream)


print_op = EffectOp("print", ("inputs",), "print(inputs)", shape_rule=lambda *values, **attrs: None,
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
    for i, (r, (shape, dtype)) in enumerate(zip(results, specs)):
        given = r._value if isinstance(r, Tensor) else r
        if hasattr(given, "dtype") and np.dtype(given.dtype) != dtype.np_dtype:
            # An array or tensor keeps its dtype, as in a tf.function ("0-th value returned by pyfunc is
            # double, but expects float"); a Python number or list converts.
            raise InvalidArgumentError(
                f"{'numpy_function' if numpy_inputs else 'py_function'}: value {i} returned by "
                f"{getattr(func, '__name__', 'func')} is {np.dtype(given.dtype).name}, but Tout declares "
                f"{dtype.name}. Return that dtype (e.g. x.astype(np.{dtype.np_dtype.name})) or change Tout.")
        array = np.asarray(given, dtype=dtype.np_dtype)
        if not compatible(shape, array.shape):
            raise InvalidArgumentError(
                f"py_function: {getattr(func, '__name__', 'func')} returned shape {array.shape}, Tout declares "
                f"{tuple(shape)}.")
        out.append(array)
    return out[0] if len(out) == 1 else tuple(out)


def _py_shape_rule(*inputs, func, specs, numpy_inputs):
    """What Tout declares: a dtype alone leaves the shape unknown, even its rank (as in TF)."""
    results = tuple(AbstractArray(shape, dtype.np_dtype) for shape, dtype in specs)
    return results[0] if len(results) == 1 else results


def _py_call(func, inp, Tout, numpy_inputs, kind):
    if not callable(func):
        raise TypeError(f"{kind}: func must be callable, got {type(func).__name__}.")
    specs, single = _as_specs(Tout)
    inputs = [convert_to_tensor(x) for x in (inp if isinstance(inp, (list, tuple)) else [inp])]
    # One Op per call: its number of outputs is Tout's. One kernel serves both functions.
    op = EffectOp("py_function", tuple(f"x{i}" for i in range(len(inputs))),
                  f"{getattr(func, '__name__', 'func')}(...)", shape_rule=_py_shape_rule, traced=_forget_reads,
                  num_outputs=len(specs))
    out = op(*inputs, func=func, specs=tuple(specs), numpy_inputs=numpy_inputs)
    if single:
        return out
    return list(out) if isinstance(out, tuple) else [out]    # Tout=[dtype]: a list of one, as in TF


def _decorator(kind, Tout, numpy_inputs):
    """``@me.py_function(Tout=...)``: the decorated function, called with tensors, runs as a py_function."""
    if Tout is None:
        raise TypeError(f"{kind}: Tout is required (a dtype, a me.TensorSpec or a list of them).")

    def decorate(func):
        @functools.wraps(func)
        def call(*inp):
            return _py_call(func, list(inp), Tout, numpy_inputs=numpy_inputs, kind=kind)
        return call
    return decorate


def py_function(func=None, inp=None, Tout=None, name=None):
    """Call the Python function ``func`` on eager tensors ``inp``, every time the graph runs (an opaque
    node: the passes never fold, merge or remove it). ``Tout``: a dtype (the result is a tensor), a
    ``me.TensorSpec`` (a known shape lets later ops use the result while tracing), or a list of them
    (the result is a list). ``@me.py_function(Tout=...)`` decorates a function, as in TF."""
    if func is None:
        return _decorator("py_function", Tout, numpy_inputs=False)
    return _py_call(func, inp, Tout, numpy_inputs=False, kind="py_function")


def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):
    """Like ``py_function``, but ``func`` receives NumPy arrays. An array it returns must have Tout's dtype."""
    if func is None:
        return _decorator("numpy_function", Tout, numpy_inputs=True)
    return _py_call(func, inp, Tout, numpy_inputs=True, kind="numpy_function")


# ---- assertions ---------------------------------------------------------------------------------
@register_kernel("assert")
def _assert_kernel(condition, *arrays, template, summarize):
    if not condition:
        values = iter(arrays)
        shown = [str(next(values) if item is None else item) for item in template]
        raise InvalidArgumentError(f"assertion failed: [{'] ['.join(shown)}]")


assert_op = EffectOp("assert", ("condition", "data"), "raise if not condition",
                     shape_rule=lambda *values, **attrs: None, traced=lambda tracer, attrs, outputs: None)


def Assert(condition, data, summarize=None, name=None):
    """``me.debugging.Assert``: raise InvalidArgumentError "assertion failed: [data...]" if ``condition``
    (a bool scalar) is False; inside me.function, every time the graph runs (as TF's tf.debugging.Assert)."""
    condition = convert_to_tensor(condition)
    if condition.dtype.name != "bool" or tuple(condition.shape) != ():
        raise InvalidArgumentError(f"Assert: condition must be a scalar bool tensor, got {condition.dtype.name}"
                                   f"{list(condition.shape)}. Reduce it first, e.g. me.reduce_all(x > 0).")
    data = list(data) if isinstance(data, (list, tuple)) else [data]
    tensors = tuple(x for x in data if isinstance(x, Tensor))
    template = tuple(None if isinstance(x, Tensor) else x for x in data)
    assert_op(condition, *tensors, template=template, summarize=summarize)
