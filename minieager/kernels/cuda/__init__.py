"""The CUDA backend: numba.cuda kernels a learner can read, registered under device type "gpu".

Nothing here is imported by ``import minieager``: the kernel registry imports this package the
first time an op runs on a GPU tensor (``registry.get_kernel(name, "gpu")``), which imports
numba.cuda and registers every kernel below. One concept per module:

    memory.py       copies between host and device, empty device arrays, launch sizes
    host.py         the host round trip: how an op without a CUDA kernel still runs on the GPU
    elementwise.py  map and zip with broadcasting by strides (and layout ops that are maps)
    reduce.py       shared-memory tree reductions: sum, max, min, prod, argmax, argmin
    matmul.py       a tiled shared-memory matmul, then a register-blocked one (and why it is faster)
    nn.py           im2col convolution and its gradients, pooling, softmax, the fused cross-entropy
    optimizers.py   the optimizers' update rules, one fused kernel each (Adam in one pass over memory)
    random.py       counter-based uniform and normal random numbers

Every kernel is tested against the CPU kernels under numba's CUDA simulator
(``NUMBA_ENABLE_CUDASIM=1``, ``tests/gpu``), and compiled to PTX for a real GPU by
``make check-ptx``. docs/architecture.md has the table of which op runs how.
"""
import functools

from .. import registry

_registered = False
_on_gpus = {}   # (op name, GPU number) -> its kernel, run in that GPU's context


def gpu_kernel(op_name, index=0):
    """The kernel of ``op_name`` on GPU ``index``: its CUDA kernel, or its CPU kernel behind a host
    round trip, run with that GPU's CUDA context current (``memory.on_gpu``), so that the arrays
    it makes and the kernels it launches are on that GPU.

    GPU 0's context is the one numba makes current when none is, and minieager makes another one
    current only inside these wrappers, so GPU 0's kernels run as they are: a context switch per
    op would cost a few microseconds for nothing."""
    kernel = _on_gpus.get((op_name, index))
    if kernel is None:
        kernel = _gpu_kernel(op_name)
        _on_gpus[(op_name, index)] = kernel = kernel if index == 0 else _in_context(kernel, index)
    return kernel


def _gpu_kernel(op_name):
    global _registered
    if not _registered:
        from . import elementwise, matmul, nn, optimizers, random, reduce  # noqa: F401  (each registers its kernels)
        _registered = True
    try:
        return registry._KERNELS[(op_name, "gpu")]
    except KeyError:
        from .host import round_trip
        kernel = registry._KERNELS[(op_name, "gpu")] = round_trip(registry._lookup(op_name, "cpu"))
        return kernel


def _in_context(kernel, index):
    from .memory import on_gpu

    @functools.wraps(kernel)
    def run(*args, **attrs):
        with on_gpu(index):
            return kernel(*args, **attrs)
    return run
