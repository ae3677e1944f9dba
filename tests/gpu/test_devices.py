"""Device semantics on a GPU, as in TF eager: placement, copies, errors, printing."""
import warnings

import numpy as np
import pytest

import minieager as me
from minieager.errors import InvalidArgumentError, NotFoundError

CPU_0 = "/job:localhost/replica:0/task:0/device:CPU:0"   # tensor.device, as TF names it
GPU_0 = "/job:localhost/replica:0/task:0/device:GPU:0"


def test_one_gpu_is_found_and_listed():
    assert me.num_gpus() >= 1
    assert len(me.config.list_physical_devices("GPU")) == me.num_gpus()


def test_with_device_places_new_tensors_and_ops_on_the_gpu():
    with me.device("/gpu:0"):
        x = me.constant([[1.0, 2.0], [3.0, 4.0]])
        y = me.matmul(x, x) + 1.0
        z = me.zeros([2]) + me.ones([2]) + me.random.uniform([2], seed=1)
    for t in (x, y, z):
        assert t.device == GPU_0
        assert not isinstance(t._value, np.ndarray)      # a device array, not a NumPy one
    np.testing.assert_allclose(y.numpy(), [[8.0, 11.0], [16.0, 23.0]])


def test_results_live_on_the_device_of_their_inputs_outside_any_device_block():
    x = me.constant([1.0, -2.0, 3.0]).gpu()
    assert me.constant(1.0).device == CPU_0
    for result in (x * 2.0, me.exp(x), me.reduce_sum(x), me.zeros_like(x), me.nn.relu(x), x[1:]):
        assert result.device == GPU_0


def test_gpu_and_cpu_copy_and_keep_values():
    x = me.constant([[1.5, -2.0]], dtype=me.float64)
    g = x.gpu()
    assert g.device == GPU_0 and g.dtype == me.float64
    assert g.gpu() is g and x.cpu() is x
    back = g.cpu()
    assert back.device == CPU_0
    np.testing.assert_array_equal(back.numpy(), x.numpy())


def test_the_tape_records_copies_and_sends_gradients_back_to_each_device():
    x = me.constant([1.0, -2.0, 3.0])
    with me.GradientTape(persistent=True) as tape:
        tape.watch(x)
        g = x.gpu()
        y = me.reduce_sum(me.square(g)).cpu() + me.reduce_sum(x * 10.0)   # a path on each device
    assert [r.op.name for r in tape.records][:2] == ["copy", "square"]
    grad = tape.gradient(y, x)
    assert grad.device == CPU_0                                       # x's device, not the GPU's
    np.testing.assert_allclose(grad.numpy(), 2 * x.numpy() + 10.0)
    grad_g = tape.gradient(y, g)
    assert grad_g.device == GPU_0
    np.testing.assert_allclose(grad_g.numpy(), 2 * x.numpy())


def test_second_derivatives_flow_through_copies():
    x = me.constant(3.0)
    with me.GradientTape() as outer:
        outer.watch(x)
        with me.GradientTape() as inner:
            inner.watch(x)
            y = (x.gpu() ** 3).cpu()
        dy = inner.gradient(y, x)
    assert dy.device == CPU_0 and float(dy) == 27.0
    assert float(outer.gradient(dy, x)) == 18.0


def test_a_copy_inside_me_function_is_refused_with_the_fix():
    @me.function
    def f(x):
        return x.gpu() * 2.0

    with pytest.raises(InvalidArgumentError, match=r"Cannot copy a tensor to /gpu:0 inside "
                                                 r"me.function.*before calling it"):
        f(me.constant([1.0]))


def test_numpy_and_printing_copy_to_the_host():
    g = me.constant([1.0, 2.0]).gpu()
    array = g.numpy()
    assert isinstance(array, np.ndarray)
    array[0] = 99.0
    np.testing.assert_array_equal(g.numpy(), [1.0, 2.0])   # the tensor did not change
    assert str(g) == "me.Tensor([1. 2.], shape=(2,), dtype=float32)"
    assert "numpy=array([1., 2.], dtype=float32)" in repr(g)
    assert float(me.reduce_sum(g)) == 3.0 and np.asarray(g).tolist() == [1.0, 2.0]


def test_a_gpu_that_does_not_exist_is_a_clear_error_or_soft_placed_on_the_cpu():
    index = me.num_gpus()
    with pytest.raises(NotFoundError, match=rf"/gpu:{index}: only {index} GPU\(s\) were found.*me\.num_gpus"):
        me.constant([1.0]).gpu(index)
    with me.device(f"/gpu:{index}") as placed:     # soft placement (TF 2's default): the CPU
        assert placed == "/cpu:0" and me.constant([1.0]).device == CPU_0
    with me.device("GPU:0") as placed:             # a GPU that exists is used
        assert placed == "/gpu:0" and me.constant([1.0]).device == GPU_0
    me.config.set_soft_device_placement(False)
    try:
        with pytest.raises(NotFoundError, match=rf"/gpu:{index}"):
            with me.device(f"/gpu:{index}"):
                pass
    finally:
        me.config.set_soft_device_placement(True)


def test_string_tensors_stay_on_the_cpu_inside_a_gpu_block():
    with me.device("/gpu:0"):
        s = me.constant(["a", "b"])
        n = me.constant([1.0])
    assert s.device == CPU_0 and n.device == GPU_0


@pytest.mark.parametrize("op", [me.add, me.matmul, lambda a, b: me.concat([a, b], axis=0)])
def test_inputs_on_two_devices_raise_the_device_error(op):
    a = me.constant([[1.0, 2.0]])
    b = a.gpu()
    with pytest.raises(InvalidArgumentError, match=r"different devices \(/cpu:0 and /gpu:0\).*\.cpu\(\) or \.gpu\(\)"):
        op(a, me.reshape(b, [2, 1]) if op is me.matmul else b)


def test_integer_and_bool_tensors_work_on_the_gpu_through_the_host_round_trip():
    with me.device("/gpu:0"):
        i = me.constant([3, -1, 2])
        flags = i > 0
        picked = me.where(flags, i, me.zeros_like(i))
        order = me.argmax(me.cast(i, me.float32), axis=0)
    assert flags.device == picked.device == GPU_0
    assert flags.dtype == me.bool and picked.numpy().tolist() == [3, 0, 2] and int(order) == 0


def test_small_tensors_launch_small_grids_without_numbas_occupancy_warning():
    """Every op on a small tensor launches fewer than 128 blocks, and numba-cuda warns about each
    such launch unless told not to (minieager.machine sets NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS=0)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*under-utilization")
        with me.device("/gpu:0"):
            x = me.constant([[1.0, 2.0], [3.0, 4.0]])
            y = me.reduce_sum(me.tanh(x) * 2.0 + me.matmul(x, x), axis=1)
    np.testing.assert_allclose(y.numpy(), (np.tanh(x.numpy()) * 2 + x.numpy() @ x.numpy()).sum(axis=1), rtol=1e-6)
