"""Variables, optimizers, checkpoints, layers and Model.fit on the GPU, compared with the CPU."""
import numpy as np
import pytest

import minieager as me

from .conftest import scale

CPU_0 = "/job:localhost/replica:0/task:0/device:CPU:0"   # tensor.device, as TF names it
GPU_0 = "/job:localhost/replica:0/task:0/device:GPU:0"

RNG = np.random.default_rng(7)


def test_variables_live_on_the_gpu_and_take_values_from_either_device():
    with me.device("/gpu:0"):
        v = me.Variable([1.0, 2.0])
    assert v.device == GPU_0
    v.assign_add(me.constant([0.5, 0.5]))                    # a CPU value, copied over as in TF
    v.assign(v * 2.0)
    assert v.device == GPU_0 and v.read_value().device == GPU_0
    np.testing.assert_allclose(v.numpy(), [3.0, 5.0])
    with me.GradientTape() as tape:
        y = me.reduce_sum(v * v)
    grad = tape.gradient(y, v)
    assert grad.device == GPU_0
    np.testing.assert_allclose(grad.numpy(), [6.0, 10.0])


OPTIMIZERS = {
    "sgd": lambda: me.optimizers.SGD(0.1),
    "momentum": lambda: me.optimizers.SGD(0.1, momentum=0.9),
    "nesterov": lambda: me.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
    "adam": lambda: me.optimizers.Adam(0.05),
    "rmsprop": lambda: me.optimizers.RMSprop(0.05),
    "rmsprop_momentum": lambda: me.optimizers.RMSprop(0.05, momentum=0.5),
    "adagrad": lambda: me.optimizers.Adagrad(0.1),
}


def _train(make, device, start, steps=3):
    with me.device(device):
        v, optimizer = me.Variable(start), make()
        for _ in range(steps):
            with me.GradientTape() as tape:
                loss = me.reduce_sum(me.square(v - 1.0) * me.sin(v))
            optimizer.apply_gradients([(tape.gradient(loss, v), v)])
    return v, optimizer


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_optimizers_take_the_same_steps_on_both_devices(name, dtype):
    start = RNG.standard_normal((3, scale(5, 300))).astype(dtype)
    results = {}
    for device in ("/cpu:0", "/gpu:0"):
        v, optimizer = _train(OPTIMIZERS[name], device, start)
        full = {"/cpu:0": CPU_0, "/gpu:0": GPU_0}[device]
        assert v.device == full and all(s.device == full for s in optimizer.variables()[1:])
        assert v.dtype == me.as_dtype(dtype) and all(s.dtype == v.dtype for s in optimizer.variables()[1:])
        results[device] = [v.numpy()] + [s.numpy() for s in optimizer.variables()[1:]]
    assert not np.array_equal(results["/cpu:0"][0], start)               # the steps did move it
    rtol = {np.float16: 1e-3, np.float32: 1e-5, np.float64: 1e-12}[dtype]
    for gpu, cpu in zip(results["/gpu:0"], results["/cpu:0"]):
        np.testing.assert_allclose(gpu, cpu, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_a_float32_update_runs_on_the_gpu_without_a_copy_to_the_host(name, monkeypatch):
    from minieager.kernels.cuda import host
    v, optimizer = _train(OPTIMIZERS[name], "/gpu:0", np.linspace(-1, 1, 6, dtype=np.float32), steps=1)
    with me.GradientTape() as tape:
        loss = me.reduce_sum(me.square(v))
    grad = tape.gradient(loss, v)
    copies = []
    monkeypatch.setattr(host, "copy_to_host", lambda array: copies.append(array) or array.copy_to_host())
    before = v.numpy()
    optimizer.apply_gradients([(grad, v)])
    assert copies == []                  # a host round trip (host.round_trip) would copy each array back
    assert not np.array_equal(v.numpy(), before)


def test_a_cpu_gradient_updates_a_gpu_variable_on_the_gpu():
    with me.device("/gpu:0"):
        v = me.Variable([1.0, 2.0])
    me.optimizers.SGD(0.5).apply_gradients([(me.constant([2.0, 4.0]), v)])   # TF copies it over too
    assert v.device == GPU_0
    np.testing.assert_allclose(v.numpy(), [0.0, 0.0])


def test_checkpoint_saved_from_the_gpu_restores_onto_the_gpu(tmp_path):
    with me.device("/gpu:0"):
        v = me.Variable([1.0, 2.0, 3.0])
        optimizer = me.optimizers.Adam(0.1)
        with me.GradientTape() as tape:
            loss = me.reduce_sum(v * v)
        optimizer.apply_gradients([(tape.gradient(loss, v), v)])
    saved = v.numpy()
    path = me.train.Checkpoint(v=v, optimizer=optimizer).save(str(tmp_path / "ckpt"))
    with me.device("/gpu:0"):
        w = me.Variable([0.0, 0.0, 0.0])
        other = me.optimizers.Adam(0.1)
        other.build([w])
    me.train.Checkpoint(v=w, optimizer=other).restore(path).assert_consumed()   # restored outside the block
    assert w.device == GPU_0 and other.get_slot(w, "m").device == GPU_0
    np.testing.assert_array_equal(w.numpy(), saved)
    np.testing.assert_array_equal(other.get_slot(w, "m").numpy(), optimizer.get_slot(v, "m").numpy())


def _cnn():
    return me.keras.Sequential([
        me.keras.layers.Conv2D(4, 3, activation="relu", input_shape=(8, 8, 1)),
        me.keras.layers.MaxPooling2D(2),
        me.keras.layers.Flatten(),
        me.keras.layers.Dense(3),
    ])


@pytest.mark.slow   # ~20 s under the simulator: a CNN fitted on both devices
def test_layers_and_a_short_fit_match_the_cpu():
    """The same CNN, started from the same weights (the GPU draws other random numbers, so the GPU
    model's weights are assigned the CPU model's), trains to the same weights, losses and accuracy."""
    n = scale(8, 512)
    images = RNG.standard_normal((n, 8, 8, 1)).astype(np.float32)
    labels = RNG.integers(0, 3, n)
    histories, weights, start = {}, {}, None
    for device in ("/cpu:0", "/gpu:0"):
        with me.device(device):
            model = _cnn()
            model(me.constant(images[:1]))                       # builds the weights on this device
            if start is None:
                start = [w.numpy() for w in model.weights]
            for w, value in zip(model.weights, start):
                w.assign(me.constant(value))
            model.compile(optimizer=me.optimizers.SGD(0.05),
                          loss=me.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
            histories[device] = model.fit(images, labels, batch_size=4, epochs=scale(1, 3), verbose=0, shuffle=False).history
        assert all(w.device == {"/cpu:0": CPU_0, "/gpu:0": GPU_0}[device] for w in model.weights)
        weights[device] = [w.numpy() for w in model.weights]
    for a, b in zip(weights["/gpu:0"], weights["/cpu:0"]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(histories["/gpu:0"]["loss"], histories["/cpu:0"]["loss"], rtol=1e-4)
    assert histories["/gpu:0"]["accuracy"] == histories["/cpu:0"]["accuracy"]


def test_dataset_batches_are_made_on_the_current_device():
    data = me.data.Dataset.from_tensor_slices((np.arange(6, dtype=np.float32), np.arange(6))).batch(4)
    with me.device("/gpu:0"):
        batches = list(data)
    assert [(x.device, y.device) for x, y in batches] == [(GPU_0, GPU_0)] * 2
    np.testing.assert_array_equal(batches[1][0].numpy(), [4.0, 5.0])
    assert all(x.device == CPU_0 for x, _ in data)
