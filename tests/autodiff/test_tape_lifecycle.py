"""Persistent and nested tapes, stop_recording, reset, gradient inside the tape's own context."""
import numpy as np
import pytest

import minieager as me


def _close(t, expected):
    np.testing.assert_allclose(t.numpy(), expected, rtol=1e-6, atol=1e-6)


def test_a_second_gradient_on_a_non_persistent_tape_raises():
    x = me.constant(3.0)
    with me.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match=r"persistent=True"):
        tape.gradient(y, x)


def test_a_persistent_tape_computes_many_gradients():
    x = me.constant(3.0)
    with me.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    _close(tape.gradient(z, x), 108.0)       # 4 x^3
    _close(tape.gradient(y, x), 6.0)
    _close(tape.gradient(z, y), 18.0)
    _close(tape.gradient(z, x), 108.0)


def test_guide_persistent_tape_on_a_variable():
    w = me.Variable(5.0)
    with me.GradientTape(persistent=True) as gt:
        loss = w * w
    _close(gt.gradient(loss, w), 10.0)
    _close(gt.gradient(loss, w), 10.0)


def test_nested_tapes_give_the_second_derivative():
    # The guide's example (x = 3: dy/dx = 6, d2y/dx2 = 2). Each tape watches x: watch() is per tape, as in TF.
    x = me.constant(3.0)
    with me.GradientTape() as g:
        g.watch(x)
        with me.GradientTape() as gg:
            gg.watch(x)
            y = x * x
        dy_dx = gg.gradient(y, x)
        _close(dy_dx, 6.0)
    _close(g.gradient(dy_dx, x), 2.0)


def test_nested_tapes_on_a_variable_watch_it_automatically():
    x = me.Variable(3.0)
    with me.GradientTape() as g:
        with me.GradientTape() as gg:
            y = x * x * x
        dy_dx = gg.gradient(y, x)
    _close(dy_dx, 27.0)
    _close(g.gradient(dy_dx, x), 18.0)


def test_watching_only_on_the_inner_tape_gives_no_second_derivative():
    # As in TensorFlow: the outer tape never saw x, so it cannot differentiate with respect to it.
    x = me.constant(3.0)
    with me.GradientTape() as g:
        with me.GradientTape() as gg:
            gg.watch(x)
            y = x * x
        dy_dx = gg.gradient(y, x)
    assert g.gradient(dy_dx, x) is None


def test_third_derivative_through_three_tapes():
    x = me.constant(2.0)
    with me.GradientTape() as t1:
        t1.watch(x)
        with me.GradientTape() as t2:
            t2.watch(x)
            with me.GradientTape() as t3:
                t3.watch(x)
                y = x * x * x * x            # x^4
            d1 = t3.gradient(y, x)           # 4x^3 = 32
        d2 = t2.gradient(d1, x)              # 12x^2 = 48
    d3 = t1.gradient(d2, x)                  # 24x = 48
    _close(d1, 32.0)
    _close(d2, 48.0)
    _close(d3, 48.0)


def test_gradient_inside_a_non_persistent_tapes_context_works_and_stops_recording():
    x = me.constant(3.0)
    with me.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        dy = tape.gradient(y, x)
        after = x * 2.0
    _close(dy, 6.0)
    assert after.numpy() == 6.0
    assert tape.records == []


def test_gradient_inside_a_persistent_tapes_context_is_recorded_on_it():
    # As in TensorFlow: the backward ops are recorded, so the same tape can differentiate them again.
    y, v = me.constant(2.0), me.Variable(3.0)
    with me.GradientTape(persistent=True) as tape:
        tape.watch(y)
        w = y * y * v
        dw_dy = tape.gradient(w, y)               # 2 y v
    _close(dw_dy, 12.0)
    _close(tape.gradient(dw_dy, v), 4.0)          # 2 y


def test_stop_recording():
    x = me.constant(3.0)
    with me.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        with tape.stop_recording():
            unrecorded = x * 100.0
        z = y + unrecorded
    assert [r.op_name for r in tape.records] == ["multiply", "add"]
    _close(tape.gradient(z, x), 6.0)


def test_stop_recording_affects_only_that_tape():
    x = me.constant(3.0)
    with me.GradientTape() as outer:
        outer.watch(x)
        with me.GradientTape() as inner:
            inner.watch(x)
            with inner.stop_recording():
                y = x * x
    assert inner.records == []
    _close(outer.gradient(y, x), 6.0)


def test_reset_forgets_everything():
    x = me.constant(3.0)
    with me.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        tape.reset()
        assert tape.records == []
        tape.watch(x)
        z = x * 5.0
        total = y + z
    assert [r.op_name for r in tape.records] == ["multiply", "add"]
    _close(tape.gradient(total, x), 5.0)               # y's multiply was forgotten


def test_reset_then_gradient_of_an_earlier_result_is_none():
    x = me.constant(3.0)
    with me.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        tape.reset()
        tape.watch(x)
        z = x * 5.0
    assert tape.gradient(y, x) is None
    _close(tape.gradient(z, x), 5.0)


def test_reset_lets_a_used_non_persistent_tape_compute_again():
    x = me.constant(3.0)
    tape = me.GradientTape()
    with tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    tape.reset()
    with tape:
        tape.watch(x)
        z = x * 4.0
    _close(tape.gradient(z, x), 4.0)


def test_watched_variables_in_order():
    a, b, c = me.Variable(1.0), me.Variable(2.0), me.Variable(3.0, trainable=False)
    with me.GradientTape() as tape:
        y = b * a * c
    assert tape.watched_variables() == (b, a)


def test_a_tape_can_be_reentered_to_record_more():
    x = me.constant(2.0)
    tape = me.GradientTape(persistent=True)
    with tape:
        tape.watch(x)
        y = x * x
    outside = y * 10.0                                 # not recorded
    with tape:
        z = y * 3.0
    _close(tape.gradient(z, x), 12.0)
    assert tape.gradient(outside, x) is None


def test_assigning_a_variable_after_it_was_used_then_gradient_raises():
    v = me.Variable(2.0, name="assigned_on_tape")
    with me.GradientTape() as tape:
        y = v * v
    v.assign(5.0)
    with pytest.raises(ValueError, match=r"assigned_on_tape.*assigned after"):
        tape.gradient(y, v)


def test_assigning_a_variable_the_gradient_does_not_need_is_fine():
    v, w = me.Variable(2.0), me.Variable(3.0)
    with me.GradientTape() as tape:
        y = v + w
        z = v * 4.0
    w.assign(1.0)
    _close(tape.gradient(z, v), 4.0)   # the record that read w is not played back for this target
    assert y.numpy() == 5.0
