"""Reading the lesson notebooks: their code cells, and the namespace the solutions define.

``pytest -m sigmoid_vjp course/`` (no notebook open) checks the *solution* notebook: its code
cells are run once per test session with ``exec``, as a kernel would run them top to bottom,
and the tests read the definitions from the resulting namespace.
"""
import contextlib
import io
import linecache
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent
SOLUTIONS = HERE / "solutions"
EXERCISES = HERE / "exercises"

_namespaces = {}   # (folder, lesson) -> namespace, so each solution notebook runs once per process


def read(path):
    return nbformat.read(str(path), as_version=4)


def code_cells(nb):
    return [cell for cell in nb.cells if cell.cell_type == "code"]


def solution_namespace(lesson):
    """The globals left by running ``solutions/<lesson>.ipynb``'s code cells (their printing hidden)."""
    return _namespace(SOLUTIONS, lesson)


def learner_namespace(lesson):
    """The same for the learner version ``exercises/<lesson>.ipynb`` (stubs everywhere)."""
    return _namespace(EXERCISES, lesson)


def _namespace(folder, lesson):
    key = (folder, lesson)
    if key not in _namespaces:
        from . import checker
        ns = {"__name__": f"course_{folder.name}_{lesson}"}
        path = folder / f"{lesson}.ipynb"
        with checker.checks_disabled(), contextlib.redirect_stdout(io.StringIO()):
            for k, cell in enumerate(code_cells(read(path))):
                filename = f"<{path.name} cell {k}>"
                # Kept as IPython keeps a cell's source: tracebacks show it, and AutoGraph (me.function) reads it.
                linecache.cache[filename] = (len(cell.source), None, cell.source.splitlines(True), filename)
                exec(compile(cell.source, filename, "exec"), ns)
        _namespaces[key] = ns
    return _namespaces[key]
