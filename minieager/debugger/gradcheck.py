"""Check a stepped gradient against finite differences of the tape itself.

``check_gradient(records, target, sources, source)`` replays the tape's records in float64 (each
recorded Op called again on its inputs, a ``@custom_gradient`` function called as written) with
one source nudged by +-eps, and compares the central difference of sum(target) with the
gradient the debugger stepped (which is ``tape.gradient``'s). No function has to be given: the
tape is the function. ``me.testing.check_gradients(f, x)`` is the tool for checking an op or a
function you can call; this one checks what a recorded tape computed.
"""
import inspect

import numpy as np

from .. import nest
from ..engine import dtypes, recording
from ..engine.tensor import Tensor
from ..ops.creation import constant
from .trace import TraceError, _custom_inner, _schedule, tape_records
from .values import number

MAX_PROBES = 16          # elements probed one by one; a bigger tensor is probed at evenly spaced ones


def _as64(t):
    if t.dtype.is_floating and t.dtype != dtypes.float64:
        return constant(np.asarray(t.numpy(), dtype=np.float64))
    return t


def _call(record, inputs):
    """Run one record again on new inputs; returns its outputs as a list."""
    op = record.op
    if getattr(op, "is_custom", False):
        f = inspect.getclosurevars(op.vjp).nonlocals.get("f")
        if f is None:
            raise TraceError(f"check_gradient cannot replay the custom-gradient function '{op.name}'.")
        n = len(inspect.signature(f).parameters)
        result, _ = f(*inputs[:n])
        return nest.flatten(result)
    attrs = {k: (dtypes.float64 if k == "dtype" and getattr(v, "is_floating", False) else v)
             for k, v in record.attrs.items()}
    out = op(*inputs, **attrs)
    return list(out) if isinstance(out, (list, tuple)) else [out]


def replay(records, target, nudged):
    """sum(target) in float64, with the tensors in ``nudged`` ({tensor id: Tensor}) replaced."""
    hidden = _custom_inner(records)
    values = dict(nudged)
    with recording.paused():     # the replay is not the learner's code: no tape records it
        for r in records:
            if r.index in hidden:
                continue
            ins = []
            for t in r.inputs:
                if t._id not in values:
                    values[t._id] = _as64(t)
                ins.append(values[t._id])
            for t, o in zip(r.outputs, _call(r, ins)):
                values[t._id] = o
    if target._id not in values:
        raise TraceError("check_gradient: the replay did not reach the target.")
    return float(np.sum(values[target._id].numpy().astype(np.float64)))


def check_gradient(records, target, sources, source, eps=1e-6, rtol=1e-3, atol=1e-4):
    """{"stepped", "numeric", "positions", "max_abs_error", "ok", ...} for one source.

    ``records`` is a tape or a list of its records (``tape.records``, kept by the debugger when
    it armed the stepper, so a check still works after ``tape.gradient`` freed the tape).

    ``stepped`` is the gradient the debugger steps to (float32, as the tape computes it),
    ``numeric`` the central differences (f(x + eps) - f(x - eps)) / 2 eps of the float64 replay,
    at every element of a small source or at MAX_PROBES evenly spaced elements of a big one.
    """
    if not isinstance(source, Tensor) or not any(source is s for s in nest.flatten(sources)):
        raise TraceError("check_gradient: give one of the sources passed to backprop (a Tensor or Variable).")
    if not isinstance(records, list):
        records = tape_records(records)
    _, grads = _schedule(records, target, [source])
    stepped = grads.get(source._id)
    base = np.asarray(source.numpy(), dtype=np.float64)
    stepped = np.zeros_like(base) if stepped is None else np.asarray(stepped, dtype=np.float64)
    flat_positions = np.unique(np.linspace(0, base.size - 1, min(base.size, MAX_PROBES)).round().astype(int))
    numeric = []
    for i in flat_positions:
        h = eps * max(1.0, abs(base.flat[i]))
        up, down = base.copy(), base.copy()
        up.flat[i] += h
        down.flat[i] -= h
        f_up = replay(records, target, {source._id: constant(up)})
        f_down = replay(records, target, {source._id: constant(down)})
        numeric.append((f_up - f_down) / (2 * h))
    numeric = np.array(numeric)
    analytic = stepped.ravel()[flat_positions]
    err = np.abs(analytic - numeric)
    return {
        "positions": [[int(k) for k in np.unravel_index(i, base.shape)] for i in flat_positions],
        "stepped": [number(v) for v in analytic],
        "numeric": [number(v) for v in numeric],
        "max_abs_error": number(err.max(initial=0.0)),
        "ok": bool(np.all(err <= atol + rtol * np.abs(numeric))),
        "eps": eps,
        "all_elements": bool(len(flat_positions) == base.size),
    }
