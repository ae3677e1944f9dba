"""``me.config``, modelled on ``tf.config``: threads, reuse of temporaries, physical devices, and
whether ``me.function`` runs eagerly.

The machine's facts and the thread settings live in ``minieager/machine.py``, the bottom layer
that the kernels and the engine read; this facade sits on top of every layer, so it may reach
the engine's temporaries and graph mode's switch directly.
"""
import sys
import types
from dataclasses import dataclass

from .engine import temporaries
from .engine.device import get_soft_device_placement, set_soft_device_placement  # noqa: F401
from .graph import function as _function
from . import machine as _machine
from .machine import (  # noqa: F401  (me.config's names for the machine's facts)
    available_cpus, cgroup_cpu_limit, configure_environment, default_num_threads, get_num_threads,
    keep_freed_memory, num_gpus, numba_cache_dir, set_num_threads)

__all__ = [
    "PhysicalDevice",
    "available_cpus",
    "cgroup_cpu_limit",
    "configure_environment",
    "default_num_threads",
    "get_num_threads",
    "get_reuse_temporaries",
    "keep_freed_memory",
    "list_physical_devices",
    "num_gpus",
    "numba_cache_dir",
    "set_num_threads",
    "set_reuse_temporaries",
    "run_functions_eagerly",
    "functions_run_eagerly",
    "experimental",
]

# me.config.experimental: the part of tf.config.experimental minieager has.
experimental = types.SimpleNamespace(enable_op_determinism=_machine.enable_op_determinism,
                                     op_determinism_enabled=_machine.op_determinism_enabled)


# ----------------------------------------------------------------------------- temporaries

def get_reuse_temporaries():
    """Whether ops may write their result over a temporary operand (see engine/temporaries.py)."""
    return temporaries.enabled


def set_reuse_temporaries(enabled):
    """Let ops write their result over a temporary operand, as in ``tanh(x * w + b)``, or not.

    It is on by default on CPython 3.11 to 3.13 and saves memory traffic on large arrays. Turn it
    off to measure what it saves, or when NumPy arrays of dtype object hold tensors (the one case
    it cannot recognise; see engine/temporaries.py).
    """
    if enabled and not temporaries.SUPPORTED:
        raise ValueError(
            f"set_reuse_temporaries: reusing temporaries needs CPython 3.11 to 3.13 with the GIL, "
            f"where reference counts tell a temporary from a named tensor; this is "
            f"{sys.implementation.name} {sys.version.split()[0]}.")
    temporaries.enabled = bool(enabled)


# ----------------------------------------------------------------------------- devices

@dataclass(frozen=True)
class PhysicalDevice:
    """A device the machine has, as in tf.config: name "/physical_device:CPU:0", type "CPU"."""
    name: str
    device_type: str


def list_physical_devices(device_type=None):
    """The CPU and any GPUs, optionally only those of `device_type` ("CPU" or "GPU")."""
    devices = [PhysicalDevice("/physical_device:CPU:0", "CPU")]
    devices += [PhysicalDevice(f"/physical_device:GPU:{i}", "GPU") for i in range(num_gpus())]
    if device_type is None:
        return devices
    return [d for d in devices if d.device_type == device_type.upper()]


def run_functions_eagerly(run_eagerly):
    """``me.function``s call their Python function directly, without tracing (for debugging)."""
    _function.run_functions_eagerly(run_eagerly)


def functions_run_eagerly():
    """Whether ``run_functions_eagerly(True)`` is in force."""
    return _function.functions_run_eagerly()
