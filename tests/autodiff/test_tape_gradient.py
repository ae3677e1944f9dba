"""GradientTape.gradient: what is watched, what comes back, and in which structure."""
import numpy as np
import pytest

import minieager as me


def _close(t, expected):
    np.testing.assert_allclose(t.numpy(), expected, rtol=1e-6, atol=1e-6)


def test_guide_w_times_w():
    w = me.Variable([[1.0]])
    with me.GradientTape() as tape:
        loss = w * w
    grad = tape.gradient(loss, w)
    assert str(grad) == "me.Tensor([[2.]], shape=(1, 1), dtype=float32)"


def test_watch_a_constant():
    x = me.constant(3.0)
    with me.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    _close(tape.gradient(y, x), 6.0)


def test_unwatched_constants_give_none():
    x = me.constant(3.0)
    with me.GradientTape() as tape:
        y = x * x
    assert tape.gradient(y, x) is None
    assert tape.records == []


def test_watch_accepts_nested_structures():
    a, b, c = me.constant(1.0), me.constant(2.0), me.constant(3.0)
    with me.GradientTape() as tape:
        tape.watch([a, {"b": b, "c": (c,)}])
        y = a * b * c
    grads = tape.gradient(y, [a, b, c])
    for g, expected in zip(grads, [6.0, 3.0, 2.0]):
        _close(g, expected)


def test_trainable_variables_are_watched_automatically():
    w, frozen = me.Variable(2.0), me.Variable(5.0, trainable=False)
    with me.GradientTape() as tape:
        y = w * frozen
    dw, dfrozen = tape.gradient(y, [w, frozen])
    _close(dw, 5.0)
    assert dfrozen is None
    assert tape.watched_variables() == (w,)


def test_watch_accessed_variables_false_watches_only_what_you_ask():
    w1, w2 = me.Variable(2.0), me.Variable(3.0)
    with me.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(w2)
        y = w1 * w2
    d1, d2 = tape.gradient(y, [w1, w2])
    assert d1 is None
    _close(d2, 2.0)
    assert tape.watched_variables() == (w2,)


def test_a_non_trainable_variable_can_be_watched_explicitly():
    frozen = me.Variable(4.0, trainable=False)
    with me.GradientTape() as tape:
        tape.watch(frozen)
        y = frozen * frozen
    _close(tape.gradient(y, frozen), 8.0)


def test_variables_read_before_the_tape_opened_are_not_recorded():
    w = me.Variable(2.0)
    early = w * 3.0
    with me.GradientTape() as tape:
        y = early * w
    _close(tape.gradient(y, w), 6.0)           # only the multiply inside the block counts


@pytest.mark.parametrize("make_sources, check", [
    (lambda a, b: [a, b], lambda g: isinstance(g, list) and len(g) == 2),
    (lambda a, b: (a, b), lambda g: isinstance(g, tuple) and len(g) == 2),
    (lambda a, b: {"first": a, "second": [b, (a,)]},
     lambda g: set(g) == {"first", "second"} and isinstance(g["second"], list) and isinstance(g["second"][1], tuple)),
])
def test_sources_structure_is_returned(make_sources, check):
    a, b = me.Variable(2.0), me.Variable(3.0)
    with me.GradientTape() as tape:
        y = a * b
    grads = tape.gradient(y, make_sources(a, b))
    assert check(grads)
    flat = me.nest.flatten(grads)
    expected = me.nest.flatten(make_sources(3.0, 2.0))
    for g, e in zip(flat, expected):
        _close(g, e)


def test_a_non_scalar_target_is_summed():
    x = me.constant([1.0, 2.0, 3.0])
    with me.GradientTape() as tape:
        tape.watch(x)
        y = x * x                                  # shape (3,)
    _close(tape.gradient(y, x), [2.0, 4.0, 6.0])


def test_a_list_of_targets_sums_their_gradients():
    x = me.constant(2.0)
    with me.GradientTape() as tape:
        tape.watch(x)
        y1, y2 = x * x, 3.0 * x
    _close(tape.gradient([y1, y2], x), 7.0)


def test_output_gradients_weight_the_target():
    x = me.constant([1.0, 2.0])
    with me.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    _close(tape.gradient(y, x, output_gradients=me.constant([10.0, -1.0])), [20.0, -4.0])


@pytest.mark.parametrize("unconnected", ["zero", me.UnconnectedGradients.ZERO])
def test_unconnected_gradients_zero(unconnected):
    x, unused = me.constant(2.0), me.Variable([1.0, 2.0])
    with me.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    dx, dunused = tape.gradient(y, [x, unused], unconnected_gradients=unconnected)
    _close(dx, 4.0)
    assert dunused.shape == (2,) and dunused.dtype == me.float32
    _close(dunused, [0.0, 0.0])


@pytest.mark.parametrize("unconnected", [None, "none", me.UnconnectedGradients.NONE])
def test_unconnected_gradients_none(unconnected):
    x, unused = me.constant(2.0), me.constant(1.0)
    with me.GradientTape() as tape:
        tape.watch([x, unused])
        y = x * x
    kwargs = {} if unconnected is None else {"unconnected_gradients": unconnected}
    assert tape.gradient(y, unused, **kwargs) is None


def test_a_watched_source_not_on_the_path_gives_none_even_if_recorded():
    x, z = me.constant(2.0), me.constant(5.0)
    with me.GradientTape() as tape:
        tape.watch([x, z])
        side = z * z              # recorded, but y does not depend on it
        y = x * 3.0
    assert tape.gradient(y, z) is None
    assert side.numpy() == 25.0


def test_integer_sources_give_none():
    i = me.constant([1, 2])
    x = me.constant([1.0, 2.0])
    with me.GradientTape() as tape:
        tape.watch(x)
        y = x * me.cast(i, me.float32)
    dx, di = tape.gradient(y, [x, i], unconnected_gradients="zero")
    _close(dx, [1.0, 2.0])
    assert di is None


def test_gradient_through_a_cast_from_int_stops():
    i = me.Variable([1, 2])                  # an int variable is never watched
    with me.GradientTape() as tape:
        y = me.reduce_sum(me.cast(i, me.float32) * 2.0)
    assert tape.gradient(y, i) is None
    assert tape.watched_variables() == ()


def test_fan_out_accumulates():
    x = me.constant(3.0)
    with me.GradientTape() as tape:
        tape.watch(x)
        a = x * 2.0
        y = a * a + a + me.exp(x) + x       # x used by four ops, a by three uses
    expected = 2 * (2 * 6.0) + 2 + np.exp(3.0) + 1
    _close(tape.gradient(y, x), expected)


def test_the_same_tensor_twice_in_one_op():
    x = me.constant([1.0, -2.0])
    with me.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    _close(tape.gradient(y, x), [2.0, -4.0])


@pytest.mark.parametrize("a_shape, b_shape", [
    ((2, 3), ()),
    ((2, 3), (3,)),
    ((2, 3), (1, 3)),
    ((2, 3), (2, 1)),
    ((4, 2, 3), (2, 3)),
    ((4, 1, 3), (2, 1)),
    ((1,), (2, 3)),
])
def test_broadcasting_is_reduced_to_each_input_shape(a_shape, b_shape):
    rng = np.random.default_rng(0)
    a = me.constant(rng.standard_normal(a_shape).astype(np.float32))
    b = me.constant(rng.standard_normal(b_shape).astype(np.float32))
    with me.GradientTape() as tape:
        tape.watch([a, b])
        y = a * b
    da, db = tape.gradient(y, [a, b])
    assert da.shape == a_shape and db.shape == b_shape
    out_shape = np.broadcast_shapes(a_shape, b_shape)
    np.testing.assert_allclose(da.numpy(), _sum_to(np.broadcast_to(b.numpy(), out_shape), a_shape), rtol=1e-5)
    np.testing.assert_allclose(db.numpy(), _sum_to(np.broadcast_to(a.numpy(), out_shape), b_shape), rtol=1e-5)


def _sum_to(array, shape):
    """Sum a broadcast array back down to ``shape`` (NumPy reference for the tape's unbroadcast)."""
    array = array.sum(axis=tuple(range(array.ndim - len(shape))))
    return array.sum(axis=tuple(i for i, n in enumerate(shape) if n == 1), keepdims=True)


def test_gradient_of_the_source_itself_is_ones():
    x = me.constant([1.0, 2.0])
    with me.GradientTape() as tape:
        tape.watch(x)
    _close(tape.gradient(x, x), [1.0, 1.0])


def test_ops_outside_every_tape_record_nothing():
    x = me.constant(1.0)
    with me.GradientTape() as tape:
        tape.watch(x)
    y = x * x                                     # after the block
    assert tape.records == []
    assert tape.gradient(y, x) is None


def test_gradient_dtype_matches_the_source():
    x = me.constant([1.0, 2.0], dtype=me.float64)
    with me.GradientTape() as tape:
        tape.watch(x)
        y = me.reduce_sum(me.cast(x, me.float32) * 2.0)
    g = tape.gradient(y, x)
    assert g.dtype == me.float64
    _close(g, [2.0, 2.0])


def test_stop_gradient_blocks_the_flow():
    x = me.constant(3.0)
    with me.GradientTape() as tape:
        tape.watch(x)
        y = x * me.stop_gradient(x)
    _close(tape.gradient(y, x), 3.0)


def test_stop_gradient_alone_gives_none():
    x = me.constant(3.0)
    with me.GradientTape() as tape:
        tape.watch(x)
        y = me.stop_gradient(x * x)
    assert tape.gradient(y, x) is None
