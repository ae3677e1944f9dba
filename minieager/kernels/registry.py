"""The kernel registry: one table from (op name, device type) to the function that computes it.

Op definitions (``minieager/ops``) never import a kernel directly; they ask this table.
The CUDA backend (``kernels/cuda``) adds its rows under "gpu" the first time a GPU kernel is asked
for; an op it has no kernel for runs its CPU kernel through one host round trip
(``kernels/cuda/host.py``), so every op works on the GPU.
"""
from ..errors import UnimplementedError

_KERNELS = {}


def register_kernel(op_name, device_type="cpu"):
    """Decorator: register ``fn`` as the kernel of ``op_name`` on ``device_type`` ("cpu" or "gpu")."""
    def decorator(fn):
        _KERNELS[(op_name, device_type)] = fn
        return fn
    return decorator


def get_kernel(op_name, device):
    """The kernel of ``op_name`` for ``device``: a device name ("/cpu:0", "/gpu:1") or type ("cpu", "gpu"
    meaning GPU 0). A GPU's kernel runs in that GPU's CUDA context."""
    if device.startswith(("gpu", "/gpu")):
        from .cuda import gpu_kernel   # imports numba.cuda and registers the CUDA kernels, once
        return gpu_kernel(op_name, int(device.rsplit(":", 1)[1]) if ":" in device else 0)
    return _lookup(op_name, "cpu" if device.startswith("/cpu") else device)


def _lookup(op_name, device_type):
    try:
        return _KERNELS[(op_name, device_type)]
    except KeyError:
        have = sorted(d for (name, d) in _KERNELS if name == op_name)
        raise UnimplementedError(
            f"No {device_type} kernel is registered for op '{op_name}'"
            + (f" (it has kernels for: {', '.join(have)})." if have else ".")) from None


def registered_ops(device_type="cpu"):
    """Names of the ops that have a kernel on ``device_type`` (for tests and docs)."""
    return sorted(name for (name, d) in _KERNELS if d == device_type)
