"""Autodiff benchmarks: the cost of recording on a tape, and an MLP's forward + backward.

Run: .venv/bin/python bench/bench_tape.py   (or `make bench`)
"""
import numpy as np

from common import machine_description, print_table, timeit_median, torch_or_none

import minieager as me


def tape_overhead(torch):
    """``a * b + c``: two ops, without a tape, recorded on a tape, and forward + backward."""
    rows = []
    for shape in [(1,), (100,)]:
        rng = np.random.default_rng(0)
        a_np, b_np, c_np = (rng.random(shape, dtype=np.float32) for _ in range(3))
        a, b, c = me.constant(a_np), me.constant(b_np), me.constant(c_np)

        def recorded():
            with me.GradientTape() as tape:
                tape.watch(a)
                a * b + c

        def forward_backward():
            with me.GradientTape() as tape:
                tape.watch(a)
                y = a * b + c
            tape.gradient(y, a)

        t_plain = timeit_median(lambda: a * b + c, number=5000) / 2
        t_tape = timeit_median(recorded, number=5000) / 2
        t_fb = timeit_median(forward_backward, number=2000) / 2
        t_torch = t_torch_grad = t_torch_fb = None
        if torch is not None:
            at, bt, ct = (torch.from_numpy(v) for v in (a_np, b_np, c_np))
            ag = at.clone().requires_grad_(True)
            t_torch = timeit_median(lambda: at * bt + ct, number=5000) / 2
            t_torch_grad = timeit_median(lambda: ag * bt + ct, number=5000) / 2

            def torch_fb():
                y = (ag * bt + ct).sum()
                y.backward()
                ag.grad = None
            t_torch_fb = timeit_median(torch_fb, number=2000) / 2
        us = [v and v * 1e6 for v in (t_plain, t_tape, t_fb, t_torch, t_torch_grad, t_torch_fb)]
        rows.append([str(shape)] + us)
    print("\nTape overhead per op, a * b + c (microseconds per op)")
    print_table(rows, ["shape", "no tape", "on tape", "fwd+bwd", "torch", "torch grad", "torch fwd+bwd"],
                ratios=[("no tape", "torch"), ("on tape", "torch grad"), ("fwd+bwd", "torch fwd+bwd")])


def mlp(torch, layers=10, width=256, batch=64):
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

    t_me = timeit_median(me_step, number=20)
    t_torch = None
    if torch is not None:
        w_t = [torch.from_numpy(w).requires_grad_(True) for w in ws]
        b_t = [torch.from_numpy(b).requires_grad_(True) for b in bs]
        x_t = torch.from_numpy(x_np)

        def torch_step():
            h = x_t
            for w, b in zip(w_t, b_t):
                h = torch.tanh(h @ w + b)
            h.sum().backward()
            for p in w_t + b_t:
                p.grad = None
        t_torch = timeit_median(torch_step, number=20)
    print(f"\n{layers}-layer tanh MLP, width {width}, batch {batch}: forward + backward (milliseconds)")
    print_table([["step", t_me * 1e3, t_torch and t_torch * 1e3]], ["", "minieager ms", "torch ms"],
                ratios=[("minieager ms", "torch ms")])


if __name__ == "__main__":
    print(machine_description())
    torch = torch_or_none()
    tape_overhead(torch)
    mlp(torch)
