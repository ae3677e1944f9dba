"""The one place where elementwise kernels resolve broadcasting, strides and float16.

An elementwise loop in ``loops/elementwise.py`` is a single loop ``for i in prange(out.size)`` over
1-D operands of the output's size. ``run_elementwise`` gets them there:

* an operand that already has the output's shape becomes a contiguous 1-D view (a copy only if it
  was strided, e.g. a transpose);
* a one-element operand (``x * 0.5``, ``m / reduce_max(m)``) is passed as a NumPy scalar of the
  compute dtype, and the kernels read every operand as ``item(a, i)``: ``a[i]`` for an array,
  ``a`` itself for a scalar. Which one is decided when numba compiles the loop (one variant each
  for array-array, array-scalar and scalar-array), and LLVM keeps the scalar in a vector register.
  The stride-0 view of length ``size`` used before needed no copy either, but LLVM compiled its
  loads to gather instructions, which fetch a vector element by element. Measured at 1e6 float32
  elements, 2 threads, into an existing output: ``x * 0.5`` 57 us with the scalar, 200 us with
  the stride-0 view, 87 us for ``x * y`` with two full operands; NumPy: 97 us and 160 us.
* any other broadcast (a row ``(M,)`` against ``(N, M)``, a column, 3-D patterns) is materialised
  with ``np.ascontiguousarray(np.broadcast_to(...))``. That costs one memcpy-speed pass over the
  output size, but keeps every kernel a single readable 1-D loop with few compiled signatures,
  instead of one loop nest per broadcasting pattern. Ops that NumPy does in one ufunc pass skip
  that copy: NumPy broadcasts them natively, at any size (a conv layer's bias add,
  (32, 26, 26, 16) + (16,): 0.11 ms in NumPy, 0.17-0.21 ms materialised and on two threads).

float16: numba has no float16 arithmetic on CPU, so float16 operands are computed in float32
and the result is cast back to float16 here, never in a kernel.

Which of the two does the work: calling a numba kernel costs ~1.5 us more than a NumPy ufunc
(argument unboxing), and splitting a loop over threads pays only for large arrays (see
threads.py). Measured on one thread, float32, microseconds per call:

    elements            4096   16384   65536   262144
    np.add               1.0     1.9     6.4     36
    numba add            2.4     3.2     8.5     38
    np.tanh              1.5     4.4    15.6     68
    numba tanh           2.9     6.3    18.1     56
    np.where (relu)      5.8    15.6    52.6    153
    numba relu           2.2     2.8     4.7     24

So:

* below ``SMALL_SIZE`` output elements, NumPy does every op;
* an op that NumPy does in one ufunc pass (add, multiply, tanh, ...) stays on NumPy up to
  ``threads.PARALLEL_SIZE``, since on one thread numba's loop is no faster, and at any size right
  after a matrix product, when the loop would get one thread anyway (see ``threads.py``). When the
  neighbours leave one CPU free, the loop runs on one thread instead: NumPy's tanh or exp round
  differently from our loops, and which CPUs are free must not change a result's bits;
* ops that NumPy needs several passes for (relu, sigmoid, the fused gradients) run the numba loop
  from ``SMALL_SIZE`` on, where one fused pass wins even on one thread;
* from ``PARALLEL_SIZE`` on, the numba loop runs on all threads.
"""
import math

import numpy as np

from . import loops
from .threads import PARALLEL_SIZE, blas_spinning, use_threads_for

SMALL_SIZE = 4096


def compute_dtype(dtype):
    """The dtype a kernel computes in: float32 for float16, else ``dtype`` itself."""
    dtype = np.dtype(dtype)
    return np.dtype(np.float32) if dtype == np.float16 else dtype


def upcast(a):
    """``a`` in its compute dtype (float16 -> float32); every CPU kernel module goes through this."""
    return a.astype(np.float32) if a.dtype == np.float16 else a


def downcast(a, dtype):
    """``a`` (computed in float32 for float16 inputs) back in ``dtype``; float16 overflow gives inf quietly."""
    if a.dtype == dtype:
        return a
    with np.errstate(over="ignore"):
        return a.astype(dtype)


def flat_operand(a, shape, size):
    """``a`` as a 1-D array of ``size`` elements laid out like the output of ``shape``, or as a
    scalar if it is one element broadcast to more (kernels read both through ``item``)."""
    a = upcast(a)
    if a.size == 1 and size > 1:
        return a.reshape(-1)[0]   # a NumPy scalar, which numba types as float32, int64, bool...
    if a.shape == shape:
        return np.ascontiguousarray(a).reshape(size)
    return np.ascontiguousarray(np.broadcast_to(a, shape)).reshape(size)


def _stretched(operands, shape):
    """Whether an operand of more than one element must be broadcast (a row, a column ...)."""
    return any(a.shape != shape and a.size != 1 for a in operands)


def run_elementwise(loop, numpy_fn, *operands, out_dtype=None, attrs=(), into=None):
    """Broadcast ``operands``, run ``loop(*flat_operands, *attrs, out)`` and return ``out``.

    ``loop`` is the name of a loop in ``loops/elementwise.py``, looked up (and numba imported)
    only when the loop, not NumPy, does the work.
    ``numpy_fn(*operands, *attrs)`` computes the same thing with NumPy; it is used for tiny arrays,
    and up to ``PARALLEL_SIZE`` when it is a single ufunc (see the module docstring).
    ``out_dtype`` defaults to the last operand's dtype (``where(cond, x, y)`` -> dtype of y).
    Scalar ``attrs`` (``alpha``) are converted to the compute dtype so the loop stays in it.
    ``into``: an operand's array that may be overwritten (``engine/temporaries.py``); ``out`` is
    that array when it has the output's shape and dtype. Element i of ``out`` is written after
    element i of every operand is read, so overwriting an operand is safe.
    """
    shape = operands[0].shape
    for a in operands[1:]:
        if a.shape != shape:    # np.broadcast is a C call, np.broadcast_shapes 130 bytecodes
            shape = np.broadcast(*operands).shape
            break
    size = math.prod(shape)
    dtype = operands[-1].dtype if out_dtype is None else out_dtype
    one_ufunc = isinstance(numpy_fn, np.ufunc)
    if into is not None and (into.shape != shape or into.dtype != dtype or dtype == np.float16):
        into = None                  # it does not fit the output: write a new array
    if size < (PARALLEL_SIZE if one_ufunc else SMALL_SIZE) or (
            one_ufunc and (_stretched(operands, shape) or blas_spinning())):
        if into is not None and one_ufunc:
            return numpy_fn(*operands, *attrs, out=into)
        result = numpy_fn(*operands, *attrs)
        if type(result) is not np.ndarray:   # ufuncs return NumPy scalars for 0-d inputs
            result = np.asarray(result)
        return result if result.dtype == dtype else downcast(result, dtype)
    work_dtype = compute_dtype(dtype)
    flats = [flat_operand(a, shape, size) for a in operands]
    attrs = tuple(compute_dtype(operands[-1].dtype).type(v) for v in attrs)
    out = np.empty(shape, work_dtype) if into is None else into   # np.empty: reuses hugepages
    use_threads_for(size)
    getattr(loops.elementwise, loop)(*flats, *attrs, out.reshape(size))   # a 1-D view of out's memory
    return downcast(out, dtype)   # out itself, not a view: a later op may overwrite it
