"""The backward pass: play a tape's records in reverse, applying each op's VJP.

This is the whole of reverse-mode autodiff, as one loop (no recursion, so a 10,000-op chain
is fine). ``grads`` maps a tensor's id to the gradient of the target with respect to it.
Walking the records newest-first guarantees that when we reach the op that produced a tensor,
every op that consumed it has already sent its share, so that gradient is complete: we use it
once and drop it, which keeps memory flat.
"""
from ..errors import InvalidArgumentError
from ..ops import creation, elementwise
from ..ops.reductions import unbroadcast


def _check_versions(op, variable_versions):
    for variable, version in variable_versions:
        if variable._version != version:
            raise InvalidArgumentError(
                f"Variable '{variable.name}' was assigned after op '{op.name}' read it on this tape, "
                f"so the gradient would use its new value. Compute the gradient before updating the "
                f"variable, or record the computation again.")


def apply_vjp(op, inputs, outputs, attrs, dys, needs):
    """Run ``op``'s VJP on the output gradients ``dys``; one gradient (or None) per input.

    ``needs`` (one bool per input) says which inputs want a gradient; a selective op skips
    the others, any other op computes them all (the caller drops the unwanted ones).
    """
    if op.selective:
        attrs = dict(attrs, needs=needs)
    try:
        if op.num_outputs == 1:
            sent = op.vjp(dys[0], *inputs, out=outputs[0], **attrs)
        else:
            sent = op.vjp(dys, *inputs, out=outputs, **attrs)
    except (TypeError, InvalidArgumentError) as err:
        unknown = _unknown_sizes(op, inputs)
        if not unknown:
            raise
        raise InvalidArgumentError(
            f"{op.name}: its gradient needs sizes that me.function knows only when the graph runs: {unknown} "
            f"(None in an input_signature, or a size that depends on values). Give that dimension a size in the "
            f"input_signature, or take this gradient outside me.function. ({type(err).__name__}: {err})") from err
    return op.checked_grads(sent, inputs)


def _unknown_sizes(op, inputs):
    """'dimension 0 of x (shape (None, 3))' for each input dimension unknown while tracing; '' if none."""
    found = []
    for i, t in enumerate(inputs):
        shape = t._value.shape
        name = op.inputs[i] if i < len(op.inputs) else f"input {i}"
        if shape is None:
            found.append(f"the rank of {name}")
        else:
            found += [f"dimension {d} of {name} (shape {tuple(shape)})" for d, n in enumerate(shape) if n is None]
    return ", ".join(found)


def reachable_records(records, source_ids):
    """The records on a path from the sources: only their VJPs need to run."""
    reached, keep = set(source_ids), []
    for record in records:
        _, inputs, outputs = record[:3]
        for t in inputs:
            if t._id in reached:
                keep.append(record)
                for out in outputs:
                    reached.add(out._id)
                break
    return keep, reached


def backward(records, targets, target_grads, sources, on_step=None):
    """Gradients of ``sum(targets)`` with respect to each tensor in ``sources``.

    ``records`` are the tape's entries (TapeRecords, or the plain tuples the tape keeps; both
    are read by position). Returns ``{source id: gradient Tensor}`` (sources the targets do not
    reach are absent). ``on_step(record, dys, sent)``, if given, is called after each VJP with
    the gradients ``sent`` to each input (already unbroadcast) — the tape debugger builds its
    steps from it.
    """
    source_ids = {s._id for s in sources}
    keep, reached = reachable_records(records, source_ids)
    grads = {}

    def accumulate(tensor, grad):
        previous = grads.get(tensor._id)
        grads[tensor._id] = grad if previous is None else elementwise.add(previous, grad)

    for target, grad in zip(targets, target_grads):
        if target._id in reached:
            accumulate(target, grad if grad is not None else creation.ones_like(target))

    for record in reversed(keep):
        op, inputs, outputs, attrs, variable_versions = record[:5]
        # A source's gradient is kept to the end; any other tensor's is used once and dropped.
        if len(outputs) == 1:                # most ops: spelled out, this loop runs once per record
            out_id = outputs[0]._id
            dy = grads.get(out_id) if out_id in source_ids else grads.pop(out_id, None)
            if dy is None:                   # no gradient reached this op
                continue
            dys = (dy,)
        else:
            dys = [grads.get(o._id) if o._id in source_ids else grads.pop(o._id, None) for o in outputs]
            if all(dy is None for dy in dys):    # (`is None`, never `==`: on tensors that is an op)
                continue
        if variable_versions:
            _check_versions(op, variable_versions)
        # Which inputs want a gradient: those on a path from a source, and only floating ones.
        needs = [t._id in reached and t._dtype.is_floating for t in inputs]
        sent = apply_vjp(op, inputs, outputs, attrs, dys, needs)
        unbroadcast_sent = []
        for tensor, grad, needed in zip(inputs, sent, needs):
            if grad is None or not needed:
                unbroadcast_sent.append(None)
                continue
            grad = unbroadcast(grad, tensor._value.shape, tensor)
            accumulate(tensor, grad)
            unbroadcast_sent.append(grad)
        if on_step is not None:
            on_step(record, dys, unbroadcast_sent)
    return {i: g for i, g in grads.items() if i in source_ids}
