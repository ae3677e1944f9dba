"""Lesson 11: me.function's tracing and retracing, each answer checked by running the calls for real."""
import numpy as np
import pytest

import minieager as me
from course.expect import CheckFailure, NotDone, call, expect, expect_close, learner

# Each line runs on a fresh `double = me.function(lambda x: x * 2)`; its answer is the tracing count after it.
CALLS = [
    "double(me.constant(1.0)); double(me.constant(2.0))",
    "double(me.constant([1.0, 2.0])); double(me.constant([1.0, 2.0, 3.0]))",
    "double(1.0); double(2.0); double(1.0)",
    "double(me.constant(1)); double(me.constant(1.0))",
    "double(np.ones(3)); double(np.ones(3)); double(me.ones(3))",
]


def _tracing_count(line):
    double = me.function(lambda x: x * 2)
    exec(line, {"me": me, "np": np, "double": double})
    return double.experimental_get_tracing_count()


@pytest.mark.tracing_counts
@pytest.mark.parametrize("line", CALLS)
def test_tracing_count_prediction(ns, line):
    predictions = learner(ns, "tracing_counts")
    if line not in predictions or predictions[line] is Ellipsis:
        raise NotDone(f"`tracing_counts` has no prediction for {line!r} yet.")
    got = predictions[line]
    if not isinstance(got, int) or isinstance(got, bool):
        raise CheckFailure(f"the prediction for `{line}` should be a whole number of traces, got {got!r}.")
    if got != _tracing_count(line):    # the answer itself is never shown: this is a prediction exercise
        raise CheckFailure(f"your prediction {got} for `{line}` is not what me.function does. For each call, ask: "
                           f"is its signature (shapes, dtypes, Python values) one the function has seen?")


@pytest.mark.one_trace
@pytest.mark.parametrize("scales", [[0.5, 1.0, 2.0, 4.0], [0.1 * k for k in range(1, 11)], [3.0]],
                         ids=["4 scales", "10 scales", "1 scale"])
def test_scale_all_traces_once(ns, scales):
    scale_all = learner(ns, "scale_all")
    fn = me.function(lambda x, scale: x * scale)
    x = me.constant([1.0, -2.0, 3.0])
    what = f"scale_all(fn, x, {np.round(scales, 2).tolist()})"
    got = call(scale_all, fn, x, scales, what=what)
    expect(isinstance(got, list) and len(got) == len(scales), f"{what} should return a list of {len(scales)} "
                                                             f"results, got {type(got).__name__}.")
    for s, r in zip(scales, got):
        expect_close(r, x.numpy() * s, f"the result for scale {s:g} from {what}", rtol=1e-5)
    count = fn.experimental_get_tracing_count()
    expect(count == 1, f"{what} made fn trace {count} times: each new Python float is a new signature.")


def _made(ns):
    make = learner(ns, "make_counting_square")
    made = call(make, what="make_counting_square()")
    expect(isinstance(made, tuple) and len(made) == 3,
           f"make_counting_square() should return (square, trace_log, runs), got {type(made).__name__}.")
    square, trace_log, runs = made
    expect(hasattr(square, "experimental_get_tracing_count"), "square should be a me.function.")
    expect(isinstance(trace_log, list) and trace_log == [], f"trace_log should start as an empty list, got {trace_log!r}.")
    expect(isinstance(runs, me.Variable) and int(runs.numpy()) == 0, "runs should be a me.Variable(0).")
    return square, trace_log, runs


@pytest.mark.trace_and_run
def test_traces_are_logged_once_per_signature_and_runs_every_call(ns):
    square, trace_log, runs = _made(ns)
    inputs = [me.constant([1.0, 2.0]), me.constant([3.0, 4.0]), me.constant([1.0, 2.0, 3.0]), me.constant([5.0, 6.0])]
    for k, x in enumerate(inputs, start=1):
        expect_close(call(square, x, what=f"square({x.numpy().tolist()})"), x.numpy() ** 2,
                     f"square({x.numpy().tolist()})")
        expect(int(runs.numpy()) == k, f"after {k} calls of square, runs is {int(runs.numpy())}: the Variable must be "
                                       f"incremented by the graph (runs.assign_add(1) inside square), every call.")
    shapes = [tuple(s) for s in trace_log]
    expect(shapes == [(2,), (3,)], f"after calls on shapes (2,), (2,), (3,), (2,), trace_log is {trace_log!r}: it "
                                   f"should hold one entry per trace, the traced argument's shape.")


@pytest.mark.trace_and_run
def test_each_call_of_the_factory_starts_from_zero(ns):
    first = _made(ns)
    first[0](me.constant(1.0))
    second = _made(ns)
    expect(second[0] is not first[0] and second[1] is not first[1] and second[2] is not first[2],
           "make_counting_square() should make a new function, list and Variable each time it is called.")
