"""Give notebooks a first cell that installs minieager on Colab and does nothing anywhere else.

    python -m course.site.colab [NOTEBOOK ...]     (default: notebooks/*.ipynb)

Colab starts from a bare Python, so each notebook's first cell installs minieager from the
repository (pyproject.toml's [project.urls] Repository) with the `colab` extra. Elsewhere (Binder,
JupyterLab, nbval in CI) the line's condition is false: it prints nothing and installs nothing.
Running this again changes nothing; the cell is recognised by its id and rewritten in place
when the line has changed (a new repository address, say).
"""
import sys
from pathlib import Path

import nbformat

from course.site.links import repository_url

REPO = Path(__file__).resolve().parents[2]
CELL_ID = "colab-install"


def install_line(repo=None):
    """The cell's one line: an `if` statement, so it has no value to display outside Colab."""
    spec = f"minieager[colab] @ git+{repo or repository_url()}"
    return ('if "google.colab" in __import__("sys").modules: '
            f"get_ipython().run_line_magic(\"pip\", \"install -q '{spec}'\")  # Colab only")


def add_install_cell(nb, line):
    """Put ``line`` in ``nb``'s first cell (added, or updated in place). True if ``nb`` changed."""
    cells = nb.cells
    if cells and cells[0].get("id") == CELL_ID:
        if cells[0].source == line:
            return False
        cells[0].source = line
        return True
    if any(cell.get("id") == CELL_ID for cell in cells):
        raise ValueError(f"a cell with id {CELL_ID!r} exists but is not the first one: move or delete it")
    cell = nbformat.v4.new_code_cell(line)
    cell.id = CELL_ID
    cell.metadata["tags"] = [CELL_ID]
    cells.insert(0, cell)
    return True


def main(paths):
    line = install_line()
    for path in map(Path, paths):
        nb = nbformat.read(path, as_version=4)
        if add_install_cell(nb, line):
            nbformat.write(nb, path)
            print(f"colab: updated {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or sorted((REPO / "notebooks").glob("*.ipynb"))))
