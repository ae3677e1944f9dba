"""Devices: the CPU under its several spellings, and a clear error where no GPU exists."""
import pytest

import minieager as me
from minieager.engine.device import canonical_device, current_device

CPU_0 = "/job:localhost/replica:0/task:0/device:CPU:0"   # tensor.device, as TF names it

InvalidArgumentError = me.errors.InvalidArgumentError
NotFoundError = me.errors.NotFoundError

no_gpu = pytest.mark.skipif(me.num_gpus() > 0, reason="this machine has a GPU")


@pytest.mark.parametrize("name", ["/cpu:0", "cpu:0", "CPU:0", "/device:CPU:0", "cpu", "CPU", " /cpu:0 ",
                                  "/job:localhost/replica:0/task:0/device:CPU:0"])
def test_cpu_device_spellings(name):
    with me.device(name) as placed:
        assert placed == "/cpu:0"
        t = me.constant([1.0]) * 2
        assert t.device == CPU_0
    assert current_device() == "/cpu:0"


@pytest.mark.parametrize("name, canonical", [("GPU", "/gpu:0"), ("gpu:1", "/gpu:1"), ("/device:GPU:0", "/gpu:0"),
                                             ("/cpu:0", "/cpu:0")])
def test_canonical_device_names(name, canonical):
    assert canonical_device(name) == canonical


def test_tensor_device_and_cpu():
    t = me.constant([1, 2])
    assert t.device == CPU_0
    assert t.cpu() is t


@no_gpu
def test_num_gpus_is_zero_and_only_the_cpu_is_listed():
    assert me.num_gpus() == 0 and me.config.num_gpus() == 0
    devices = me.config.list_physical_devices()
    assert [(d.name, d.device_type) for d in devices] == [("/physical_device:CPU:0", "CPU")]
    assert me.config.list_physical_devices("GPU") == []
    assert me.list_physical_devices("cpu") == devices


@pytest.fixture
def hard_placement():
    me.config.set_soft_device_placement(False)
    yield
    me.config.set_soft_device_placement(True)


@no_gpu
@pytest.mark.parametrize("name", ["/gpu:0", "gpu:0", "GPU", "GPU:0", "/device:GPU:0"])
def test_without_a_gpu_ops_in_a_gpu_block_run_on_the_cpu(name):
    # TF 2's soft placement (on by default): the block runs on the CPU, and tensor.device says so.
    assert me.config.get_soft_device_placement() is True
    with me.device(name) as placed:
        assert placed == "/cpu:0"
        x = me.constant([1.0, 2.0])
        y = me.matmul(me.reshape(x, (1, 2)), me.reshape(x, (2, 1)))
        v = me.Variable(1.0)
    assert x.device == y.device == v.device == CPU_0
    assert y.numpy().tolist() == [[5.0]]
    assert current_device() == "/cpu:0"


@no_gpu
@pytest.mark.parametrize("name", ["/gpu:0", "gpu:0", "GPU", "/device:GPU:0"])
def test_asking_for_a_gpu_without_soft_placement_says_none_was_found(name, hard_placement):
    with pytest.raises(NotFoundError, match=r"no GPU was found.*me\.num_gpus\(\)") as info:
        with me.device(name):
            pass
    assert isinstance(info.value, LookupError)
    assert current_device() == "/cpu:0"                 # the failed `with` left nothing behind
    assert me.constant(1).device == CPU_0


@no_gpu
@pytest.mark.parametrize("index", [0, 1])
def test_tensor_gpu_says_none_was_found_even_with_soft_placement(index):
    assert me.config.get_soft_device_placement()
    with pytest.raises(NotFoundError, match=rf"/gpu:{index}: no GPU was found.*me\.num_gpus\(\)"):
        me.constant([1.0]).gpu(index)


def test_a_second_cpu_is_the_first_with_soft_placement_and_an_error_without():
    with me.device("/cpu:1") as placed:
        assert placed == "/cpu:0"
    me.config.set_soft_device_placement(False)
    try:
        with pytest.raises(NotFoundError, match="one CPU device"):
            with me.device("/cpu:1"):
                pass
    finally:
        me.config.set_soft_device_placement(True)


def test_second_cpu_error_wording(hard_placement):
    with pytest.raises(NotFoundError, match="one CPU device"):
        with me.device("/cpu:1"):
            pass


@pytest.mark.parametrize("name", ["tpu:0", "/cpu:x", "cuda", "", "/gpu:0:1", "cpu0"])
def test_unknown_device_strings_are_an_error(name):
    with pytest.raises(InvalidArgumentError, match=r"Unknown device.*'/cpu:0'") as info:
        with me.device(name):
            pass
    assert isinstance(info.value, ValueError)
    assert current_device() == "/cpu:0"


def test_nested_device_blocks_restore_the_outer_device():
    with me.device("cpu:0"):
        with me.device("/device:CPU:0"):
            pass
        assert current_device() == "/cpu:0"
    assert current_device() == "/cpu:0"


def test_tensor_device_is_tfs_full_name():
    """TF 2.21: tf.constant(1.).device, a Variable's and a soft-placed one's are all
    '/job:localhost/replica:0/task:0/device:CPU:0'; TF's customization guide checks x.device.endswith("CPU:0")."""
    with me.device("CPU:0"):
        x = me.random.uniform([3, 3])
    assert x.device == "/job:localhost/replica:0/task:0/device:CPU:0" and x.device.endswith("CPU:0")
    assert me.Variable(1.0).device == me.constant(1.0).device == x.device
    with me.device(x.device):                             # the full name is a device name me.device takes
        assert current_device() == "/cpu:0"
