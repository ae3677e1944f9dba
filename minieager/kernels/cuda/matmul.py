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
still reaches every ``syncthreads()``.

Split-K, for products with a small output and a long k: a convolution's filter gradient is
(144, 147456) @ (147456, 16) for the guide's CNN at batch 256. Its output is three 64 x 64 tiles,
so three blocks would each walk 147456 values of k while the other 129 multiprocessors of an H100
sat idle (on an H100 that step took 107 ms, 53x PyTorch, mostly waiting for the GPU). So the k axis is cut into ``splits``
parts of ``k_chunk``: block z computes batch ``z // splits`` over part ``z % splits`` into its own
slice of a (B * splits, M, N) array of partial products, and a reduction sums the parts.

Shared and local arrays need a dtype known when the kernel
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
from .reduce import sum_over

TILE = 16                   # tiled: a 16 x 16 block of threads per 16 x 16 output tile
BM, BN, BK = 64, 64, 8      # register_blocked: a block's output tile (BM x BN), its k step (BK)
TM, TN = 4, 4               # ... each thread's patch of outputs: (BM / TM) x (BN / TN) = 16 x 16 threads
BLOCKS_IN_FLIGHT = 512      # split-K: aim for about this many blocks (an H100 has 132 multiprocessors)
K_PER_SPLIT = 256           # ... but give each block at least this much of k (32 steps of BK)
NUMBA_TYPES = {np.dtype(np.float32): float32, np.dtype(np.float64): float64}


def make_tiled(dtype):
    @cuda.jit
    def tiled(a, b, out, splits, k_chunk):
        """a (B, M, K) @ b (B, K, N) -> out (B * splits, M, N); block (TILE, TILE), grid (N/TILE, M/TILE, B * splits)."""
        tile_a = cuda.shared.array((TILE, TILE), dtype)
        tile_b = cuda.shared.array((TILE, TILE), dtype)
        z, tx, ty = cuda.blockIdx.z, cuda.threadIdx.x, cuda.threadIdx.y
        row = cuda.blockIdx.y * TILE + ty          # the output this thread computes (it may not exist)
        col = cuda.blockIdx.x * TILE + tx
        m, n = a.shape[1], b.shape[2]
        batch, k_begin = z // splits, (z % splits) * k_chunk      # this block's part of k (split-K)
        k_end = min(a.shape[2], k_begin + k_chunk)
        acc = dtype(0)
        for k0 in range(k_begin, k_end, TILE):
            # each thread loads one element of each tile; zeros beyond the edges
            tile_a[ty, tx] = a[batch, row, k0 + tx] if row < m and k0 + tx < k_end else 0
            tile_b[ty, tx] = b[batch, k0 + ty, col] if k0 + ty < k_end and col < n else 0
            cuda.syncthreads()                     # the tiles are complete
            for k in range(TILE):
                acc += tile_a[ty, k] * tile_b[k, tx]
            cuda.syncthreads()                     # everyone is done with them before the next load
        if row < m and col < n:
            out[z, row, col] = acc
    return tiled


def make_register_blocked(dtype):
    @cuda.jit
    def register_blocked(a, b, out, splits, k_chunk):
        """a (B, M, K) @ b (B, K, N) -> out (B * splits, M, N); block (BN/TN, BM/TM) = (16, 16),
        grid (N/BN, M/BM, B * splits).

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
        m, n = a.shape[1], b.shape[2]
        batch, k_begin = z // splits, (z % splits) * k_chunk      # this block's part of k (split-K)
        k_end = min(a.shape[2], k_begin + k_chunk)
        for i in range(TM):
            for j in range(TN):
                acc[i, j] = 0
        for k0 in range(k_begin, k_end, BK):
            for e in range(t, BM * BK, threads):       # the block loads BM*BK and BK*BN numbers together
                i, k = e // BK, e % BK
                tile_a[k, i] = a[batch, row0 + i, k0 + k] if row0 + i < m and k0 + k < k_end else 0
            for e in range(t, BK * BN, threads):
                k, j = e // BN, e % BN
                tile_b[k, j] = b[batch, k0 + k, col0 + j] if k0 + k < k_end and col0 + j < n else 0
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


def split_k(blocks, k):
    """How many parts to cut k into (split-K) for a product of ``blocks`` output tiles: enough for
    about BLOCKS_IN_FLIGHT blocks in all, each part at least K_PER_SPLIT long; 1 for a big output."""
    if blocks >= BLOCKS_IN_FLIGHT // 4:
        return 1
    return max(1, min(BLOCKS_IN_FLIGHT // blocks, k // K_PER_SPLIT))


def matmul_3d(a, b, kind="register_blocked"):
    """(B, M, K) @ (B, K, N) contiguous device arrays -> a new (B, M, N) array."""
    batch, m, k = a.shape
    n = b.shape[2]
    if batch * m * n == 0:
        return empty((batch, m, n), a.dtype)
    if kind == "tiled":
        tiles, block = (math.ceil(n / TILE), math.ceil(m / TILE)), (TILE, TILE)
    else:
        tiles, block = (math.ceil(n / BN), math.ceil(m / BM)), (BN // TN, BM // TM)
    splits = split_k(tiles[0] * tiles[1] * batch, k)
    k_chunk = -(-math.ceil(k / splits) // BK) * BK if splits > 1 else max(k, 1)   # whole k steps
    splits = -(-k // k_chunk) if splits > 1 else 1                                  # no empty part
    out = empty((batch * splits, m, n), a.dtype)
    kernel_for(kind, a.dtype)[tiles + (batch * splits,), block](a, b, out, splits, k_chunk)
    if splits == 1:
        return out
    return sum_over(out.reshape(batch, splits, m, n), (1,))    # the parts' partial products, summed


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
