"""Run one submitted notebook in a fresh kernel and print what its exercises' checks say, as JSON.

    python -m course.run_submission NOTEBOOK LESSON NONCE CELL_TIMEOUT

The grader (course/grade.py) starts this in a temporary folder holding a copy of the notebook, with a
wall-clock limit of its own. The learner's cells run first (a cell that raises is recorded and the
rest still run; a cell that runs past CELL_TIMEOUT seconds is interrupted), then one appended cell runs
every check of the lesson in the same kernel (each exercise's checks for at most CELL_TIMEOUT seconds) and prints the results after NONCE, a random token the
learner's cells cannot know, so printed text cannot pose as a result. The learner's own ``check()``
calls print a one-line note instead of running (the last cell runs every check once).
"""
import json
import os
import sys

import nbformat
from nbformat.v4 import new_code_cell

from .catalog import exercises_of
from .checker import GRADING

GRADING_TIMEOUT = 600   # seconds for the appended cell that runs the checks (the grader's own limit still holds)
GRADING_CELL = """\
import json as _json
from course.grade import report as _report
print({nonce!r} + _json.dumps(_report({names!r}, globals(), {limit!r})))
"""


def run(path, lesson, nonce, cell_timeout):
    """{"results": {exercise: {"status", "message"}}, "cells": [notes on cells that failed], "problem": str}."""
    from nbclient import NotebookClient
    from nbclient.exceptions import DeadKernelError

    nb = nbformat.read(path, as_version=4)
    names = [e.name for e in exercises_of(lesson)]
    nb.cells.append(new_code_cell(GRADING_CELL.format(nonce=nonce, names=names, limit=cell_timeout)))
    grading_cell = nb.cells[-1]
    client = NotebookClient(nb, timeout_func=lambda cell: GRADING_TIMEOUT if cell is grading_cell else cell_timeout,
                            interrupt_on_timeout=True, allow_errors=True, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    problem = ""
    try:
        client.execute()
    except DeadKernelError:
        problem = "the kernel died while the notebook ran (did a cell exit Python or crash it?)"
    except Exception as err:   # a kernel that cannot start, a notebook nbclient cannot run
        problem = f"the notebook could not be run: {type(err).__name__}: {err}"
    cells, results = [], {}
    for k, cell in enumerate(nb.cells[:-1]):
        error = next((out for out in cell.get("outputs", []) if out.get("output_type") == "error"), None)
        if error is None:
            continue
        if error.get("ename") == "KeyboardInterrupt":
            cells.append(f"cell {k + 1} was stopped after {cell_timeout:g} s (an endless loop?)")
        else:
            cells.append(f"cell {k + 1} raised {error.get('ename')}: {error.get('evalue')}")
    for out in nb.cells[-1].get("outputs", []):
        for line in out.get("text", "").splitlines():
            if line.startswith(nonce):
                results = json.loads(line[len(nonce):])
    if not results and not problem:
        problem = "the checks could not run at the end of the notebook"
    return {"results": results, "cells": cells, "problem": problem}


def main(argv):
    from pathlib import Path
    path, lesson, nonce, cell_timeout = Path(argv[0]), argv[1], argv[2], float(argv[3])
    os.environ[GRADING] = "1"   # the kernel inherits it: the learner's own check() calls are skipped
    print(json.dumps(run(path, lesson, nonce, cell_timeout)))


if __name__ == "__main__":
    main(sys.argv[1:])
