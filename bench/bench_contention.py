"""minieager on a busy machine: its default thread count against one thread, with neighbours.

A learner's Binder node, JupyterHub or CI runner has neighbours. When one of them holds a core, a
kernel that splits its work evenly between two threads waits for the thread that shares the busy
core, and a one-thread run would have been faster. This script measures that, in one process:

* the same calls with minieager's default thread count and with ``me.config.set_num_threads(1)``
  (numba loops and the BLAS), in alternating rounds, so both see the same neighbours;
* under five conditions, each made by this script: a quiet machine, one busy-loop process, two
  busy-loop processes, a two-thread PyTorch job (a NumPy BLAS job with two threads where
  PyTorch is not installed), and one busy loop hidden from free_cpus.py ("busy1-unseen");
* for five cases: ``a + b`` on 1000x1000 float32, ``tanh(x * 0.5 + 1)`` on 1e7 float32 (eager),
  an MLP training step (784-256-10, batch 256, SGD), the fused chain ``tanh(x*w+b)*0.5+x`` on
  1e6 elements in ``me.function``, and the guide CNN's training step (batch 32, Adam) in
  ``me.function`` (compare_trees.py's CNN_STEP).

The ratio printed is time(default) / time(one thread), the median over the rounds' ratios: the
rule for a busy machine is at most 1.05x, and on a quiet machine it is the speedup two threads
give (below 1.00x). NumPy's time for the elementwise cases is printed beside them for scale.

    .venv/bin/python bench/bench_contention.py            # every condition (about 5 minutes)
    .venv/bin/python bench/bench_contention.py quiet busy1 # some of them
"""
import os
import statistics
import subprocess
import sys
import time
import timeit

import numpy as np
from common import machine_description, print_table
from compare_trees import CNN_STEP

import minieager as me
from minieager.kernels.cpu import threads as cpu_threads
from minieager.kernels.cpu.free_cpus import FreeCPUs

ROUNDS = 15         # alternating rounds per case and condition (with two busy neighbours, single
                    # blocks swing 2x as the scheduler hands the cores around: the median of 15 holds)
REPEAT = 5          # timing blocks per round; the round's figure is their median

# ---- the neighbours --------------------------------------------------------------------------------
BUSY_LOOP = "while True: pass"
# A two-thread job as other users run them: PyTorch's matrix products where it is installed,
# otherwise NumPy's (OpenBLAS) with two threads.
TWO_THREAD_JOB = """
import os
os.environ["OMP_NUM_THREADS"] = os.environ["OPENBLAS_NUM_THREADS"] = "2"
try:
    import torch
    torch.set_num_threads(2)
    a = torch.randn(512, 512)
    while True:
        a = torch.tanh(a @ a * 1e-3)
except ImportError:
    import numpy as np
    a = np.random.default_rng(0).standard_normal((512, 512)).astype(np.float32)
    while True:
        a = np.tanh(a @ a * 1e-3)
"""
CONDITIONS = {
    "quiet": [],
    "busy1": [BUSY_LOOP],
    "busy2": [BUSY_LOOP, BUSY_LOOP],
    "job2": [TWO_THREAD_JOB],
    "busy1-unseen": [BUSY_LOOP],
}
DESCRIPTION = {"quiet": "quiet machine", "busy1": "one busy loop", "busy2": "two busy loops",
               "job2": "a 2-thread PyTorch job", "busy1-unseen": "one busy loop, /proc/stat unread"}
# "busy1-unseen" hides the neighbour from free_cpus.py, as a busy host core under a virtual machine
# is hidden: only the products' own timings (thread_choice.py) can send them to one thread.


def start_neighbours(programs):
    """Start each program as a separate Python process (without minieager's environment)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "GOMP_", "MINIEAGER_"))}
    procs = [subprocess.Popen([sys.executable, "-c", p], env=env) for p in programs]
    time.sleep(1.0 if programs else 0.0)   # let them start and take their cores
    return procs


def stop(procs):
    for p in procs:
        p.kill()
        p.wait()


# ---- the cases -------------------------------------------------------------------------------------
def cases():
    """name -> (minieager call, NumPy call or None)."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((1000, 1000)).astype(np.float32)
    b = rng.standard_normal((1000, 1000)).astype(np.float32)
    ta, tb = me.constant(a), me.constant(b)
    big = rng.standard_normal(10**7).astype(np.float32)
    tbig = me.constant(big)
    mid = rng.standard_normal(10**6).astype(np.float32)
    tmid = me.constant(mid)
    w, bias = np.float32(0.7), np.float32(0.1)

    chain = me.function(lambda x: me.tanh(x * w + bias) * 0.5 + x)

    model = me.Sequential([me.layers.Dense(256, activation="relu", input_shape=(784,)),
                           me.layers.Dense(10)])
    opt = me.optimizers.SGD(0.01)
    x = me.constant(rng.standard_normal((256, 784)).astype(np.float32))
    y = me.constant(rng.integers(0, 10, 256))

    def mlp_step():
        with me.GradientTape() as tape:
            loss = me.losses.sparse_softmax_cross_entropy(y, model(x, training=True))
        variables = model.trainable_variables
        opt.apply_gradients(zip(tape.gradient(loss, variables), variables))

    cnn = {"me": me, "np": np}
    exec(CNN_STEP, cnn)
    cnn_step = me.function(cnn["train"], autograph=False)   # (exec'd code has no source for AutoGraph)

    return {
        "a + b, 1000x1000": (lambda: ta + tb, lambda: a + b),
        "tanh(x*0.5+1), 1e7": (lambda: me.tanh(tbig * 0.5 + 1.0), lambda: np.tanh(big * np.float32(0.5) + np.float32(1))),
        "MLP step 784-256-10, b256": (mlp_step, None),
        "fused chain in me.function, 1e6": (lambda: chain(tmid), lambda: np.tanh(mid * w + bias) * np.float32(0.5) + mid),
        "guide CNN step in me.function, b32": (lambda: cnn_step(cnn["x"], cnn["y"]), None),
    }


def number_for(fn, target=0.02):
    """Calls per timing block so that a block lasts about `target` seconds."""
    fn()
    t = timeit.timeit(fn, number=1)
    return max(1, int(target / max(t, 1e-6)))


def block_median(fn, number):
    return statistics.median(timeit.repeat(fn, repeat=REPEAT, number=number)) / number


def measure(cases_, threads):
    """For each case: median ratio default/one-thread, median times (ms) of both and of NumPy."""
    rows = {}
    for name, (ours, numpy_fn) in cases_.items():
        number = number_for(ours)
        ratios, t_default, t_one, t_numpy = [], [], [], []
        for _ in range(ROUNDS):
            me.config.set_num_threads(threads)
            d = block_median(ours, number)
            me.config.set_num_threads(1)
            o = block_median(ours, number)
            ratios.append(d / o)
            t_default.append(d)
            t_one.append(o)
            if numpy_fn is not None:
                t_numpy.append(block_median(numpy_fn, number))
        me.config.set_num_threads(threads)
        rows[name] = (statistics.median(ratios), 1e3 * statistics.median(t_default),
                      1e3 * statistics.median(t_one), 1e3 * statistics.median(t_numpy) if t_numpy else None)
    return rows


def main(argv):
    wanted = argv or list(CONDITIONS)
    print(machine_description())
    import numba
    threads = me.config.get_num_threads()
    the_cases = cases()
    for fn, _ in the_cases.values():   # compile everything before any timing
        fn()
    print(f"numba threading layer: {numba.threading_layer()}; default threads: {threads}; "
          f"load before: {os.getloadavg()[0]:.2f}")
    rows = []
    for condition in wanted:
        procs = start_neighbours(CONDITIONS[condition])
        watching = cpu_threads._free_cpus
        if condition.endswith("-unseen"):
            cpu_threads._free_cpus = FreeCPUs(stat_path=None)
        try:
            results = measure(the_cases, threads)
        finally:
            cpu_threads._free_cpus = watching
            stop(procs)
        for name, (ratio, d, o, n) in results.items():
            rows.append((DESCRIPTION[condition], name, d, o, n, f"{ratio:.2f}x",
                         None if n is None else f"{d / n:.2f}x"))
    print()
    print_table(rows, ("condition", "case", "default ms", "1 thread ms", "NumPy ms",
                       "default/1 thread", "default/NumPy"))


if __name__ == "__main__":
    main(sys.argv[1:])
