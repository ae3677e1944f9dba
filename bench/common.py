"""Shared helpers for the bench/bench_*.py scripts: timing, optional PyTorch, the machine, tables.

Scripts run as `python bench/bench_NAME.py` (`make bench` runs them all), which puts this folder
on sys.path, so they simply `from common import timeit_medians, print_table, ...`.
Nothing here asserts a number: benchmarks report, they do not test.
"""
import importlib.metadata
import json
import os
import platform
import subprocess
import sys

# The environment before minieager changes it (thread variables, GOMP_SPINCOUNT): the PyTorch
# reference process gets this one (see torch_reference.py).
_ENVIRONMENT_BEFORE_MINIEAGER = dict(os.environ)

from minieager import config  # noqa: E402
from timing import timeit_medians  # noqa: E402,F401  (re-exported for the scripts)

_HERE = os.path.dirname(os.path.abspath(__file__))


# How the PyTorch process is set up (see torch_reference.py): as installed, or with minieager's
# glibc malloc setting (config.keep_freed_memory), which minieager makes in its own process.
AS_INSTALLED = {}
WITH_OUR_MALLOC = {"keep_freed_memory": True}


def torch_reference(*cases, setting=AS_INSTALLED):
    """PyTorch's timings for ``cases`` (see torch_reference.CASES), measured in a fresh process
    with minieager's thread count; a list of dicts of seconds, or None without PyTorch."""
    request = dict(setting, threads=config.get_num_threads(), cases=[list(c) for c in cases])
    out = subprocess.run([sys.executable, os.path.join(_HERE, "torch_reference.py"), json.dumps(request)],
                         capture_output=True, text=True, check=True, env=_ENVIRONMENT_BEFORE_MINIEAGER)
    return json.loads(out.stdout)


def alternating_with_torch(cases, measure, rounds=2, settings=(AS_INSTALLED,)):
    """``measure()`` and PyTorch's timings of ``cases``, taken in alternating rounds.

    This machine's speed drifts by up to 1.5x over minutes, so timing PyTorch once and then
    minieager made a ratio depend on which side happened to run in the faster stretch. Here each
    round times PyTorch (once per setting) and then minieager, and every figure on both sides is
    its lowest over the rounds. Returns (measure's figures, [PyTorch's figures per setting], each
    None when PyTorch is not installed); ``measure`` returns numbers (or None) in any nesting of lists.
    """
    mine, theirs = None, [None] * len(settings)
    for _ in range(rounds):
        theirs = [_lower(t, torch_reference(*cases, setting=s)) for t, s in zip(theirs, settings)]
        mine = _lower(mine, measure())
    return mine, theirs


def _lower(a, b):
    """The element-wise minimum of two nested lists (or dicts) of numbers; None where either is None."""
    if a is None or b is None:
        return b if a is None else None
    if isinstance(a, dict):
        return {key: _lower(a[key], b[key]) for key in a}
    if isinstance(a, (list, tuple)):
        return [_lower(x, y) for x, y in zip(a, b)]
    return min(a, b)


def _version(package):
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_description():
    """A few lines saying what the figures were measured on, to print above a table."""
    import numpy as np  # threadpoolctl only sees BLAS libraries that are already loaded
    from threadpoolctl import threadpool_info

    np.ones(1)
    blas = [f"{lib['internal_api']} {lib.get('version') or ''} ({lib['num_threads']} threads)"
            for lib in threadpool_info() if lib["user_api"] == "blas"]
    return "\n".join([
        f"CPU:     {_cpu_model()}",
        f"cores:   {config.available_cpus()} usable (os.cpu_count() = {os.cpu_count()}), "
        f"minieager uses {config.get_num_threads()} threads",
        f"python:  {platform.python_version()}, numpy {_version('numpy')}, "
        f"numba {_version('numba')}, torch {_version('torch')}",
        f"BLAS:    {', '.join(blas) or 'none loaded'}",
    ])


def _cell(value):
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def print_table(rows, headers, ratios=()):
    """Print `rows` under `headers` as an aligned plain-text table.

    Each pair (a, b) in `ratios` adds a column "a/b" holding row[a] / row[b] for the columns
    with those headers, e.g. ("minieager ms", "torch ms") -> "2.1x" means minieager took 2.1
    times as long. Floats print with 4 significant digits; None (e.g. no torch) prints "-".
    """
    headers = list(headers)
    table = []
    for row in rows:
        row = list(row)
        for a, b in ratios:
            x, y = row[headers.index(a)], row[headers.index(b)]
            row.append(f"{x / y:.2f}x" if x is not None and y else None)
        table.append([_cell(v) for v in row])
    headers += [f"{a}/{b}" for a, b in ratios]
    widths = [max([len(h)] + [len(r[i]) for r in table]) for i, h in enumerate(headers)]

    def line(cells):  # first column (the case's name) left-aligned, figures right-aligned
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths)))

    print(line(headers))
    print(line(["-" * w for w in widths]))
    for r in table:
        print(line(r))
