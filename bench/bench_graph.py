"""Graph mode: ``me.function`` against NumPy, the eager minieager step and PyTorch.

Cases (targets from issue 15):
- ``tanh(x * w + b) * 0.5 + x`` on 1e6 and 1e7 float32 elements (``w`` and ``b`` scalar tensors):
  the traced, fused function against the same expression in NumPy (target: at least 4x faster).
- The MLP 784-128-10 SGD train step at batch 32 and 256, inside ``me.function`` against the same
  eager step (target: at most 0.8x).
- The guide's CNN Adam train step at batch 32 inside ``me.function`` against PyTorch CPU eager
  (target: at most 1.2x), with the eager step beside it.
- The CNN step's trace time with a warm numba cache (target: under 1 s).

Every comparison is taken in alternating rounds in this one run (see README.md); ``optimize=False``
rows show what the passes (fusion above all) add to plain tracing.
"""
import json
import subprocess
import sys
import time

import numpy as np
from bench_training import data, minieager_cnn, minieager_mlp
from common import AS_INSTALLED, alternating_with_torch, machine_description, print_table, timeit_medians

import minieager as me

RNG = np.random.default_rng(0)


def ms(fns, number, repeat=5):
    return [None if t is None else 1000 * t for t in timeit_medians(fns, repeat=repeat, number=number)]


# ---- the elementwise expression --------------------------------------------------------------------
def expression(x, w, b):
    return me.tanh(x * w + b) * 0.5 + x


def elementwise_case(size):
    x = RNG.standard_normal(size).astype(np.float32)
    w, b = np.float32(0.7), np.float32(0.1)
    tx, tw, tb = me.constant(x), me.constant(w), me.constant(b)
    fused, plain = me.function(expression), me.function(expression, optimize=False)
    return ms([lambda: fused(tx, tw, tb), lambda: plain(tx, tw, tb), lambda: expression(tx, tw, tb),
               lambda: np.tanh(x * w + b) * np.float32(0.5) + x], number=max(1, 2 * 10 ** 7 // size))


# ---- training steps ---------------------------------------------------------------------------------------
def step_function(model, optimizer, loss_fn):
    def step(x, y):
        with me.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        variables = model.trainable_variables
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss
    return step


def steps(make_model, make_optimizer, x, y):
    """The eager step, the traced step and the traced step without passes, each on its own model."""
    x, y = me.constant(x), me.constant(y)
    fns = []
    for wrap in (lambda f: f, me.function, lambda f: me.function(f, optimize=False)):
        step = wrap(step_function(make_model(), make_optimizer(), me.losses.sparse_softmax_cross_entropy))
        fns.append(lambda step=step: step(x, y))
    return fns


def trace_seconds():
    """Seconds to trace (and optimise) the CNN step: (first trace in a fresh process, a later trace).

    The fresh process has numba's disk cache warm (this process compiled everything already), so
    its first trace pays only for importing numba and loading cached kernels, as a new session would.
    """
    return json.loads(subprocess.run([sys.executable, __file__, "--trace"], capture_output=True, text=True,
                                     check=True).stdout)


def _trace_in_this_process():
    x, y = data(32, (28, 28, 1))
    x, y = me.constant(x), me.constant(y)
    times = []
    for _ in range(2):
        step = me.function(step_function(minieager_cnn(), me.optimizers.Adam(), me.losses.sparse_softmax_cross_entropy))
        start = time.perf_counter()
        step.get_concrete_function(x, y)
        times.append(time.perf_counter() - start)
    print(json.dumps(times))


def elementwise_tables():
    for size in (10 ** 6, 10 ** 7):
        fused, plain, eager, numpy = elementwise_case(size)
        print(f"\ntanh(x * w + b) * 0.5 + x, {size:.0e} float32, ms (median)")
        print_table([["me.function", fused, numpy], ["me.function(optimize=False)", plain, numpy],
                     ["eager minieager", eager, numpy]], ["how", "ms", "numpy ms"], ratios=[("ms", "numpy ms")])


def main():
    print(machine_description())
    elementwise_tables()

    def measure():
        times = []
        for batch in (32, 256):
            x, y = data(batch, (784,))
            times.append(ms(steps(minieager_mlp, lambda: me.optimizers.SGD(0.01), x, y), number=20))
        x, y = data(32, (28, 28, 1))
        times.append(ms(steps(minieager_cnn, me.optimizers.Adam, x, y), number=3))
        return times

    mine, (torch,) = alternating_with_torch([("train_mlp", 32), ("train_mlp", 256), ("train_cnn",)], measure,
                                            settings=(AS_INSTALLED,))
    torch_ms = [t["step"] * 1000 for t in torch] if torch else [None] * 3
    names = ["MLP 784-128-10, SGD, batch 32", "MLP 784-128-10, SGD, batch 256", "guide CNN 28x28x1, Adam, batch 32"]
    rows = [[name, graph_ms, plain_ms, eager_ms, theirs]
            for name, (eager_ms, graph_ms, plain_ms), theirs in zip(names, mine, torch_ms)]
    print("\nTrain step, ms (median): me.function, me.function(optimize=False), eager, PyTorch eager")
    print_table(rows, ["case", "function ms", "unoptimised ms", "eager ms", "torch ms"],
                ratios=[("function ms", "eager ms"), ("function ms", "torch ms"), ("unoptimised ms", "eager ms")])

    first, later = trace_seconds()
    print(f"\nCNN step trace time, warm numba cache: {first:.3f} s the first in a fresh process, {later:.3f} s later")


if __name__ == "__main__":
    if sys.argv[1:] == ["--trace"]:
        _trace_in_this_process()
    elif sys.argv[1:] == ["--elementwise"]:   # the fused chain's tables alone
        print(machine_description())
        elementwise_tables()
    else:
        main()
