"""The host round trip: how an op without a CUDA kernel still runs on the GPU.

Some ops would teach nothing as a kernel (``where_indices``, ``gather``'s bookkeeping, bool and
integer arithmetic, cumulative sums ...). Rather than a copy of each, every such op takes one
path: its inputs are copied to the host, its CPU kernel runs on them, and its outputs are copied
back. The results are right and live on the GPU like any other; the price is two copies over the
PCIe bus, so a model that spends its time in these ops is not faster on the GPU.
docs/architecture.md lists which ops take this path.

The CUDA kernels use it too, for the dtypes they do not compile for (they cover float32 and
float64): ``float_kernel`` below sends everything else round.
"""
import functools

import numpy as np

from ..arrays import is_host_array
from .memory import copy_to_device, copy_to_host

FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _host(value):
    """A device array copied to the host; host arrays and Python scalars (an optimizer's rate) as they are."""
    return value if is_host_array(value) or isinstance(value, (bool, int, float)) else copy_to_host(value)


def _device(value):
    if isinstance(value, (tuple, list)):
        return type(value)(_device(v) for v in value)
    return copy_to_device(np.asarray(value))


def round_trip(cpu_kernel):
    """``cpu_kernel`` as a "gpu" kernel: device arrays in, device arrays out, computed on the host."""
    @functools.wraps(cpu_kernel)
    def kernel(*arrays, **attrs):
        attrs.pop("into", None)   # temporaries are reused on the CPU only
        return _device(cpu_kernel(*[_host(a) for a in arrays], **attrs))
    kernel.round_trip = True
    return kernel


def float_kernel(cuda_kernel, cpu_kernel):
    """A "gpu" kernel that runs ``cuda_kernel`` when its first input is float32 or float64 and
    ``cpu_kernel`` through the round trip otherwise (int, bool and float16 tensors)."""
    slow = round_trip(cpu_kernel)

    @functools.wraps(cuda_kernel)
    def kernel(*arrays, **attrs):
        if arrays[0].dtype in FLOATS:
            attrs.pop("into", None)
            return cuda_kernel(*arrays, **attrs)
        return slow(*arrays, **attrs)
    return kernel
