"""Each optimizer against a hand-written NumPy reference over three steps."""

import numpy as np
import pytest

import minieager as me
from minieager.nn import optimizers

W0 = np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)
GRADS = [np.array([[0.1, -0.2], [0.3, 0.4]], np.float32) * (k + 1) for k in range(3)]

def run(optimizer, steps=3):
    w = me.Variable(W0)
    for g in GRADS[:steps]:
        optimizer.apply_gradients([(me.constant(g), w)])
    return w


def sgd_ref(lr, momentum=0.0, nesterov=False):
    w, v = W0.astype(np.float64), 0.0
    for g in GRADS:
        v = momentum * v - lr * g
        w = w + (momentum * v - lr * g if nesterov else v) if momentum else w - lr * g
    return w


def adam_ref_tf(lr=0.01, b1=0.9, b2=0.999, eps=1e-7):
    """TF's form: lr_t = lr * sqrt(1 - b2^t) / (1 - b1^t); w -= lr_t * m / (sqrt(v) + eps)."""
    w, m, v = W0.astype(np.float64), 0.0, 0.0
    for t, g in enumerate(GRADS, start=1):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        w = w - lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t) * m / (np.sqrt(v) + eps)
    return w


def rmsprop_ref(lr=0.01, rho=0.9, momentum=0.0, eps=1e-7):
    w, ms, mom = W0.astype(np.float64), 0.0, 0.0
    for g in GRADS:
        ms = rho * ms + (1 - rho) * g * g
        mom = momentum * mom + lr * g / (np.sqrt(ms) + eps)
        w = w - mom
    return w


def adagrad_ref(lr=0.1, init=0.1, eps=1e-7):
    w, acc = W0.astype(np.float64), init
    for g in GRADS:
        acc = acc + g * g
        w = w - lr * g / (np.sqrt(acc) + eps)
    return w


@pytest.mark.parametrize("optimizer, expected", [
    (lambda: me.optimizers.SGD(0.1), lambda: sgd_ref(0.1)),
    (lambda: me.optimizers.SGD(0.1, momentum=0.9), lambda: sgd_ref(0.1, 0.9)),
    (lambda: me.optimizers.SGD(0.1, momentum=0.9, nesterov=True), lambda: sgd_ref(0.1, 0.9, True)),
    (lambda: me.optimizers.Adam(0.01), lambda: adam_ref_tf(0.01)),
    (lambda: optimizers.AdamOptimizer(0.01), lambda: adam_ref_tf(0.01, eps=1e-8)),
    (lambda: me.optimizers.RMSprop(0.01), lambda: rmsprop_ref(0.01)),
    (lambda: me.optimizers.RMSprop(0.01, momentum=0.5), lambda: rmsprop_ref(0.01, momentum=0.5)),
    (lambda: me.optimizers.Adagrad(0.1), lambda: adagrad_ref(0.1)),
    (lambda: optimizers.GradientDescentOptimizer(0.1), lambda: sgd_ref(0.1)),
    (lambda: optimizers.MomentumOptimizer(0.1, 0.9, use_nesterov=True), lambda: sgd_ref(0.1, 0.9, True)),
])
def test_three_steps_match_numpy(optimizer, expected):
    opt = optimizer()
    w = run(opt)
    np.testing.assert_allclose(w.numpy(), expected(), rtol=1e-5, atol=1e-6)
    assert int(opt.iterations) == 3 and opt.iterations.dtype == me.int64


def test_adam_first_step_is_bias_corrected():
    w = run(me.optimizers.Adam(0.01), steps=1)
    # After one step m/(1-b1) = g and v/(1-b2) = g^2, so every weight moves by about lr.
    np.testing.assert_allclose(W0 - w.numpy(), 0.01 * np.sign(GRADS[0]), rtol=1e-4)


def test_slots_and_variables():
    opt = me.optimizers.Adam()
    w = run(opt)
    m = opt.get_slot(w, "m")
    assert opt.variables() == [opt.iterations, m, opt.get_slot(w, "v")]
    assert not m.trainable and m.shape == w.shape
    assert [name for name, _ in opt._checkpoint_dependencies()] == ["iter", "slot/0/m", "slot/1/v"]
    with pytest.raises(ValueError, match="no slot 'momentum'"):
        opt.get_slot(w, "momentum")


def test_none_gradients_warn_with_the_variable_name_and_are_skipped():
    a, b = me.Variable(1.0, name="a"), me.Variable(2.0, name="b")
    with pytest.warns(UserWarning, match="variable 'b:0' is None"):
        me.optimizers.SGD(0.5).apply_gradients([(me.constant(1.0), a), (None, b)])
    assert float(a) == 0.5 and float(b) == 2.0
    with pytest.raises(ValueError, match="no gradients"), pytest.warns(UserWarning):
        me.optimizers.SGD(0.5).apply_gradients([(None, b)])


def test_gradient_of_the_wrong_shape():
    with pytest.raises(ValueError, match="has shape \\(3,\\).*variable has shape \\(2,\\)"):
        me.optimizers.SGD().apply_gradients([(me.ones([3]), me.Variable([1.0, 2.0]))])


def test_minimize_without_var_list_updates_what_the_loss_reads():
    w, unused = me.Variable(3.0), me.Variable(1.0)
    frozen = me.Variable(2.0, trainable=False)
    opt = me.optimizers.SGD(0.1)
    loss = opt.minimize(lambda: w * w * frozen)
    assert float(loss) == 18.0
    assert float(w) == pytest.approx(3.0 - 0.1 * 12.0)
    assert float(unused) == 1.0 and float(frozen) == 2.0


def test_global_step_counts_applies_and_updates_are_not_recorded():
    step = optimizers.get_or_create_global_step()
    assert step is optimizers.get_or_create_global_step()
    assert step.dtype == me.int64 and not step.trainable
    w = me.Variable(1.0)
    with me.GradientTape() as tape:
        y = w * 2.0
        optimizers.SGD(0.1).apply_gradients([(me.constant(1.0), w)], global_step=step)
    assert [r.op_name for r in tape.records] == ["multiply"]
    assert int(step) == 1


def test_updates_allocate_fresh_arrays():
    w = me.Variable([1.0, 2.0])
    before = w.numpy()
    snapshot = me.identity(w)
    optimizers.Adam().apply_gradients([(me.constant([1.0, 1.0]), w)])
    np.testing.assert_array_equal(snapshot.numpy(), before)


def test_minimize_needs_a_function():
    with pytest.raises(TypeError, match="loss must be a function"):
        me.optimizers.SGD().minimize(me.constant(1.0))
