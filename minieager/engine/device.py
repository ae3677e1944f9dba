"""Device names and the ``with me.device(...)`` context.

Every tensor lives on one device, named inside minieager like TensorFlow's short names: ``"/cpu:0"``,
``"/gpu:0"``, ``"/gpu:1"`` (``tensor.device`` shows TF's full name, ``full_name`` below). A CPU tensor
holds a NumPy array, a GPU tensor a numba CUDA device array (``minieager/kernels/cuda``, the optional
``cuda`` extra). ``to_host`` and ``to_device`` are the only two ways an array crosses between them.
Without a GPU, ``with me.device("/gpu:0")`` places on the CPU (soft placement, as TF 2) and ``t.gpu()``
raises a clear error.
"""
import contextlib
import re

from .. import machine
from ..errors import InvalidArgumentError, NotFoundError
from ..kernels.arrays import is_host_array

CPU = "/cpu:0"
_DEVICE_RE = re.compile(r"^/?(?:job:\w+/)?(?:replica:\d+/)?(?:task:\d+/)?(?:device:)?(cpu|gpu)(?::(\d+))?$",
                        re.IGNORECASE)

# The device new tensors are placed on; `with me.device(...)` pushes onto this stack.
_device_stack = [CPU]

# Soft placement (TF 2's default): `with me.device("/gpu:0")` on a machine without that device places on
# the CPU instead of failing, and tensor.device says so. me.config.set_soft_device_placement(False) makes
# it an error again. An explicit copy (t.gpu()) always needs the device.
_soft_placement = [True]


def set_soft_device_placement(enabled):
    """Whether ``me.device`` falls back to the CPU for a device this machine lacks (on by default, as TF 2)."""
    _soft_placement[0] = bool(enabled)


def get_soft_device_placement():
    return _soft_placement[0]


def canonical_device(name):
    """``"GPU"``, ``"gpu:0"``, ``"/device:GPU:0"`` -> ``"/gpu:0"``; raises on anything else."""
    match = _DEVICE_RE.match(str(name).strip())
    if not match:
        raise InvalidArgumentError(
            f"Unknown device {name!r}. Use '/cpu:0' or '/gpu:0' (also 'cpu:0', 'GPU', '/device:GPU:0').")
    kind, index = match.group(1).lower(), int(match.group(2) or 0)
    return f"/{kind}:{index}"


def full_name(name):
    """``"/gpu:1"`` -> ``"/job:localhost/replica:0/task:0/device:GPU:1"``: TF's full name (``tensor.device``)."""
    kind, index = name[1:].split(":")
    return f"/job:localhost/replica:0/task:0/device:{kind.upper()}:{index}"


def device_type(name):
    """``"/gpu:1"`` -> ``"gpu"``: the key kernels are registered under."""
    return name[1:4]


def check_available(name):
    """Raise a clear error if the canonical device ``name`` does not exist on this machine."""
    if name.startswith("/cpu"):
        if name != CPU:
            raise NotFoundError(f"Device {name} does not exist: minieager has one CPU device, '/cpu:0'.")
        return
    index, count = int(name.split(":")[1]), machine.num_gpus()   # probes numba.cuda, once
    if index >= count:
        found = "no GPU was found" if count == 0 else f"only {count} GPU(s) were found"
        raise NotFoundError(
            f"Cannot use device {name}: {found}. Check with me.num_gpus() or "
            f"me.config.list_physical_devices('GPU'); without a GPU, run on '/cpu:0'.")


def current_device():
    return _device_stack[-1]


@contextlib.contextmanager
def device(name):
    """Place the tensors created inside this block on ``name`` (``"/cpu:0"``, ``"/gpu:0"``, ``"/gpu:1"``).

    A device this machine lacks means the CPU while soft placement is on (the default, as TF 2); with
    ``me.config.set_soft_device_placement(False)`` it is a NotFoundError naming what was found.
    """
    name = canonical_device(name)
    try:
        check_available(name)
    except NotFoundError:
        if not _soft_placement[0]:
            raise
        name = CPU
    _device_stack.append(name)
    try:
        yield name
    finally:
        _device_stack.pop()


def to_host(array):
    """``array`` as a NumPy array: itself if it is one, else a copy from the GPU."""
    if is_host_array(array):
        return array
    from ..kernels.cuda.memory import copy_to_host
    return copy_to_host(array)


def gpu_index(name):
    """``"/gpu:1"`` -> 1: which GPU a canonical GPU device name means."""
    return int(name.rsplit(":", 1)[1])


def to_device(array, name):
    """``array`` on the canonical device ``name``: a NumPy array for "/cpu:0", else a device array.

    An array already on the device is returned as it is (tensors' arrays are never written to);
    one on another GPU is copied through the host.
    """
    if name == CPU:
        return to_host(array)
    from ..kernels.cuda import memory
    index = gpu_index(name)
    if is_host_array(array):
        return memory.copy_to_device(array, index)
    if memory.gpu_index(array) == index:
        return array
    return memory.copy_to_device(memory.copy_to_host(array), index)
