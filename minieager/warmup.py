"""``python -m minieager.warmup``: compile minieager's numba loops into numba's disk cache, once.

numba compiles a loop the first time it runs, for the dtypes and array layouts it is called
with, and keeps the machine code in its on-disk cache. On a fresh machine that first run is
slow: the first Conv2D of a session waits seconds for its loops to compile. The cache belongs to
the machine (or the image), not the session, so compiling everything once at set-up time
(``make lab`` does it after installing, Binder's ``postBuild`` while building the image) spares
every later session that wait.

How: each task below runs real ops through the public API, on tensors large enough to reach
the numba loops (small ones are computed by NumPy), so exactly the signatures a notebook uses
are compiled; not a list of type signatures that could drift from the kernels. The tasks run in
worker processes, one per CPU, since numba compiles on one thread.
"""
import argparse
import concurrent.futures
import os
import sys
import time

from . import machine

# Sizes: above threads.PARALLEL_SIZE, so even one-ufunc ops (add, tanh) run their numba loop.
_N = 1 << 20
_SIDE = 1024


def _elementwise_unary(dtype):
    import minieager as me
    x = me.random.uniform([_N], 0.1, 2.0, dtype=dtype, seed=0)
    for fn in (me.negative, me.abs, me.sign, me.square, me.sqrt, me.math.rsqrt, me.math.reciprocal,
               me.exp, me.log, me.log1p, me.expm1, me.sin, me.cos, me.tanh, me.sigmoid, me.nn.softplus,
               me.nn.relu, me.nn.leaky_relu, me.is_nan, me.is_finite, me.math.erf):
        fn(x)
    me.logical_not(x > 1.0)


def _elementwise_binary(dtype):
    import minieager as me
    x = me.random.uniform([_N], 0.1, 2.0, dtype=dtype, seed=0)
    y = me.random.uniform([_N], 0.1, 2.0, dtype=dtype, seed=1)
    for fn in (me.add, me.subtract, me.multiply, me.divide, me.floordiv, me.mod, me.pow, me.maximum,
               me.minimum, me.equal, me.not_equal, me.less, me.less_equal, me.greater, me.greater_equal):
        fn(x, y), fn(x, 0.5), fn(0.5, x)   # array-array, array-scalar and scalar-array loops
    a, b = x > 1.0, y > 1.0
    for fn in (me.logical_and, me.logical_or, me.logical_xor):
        fn(a, b)
    me.where(a, x, y)


def _elementwise_int(dtype):
    """Integer tensors of the notebooks: counters, labels and their comparisons."""
    import minieager as me
    x = me.cast(me.range(_N), dtype)
    y = x % 7 + 1
    for fn in (me.add, me.subtract, me.multiply, me.floordiv, me.maximum, me.minimum, me.equal,
               me.not_equal, me.less, me.greater):
        fn(x, y), fn(x, 3)


def _activation_gradients(dtype):
    import minieager as me
    x = me.random.normal([_N], dtype=dtype, seed=0)
    with me.GradientTape() as tape:
        tape.watch(x)
        y = me.nn.relu(x) + me.tanh(x) + me.sigmoid(x)
    tape.gradient(y, x)


def _reductions(dtype):
    import minieager as me
    x = me.random.normal([_SIDE, _SIDE], dtype=dtype, seed=0)
    for fn in (me.reduce_sum, me.reduce_mean, me.reduce_max, me.reduce_min, me.reduce_prod,
               me.reduce_logsumexp):
        for axis in (None, 0, 1):
            fn(x, axis=axis)
    for axis in (0, 1):
        me.argmax(x, axis=axis), me.argmin(x, axis=axis), me.cumsum(x, axis=axis), me.math.cumprod(x, axis=axis)
    me.reduce_any(x > 0.0), me.reduce_all(x > 0.0)


def _convolutions(dtype):
    """A two-layer convolution net, forward and backward: both patch layouts, col2im, pooling."""
    import minieager as me
    images = me.random.normal([32, 28, 28, 1], dtype=dtype, seed=0)
    w1 = me.Variable(me.random.normal([3, 3, 1, 16], dtype=dtype, seed=1))
    w2 = me.Variable(me.random.normal([3, 3, 16, 16], dtype=dtype, seed=2))
    b = me.Variable(me.zeros([16], dtype=dtype))
    for padding in ("VALID", "SAME"):
        with me.GradientTape() as tape:
            h = me.nn.relu(me.nn.bias_add(me.nn.conv2d(images, w1, 1, padding), b))   # few channels
            h = me.nn.conv2d(h, w2, 1, padding)                                        # many channels
            y = me.nn.max_pool2d(h, 2, 2, "VALID") + me.nn.avg_pool2d(h, 2, 2, "VALID")
            loss = me.reduce_sum(y)
        tape.gradient(loss, [w1, w2, b])
    # In me.function the bias and relu join the convolution (graph mode's fused_conv2d and its loop)
    me.function(lambda x: me.nn.relu(me.nn.bias_add(me.nn.conv2d(x, w1, 1, "VALID"), b)))(images)


def _softmax_and_losses(dtype):
    import minieager as me
    logits = me.random.normal([2048, 10], dtype=dtype, seed=0)
    me.nn.softmax(logits), me.nn.log_softmax(logits)
    onehot = me.one_hot(me.range(2048) % 10, 10, dtype=dtype)
    with me.GradientTape() as tape:
        tape.watch(logits)
        losses = [me.nn.softmax_cross_entropy_with_logits(onehot, logits)]
        for label_dtype in (me.int32, me.int64):
            labels = me.cast(me.range(2048) % 10, label_dtype)
            losses.append(me.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))
            losses.append(me.losses.sparse_softmax_cross_entropy(labels, logits))   # the batch mean
        losses.append(me.losses.softmax_cross_entropy(onehot, logits))
        total = sum(me.reduce_sum(loss) for loss in losses)
    tape.gradient(total, logits)


# (what the progress bar says, the task, the dtype it runs in)
TASKS = [
    ("convolutions and pooling", _convolutions, "float32"),
    ("softmax and cross-entropy", _softmax_and_losses, "float32"),
    ("elementwise, two operands", _elementwise_binary, "float32"),
    ("elementwise, one operand", _elementwise_unary, "float32"),
    ("reductions", _reductions, "float32"),
    ("activation gradients", _activation_gradients, "float32"),
    ("integer elementwise", _elementwise_int, "int32"),
]


def run_task(index, dtype=None):
    """Run one task (in a worker process); returns its label and the seconds it took."""
    from .kernels.cpu import threads
    label, task, default_dtype = TASKS[index]
    # Right after a matrix product, one-ufunc ops go to NumPy (threads.py): start each task as if
    # none had run, so that every loop it means to reach runs whatever task ran before it.
    threads.forget_blas_call()
    start = time.perf_counter()
    task(dtype or default_dtype)
    return label, time.perf_counter() - start


def cache_location():
    """Where numba keeps minieager's compiled loops (see machine.numba_cache_dir)."""
    explicit = os.environ.get("NUMBA_CACHE_DIR") or machine.numba_cache_dir()
    if explicit:
        return explicit
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels", "cpu", "loops", "__pycache__")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m minieager.warmup", description=__doc__.split("\n\n")[1])
    parser.add_argument("--workers", type=int, default=None,
                        help="worker processes (default: the CPUs this process may use)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar, only the summary line")
    args = parser.parse_args(argv)

    from tqdm.auto import tqdm
    workers = max(1, min(args.workers or machine.available_cpus(), len(TASKS)))
    print(f"Compiling minieager's CPU loops into numba's cache ({len(TASKS)} tasks, {workers} processes)")
    print(f"cache: {cache_location()}")
    start = time.perf_counter()
    # A process per task (max_tasks_per_child=1): each starts with nothing compiled in memory, so
    # every loop a task reaches is either loaded from the cache or compiled and saved to it.
    with concurrent.futures.ProcessPoolExecutor(workers, max_tasks_per_child=1) as pool:
        futures = [pool.submit(run_task, i) for i in range(len(TASKS))]
        with tqdm(total=len(TASKS), unit="task", disable=args.quiet, file=sys.stdout) as bar:
            for future in concurrent.futures.as_completed(futures):
                label, seconds = future.result()
                bar.set_postfix_str(f"{label} ({seconds:.1f} s)")
                bar.update()
    print(f"Done in {time.perf_counter() - start:.1f} s. Later sessions load these loops from the cache.")


if __name__ == "__main__":
    main()
