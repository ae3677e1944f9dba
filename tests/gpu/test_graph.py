"""me.function on the GPU: a graph runs on the device of its arguments and variables, with that
device's kernels, and gives the eager results."""
import numpy as np
import pytest

import minieager as me
from minieager.errors import InvalidArgumentError

from .conftest import same, scale

CPU_0 = "/job:localhost/replica:0/task:0/device:CPU:0"   # tensor.device, as TF names it
GPU_0 = "/job:localhost/replica:0/task:0/device:GPU:0"

RNG = np.random.default_rng(11)


@me.function
def chain(x, w, b):
    return me.tanh(x * w + b) * 0.5 + x        # the fusion pass makes one op of it


def _inputs(n):
    return [me.constant(RNG.standard_normal(n).astype(np.float32)) for _ in range(3)]


def test_a_traced_function_runs_on_the_gpu_with_gpu_kernels_and_gives_the_eager_result(monkeypatch):
    from minieager.kernels.cuda import host
    inputs = _inputs(scale(37, 100_003))
    gpu_inputs = [t.gpu() for t in inputs]
    copies = []
    monkeypatch.setattr(host, "copy_to_host", lambda array: copies.append(array) or array.copy_to_host())
    result = chain(*gpu_inputs)
    assert copies == []                 # every node ran a CUDA kernel: no host round trip
    same(result, chain(*inputs))
    same(result, chain.python_function(*inputs))                      # and the eager CPU result
    assert chain.experimental_get_tracing_count() == 1                # one trace serves both devices


def test_a_traced_training_step_on_the_gpu_takes_the_eager_steps():
    x = RNG.standard_normal((scale(8, 256), 5)).astype(np.float32)
    y = RNG.standard_normal((scale(8, 256), 1)).astype(np.float32)
    start = [RNG.standard_normal(shape).astype(np.float32) * 0.5 for shape in [(5, 4), (4,), (4, 1), (1,)]]
    weights = {}
    # (the eager CPU step equals the traced one: tests/graph; the simulator makes every GPU step slow)
    for device, traced in [("/gpu:0", True), ("/cpu:0", False)]:
        with me.device(device):
            model = me.keras.Sequential([me.keras.layers.Dense(4, activation="relu"), me.keras.layers.Dense(1)])
            model.build((None, 5))
            model.set_weights(start)        # (a GPU draws other random numbers than the CPU for a seed)
            data, labels = me.constant(x), me.constant(y)
            optimizer = me.optimizers.Adam(0.01)

        def step():
            with me.GradientTape() as tape:
                loss = me.reduce_mean(me.square(model(data) - labels))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            return loss

        run = me.function(step) if traced else step
        losses = [run() for _ in range(3)]
        full = {"/cpu:0": CPU_0, "/gpu:0": GPU_0}[device]
        assert all(loss.device == full for loss in losses)
        assert all(v.device == full for v in model.variables)
        weights[(device, traced)] = [v.numpy() for v in model.variables]
    for gpu, cpu, first in zip(*weights.values(), start):
        assert not np.array_equal(cpu, first)                 # the steps moved every weight
        np.testing.assert_allclose(gpu, cpu, rtol=1e-5, atol=1e-6)


def test_gradients_of_a_traced_function_on_the_gpu_stay_on_the_gpu():
    inputs = [t.gpu() for t in _inputs(6)]
    with me.GradientTape() as tape:
        tape.watch(inputs)
        loss = me.reduce_sum(chain(*inputs))
    grads = tape.gradient(loss, inputs)
    with me.GradientTape() as eager_tape:
        eager_tape.watch(inputs)
        eager_loss = me.reduce_sum(chain.python_function(*inputs))
    for got, want in zip(grads, eager_tape.gradient(eager_loss, inputs)):
        same(got, want.cpu())


def test_cond_and_while_in_a_traced_function_run_on_the_gpu():
    @me.function
    def f(x):
        y = me.cond(me.reduce_sum(x) > 0, lambda: x * 2.0, lambda: -x)
        return me.while_loop(lambda i, acc: i < 3, lambda i, acc: (i + 1, acc + y), [0, me.zeros_like(y)])[1]

    x = me.constant([1.0, -0.5, 2.0])
    same(f(x.gpu()), f(x))
    same(f(-x.gpu()), f(-x))


def test_a_tensor_array_in_a_graph_loop_runs_on_the_gpu_with_eagers_values_and_gradients():
    def steps(x):
        ta = me.TensorArray(me.float32, size=0, dynamic_size=True, element_shape=[2])
        for i in me.range(3):
            ta = ta.write(i, me.tanh(x[i] * 2.0))
        return ta.stack(), ta.read(1), ta.gather([2, 0]), ta.size()

    x = me.constant(RNG.standard_normal((3, 2)).astype(np.float32))
    eager = steps(x)
    with me.device("/gpu:0"):                   # (the eager TensorArray's index tensors are made there too)
        x_gpu = x.gpu()
        for fn in (steps, me.function(steps)):
            with me.GradientTape() as tape:
                tape.watch(x_gpu)
                out = fn(x_gpu)
                loss = me.reduce_sum(out[0]) + me.reduce_sum(out[2])
            assert all(o.device == GPU_0 for o in out)
            for got, want in zip(out, eager):
                same(got, want)
            grad = tape.gradient(loss, x_gpu)
            assert grad.device == GPU_0
            # float32 computes 1 - y*y from y = tanh(2x) rounded to float32: near saturation (y = 0.998)
            # its rounding error, ~2 * 6e-8, is 6e-5 of the difference (seen on an H100), hence atol.
            np.testing.assert_allclose(grad.numpy(), (1 - np.tanh(2 * x.numpy()) ** 2) * 2 * [[2], [1], [2]],
                                       rtol=1e-5, atol=2e-6)


def test_a_graph_refuses_arguments_and_variables_on_two_devices():
    with me.device("/gpu:0"):
        v = me.Variable([1.0, 2.0])

    @me.function
    def scale_by_v(a):
        return a * v

    with pytest.raises(InvalidArgumentError, match=r"^scale_by_v: the function's tensor arguments and variables "
                                                   r"live on different devices \(/cpu:0 and /gpu:0\).*\.gpu\(\)"):
        scale_by_v(me.constant([1.0, 1.0]))
    same(scale_by_v(me.constant([1.0, 3.0]).gpu()), me.constant([1.0, 6.0]))


def test_variable_assignments_in_a_traced_function_stay_on_the_gpu():
    with me.device("/gpu:0"):
        v = me.Variable([1.0, 2.0])

    @me.function
    def update():
        v.assign(v * 2.0)
        v.assign_add(me.ones_like(v))
        return v.read_value()

    same(update(), me.constant([3.0, 5.0]))
    same(update(), me.constant([7.0, 11.0]))              # the graph reads the variable's new value
    assert v.device == GPU_0 and not isinstance(v._value, np.ndarray)   # still a device array
    listing = str(update.get_concrete_function().graph)
    assert "assign_variable(%0)" in listing                  # the traced product, not a constant of it
    assert "constant 2.0" in listing                         # GPU constants print their values


def test_gradients_over_unknown_dimensions_and_custom_gradients_on_the_gpu():
    # The scatter gradients that read their input's shape at run time (a 'like' input), reshape_like, and a
    # @custom_gradient's traced grad_fn under a tape outside the function: on the GPU, the CPU's results.
    @me.custom_gradient
    def log1pexp(x):
        e = me.exp(x)
        return me.math.log1p(e), lambda dy: dy * (1.0 - 1.0 / (1.0 + e))

    def loss(x):
        return (me.reduce_sum(me.sort(x) * x) + x[1] * 3.0 + me.reduce_sum(me.gather(x, [0, 0, 2]))
                + me.reduce_sum(log1pexp(x)))

    @me.function(input_signature=[me.TensorSpec([None], me.float32)])
    def grad(x):
        with me.GradientTape() as tape:
            tape.watch(x)
            y = loss(x)
        return tape.gradient(y, x)

    any_rank = me.function(lambda x: me.reduce_sum(me.reshape(x, [-1]) ** 2),
                           input_signature=[me.TensorSpec(None, me.float32)])
    values = RNG.standard_normal(5).astype(np.float32)
    results = []
    for x in (me.constant(values), me.constant(values).gpu()):
        with me.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = me.reduce_sum(me.function(log1pexp)(x))
            z = any_rank(x)
        results.append([grad(x), tape.gradient(y, x), tape.gradient(z, x)])
    for cpu, gpu in zip(*results):
        assert gpu.device == GPU_0
        np.testing.assert_allclose(gpu.numpy(), cpu.numpy(), rtol=1e-5, atol=1e-6)
