"""Autodiff benchmarks: the cost of recording on a tape, and an MLP's forward + backward.

Run: .venv/bin/python bench/bench_tape.py   (or `make bench`)
"""
import numpy as np

from common import alternating_with_torch, machine_description, print_table, timeit_medians

import minieager as me


def tape_overhead(exprs_per_tape=100):
    """``a * b + c``: two ops, without a tape, recorded on a tape, and forward + backward.

    "on tape" is the cost of one recorded op: a tape is opened (and ``a`` watched) once per
    ``exprs_per_tape`` expressions, as PyTorch sets ``requires_grad`` once and then records every
    op. What opening and closing a tape costs on its own is the "tape open+close" column; the
    forward + backward column opens a tape for every single expression.
    """
    shapes = [(1,), (100,)]
    n = exprs_per_tape            # each timed function below does n things, so one `number` suits all

    def measure_one(shape):
        rng = np.random.default_rng(0)
        a_np, b_np, c_np = (rng.random(shape, dtype=np.float32) for _ in range(3))
        a, b, c = me.constant(a_np), me.constant(b_np), me.constant(c_np)

        def plain():
            for _ in range(n):
                a * b + c

        def recorded():
            with me.GradientTape() as tape:
                tape.watch(a)
                for _ in range(n):
                    a * b + c

        def open_and_close():
            for _ in range(n):
                with me.GradientTape() as tape:
                    tape.watch(a)

        def forward_backward():
            with me.GradientTape() as tape:
                tape.watch(a)
                y = a * b + c
            tape.gradient(y, a)

        t_plain, t_tape, t_open = timeit_medians([plain, recorded, open_and_close], repeat=9, number=50)
        t_open /= n
        t_fb = timeit_medians([forward_backward], repeat=9, number=2000)[0] / 2
        return [t_plain / (2 * n), (t_tape - t_open) / (2 * n), t_open, t_fb]

    mine, (torch,) = alternating_with_torch([("tape", shape) for shape in shapes],
                                         lambda: [measure_one(shape) for shape in shapes])
    rows = []
    for shape, times, theirs in zip(shapes, mine, torch or [{}] * len(shapes)):
        theirs = [theirs.get(k) for k in ("plain", "grad", "forward_backward")]
        rows.append([str(shape)] + [v and v * 1e6 for v in times + theirs])
    print("\nTape overhead per op, a * b + c (microseconds per op; tape open+close: per tape)")
    print_table(rows, ["shape", "no tape", "on tape", "tape open+close", "fwd+bwd", "torch", "torch grad",
                       "torch fwd+bwd"],
                ratios=[("no tape", "torch"), ("on tape", "torch grad"), ("fwd+bwd", "torch fwd+bwd")])


def mlp(layers=10, width=256, batch=64):
    """A 10-layer tanh MLP, forward + backward, batch 64, width 256."""
    rng = np.random.default_rng(1)
    ws = [(rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32) for _ in range(layers)]
    bs = [np.zeros(width, np.float32) for _ in range(layers)]
    x_np = rng.standard_normal((batch, width), dtype=np.float32)
    w_me, b_me = [me.Variable(w) for w in ws], [me.Variable(b) for b in bs]
    x_me = me.constant(x_np)

    def me_step():
        with me.GradientTape() as tape:
            h = x_me
            for w, b in zip(w_me, b_me):
                h = me.tanh(h @ w + b)
            loss = me.reduce_sum(h)
        tape.gradient(loss, w_me + b_me)

    t_me, (torch,) = alternating_with_torch([("mlp10",)], lambda: timeit_medians([me_step], repeat=9, number=20)[0])
    t_torch = torch and torch[0]["step"]
    print(f"\n{layers}-layer tanh MLP, width {width}, batch {batch}: forward + backward (milliseconds)")
    print_table([["step", t_me * 1e3, t_torch and t_torch * 1e3]], ["", "minieager ms", "torch ms"],
                ratios=[("minieager ms", "torch ms")])


if __name__ == "__main__":
    print(machine_description())
    tape_overhead()
    mlp()
