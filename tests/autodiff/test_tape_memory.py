"""What the tape keeps alive, and how long; the backward pass is a loop, not a recursion."""
import sys
import weakref

import numpy as np

import minieager as me
from minieager.engine import recording


def _chain(x):
    """Three recorded ops; returns the target and a weak reference to an intermediate nothing else holds."""
    h = me.exp(x * 2.0)
    ref = weakref.ref(h)
    return me.reduce_sum(h * h), ref


def test_a_non_persistent_gradient_frees_the_intermediates():
    x = me.constant(np.ones(1000, np.float32))
    with me.GradientTape() as tape:
        tape.watch(x)
        y, ref = _chain(x)
    assert ref() is not None                    # the tape holds it for the exp/multiply VJPs
    tape.gradient(y, x)
    assert ref() is None                        # reference counting alone frees it: no cycles


def test_a_persistent_tape_frees_its_records_when_deleted():
    x = me.constant(np.ones(10, np.float32))
    with me.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y, ref = _chain(x)
    tape.gradient(y, x)
    tape.gradient(y, x)
    assert ref() is not None
    del tape
    assert ref() is None


def test_the_tape_is_released_when_its_block_ends():
    x = me.constant(1.0)
    with me.GradientTape() as tape:
        tape.watch(x)
        assert recording.this_thread.observers[-1] is tape
    assert tape not in recording.this_thread.observers


def test_an_exception_inside_the_block_closes_the_tape():
    before = list(recording.this_thread.observers)
    try:
        with me.GradientTape():
            raise KeyError("boom")
    except KeyError:
        pass
    assert recording.this_thread.observers == before


def test_a_ten_thousand_op_chain():
    x = me.constant(1.0)
    with me.GradientTape() as tape:
        tape.watch(x)
        y = x
        for _ in range(10_000):
            y = y * 1.0001
    assert len(tape.records) == 10_000
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)                 # prove that nothing recurses per op
    try:
        g = tape.gradient(y, x)
    finally:
        sys.setrecursionlimit(limit)
    np.testing.assert_allclose(g.numpy(), 1.0001 ** 10_000, rtol=1e-3)


def test_ops_outside_tapes_leave_no_trace():
    x = me.constant(2.0)
    y = x * x
    assert recording.this_thread.observers == [] and recording.observing == []
    ref = weakref.ref(y)
    del y
    assert ref() is None
