"""Judge a change in pairs: the same cases timed on two checkouts of minieager, alternating.

    .venv/bin/python bench/compare_trees.py OLD_TREE NEW_TREE [--pairs 5] [--cases add_small,mlp_step]

OLD_TREE and NEW_TREE are folders holding a checkout (``git worktree add /tmp/old main~3`` makes
one). Each round runs every case in a fresh process per tree, old then new, so both sides see the
same stretch of the machine's speed; a case's figure is its best-of-repeats time in that process.
The table gives each tree's median over the rounds and the median of the per-round ratios
new/old: on a noisy shared machine that ratio is the figure to read, not the times. Cases use only
the public API, so any two versions of minieager can be compared.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import timeit

# The guide's CNN and its training step, shared by the CNN cases below.
CNN_STEP = """
me.random.set_seed(0)
model = me.keras.Sequential([me.keras.layers.Conv2D(16, 3, activation="relu", input_shape=(28, 28, 1)),
                             me.keras.layers.Conv2D(16, 3, activation="relu"),
                             me.keras.layers.GlobalAveragePooling2D(), me.keras.layers.Dense(10)])
opt = me.keras.optimizers.Adam()
x = me.random.normal([32, 28, 28, 1], seed=0); y = me.constant(np.arange(32) % 10)
def train(x, y):
    with me.GradientTape() as tape:
        loss = me.reduce_mean(me.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=model(x)))
    opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    return loss
"""

# name -> (setup, statement, calls per repeat): run inside the child, with `me` and `np` imported.
CASES = {
    "add_small_us": ("a = me.constant([1.0, 2.0]); b = me.constant([3.0, 4.0])", "a + b", 20000),
    "scalar_mul_small_us": ("a = me.constant([1.0, 2.0])", "a * 2.0", 20000),
    "getitem_small_us": ("a = me.constant([1.0, 2.0])", "a[0]", 20000),
    "tensor_from_list_us": ("", "me.Tensor([1.0, 2.0])", 20000),
    "assign_add_us": ("v = me.Variable([0.0, 0.0]); d = me.constant([1.0, 1.0])", "v.assign_add(d)", 20000),
    "add_1e6_ms": ("x = me.random.normal([1_000_000], seed=0); y = me.random.normal([1_000_000], seed=1)",
                   "x + y", 200),
    "tanh_1e6_ms": ("x = me.random.normal([1_000_000], seed=0)", "me.tanh(x)", 200),
    "chain_1e6_ms": ("x = me.random.normal([1_000_000], seed=0); w = me.constant(1.5); b = me.constant(0.5)",
                     "me.tanh(x * w + b) * 0.5 + x", 100),
    "fused_chain_1e6_ms": ("x = me.random.normal([1_000_000], seed=0); w = me.constant(1.5); b = me.constant(0.5)\n"
                           "f = me.function(lambda x, w, b: me.tanh(x * w + b) * 0.5 + x); f(x, w, b)",
                           "f(x, w, b)", 100),
    "mlp_step_ms": ("""
me.random.set_seed(0)
model = me.keras.Sequential([me.keras.layers.Dense(256, activation="relu"), me.keras.layers.Dense(10)])
opt = me.keras.optimizers.Adam(1e-3)
x = me.random.normal([256, 784], seed=0); y = me.constant(np.arange(256) % 10)
def step():
    with me.GradientTape() as tape:
        loss = me.reduce_mean(me.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=model(x)))
    opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
step()""", "step()", 20),
    # Graph mode: the MLP and the guide's CNN training steps traced by me.function, and the CNN
    # step's trace itself (a new me.function each time, the model's weights already built).
    "traced_mlp_step_ms": ("""
me.random.set_seed(0)
model = me.keras.Sequential([me.keras.layers.Dense(128, activation="relu"), me.keras.layers.Dense(10)])
opt = me.keras.optimizers.SGD(0.01)
x = me.random.normal([32, 784], seed=0); y = me.constant(np.arange(32) % 10)
def train(x, y):
    with me.GradientTape() as tape:
        loss = me.reduce_mean(me.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=model(x)))
    opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    return loss
step = me.function(train)""", "step(x, y)", 50),
    "traced_cnn_step_ms": (CNN_STEP + "step = me.function(train)", "step(x, y)", 5),
    "cnn_step_ms": (CNN_STEP, "train(x, y)", 5),
    "cnn_trace_ms": (CNN_STEP, "me.function(train).get_concrete_function(x, y)", 3),
}

CHILD = """
import json, sys, timeit
import numpy as np
import minieager as me
setup, stmt, number, unit = json.loads(sys.argv[1])
scope = {"me": me, "np": np}
exec(setup, scope)
exec(stmt, scope)   # once untimed: compiles, allocates
best = min(timeit.repeat(stmt, globals=scope, number=number, repeat=5)) / number
print(best * (1e6 if unit == "us" else 1e3))
"""


def time_case(tree, name):
    setup, stmt, number = CASES[name]
    env = dict(os.environ, PYTHONPATH=os.path.abspath(tree))
    arg = json.dumps([setup, stmt, number, name.rsplit("_", 1)[1]])
    out = subprocess.run([sys.executable, "-c", CHILD, arg], env=env, capture_output=True, text=True,
                         cwd=os.path.abspath(tree))
    if out.returncode:
        raise SystemExit(f"{name} failed in {tree}:\n{out.stderr}")
    return float(out.stdout.split()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--pairs", type=int, default=5, help="rounds of old, new (default 5)")
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated names (default: all)")
    args = parser.parse_args(argv)
    names = [n for n in args.cases.split(",") if n]
    unknown = sorted(set(names) - set(CASES))
    if unknown:
        parser.error(f"unknown cases {unknown}; the cases are {sorted(CASES)}")
    times = {n: ([], []) for n in names}
    for r in range(args.pairs):
        for n in names:
            for side, tree in enumerate((args.old, args.new)):
                times[n][side].append(time_case(tree, n))
        print(f"round {r + 1}/{args.pairs} done", file=sys.stderr, flush=True)
    load = os.getloadavg()[0]
    print(f"{args.pairs} alternating pairs; load average at the end {load:.1f}; old = {args.old}, new = {args.new}")
    print(f"{'case':22} {'old (median)':>13} {'new (median)':>13} {'new/old (median of pairs)':>27}")
    for n in names:
        old, new = times[n]
        ratio = statistics.median(b / a for a, b in zip(old, new))
        print(f"{n:22} {statistics.median(old):13.3f} {statistics.median(new):13.3f} {ratio:26.2f}x")


if __name__ == "__main__":
    main()
