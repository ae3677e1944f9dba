"""Inside the sandbox: run one notebook cell by cell, and probe its exercises; write plain replies.

    python -m course.run_submission REQUEST.json RESULT.json

The grader (course/grade.py) starts this inside a fresh sandbox (course/sandbox.py) with a request it
wrote: the notebook, the lesson's exercises, and for each declared check its probe (source text) and
the cases it drew. This process decides nothing: it runs the learner's cells in a fresh kernel, in an
empty folder of its own, and right after the cell that calls ``check("NAME")`` (or at the end, for an
exercise whose check cell never ran) runs NAME's probes in that kernel, under a time limit for the
exercise. It writes what came back, plain data, to RESULT.json; the grader judges it outside.

A cell that runs past the cell limit is interrupted and the notebook goes on; one that ignores the
interrupt (or a probe that does) is "wedged": the kernel is killed, and only the exercises after it
go unchecked. A kernel that dies stops the run the same way. Every note names the cell.
"""
import asyncio
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import time
from pathlib import Path

GRACE = 5          # seconds a cell gets after its interrupt before it counts as wedged
MAX_NOTES = 50


def _first_line(source):
    line = next((l.strip() for l in source.splitlines() if l.strip()), "")
    return line if len(line) <= 60 else line[:57] + "..."


def _checks_called(source, names):
    """The exercises a cell's source calls check() on, in order."""
    return [m.group(2) for m in re.finditer(r"""check\(\s*(['"])(\w+)\1""", source) if m.group(2) in names]


def _client(nb, cell_timeout, probe_timeout, workdir):
    from nbclient import NotebookClient

    class QuietClient(NotebookClient):
        """Keeps only a cell's error: a cell printing without end costs no memory here."""

        def output(self, outs, msg, display_id, cell_index):
            if msg["msg_type"] == "error":
                return super().output(outs, msg, display_id, cell_index)
            return None

    def timeout(cell):   # a probe cell has its own limit (SIGALRM inside it stops the learner's code first)
        return probe_timeout if cell.metadata.get("course_probe") else cell_timeout

    return QuietClient(nb, timeout_func=timeout, interrupt_on_timeout=True, allow_errors=True,
                       kernel_name="python3", record_timing=False, resources={"metadata": {"path": str(workdir)}})


class Wedged(Exception):
    pass


async def _execute(client, cell, index, limit):
    from nbclient.exceptions import DeadKernelError
    try:
        await asyncio.wait_for(client.async_execute_cell(cell, index), limit + GRACE)
    except asyncio.TimeoutError:
        raise Wedged from None
    except DeadKernelError:
        raise
    return next((o for o in cell.get("outputs", []) if o.get("output_type") == "error"), None)


async def run(request):
    """The result dict: {"replies": {exercise: ...}, "probed_at": {...}, "cells": [notes], "problem": str}."""
    import nbformat
    from nbclient.exceptions import DeadKernelError
    from nbformat.v4 import new_code_cell

    workdir = Path("/tmp/submission") if os.environ.get("COURSE_GRADING") else Path(request["workdir"])
    workdir.mkdir(parents=True, exist_ok=True)
    notebook = workdir / "submission.ipynb"
    shutil.copyfile(request["notebook"], notebook)
    result = {"replies": {}, "probed_at": {}, "cells": [], "problem": ""}
    try:
        nb = nbformat.read(str(notebook), as_version=4)
    except Exception as err:
        result["problem"] = f"the notebook could not be read: {type(err).__name__}: {err}"
        return result
    exercises = {e["name"]: e for e in request["exercises"]}
    cell_timeout, exercise_timeout = request["cell_timeout"], request["exercise_timeout"]
    client = _client(nb, cell_timeout, exercise_timeout + 10, workdir)
    notes = result["cells"]

    async def probe(name, where):
        """Run one exercise's probes in the kernel; their replies go to a file the runner reads back."""
        out = workdir.parent / f".probes-{token}" / f"{name}.json"
        source = (f"__import__('course.probe', fromlist=['probe_cell']).probe_cell("
                  f"{request['path']!r}, {name!r}, {str(out)!r}, {exercise_timeout!r}, globals())")
        cell = new_code_cell(source, metadata={"course_probe": True})
        nb.cells.append(cell)          # nbclient writes the executed cell back at its index
        try:
            error = await _execute(client, cell, len(nb.cells) - 1, exercise_timeout + 10)
        except Wedged:
            raise Wedged(f"the checks of {name} ({where}) ran past {exercise_timeout:g} s and ignored the "
                         f"interrupt") from None
        try:
            result["replies"][name] = json.loads(out.read_text())
            out.unlink()
        except (OSError, ValueError):
            why = f": {error.get('ename')}: {error.get('evalue')}" if error else ""
            result["replies"][name] = {"problem": f"the checks of {name} gave no result{why}"}
        finally:
            nb.cells.pop()
        result["probed_at"][name] = where

    token = secrets.token_hex(8)
    pending = list(exercises)
    try:
        async with client.async_setup_kernel(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL):
            for k, cell in enumerate(nb.cells):
                if cell.cell_type != "code":
                    continue
                label = f"cell {k + 1} (`{_first_line(cell.source)}`)"
                started = time.monotonic()
                try:
                    error = await _execute(client, cell, k, cell_timeout)
                except Wedged:
                    raise Wedged(f"{label} ran past {cell_timeout:g} s and ignored the interrupt") from None
                except DeadKernelError:
                    if time.monotonic() - started >= cell_timeout:   # interrupted, then stopped answering
                        raise Wedged(f"{label} ran past {cell_timeout:g} s and ignored the interrupt") from None
                    raise DeadKernelError(f"the kernel died in {label} (did it exit Python or crash?)") from None
                if error is not None and len(notes) < MAX_NOTES:
                    if error.get("ename") == "KeyboardInterrupt":
                        notes.append(f"{label} was stopped after {cell_timeout:g} s (an endless loop?)")
                    else:
                        notes.append(f"{label} raised {error.get('ename')}: {str(error.get('evalue'))[:300]}")
                cell.outputs = []
                for name in _checks_called(cell.source, pending):
                    pending.remove(name)
                    await probe(name, f"after cell {k + 1}")
            for name in list(pending):
                pending.remove(name)
                await probe(name, "at the end of the notebook")
    except Wedged as err:
        result["problem"] = f"{err}: the kernel was stopped"
    except DeadKernelError as err:
        result["problem"] = str(err)
    except Exception as err:       # a kernel that cannot start, a notebook nbclient cannot run
        result["problem"] = f"the notebook could not be run: {type(err).__name__}: {err}"
    if pending and result["problem"]:
        result["problem"] += f"; not checked: {', '.join(pending)}"
    return result


def main(argv):
    request_path, result_path = argv
    request = json.loads(Path(request_path).read_text())
    request["path"] = request_path
    result = asyncio.run(run(request))
    Path(result_path).write_text(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
