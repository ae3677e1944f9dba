"""``python -m course make``: the learner notebooks, generated from the solution notebooks.

In a solution notebook's code cell, the lines between ``### BEGIN SOLUTION`` and
``### END SOLUTION`` are the answer. The learner's copy replaces them with a stub at the same
indentation: ``raise NotImplementedError(...)`` inside a function, or the lines of a
``### BEGIN STUB`` / ``### END STUB`` block that follows the solution (written there as comments
and uncommented for the learner), e.g. ``predictions = {...: ...}``. A solution at the top level of
a cell must have a STUB block: a top-level ``raise`` would stop the learner's notebook.
"""
import copy

from . import notebooks

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
STUB_BEGIN, STUB_END = "### BEGIN STUB", "### END STUB"
DEFAULT_STUB = 'raise NotImplementedError("write your code here")'


class MarkerError(ValueError):
    """A solution cell's markers are unbalanced or a top-level block lacks its stub."""


def strip_solutions(source, where="cell"):
    """The learner's version of one code cell's source."""
    lines = source.split("\n")
    out, k = [], 0
    while k < len(lines):
        line = lines[k]
        if line.strip() != BEGIN:
            if line.strip() in (END, STUB_BEGIN, STUB_END):
                raise MarkerError(f"{where}, line {k + 1}: {line.strip()!r} without a {BEGIN!r} before it.")
            out.append(line)
            k += 1
            continue
        indent = line[:len(line) - len(line.lstrip())]
        end = _find(lines, k + 1, END, where)
        k = end + 1
        if k < len(lines) and lines[k].strip() == STUB_BEGIN:
            stub_end = _find(lines, k + 1, STUB_END, where)
            for stub_line in lines[k + 1:stub_end]:
                body = stub_line.strip()
                if not body.startswith("#"):
                    raise MarkerError(f"{where}: stub lines must be comments ('# ...'), got {stub_line!r}.")
                out.append(indent + body[1:].removeprefix(" "))
            k = stub_end + 1
        elif indent:
            out.append(indent + DEFAULT_STUB)
        else:
            raise MarkerError(f"{where}, line {end + 1}: a top-level solution needs a {STUB_BEGIN!r} block "
                              f"after it (a top-level raise would stop the learner's notebook).")
    return "\n".join(out)


def _find(lines, start, marker, where):
    for k in range(start, len(lines)):
        if lines[k].strip() == marker:
            return k
        if lines[k].strip() == BEGIN:
            break
    raise MarkerError(f"{where}, line {start}: {lines[start - 1].strip()!r} has no matching {marker!r}.")


def learner_version(nb, name="notebook"):
    """A copy of solution notebook ``nb`` with every solution replaced by its stub and no outputs."""
    nb = copy.deepcopy(nb)
    for k, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            cell.source = strip_solutions(cell.source, f"{name} cell {k}")
            cell.outputs, cell.execution_count = [], None
    nb.metadata.setdefault("course", {})["version"] = "learner"
    return nb


def execute(nb, path, timeout=300):
    """Run ``nb`` top to bottom in a fresh kernel whose working directory is ``path``'s folder."""
    from nbclient import NotebookClient
    NotebookClient(nb, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    return nb


def make(lessons=None, run=True):
    """Write exercises/<lesson>.ipynb for each solution notebook (executing both when ``run``)."""
    import nbformat
    sources = sorted(notebooks.SOLUTIONS.glob("*.ipynb"))
    for source in sources:
        lesson = source.stem
        if lessons and lesson not in lessons:
            continue
        nb = notebooks.read(source)
        nb.metadata.setdefault("course", {}).update(lesson=lesson, version="solution")
        if run:
            print(f"running {source.relative_to(notebooks.HERE.parent)}")
            execute(nb, source)
        nbformat.write(nb, str(source))
        target = notebooks.EXERCISES / source.name
        learner = learner_version(nb, source.name)
        if run:
            print(f"running {target.relative_to(notebooks.HERE.parent)}")
            execute(learner, target)
        nbformat.write(learner, str(target))
