"""The PyTorch side of every comparison, measured in a process of its own.

Why its own process: importing minieager sets ``GOMP_SPINCOUNT`` so that numba's OpenMP threads
go to sleep right after a loop (see ``minieager/machine.py``). PyTorch's CPU build ships its own
libgomp, which reads the same variable, and with it PyTorch ran up to 1.8x slower (measured: MLP
step 0.22 -> 0.33-0.40 ms, guide CNN step 3.5 -> 5.7-6.2 ms). Here PyTorch runs with the
environment the benchmark started with and minieager's thread count.

By default PyTorch runs as installed. With ``"keep_freed_memory": true`` in the request it also
gets minieager's glibc malloc setting, ``machine.keep_freed_memory()``, which keeps large freed
blocks for reuse instead of returning them to the system. Any program can make that setting,
and it helps PyTorch's guide CNN step as much as minieager's (PyTorch: 3.4-6.1 ms without it,
2.1-4.1 ms with it), so the training benchmark shows PyTorch both ways. ``machine.py`` (which imports
nothing of minieager) is loaded on its own, by path, because importing the ``minieager`` package would set the
environment this process exists to avoid.

``common.torch_reference(cases)`` runs this file; by hand::

    python bench/torch_reference.py '{"threads": 2, "cases": [["train_mlp", 32]], "keep_freed_memory": true}'

prints a JSON list with one result (a dict of seconds per call) per case, or ``null`` when
PyTorch is not installed. The inputs have the same shapes and distributions as the minieager
side's (their values do not change the timings).
"""
import importlib.util
import json
import os
import sys

import numpy as np

from timing import timeit_medians


def _keep_freed_memory():
    """minieager's glibc malloc setting (see the module docstring), without importing minieager."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "minieager", "machine.py")
    spec = importlib.util.spec_from_file_location("minieager_machine_alone", path)   # imports nothing of ours
    machine = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(machine)
    machine.keep_freed_memory()


def add(torch, shape):
    """``a + b`` without and with ``requires_grad``."""
    a = torch.from_numpy(np.random.default_rng(1).random(shape, dtype=np.float32))
    b = torch.from_numpy(np.random.default_rng(2).random(shape, dtype=np.float32))
    a_grad = a.clone().requires_grad_(True)
    number = 20000 if a.numel() < 1000 else 50
    plain, grad = timeit_medians([lambda: a + b, lambda: a_grad + b], repeat=9, number=number)
    return {"plain": plain, "grad": grad}


def tape(torch, shape):
    """``a * b + c`` (two ops) without grad, with grad, and forward + backward; seconds per op."""
    rng = np.random.default_rng(0)
    a, b, c = (torch.from_numpy(rng.random(shape, dtype=np.float32)) for _ in range(3))
    a_grad = a.clone().requires_grad_(True)

    def forward_backward():
        (a_grad * b + c).sum().backward()
        a_grad.grad = None
    plain, grad = timeit_medians([lambda: a * b + c, lambda: a_grad * b + c], repeat=9, number=5000)
    fb, = timeit_medians([forward_backward], repeat=9, number=2000)
    return {"plain": plain / 2, "grad": grad / 2, "forward_backward": fb / 2}


def mlp10(torch, layers=10, width=256, batch=64):
    """A 10-layer tanh MLP, forward + backward."""
    rng = np.random.default_rng(1)
    ws = [torch.from_numpy((rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32))
          .requires_grad_(True) for _ in range(layers)]
    bs = [torch.zeros(width, requires_grad=True) for _ in range(layers)]
    x = torch.from_numpy(rng.standard_normal((batch, width), dtype=np.float32))

    def step():
        h = x
        for w, b in zip(ws, bs):
            h = torch.tanh(h @ w + b)
        h.sum().backward()
        for p in ws + bs:
            p.grad = None
    return {"step": timeit_medians([step], repeat=9, number=20)[0]}


def _train_step(torch, model, optimizer, x, y):
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        optimizer.zero_grad()
        loss_fn(model(x), y).backward()
        optimizer.step()
    return step


def train_mlp(torch, batch):
    """MLP 784-128-10 with SGD."""
    nn = torch.nn
    rng = np.random.default_rng(0)
    model = nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
    x, y = rng.standard_normal((batch, 784)).astype(np.float32), rng.integers(0, 10, batch)
    step = _train_step(torch, model, torch.optim.SGD(model.parameters(), lr=0.01), x, y)
    return {"step": timeit_medians([step], repeat=9, number=50)[0]}


def train_cnn(torch, batch=32):
    """The guide's CNN with Adam, on NCHW images (PyTorch's native layout)."""
    nn = torch.nn
    rng = np.random.default_rng(0)
    model = nn.Sequential(nn.Conv2d(1, 16, 3), nn.ReLU(), nn.Conv2d(16, 16, 3), nn.ReLU(),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))
    x, y = rng.standard_normal((batch, 1, 28, 28)).astype(np.float32), rng.integers(0, 10, batch)
    step = _train_step(torch, model, torch.optim.Adam(model.parameters()), x, y)
    return {"step": timeit_medians([step], repeat=9, number=5)[0]}


CASES = {"add": add, "tape": tape, "mlp10": mlp10, "train_mlp": train_mlp, "train_cnn": train_cnn}


def main(request):
    try:
        import torch
    except ImportError:
        return None
    if request.get("keep_freed_memory"):
        _keep_freed_memory()
    torch.set_num_threads(request["threads"])
    return [CASES[name](torch, *args) for name, *args in request["cases"]]


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))))
