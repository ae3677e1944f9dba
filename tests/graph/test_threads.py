"""Tracing and taping from several Python threads at once: each thread has its own tape and trace
stacks (engine/recording.py), as TF keeps its tape and graph stacks per thread. Barriers force the
overlap (two traces open at the same moment), so each test is deterministic; every barrier has a
timeout, so a test that would deadlock fails instead."""
import threading

import numpy as np
import pytest

import minieager as me
from minieager.engine import recording

TIMEOUT = 20


def run_in_threads(*targets):
    """Run each target in its own thread; return their results in order (re-raising the first error)."""
    results, errors = [None] * len(targets), []

    def work(i, target):
        try:
            results[i] = target()
        except BaseException as err:        # noqa: BLE001 - handed to the main thread
            errors.append(err)
    threads = [threading.Thread(target=work, args=(i, t)) for i, t in enumerate(targets)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT * 2)
    assert not any(t.is_alive() for t in threads), "a thread is still running (deadlock?)"
    if errors:
        raise errors[0]
    return results


def op_names(concrete):
    return [n.op.name for n in concrete.graph.nodes if n.kind == "call"]


def test_two_threads_trace_two_functions_at_once():
    # TF 2.21: f(1.0) = 3.0 and g(1.0) = 2.0 with both traces open at once (a barrier inside each body);
    # f's graph holds only f's ops (Mul, AddV2).
    meet = threading.Barrier(2, timeout=TIMEOUT)

    @me.function
    def f(x):
        y = x * 2.0
        meet.wait()             # both traces are open here
        y = y + 1.0
        meet.wait()             # ... and here, after each recorded one more op
        return y

    @me.function
    def g(x):
        y = x * 3.0
        meet.wait()
        y = y - 1.0
        meet.wait()
        return me.square(y)

    one = me.constant(1.0)
    rf, rg = run_in_threads(lambda: float(f(one)), lambda: float(g(one)))
    assert (rf, rg) == (3.0, 4.0)
    assert op_names(f.get_concrete_function(one)) == ["multiply", "add"]
    assert op_names(g.get_concrete_function(one)) == ["multiply", "subtract", "square"]
    assert recording.tracing == [] and recording.observing == []


def test_eager_ops_in_another_thread_run_while_a_function_traces():
    # TF 2.21: eager code keeps running eagerly in a thread while another thread traces (executing_eagerly()
    # is per thread); nothing it does enters the graph.
    meet = threading.Barrier(2, timeout=TIMEOUT)

    @me.function
    def f(x):
        meet.wait()             # f's trace is open ...
        meet.wait()             # ... while the other thread computes
        return x + 1.0

    def eager():
        meet.wait()
        seen = (me.executing_eagerly(), (me.constant([1.0, 2.0]) * 5.0).numpy().tolist())
        meet.wait()
        return seen

    out, seen = run_in_threads(lambda: f(me.constant(1.0)).numpy(), eager)
    assert out == 2.0 and seen == (True, [5.0, 10.0])
    assert op_names(f.get_concrete_function(me.constant(1.0))) == ["add"]


def test_one_function_called_from_two_threads_each_gets_its_result():
    # TF 2.21: a tf.function called from two threads with two signatures gives each call its own result;
    # one trace runs at a time (TF holds the function's lock while tracing), while a call of a signature
    # already traced runs at once, even during another thread's trace.
    meet = threading.Barrier(2, timeout=TIMEOUT)
    tracing_now, most = [0], [0]

    @me.function
    def double(x):
        tracing_now[0] += 1
        most[0] = max(most[0], tracing_now[0])
        if x.shape == (3,):
            meet.wait()         # the (3,) trace is open while the other thread calls the (2,) trace
            meet.wait()
        tracing_now[0] -= 1
        return x * 2.0

    double(me.constant([1.0, 2.0]))          # the (2,) trace exists already

    def runs_the_traced_signature():
        meet.wait()
        out = double(me.constant([5.0, 6.0])).numpy().tolist()
        meet.wait()
        return out

    new, old = run_in_threads(lambda: double(me.constant([1.0, 2.0, 3.0])).numpy().tolist(),
                              runs_the_traced_signature)
    assert new == [2.0, 4.0, 6.0] and old == [10.0, 12.0]
    assert double.experimental_get_tracing_count() == 2 and most[0] == 1


def test_two_threads_tracing_one_function_take_turns():
    # TF 2.21: two threads calling one tf.function with two new signatures at once trace one after the other
    # (never two traces of it open together); both results are right.
    start = threading.Barrier(2, timeout=TIMEOUT)
    tracing_now, most = [0], [0]

    @me.function
    def f(x):
        tracing_now[0] += 1
        most[0] = max(most[0], tracing_now[0])
        threading.Event().wait(0.2)              # give the other thread time to try to trace too
        tracing_now[0] -= 1
        return me.reduce_sum(x)

    def call(values):
        start.wait()
        return float(f(me.constant(values)))

    assert run_in_threads(lambda: call([1.0]), lambda: call([1.0, 2.0])) == [1.0, 3.0]
    assert most[0] == 1 and f.experimental_get_tracing_count() == 2


def test_two_threads_with_one_new_signature_trace_it_once():
    start = threading.Barrier(2, timeout=TIMEOUT)
    runs = []

    @me.function
    def f(x):
        runs.append(1)
        return x * x

    def call():
        start.wait()
        return f(me.constant([3.0])).numpy().tolist()
    assert run_in_threads(call, call) == [[9.0], [9.0]]
    assert len(runs) == 1 and f.experimental_get_tracing_count() == 1


def test_a_tape_does_not_record_another_threads_ops():
    # TF 2.21: GradientTape is per thread: x * x computed by another thread while the tape is open is not
    # recorded, so d(x * 3)/dx = 3.0 and that thread's result has no gradient.
    meet = threading.Barrier(2, timeout=TIMEOUT)
    x = me.constant(2.0)
    made = []

    def other():
        meet.wait()
        made.append(x * x)
        meet.wait()

    with me.GradientTape(persistent=True) as tape:
        tape.watch(x)
        worker = threading.Thread(target=other)
        worker.start()
        meet.wait()
        meet.wait()
        worker.join(TIMEOUT)
        z = x * 3.0
    assert float(tape.gradient(z, x)) == 3.0
    assert tape.gradient(made[0], x) is None
    assert [r.op_name for r in tape.records] == ["multiply"]


def test_a_tape_in_one_thread_keeps_recording_while_another_thread_traces():
    # Tracing pauses the tapes of its own thread only: a training step taped in one thread gets its
    # gradient while another thread traces a function (TF 2.21: the same, tapes are per thread).
    meet = threading.Barrier(2, timeout=TIMEOUT)
    w = me.Variable(3.0)

    @me.function
    def f(x):
        meet.wait()
        y = x * 10.0
        meet.wait()
        return y

    def taped():
        with me.GradientTape() as tape:
            meet.wait()              # f's trace is open now
            loss = w * w
            meet.wait()
        return float(tape.gradient(loss, w))

    traced, grad = run_in_threads(lambda: float(f(me.constant(1.0))), taped)
    assert traced == 10.0 and grad == 6.0


def test_gradients_of_functions_called_in_two_threads_under_their_own_tapes():
    # Each thread: a tape around a me.function call (traced in that thread, at the same time as the other's)
    # gives d(sum(sin(x) * x))/dx = cos(x) * x + sin(x), checked in float64 against the formula.
    meet = threading.Barrier(2, timeout=TIMEOUT)

    @me.function
    def f(x):
        y = me.sin(x)
        meet.wait()
        return me.reduce_sum(y * x)

    @me.function
    def g(x):
        y = me.sin(x)
        meet.wait()
        return me.reduce_sum(x * y)

    def grad(fn, values):
        x = me.constant(np.array(values, dtype=np.float64))
        with me.GradientTape() as tape:
            tape.watch(x)
            out = fn(x)
        return tape.gradient(out, x).numpy()

    a, b = [0.5, 1.0, 2.0], [-1.0, 3.0]
    ga, gb = run_in_threads(lambda: grad(f, a), lambda: grad(g, b))
    for got, values in ((ga, a), (gb, b)):
        v = np.array(values)
        np.testing.assert_allclose(got, np.cos(v) * v + np.sin(v), rtol=1e-12)


@pytest.mark.parametrize("rounds", [20])
def test_many_overlapping_traces_stay_separate(rounds):
    # Stress without sleeping: two threads each trace `rounds` fresh functions, meeting at a barrier inside
    # every trace; every result is right and no graph holds the other thread's op.
    meet = threading.Barrier(2, timeout=TIMEOUT)

    def work(op, name):
        graphs, results = [], []
        for i in range(rounds):
            def body(x):
                y = op(x, 2.0)
                meet.wait()
                return op(y, 1.0)
            fn = me.function(body, name=f"{name}_{i}")
            results.append(float(fn(me.constant(float(i)))))
            graphs.append(op_names(fn.get_concrete_function(me.constant(float(i)))))
        return graphs, results

    (g_add, r_add), (g_mul, r_mul) = run_in_threads(lambda: work(me.add, "adds"), lambda: work(me.multiply, "muls"))
    assert r_add == [i + 3.0 for i in range(rounds)] and r_mul == [i * 2.0 for i in range(rounds)]
    assert all(g == ["add", "add"] for g in g_add) and all(g == ["multiply", "multiply"] for g in g_mul)
