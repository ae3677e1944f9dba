"""Time the course grader on a generated class: ``python bench/grade_class.py [N] [--parallel 2]``.

Writes N submissions of lesson 01 (a mix a real class gives: complete, blank, partly done, wrong,
crashing, and one that loops) into a temporary folder, grades them with ``python -m course grade``
(each in its own sandbox) and prints the wall time, the time per notebook and the machine's load
average before and after. The figure is quoted in course/README.md.
"""
import argparse
import copy
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from course import notebooks  # noqa: E402

VARIANTS = {   # name: (notebook, replacement of the broadcast_shape cell or None)
    "complete": ("solutions", None),
    "blank": ("exercises", None),
    "wrong": ("solutions", "def broadcast_shape(a, b):\n    return a\n"),
    "crash": ("solutions", "def broadcast_shape(a, b):\n    return a[10]\n"),
    "half": ("solutions", "def broadcast_shape(a, b):\n    return tuple(max(x, y) for x, y in zip(a, b))\n"),
}


def write_class(folder, n):
    sources = {}
    for name, (kind, replacement) in VARIANTS.items():
        nb = copy.deepcopy(notebooks.read(getattr(notebooks, kind.upper()) / "01_tensors.ipynb"))
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
                if replacement and "def broadcast_shape" in cell.source:
                    cell.source = replacement
        sources[name] = nb
    names = list(VARIANTS)
    for k in range(n):
        nbformat.write(sources[names[k % len(names)]], str(Path(folder) / f"learner{k:03d}_01_tensors.ipynb"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("n", type=int, nargs="?", default=200)
    parser.add_argument("--parallel", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="grade-class-") as tmp:
        subs = Path(tmp) / "submissions"
        subs.mkdir()
        write_class(subs, args.n)
        load_before = os.getloadavg()
        started = time.monotonic()
        subprocess.run([sys.executable, "-m", "course", "grade", str(subs), "--out", str(Path(tmp) / "out"),
                        "--parallel", str(args.parallel)], check=True, stdout=subprocess.DEVNULL,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
        wall = time.monotonic() - started
        load_after = os.getloadavg()
        rows = (Path(tmp) / "out" / "grades.csv").read_text().splitlines()
    print(f"{args.n} notebooks of lesson 01, --parallel {args.parallel}: {wall / 60:.1f} min "
          f"({wall / args.n:.1f} s per notebook); {len(rows) - 1} rows in grades.csv; {os.cpu_count()} CPUs, "
          f"load average {load_before[0]:.1f} before, {load_after[0]:.1f} after (1-minute)")


if __name__ == "__main__":
    main()
