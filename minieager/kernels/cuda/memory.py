"""Device memory: the copies between host and GPU, empty device arrays, and launch sizes.

Every GPU tensor holds a C-contiguous numba device array (``cuda.to_device`` of a contiguous NumPy
array, or a kernel's fresh output), so a kernel may read any input as one flat run of numbers.
No managed (unified) memory: a copy between host and device is always an explicit call here.

Several GPUs: CUDA allocates memory and launches kernels in the *current context*, one per GPU.
``on_gpu(i)`` makes GPU ``i``'s context current for a block (numba's ``cuda.gpus[i]``); every copy
here and every kernel of a "/gpu:i" tensor (``kernels/cuda/__init__.py``) runs inside it, so an
array is made, used and read on the GPU that holds it. GPU 0's context is numba's default, current
whenever no other block is, so GPU 0 needs no block.
"""
import contextlib
import math

import numpy as np
from numba import config, cuda

# Threads per block for one-thread-per-element kernels: a multiple of the warp size (32), large
# enough to hide memory latency, small enough that many blocks fit on each multiprocessor.
THREADS = 256
# At most this many blocks per launch: a grid-stride loop lets each thread do several elements,
# so huge arrays do not need a grid as large as themselves (and small ones get a small grid).
MAX_BLOCKS = 4096
WARP = 32


def launch(n):
    """(blocks, threads per block) for ``n`` elements, one per thread: the grid follows the array.

    A small array gets one block of just enough warps (the simulator runs each thread as a Python
    thread, so idle threads cost there); a large one THREADS per block, and at most MAX_BLOCKS blocks
    (the grid-stride loop does the rest). Never 0 blocks: that launch would be an error.
    """
    threads = min(THREADS, max(WARP, -(-n // WARP) * WARP))
    return max(1, min(MAX_BLOCKS, math.ceil(n / threads))), threads


if config.ENABLE_CUDASIM:   # tests/gpu run under the simulator, in a process of their own
    # On a real GPU a device array's ``.shape`` (host side) is a plain tuple, and the op layer
    # indexes it from the end (``shape[-1]``). The simulator's arrays return a tuple subclass
    # that refuses negative indices (to mimic shapes inside kernels); give them the host's tuple.
    from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray
    FakeCUDAArray.shape = property(lambda self: self._ary.shape)


def on_gpu(index):
    """``with on_gpu(i):`` makes GPU ``i``'s CUDA context the current one for the block (nothing to
    do for GPU 0, numba's default, or None: the context current now)."""
    return cuda.gpus[index] if index else contextlib.nullcontext()


def gpu_index(array):
    """The number of the GPU that holds the device ``array``: the device of the context it was
    allocated in (the simulator's arrays have none: it simulates one GPU)."""
    context = getattr(getattr(array, "gpu_data", None), "context", None)
    return 0 if context is None else context.device.id


def copy_to_device(array, index=None):
    """A new device array holding the host ``array``: on GPU ``index``, or, inside a kernel (index
    None), on the GPU whose context is current (GPU 0's unless a kernel of another runs)."""
    with on_gpu(index):
        return cuda.to_device(np.asarray(array, order="C"))   # (np.ascontiguousarray would make a 0-d array 1-d)


def copy_to_host(array):
    with on_gpu(gpu_index(array)):
        return array.copy_to_host()


def empty(shape, dtype):
    return cuda.device_array(tuple(int(s) for s in shape), np.dtype(dtype))


def flat(array):
    """A 1-D view of a contiguous device array (a 0-d array becomes one element)."""
    return array.reshape(array.size)
