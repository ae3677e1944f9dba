"""Lesson 11's visible checks: when me.function traces, and what runs at trace time against every call.

Format: course/spec.py. The judge of the predictions runs each line of calls itself (the answers are
never shown); the other probes make a fresh me.function in the learner's process and report what it did.
"""
import numpy as np

import minieager as me
from course.expect import expect, expect_close
from course.spec import check

# Each line runs on a fresh `double = me.function(lambda x: x * 2)`; its answer is the tracing count after it.
CALLS = [
    "double(me.constant(1.0)); double(me.constant(2.0))",
    "double(me.constant([1.0, 2.0])); double(me.constant([1.0, 2.0, 3.0]))",
    "double(1.0); double(2.0); double(1.0)",
    "double(me.constant(1)); double(me.constant(1.0))",
    "double(np.ones(3)); double(np.ones(3)); double(me.ones(3))",
]


def tracing_count(line):
    double = me.function(lambda x: x * 2)
    exec(line, {"me": me, "np": np, "double": double})
    return double.experimental_get_tracing_count()


@check("tracing_counts", points=3)
class TracingCountPredictions:
    """Each prediction against what me.function does (the answers are never shown)."""
    cases = [{"line": line} for line in CALLS]

    def probe(ns, line):
        predictions = learner(ns, "tracing_counts")
        if line not in predictions or predictions[line] is Ellipsis:
            raise NotDone(f"`tracing_counts` has no prediction for {line!r} yet.")
        return predictions[line]

    def judge(got, line):
        expect(isinstance(got, int) and not isinstance(got, bool),
               f"the prediction for `{line}` should be a whole number of traces, got {got!r}.")
        expect(got == tracing_count(line),
               f"your prediction {got} for `{line}` is not what me.function does. For each call, ask: is its "
               f"signature (shapes, dtypes, Python values) one the function has seen?")


def probe_scale_all(ns, x, scales):
    scale_all = learner(ns, "scale_all")
    fn = me.function(lambda x, scale: x * scale)
    got = scale_all(fn, me.constant(x), [float(s) for s in scales])
    values = [r.numpy() if isinstance(r, me.Tensor) else None for r in got] if isinstance(got, list) else None
    return {"values": values, "traces": fn.experimental_get_tracing_count()}


def judge_scale_all(got, x, scales):
    what = f"scale_all(fn, x, {np.round(scales, 3).tolist()})"
    expect(isinstance(got["values"], list) and len(got["values"]) == len(scales),
           f"{what} should return a list of {len(scales)} results.")
    for s, r in zip(scales, got["values"]):
        expect_close(r, np.asarray(x) * s, f"the result for scale {s:g} from {what}", rtol=1e-5)
    expect(got["traces"] == 1, f"{what} made fn trace {got['traces']} times: each new Python float is a new signature.")


@check("one_trace", points=2)
class OneTraceForASweep:
    """A sweep over Python floats traces fn once."""
    probe_helpers = (probe_scale_all,)

    def cases(rng):
        return [{"x": rng.normal(size=3).astype(np.float32), "scales": [0.5, 1.0, 2.0, 4.0]},
                {"x": rng.normal(size=2).astype(np.float32), "scales": [0.1 * k for k in range(1, 11)]}]

    def probe(ns, x, scales):
        return probe_scale_all(ns, x, scales)

    def judge(got, x, scales):
        judge_scale_all(got, x, scales)


def probe_counting_square(ns, lengths):
    made = learner(ns, "make_counting_square")()
    if not (isinstance(made, tuple) and len(made) == 3):
        return {"form": type(made).__name__}
    square, trace_log, runs = made
    start = [list(trace_log) if isinstance(trace_log, list) else None,
             int(runs.numpy()) if isinstance(runs, me.Variable) else None]
    values, counts = [], []
    for n in lengths:
        values.append(square(me.constant(np.arange(n, dtype=np.float32))).numpy())
        counts.append(int(runs.numpy()) if isinstance(runs, me.Variable) else None)
    return {"form": "triple", "start": start, "values": values, "runs": counts,
            "log": [list(s) for s in trace_log] if isinstance(trace_log, list) else None}


def judge_counting_square(got, lengths):
    expect(got["form"] == "triple", f"make_counting_square() should return (square, trace_log, runs), got {got['form']}.")
    expect(got["start"] == [[], 0], "trace_log should start as an empty list and runs as a me.Variable(0).")
    for n, v in zip(lengths, got["values"]):
        expect_close(v, np.arange(n, dtype=np.float32) ** 2, f"square of a vector of length {n}")
    expect(got["runs"] == list(range(1, len(lengths) + 1)),
           f"after each call on vectors of lengths {lengths}, runs was {got['runs']}: the Variable must be "
           f"incremented by the graph (runs.assign_add(1) inside square), on every call.")
    seen = []
    for n in lengths:
        if [n] not in seen:
            seen.append([n])
    expect(got["log"] == seen, f"after calls on vectors of lengths {lengths}, trace_log is {got['log']}: it should "
                               f"hold one entry per trace, the traced argument's shape.")


@check("trace_and_run", points=2)
class TracesLoggedRunsCounted:
    """Python runs once per trace; the graph's assign runs on every call."""
    probe_helpers = (probe_counting_square,)
    cases = [{"lengths": [2, 2, 3, 2]}, {"lengths": [1, 4, 4, 1, 5]}]

    def probe(ns, lengths):
        return probe_counting_square(ns, lengths)

    def judge(got, lengths):
        judge_counting_square(got, lengths)
