"""Engine benchmarks: the guide's matmul loop, per-op overhead, an elementwise chain, cold start and warm-up.

Run: .venv/bin/python bench/bench_engine.py   (or `make bench`)
"""
import os
import subprocess
import sys
import time

import numpy as np

from common import alternating_with_torch, machine_description, print_table, timeit_medians

import minieager as me


def guide_matmul(n_steps=200, size=1000):
    """The guide's benchmark: a (1000, 1000) float32 matrix multiplied by itself 200 times.

    Each product is rescaled by its max so nothing overflows.
    """
    rng = np.random.default_rng(0)
    x_np = rng.random((size, size), dtype=np.float32)

    def numpy_loop():
        m = x_np
        for _ in range(n_steps):
            m = m @ x_np
            m = m / m.max()
        return m

    x_me = me.constant(x_np)

    def minieager_loop():
        m = x_me
        for _ in range(n_steps):
            m = me.matmul(m, x_me)
            m = m / me.reduce_max(m)
        return m

    t_np, t_me = timeit_medians([numpy_loop, minieager_loop], repeat=5, number=1)
    flops = 2 * size ** 3 * n_steps
    print(f"\nThe guide's matmul benchmark: {n_steps} products of ({size}, {size}) float32")
    print_table([["numpy", t_np, flops / t_np / 1e9], ["minieager", t_me, flops / t_me / 1e9]],
                ["", "seconds", "GFLOP/s"])
    print(f"minieager/NumPy: {t_me / t_np:.3f}x")


def add_overhead():
    """``a + b`` at three sizes: one element shows the per-op cost, a million elements the kernel."""
    shapes = [(1,), (100,), (1000, 1000)]

    def measure():
        times = []
        for shape in shapes:
            a_np = np.random.default_rng(1).random(shape, dtype=np.float32)
            b_np = np.random.default_rng(2).random(shape, dtype=np.float32)
            a_me, b_me = me.constant(a_np), me.constant(b_np)
            number = 20000 if a_np.size < 1000 else 50
            times.append(timeit_medians([lambda: a_me + b_me, lambda: a_np + b_np], repeat=9, number=number))
        return times

    mine, (torch,) = alternating_with_torch([("add", shape) for shape in shapes], measure)
    rows = []
    for shape, (t_me, t_np), theirs in zip(shapes, mine, torch or [{}] * len(shapes)):
        t_torch, t_grad = theirs.get("plain"), theirs.get("grad")
        rows.append([str(shape), t_me * 1e6, t_np * 1e6, t_torch and t_torch * 1e6, t_grad and t_grad * 1e6])
    print("\nPer-op overhead: a + b (microseconds per call)")
    print_table(rows, ["shape", "minieager us", "numpy us", "torch us", "torch grad us"],
                ratios=[("minieager us", "numpy us"), ("minieager us", "torch us")])


def elementwise_chain():
    """``tanh(x * w + b) * 0.5 + x``: five kernels in a row on large float32 tensors."""
    rows = []
    for n in [10 ** 6, 10 ** 7]:
        rng = np.random.default_rng(3)
        x_np, w_np, b_np = (rng.standard_normal(n, dtype=np.float32) for _ in range(3))
        x, w, b = me.constant(x_np), me.constant(w_np), me.constant(b_np)
        number = 10 if n == 10 ** 6 else 2
        t_np, t_me = timeit_medians([lambda: np.tanh(x_np * w_np + b_np) * np.float32(0.5) + x_np,
                                     lambda: me.tanh(x * w + b) * 0.5 + x], repeat=9, number=number)
        rows.append([f"{n:.0e}", t_me * 1e3, t_np * 1e3])
    print("\nElementwise chain tanh(x*w + b)*0.5 + x (milliseconds)")
    print_table(rows, ["elements", "minieager ms", "numpy ms"], ratios=[("minieager ms", "numpy ms")])


def _fresh_python(code, env=None):
    """Seconds a fresh interpreter takes to run ``code`` (measured inside it, so start-up is excluded)."""
    script = f"import time; t0 = time.perf_counter(); {code}; print(time.perf_counter() - t0)"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                         env=env or dict(os.environ))
    return float(out.stdout.strip().splitlines()[-1])


def cold_start():
    """Import time, the first ops in a fresh process, and the first numba loop once numba's on-disk cache is warm.

    Tiny tensors are computed by NumPy, so the first ops do not import numba; the first numba loop
    (a relu over 10,000 elements) does, and then loads the loop's compiled code from the cache.
    """
    _fresh_python("import minieager as me; me.tanh(me.ones([4]) * 2.0 + 1.0).numpy(); "
                  "me.relu(me.ones([100, 100])).numpy()")  # warm cache
    imports = sorted(_fresh_python("import minieager") for _ in range(5))
    first_ops = sorted(_fresh_python("import minieager as me; t = time.perf_counter(); "
                                     "me.tanh(me.ones([4]) * 2.0 + 1.0).numpy(); t0 = t") for _ in range(5))
    first_loop = sorted(_fresh_python("import minieager as me; t = time.perf_counter(); "
                                      "me.relu(me.ones([100, 100])).numpy(); t0 = t") for _ in range(5))
    print("\nCold start in a fresh process (seconds, median of 5)")
    print_table([["import minieager", imports[2]], ["first ops, tiny tensors (NumPy)", first_ops[2]],
                 ["first numba loop (imports numba), warm cache", first_loop[2]]], ["", "seconds"])


# The first uses a learner waits for, each timed in a fresh process from after `import minieager`.
_FIRST_USES = {
    "first Conv2D (forward)": "x = me.random.normal([32, 28, 28, 1], seed=0); layer = me.layers.Conv2D(32, 3); "
                              "t = time.perf_counter(); layer(x).numpy(); t0 = t",
    "first softmax (256 x 10)": "x = me.random.normal([256, 10], seed=0); "
                                "t = time.perf_counter(); me.nn.softmax(x).numpy(); t0 = t",
}


def _run_notebook(name, env):
    """Seconds to run ``notebooks/name`` top to bottom in a fresh kernel, or None without jupyter."""
    nb = os.path.join(os.path.dirname(__file__), "..", "notebooks", name)
    jupyter = os.path.join(os.path.dirname(sys.executable), "jupyter")
    if not (os.path.exists(nb) and os.path.exists(jupyter)):
        return None
    start = time.perf_counter()
    subprocess.run([jupyter, "nbconvert", "--to", "notebook", "--execute", "--stdout", nb],
                   capture_output=True, check=True, env=env)
    return time.perf_counter() - start


def first_use_and_warmup():
    """The first Conv2D, the first softmax and notebook 05 with a cold cache, after the warm-up, and warm.

    Each column starts from an empty numba cache of its own (NUMBA_CACHE_DIR): "cold" uses it as it
    is; "after warm-up" first runs `python -m minieager.warmup` into it; "warm" first runs the same
    thing once, so the cache holds exactly what it needs. Notebook 05 includes the kernel's start.
    """
    import tempfile
    rows = {label: [label] for label in [*_FIRST_USES, "notebook 05, top to bottom"]}
    warmup_seconds = None
    for column in ("cold", "after warm-up", "warm"):
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, NUMBA_CACHE_DIR=cache)
            if column == "after warm-up":
                start = time.perf_counter()
                subprocess.run([sys.executable, "-m", "minieager.warmup", "--quiet"], check=True, env=env,
                               capture_output=True)
                warmup_seconds = time.perf_counter() - start
            for label, code in _FIRST_USES.items():
                if column == "warm":
                    _fresh_python(f"import minieager as me; {code}", env)
                rows[label].append(_fresh_python(f"import minieager as me; {code}", env))
            if column == "warm":
                _run_notebook("05_train_a_model.ipynb", env)
            rows["notebook 05, top to bottom"].append(_run_notebook("05_train_a_model.ipynb", env))
    print("\nFirst uses in a fresh process (seconds after `import minieager`; one run each)")
    print_table(list(rows.values()), ["", "cold cache", "after warm-up", "warm cache"])
    print(f"python -m minieager.warmup into an empty cache: {warmup_seconds:.1f} s")
    _, cold, warmed, warm = rows["notebook 05, top to bottom"]
    if warm:
        print(f"notebook 05 after warm-up / warm: {warmed / warm:.2f}x (cold / warm: {cold / warm:.2f}x)")


if __name__ == "__main__":
    print(machine_description())
    guide_matmul()
    add_overhead()
    elementwise_chain()
    cold_start()
    first_use_and_warmup()
