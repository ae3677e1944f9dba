"""Compile every CUDA kernel of minieager to PTX for a real GPU, without a GPU (`make check-ptx`).

The simulator runs kernels as Python, so it accepts code a GPU compiler rejects (NumPy calls,
Python objects, untyped branches). This script types each kernel with the argument types minieager
launches it with and asks NVIDIA's NVVM (the ``cuda-toolkit`` extra) for sm_90 PTX. It prints one
line per kernel and exits 1 if any fails. Run it as a script, not under the simulator.
"""
import os
import sys
import time

if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
    sys.exit("check_ptx compiles for a real GPU: run it without NUMBA_ENABLE_CUDASIM=1.")

from types import SimpleNamespace  # noqa: E402

from numba import cuda, types  # noqa: E402
from numba.cuda import dispatcher  # noqa: E402

from minieager.kernels.cuda import elementwise, matmul, nn, optimizers, random, reduce  # noqa: E402

CC = (9, 0)       # sm_90 (H100); the kernels use nothing newer than sm_50 has

# A kernel's device functions (``unary``, ``block_reduce`` ...) are compiled for "the current
# device", which numba asks the driver about; with no driver here, that device is said to be the
# one compile_ptx targets. Nothing else is stood in for: NVVM does the compiling.
dispatcher.get_current_device = lambda: SimpleNamespace(compute_capability=CC)


def array(dtype, ndim):
    return types.Array(dtype, ndim, "C")


f32, f64, i64, b1 = types.float32, types.float64, types.int64, types.boolean
shape2 = types.UniTuple(i64, 2)


def signatures():
    """(name, kernel, argument types): each kernel for every dtype it is launched with."""
    for dt in (f32, f64):
        vec, mat, t3, t4 = array(dt, 1), array(dt, 2), array(dt, 3), array(dt, 4)
        yield f"map_kernel[{dt}]", elementwise.map_kernel, (i64, vec, shape2, vec, shape2, f64)
        yield f"map_kernel[{dt}->bool]", elementwise.map_kernel, (i64, array(b1, 1), shape2, vec, shape2, f64)
        yield f"zip_kernel[{dt}]", elementwise.zip_kernel, (i64, vec, shape2, vec, shape2, vec, shape2)
        yield f"reduce_rows[{dt}]", reduce.reduce_rows, (i64, f64, mat, array(f64, 2), f64)
        yield f"arg_rows[{dt}]", reduce.arg_rows, (b1, mat, array(i64, 1))
        yield f"tiled[{dt}]", matmul.kernel_for("tiled", str(dt)), (t3, t3, t3, i64, i64)
        yield f"register_blocked[{dt}]", matmul.kernel_for("register_blocked", str(dt)), (t3, t3, t3, i64, i64)
        yield f"im2col[{dt}]", nn.im2col, (t4,) + (i64,) * 8 + (mat,)
        yield f"col2im[{dt}]", nn.col2im, (mat,) + (i64,) * 8 + (t4,)
        yield f"pool[{dt}]", nn.pool, (t4, b1) + (i64,) * 6 + (t4,)
        yield f"pool_grad[{dt}]", nn.pool_grad, (t4, t4, b1) + (i64,) * 6 + (t4,)
        yield f"softmax_rows[{dt}]", nn.softmax_rows, (mat, b1, mat)
        yield f"softmax_xent_rows[{dt}]", nn.softmax_xent_rows, (mat, mat, b1, f64, array(f64, 1), mat)
        yield f"softmax_xent_rows[{dt}, sparse]", nn.softmax_xent_rows, (mat, array(i64, 2), b1, f64,
                                                                          array(f64, 1), mat)
        yield f"uniform_kernel[{dt}]", random.uniform_kernel, (i64, i64, f64, f64, vec)
        yield f"normal_kernel[{dt}]", random.normal_kernel, (i64, i64, f64, f64, vec)
        yield f"gradient_descent_kernel[{dt}]", optimizers.gradient_descent_kernel, (vec, vec, dt, vec)
        yield f"momentum_kernel[{dt}]", optimizers.momentum_kernel, (vec, vec, vec, dt, dt, b1, vec, vec)
        yield f"adam_kernel[{dt}]", optimizers.adam_kernel, (vec,) * 4 + (dt,) * 6 + (vec,) * 3
        yield f"rmsprop_kernel[{dt}]", optimizers.rmsprop_kernel, (vec,) * 4 + (dt,) * 5 + (vec,) * 3
        yield f"adagrad_kernel[{dt}]", optimizers.adagrad_kernel, (vec,) * 3 + (dt,) * 2 + (vec,) * 2


def main():
    failures = 0
    for name, kernel, args in signatures():
        start = time.perf_counter()
        try:
            ptx, _ = cuda.compile_ptx(kernel.py_func, args, cc=CC)
            status = f"ok   {len(ptx) // 1024:4d} KiB of PTX"
        except Exception as err:   # report every kernel, then fail
            failures += 1
            status = f"FAIL {type(err).__name__}: {str(err).splitlines()[0][:200]}"
        print(f"{name:38s} {status}  ({time.perf_counter() - start:.1f} s)", flush=True)
    print(f"{failures} of {len(list(signatures()))} kernels failed to compile" if failures
          else "every kernel compiled to PTX for sm_90")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
