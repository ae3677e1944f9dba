"""One training step (forward, loss, tape gradient, optimizer update) in minieager, NumPy and PyTorch.

Cases: an MLP 784-128-10 with SGD at batch 32 and 256, and the guide's CNN (Conv2D 16 3x3 relu,
Conv2D 16 3x3 relu, GlobalAveragePooling2D, Dense 10) on 28x28x1 images at batch 32 with Adam.
Then the peak traced memory of each 10-step block of a 100-step MLP run, which should stay flat.
"""
import tracemalloc

import numpy as np
from common import (AS_INSTALLED, WITH_OUR_MALLOC, alternating_with_torch, machine_description, print_table,
                    timeit_medians)

import minieager as me

RNG = np.random.default_rng(0)


def data(batch, shape):
    return RNG.standard_normal((batch,) + shape).astype(np.float32), RNG.integers(0, 10, batch)


# ---- minieager -----------------------------------------------------------------------------------
def minieager_step(model, optimizer, x, y):
    x, y = me.constant(x), me.constant(y)

    def step():
        with me.GradientTape() as tape:
            loss = me.losses.sparse_softmax_cross_entropy(y, model(x, training=True))
        variables = model.trainable_variables
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
    return step


def minieager_mlp():
    return me.Sequential([me.layers.Dense(128, activation="relu", input_shape=(784,)), me.layers.Dense(10)])


def minieager_cnn():
    return me.Sequential([me.layers.Conv2D(16, 3, activation="relu", input_shape=(28, 28, 1)),
                          me.layers.Conv2D(16, 3, activation="relu"),
                          me.layers.GlobalAveragePooling2D(), me.layers.Dense(10)])


# ---- hand-written NumPy MLP step (the floor for the MLP) ------------------------------------------------
def numpy_mlp_step(x, y, lr=0.01):
    w1 = (RNG.standard_normal((784, 128)) * 0.05).astype(np.float32)
    b1 = np.zeros(128, np.float32)
    w2 = (RNG.standard_normal((128, 10)) * 0.05).astype(np.float32)
    b2 = np.zeros(10, np.float32)
    onehot = np.eye(10, dtype=np.float32)[y]

    def step():
        nonlocal w1, b1, w2, b2
        h = np.maximum(x @ w1 + b1, 0)
        logits = h @ w2 + b2
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        dlogits = (e / e.sum(axis=1, keepdims=True) - onehot) / len(x)
        dh = (dlogits @ w2.T) * (h > 0)
        w2, b2 = w2 - lr * (h.T @ dlogits), b2 - lr * dlogits.sum(0)
        w1, b1 = w1 - lr * (x.T @ dh), b1 - lr * dh.sum(0)
    return step


def ms(steps, number, repeat=9):
    """Median milliseconds per call of each step function (the better of two rounds)."""
    return [1000 * t for t in timeit_medians(steps, repeat=repeat, number=number)]


def main():
    print(machine_description())
    cases = [("train_mlp", 32), ("train_mlp", 256), ("train_cnn",)]

    def measure():
        times = []
        for batch in (32, 256):
            x, y = data(batch, (784,))
            times.append(ms([minieager_step(minieager_mlp(), me.optimizers.SGD(0.01), x, y), numpy_mlp_step(x, y)], 50))
        x, y = data(32, (28, 28, 1))
        times.append(ms([minieager_step(minieager_cnn(), me.optimizers.Adam(), x, y)], 5) + [None])
        return times

    # PyTorch as installed, and with minieager's malloc setting (see torch_reference.py): the
    # setting halves PyTorch's CNN step, so a reader should see both.
    mine, (torch, torch_malloc) = alternating_with_torch(cases, measure, settings=(AS_INSTALLED, WITH_OUR_MALLOC))
    torch_ms, torch_malloc_ms = ([t["step"] * 1000 for t in theirs] if theirs else [None] * len(cases)
                                 for theirs in (torch, torch_malloc))
    names = ["MLP 784-128-10, SGD, batch 32", "MLP 784-128-10, SGD, batch 256", "guide CNN 28x28x1, Adam, batch 32"]
    rows = [[name, me_ms, theirs, theirs_malloc, numpy_ms]
            for name, (me_ms, numpy_ms), theirs, theirs_malloc in zip(names, mine, torch_ms, torch_malloc_ms)]
    print("\nTrain step time, ms (median); torch+malloc: PyTorch with minieager's glibc malloc setting")
    print_table(rows, ["case", "minieager ms", "torch ms", "torch+malloc ms", "numpy ms"],
                ratios=[("minieager ms", "torch ms"), ("minieager ms", "torch+malloc ms"), ("minieager ms", "numpy ms")])

    # Peak memory: a step must not keep anything alive from the one before it. Python keeps freed
    # tuples and other small objects on capped free lists, which tracemalloc counts as allocated;
    # they fill up over the first ~1000 steps (by ~230 KB here), so those run before measuring.
    x, y = data(32, (784,))
    step = minieager_step(minieager_mlp(), me.optimizers.SGD(0.01), x, y)
    step()                 # compiles and caches what the first call needs, before tracing
    tracemalloc.start()
    for _ in range(1000):
        step()
    peaks = []
    for block in range(10):
        tracemalloc.reset_peak()
        for _ in range(10):
            step()
        peaks.append(tracemalloc.get_traced_memory()[1] / 2 ** 20)
    tracemalloc.stop()
    print("\nPeak traced memory per 10-step block of a 100-step MLP run (batch 32), MiB:")
    print("  " + "  ".join(f"{p:.2f}" for p in peaks))


if __name__ == "__main__":
    main()
