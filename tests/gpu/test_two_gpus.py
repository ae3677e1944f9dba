"""Two GPUs: "/gpu:1" tensors, ops, variables, copies and graphs, each run in GPU 1's CUDA context.

numba's simulator simulates one GPU, so under it these tests give it a second: the simulator's
own ``FakeCUDAContext`` for device 1, recording which device's context is current. They check
minieager's side of several GPUs (every array of a "/gpu:1" tensor is made while GPU 1's context is
current, devices propagate, two GPUs in one op are refused, copies between GPUs are recorded on
tapes). On a real machine with two GPUs or more (``make test-gpu``) the same tests run on them,
without the recording; with one real GPU they are skipped.
"""
import numpy as np
import pytest
from numba import cuda

import minieager as me
from minieager import machine
from minieager.errors import InvalidArgumentError, NotFoundError

from .conftest import SIMULATED

GPU_0 = "/job:localhost/replica:0/task:0/device:GPU:0"   # tensor.device, as TF names it
GPU_1 = "/job:localhost/replica:0/task:0/device:GPU:1"

pytestmark = pytest.mark.skipif(not SIMULATED and me.num_gpus() < 2, reason="this machine has one GPU")

RNG = np.random.default_rng(5)


@pytest.fixture
def current(monkeypatch):
    """Two simulated GPUs; yields the list of allocations, each as the device current when it was made
    (None on real GPUs, where nothing is recorded)."""
    if not SIMULATED:
        yield None
        return
    from numba.cuda.simulator.cudadrv.devices import FakeCUDAContext
    stack, made = [], []

    class Recording(FakeCUDAContext):
        def __enter__(self):
            stack.append(self.id)

        def __exit__(self, *exc):
            assert stack.pop() == self.id

    def recorded(allocate):
        def wrapper(*args, **kwargs):
            made.append(stack[-1] if stack else None)
            return allocate(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(cuda.gpus, "lst", (Recording(0), Recording(1)))
    monkeypatch.setattr(cuda, "device_array", recorded(cuda.device_array))
    monkeypatch.setattr(cuda, "to_device", recorded(cuda.to_device))
    machine._cuda_gpu_count.cache_clear()
    assert me.num_gpus() == 2
    yield made
    machine._cuda_gpu_count.cache_clear()


def test_the_guides_second_gpu_example_runs_on_gpu_1(current):
    x = me.random.normal([10, 10])
    x_gpu1 = x.gpu(1)
    product = me.matmul(x_gpu1, x_gpu1)                        # "Runs on GPU:1"
    assert x_gpu1.device == product.device == GPU_1
    np.testing.assert_allclose(product.numpy(), x.numpy() @ x.numpy(), rtol=1e-5, atol=1e-5)
    assert current is None or current and set(current) == {1}   # every array was made in GPU 1's context


@pytest.mark.parametrize("op", [lambda x: me.reduce_sum(x, axis=0), lambda x: me.nn.softmax(x * 2.0 - 1.0),
                                lambda x: me.cumsum(x, axis=1),            # a host round trip
                                lambda x: me.nn.max_pool2d(me.reshape(x, [1, 4, 3, 1]), 2, 1, "SAME")],
                         ids=["reduce", "softmax", "round_trip", "pool"])
def test_ops_on_gpu_1_stay_there_and_equal_the_cpu(current, op):
    x = me.constant(RNG.standard_normal((4, 3)).astype(np.float32))
    got = op(x.gpu(1))
    assert got.device == GPU_1
    np.testing.assert_allclose(got.numpy(), op(x).numpy(), rtol=1e-5, atol=1e-6)
    assert current is None or set(current) == {1}


def test_with_device_gpu_1_places_variables_and_an_optimizer_steps_there(current):
    with me.device("/gpu:1"):
        v = me.Variable([1.0, -2.0])
        noise = me.random.uniform([2])
    assert v.device == noise.device == GPU_1
    optimizer = me.optimizers.Adam(0.1)
    with me.GradientTape() as tape:
        loss = me.reduce_sum(v * v)
    optimizer.apply_gradients([(tape.gradient(loss, v), v)])
    assert v.device == GPU_1 and all(s.device == GPU_1 for s in optimizer.variables()[1:])
    np.testing.assert_allclose(v.numpy(), [0.9, -1.9], rtol=1e-5)
    assert current is None or set(current) == {1}


def test_copies_between_gpus_are_recorded_and_send_gradients_home(current):
    x = me.constant([1.0, 2.0, 3.0]).gpu(0)
    with me.GradientTape() as tape:
        tape.watch(x)
        y = me.reduce_sum(me.square(x.gpu(1)))
    assert y.device == GPU_1
    grad = tape.gradient(y, x)
    assert grad.device == GPU_0
    np.testing.assert_allclose(grad.numpy(), [2.0, 4.0, 6.0])


def test_two_gpus_in_one_op_or_one_graph_are_refused(current):
    a, b = me.constant([1.0]).gpu(0), me.constant([2.0]).gpu(1)
    with pytest.raises(InvalidArgumentError, match=r"add: inputs live on different devices \(/gpu:0 and /gpu:1\)"):
        a + b

    @me.function
    def add(x, y):
        return x + y

    with pytest.raises(InvalidArgumentError, match=r"add: the function's tensor arguments .* \(/gpu:0 and /gpu:1\)"):
        add(a, b)
    assert add(b, b).device == GPU_1 and add(b, b).numpy().tolist() == [4.0]


def test_a_third_gpu_does_not_exist(current):
    with pytest.raises(NotFoundError, match=r"/gpu:2: only 2 GPU\(s\) were found"):
        me.constant([1.0]).gpu(2)
