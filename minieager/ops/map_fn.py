"""``me.map_fn``: a function applied to every slice of ``elems`` along axis 0, the results stacked.

Eager execution runs it as what it is, a Python loop: ``fn(elems[0])``, ``fn(elems[1])`` ...
then ``me.stack``. The gradient is that of the slicing and the stacking, through ``fn``.
"""
from .. import nest
from ..engine import dtypes
from ..engine.spec import TensorSpec
from ..engine.tensor import Tensor
from ..errors import DTypeError, InvalidArgumentError
from .creation import convert_to_tensor, zeros
from .indexing import getitem
from .shape import stack, stop_gradient


def _signature(leaf):
    """One leaf of fn_output_signature (a dtype or a me.TensorSpec) as (dtype, shape or None)."""
    if isinstance(leaf, TensorSpec):
        return dtypes.as_dtype(leaf.dtype), None if leaf.shape is None else tuple(leaf.shape)
    try:
        return dtypes.as_dtype(leaf), None
    except (InvalidArgumentError, TypeError):
        raise InvalidArgumentError(
            f"map_fn: fn_output_signature must be a dtype or a me.TensorSpec, or a tuple, list or dict of them, "
            f"got {leaf!r:.80}. (minieager has no ragged or sparse tensors, so no RaggedTensorSpec or "
            f"SparseTensorSpec.)") from None


def _check_output(out, signature, i):
    """Output ``i`` of fn as tensors in the signature's structure, each of the signature's dtype and shape."""
    flat, specs = nest.flatten(out), nest.flatten(signature)
    if len(flat) != len(specs) or any(v is None for v in flat):
        raise InvalidArgumentError(
            f"map_fn: fn returned {out!r:.100} for element {i}, which does not have the structure of "
            f"fn_output_signature ({len(specs)} tensor(s): {signature!r:.100}). When fn's output differs from "
            f"elems in structure or dtype, give fn_output_signature=, e.g. me.int32 or (me.float32, me.int32).")
    tensors = []
    for v, spec in zip(flat, specs):
        dtype, shape = _signature(spec)
        t = v if isinstance(v, Tensor) else convert_to_tensor(v, dtype=dtype)
        if t.dtype is not dtype:
            raise DTypeError(
                f"map_fn: fn returned a {t.dtype.name} tensor for element {i}, but fn_output_signature (or, "
                f"without one, elems) says {dtype.name}. Give fn_output_signature=me.{t.dtype.name}, or cast "
                f"inside fn.")
        if shape is not None and (len(shape) != t.ndim or any(s not in (None, d) for s, d in zip(shape, t.shape))):
            raise InvalidArgumentError(
                f"map_fn: fn returned shape {tuple(t.shape)} for element {i}, but fn_output_signature says {shape}.")
        tensors.append(t)
    return tensors


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False, infer_shape=True,
           name=None, fn_output_signature=None):
    """``stack([fn(e) for e in elems])``, as TF's ``tf.map_fn`` runs eagerly.

    elems                a tensor, or a tuple, list or dict of tensors (nested too) with one length n
                         along axis 0: fn then gets that structure of slices
    fn_output_signature  (``dtype`` is its old name) fn's output: a dtype or me.TensorSpec per output
                         tensor, in fn's structure. Without it, as in TF, fn must return elems'
                         structure and dtypes. An empty elems takes its result's shape from it.
    back_prop=False stops the gradient; parallel_iterations, swap_memory and infer_shape are accepted
    and change nothing in an eager loop.
    """
    signature = fn_output_signature if fn_output_signature is not None else dtype
    leaves = [convert_to_tensor(e) for e in nest.flatten(elems)]
    if not leaves:
        raise InvalidArgumentError("map_fn: elems must be a tensor or a structure of tensors, got an empty one.")
    lengths = {t.shape[0] if t.ndim else None for t in leaves}
    if None in lengths or len(lengths) != 1:
        raise InvalidArgumentError(
            f"map_fn: every tensor in elems must have rank >= 1 and the same length along axis 0 (fn gets one "
            f"slice of each), got shapes {', '.join(str(tuple(t.shape)) for t in leaves)}.")
    n = lengths.pop()
    if signature is None:     # TF's rule: fn returns what it is given
        signature = nest.pack_sequence_as(elems, [t.dtype for t in leaves])
    structure = None
    columns = [[] for _ in nest.flatten(signature)]
    for i in range(n):
        out = fn(nest.pack_sequence_as(elems, [getitem(t, i) for t in leaves]))
        structure = out if structure is None else structure
        for column, t in zip(columns, _check_output(out, signature, i)):
            column.append(t)
    if n:
        for column in columns:
            if any(t.shape != column[0].shape for t in column):
                raise InvalidArgumentError(
                    f"map_fn: fn must return the same shape for every element, got "
                    f"{sorted({tuple(t.shape) for t in column})}.")
        results = [stack(column) for column in columns]
    else:
        structure, results = signature, _empty_results(signature, leaves, fn_output_signature or dtype)
    if not back_prop:
        results = [stop_gradient(t) for t in results]
    return nest.pack_sequence_as(structure, results)


def _empty_results(signature, leaves, given):
    """The result of mapping over no elements: fn never runs, so the signature must say every shape."""
    if given is None:                # fn is taken to return what it is given: slices of elems
        return [zeros((0,) + tuple(t.shape[1:]), t.dtype) for t in leaves]
    results = []
    for spec in nest.flatten(signature):
        dtype, shape = _signature(spec)
        if shape is None or None in shape:
            raise InvalidArgumentError(
                f"map_fn: elems has 0 elements, so fn never runs and the result's shape must come from "
                f"fn_output_signature: give me.TensorSpec(shape, dtype) with every size known, got {spec!r}.")
        results.append(zeros((0,) + shape, dtype))
    return results
