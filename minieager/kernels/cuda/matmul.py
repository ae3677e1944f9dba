"""Matrix multiplication on the GPU, in two steps that show where the speed comes from.

``out[m, n] = sum_k a[m, k] * b[k, n]``. The naive kernel (one thread per output, reading a row of
``a`` and a column of ``b`` from global memory) does one multiply-add per two global loads, and
global memory is ~100x slower than the arithmetic units: it runs at a few percent of the GPU.

Step 1, ``tiled``: a block of TILE x TILE threads computes a TILE x TILE tile of ``out``. The block
walks along k one tile at a time: each thread loads ONE element of a's tile and ONE of b's into
shared memory (fast, on-chip, shared by the block), the block waits (``syncthreads``), and then
every thread does TILE multiply-adds from shared memory. Each number loaded from global memory
is now used TILE times. But each multiply-add still reads two numbers from shared memory, and
shared memory is itself slower than registers: the kernel is now limited by shared-memory loads.

Step 2, ``register_blocked``: each thread computes a TM x TN patch of outputs (4 x 4 here)
instead of one. For each k it loads TM numbers of a's column and TN of b's row into registers,
then does TM * TN multiply-adds from registers: 16 multiply-adds per 8 shared loads instead of
1 per 2, and a block tile of BM x BN = 64 x 64 reuses each global load 64 times instead of 16.
Published CUDA C measurements of this progression at 4096^2 float32 (A6000): shared tiles 12.8%
of cuBLAS, 2-D register blocking 68.7%. The next steps (vectorised loads, warp tiling, double
buffering) are where cuBLAS goes on; they make the code much harder to read, so we stop here.

Both kernels take batches (``blockIdx.z`` is the batch index) and any sizes: a tile that hangs
over the matrix edge loads zeros there and writes only the outputs that exist, and every thread
still reaches every ``syncthreads()``. Shared and local arrays need a dtype known when the kernel
compiles, so each kernel is made per float dtype by a factory (numba does not cache such
closures to disk: they compile once per process).
"""
import math

import numpy as np
from numba import cuda, float32, float64

from ..registry import _lookup, register_kernel
from .elementwise import broadcast_array, transpose_array
from .host import float_kernel
from .memory import empty

TILE = 16                   # tiled: a 16 x 16 block of threads per 16 x 16 output tile
BM, BN, BK = 64, 64, 8      # register_blocked: a block's output tile (BM x BN), its k step (BK)
TM, TN = 4, 4               # ... each thread's patch of outputs: (BM / TM) x (BN / TN) = 16 x 16 threads
NUMBA_TYPES = {np.dtype(np.float32): float32, np.dtype(np.float64): float64}


def make_tiled(dtype):
    @cuda.jit
    def tiled(a, b, out):
        """a (B, M, K) @ b (B, K, N) -> out (B, M, N); block (TILE, TILE), grid (N/TILE, M/TILE, B)."""
        tile_a = cuda.shared.array((TILE, TILE), dtype)
        tile_b = cuda.shared.array((TILE, TILE), dtype)
        z, tx, ty = cuda.blockIdx.z, cuda.threadIdx.x, cuda.threadIdx.y
        row = cuda.blockIdx.y * TILE + ty          # the output this thread computes (it may not exist)
        col = cuda.blockIdx.x * TILE + tx
        m, k_total, n = a.shape[1], a.shape[2], b.shape[2]
        acc = dtype(0)
        for k0 in range(0, k_total, TILE):
            # each thread loads one element of each tile; zeros beyond the edges
            tile_a[ty, tx] = a[z, row, k0 + tx] if row < m and k0 + tx < k_total else 0
            tile_b[ty, tx] = b[z, k0 + ty, col] if k0 + ty < k_total and col < n else 0
            cuda.syncthreads()                     # the tiles are complete
            for k in range(TILE):
                acc += tile_a[ty, k] * tile_b[k, tx]
            cuda.syncthreads()                     # everyone is done with them before the next load
        if row < m and col < n:
            out[z, row, col] = acc
    return tiled


def make_register_blocked(dtype):
    @cuda.jit
    def register_blocked(a, b, out):
        """a (B, M, K) @ b (B, K, N) -> out (B, M, N); block (BN/TN, BM/TM) = (16, 16), grid (N/BN, M/BM, B).

        Thread (tx, ty) computes rows ``ty*TM ... + TM`` and columns ``tx*TN ... + TN`` of the block's tile.
        """
        tile_a = cuda.shared.array((BK, BM), dtype)    # a's tile stored k-major: a column is contiguous
        tile_b = cuda.shared.array((BK, BN), dtype)
        acc = cuda.local.array((TM, TN), dtype)        # local arrays of constant size live in registers
        col_a = cuda.local.array(TM, dtype)
        row_b = cuda.local.array(TN, dtype)
        z, tx, ty = cuda.blockIdx.z, cuda.threadIdx.x, cuda.threadIdx.y
        threads = cuda.blockDim.x * cuda.blockDim.y
        t = ty * cuda.blockDim.x + tx                  # this thread's number in the block
        row0, col0 = cuda.blockIdx.y * BM, cuda.blockIdx.x * BN
        m, k_total, n = a.shape[1], a.shape[2], b.shape[2]
        for i in range(TM):
            for j in range(TN):
                acc[i, j] = 0
        for k0 in range(0, k_total, BK):
            for e in range(t, BM * BK, threads):       # the block loads BM*BK and BK*BN numbers together
                i, k = e // BK, e % BK
                tile_a[k, i] = a[z, row0 + i, k0 + k] if row0 + i < m and k0 + k < k_total else 0
            for e in range(t, BK * BN, threads):
                k, j = e // BN, e % BN
                tile_b[k, j] = b[z, k0 + k, col0 + j] if k0 + k < k_total and col0 + j < n else 0
            cuda.syncthreads()
            for k in range(BK):
                for i in range(TM):                    # TM + TN shared loads ...
                    col_a[i] = tile_a[k, ty * TM + i]
                for j in range(TN):
                    row_b[j] = tile_b[k, tx * TN + j]
                for i in range(TM):                    # ... for TM * TN multiply-adds from registers
                    for j in range(TN):
                        acc[i, j] += col_a[i] * row_b[j]
            cuda.syncthreads()
        for i in range(TM):
            for j in range(TN):
                r, c = row0 + ty * TM + i, col0 + tx * TN + j
                if r < m and c < n:
                    out[z, r, c] = acc[i, j]
    return register_blocked


_compiled = {}


def kernel_for(kind, dtype):
    """The ``kind`` ("tiled" or "register_blocked") kernel for float ``dtype``, made once per process."""
    key = (kind, np.dtype(dtype))
    if key not in _compiled:
        make = make_tiled if kind == "tiled" else make_register_blocked
        _compiled[key] = make(NUMBA_TYPES[np.dtype(dtype)])
    return _compiled[key]


def matmul_3d(a, b, kind="register_blocked"):
    """(B, M, K) @ (B, K, N) contiguous device arrays -> a new (B, M, N) array."""
    batch, m, _ = a.shape
    n = b.shape[2]
    out = empty((batch, m, n), a.dtype)
    if out.size == 0:
        return out
    if kind == "tiled":
        grid, block = (math.ceil(n / TILE), math.ceil(m / TILE), batch), (TILE, TILE)
    else:
        grid, block = (math.ceil(n / BN), math.ceil(m / BM), batch), (BN // TN, BM // TM)
    kernel_for(kind, a.dtype)[grid, block](a, b, out)
    return out


def matmul_arrays(a, b, transpose_a=False, transpose_b=False, kind="register_blocked"):
    """The op's kernel: transposes made contiguous (an identity map), batch axes broadcast, then 3-D."""
    if transpose_a:
        a = transpose_array(a, list(range(a.ndim - 2)) + [a.ndim - 1, a.ndim - 2])
    if transpose_b:
        b = transpose_array(b, list(range(b.ndim - 2)) + [b.ndim - 1, b.ndim - 2])
    batch_shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    if a.shape[:-2] != batch_shape:
        a = broadcast_array(a, batch_shape + a.shape[-2:])
    if b.shape[:-2] != batch_shape:
        b = broadcast_array(b, batch_shape + b.shape[-2:])
    batch = math.prod(batch_shape)
    out = matmul_3d(a.reshape(batch, *a.shape[-2:]), b.reshape(batch, *b.shape[-2:]), kind)
    return out.reshape(batch_shape + out.shape[1:])


register_kernel("matmul", "gpu")(float_kernel(matmul_arrays, _lookup("matmul", "cpu")))
