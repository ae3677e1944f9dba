"""course/site/colab.py: the Colab install cell, added once, silent outside Colab.

It runs on copies of the real notebooks (the committed ones get the cell when the lead runs it).
"""
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from course.site import colab as colab_module

REPO = Path(__file__).resolve().parent.parent



@pytest.fixture(scope="module")
def colab():
    return colab_module


@pytest.fixture
def copies(tmp_path, colab):
    """Copies of three real notebooks as they were before the Colab cell (the committed ones have it)."""
    paths = []
    for src in sorted((REPO / "notebooks").glob("0[0-2]_*.ipynb")):
        nb = nbformat.read(src, as_version=4)
        nb.cells = [c for c in nb.cells if c.get("id") != colab.CELL_ID]
        nbformat.write(nb, tmp_path / src.name)
        paths.append(tmp_path / src.name)
    return paths


def test_the_first_cell_is_added_once_and_the_rest_is_untouched(colab, copies, capsys):
    before = {p: nbformat.read(p, as_version=4) for p in copies}
    colab.main(copies)
    assert capsys.readouterr().out.count("colab: updated") == len(copies)
    after_once = {p: p.read_bytes() for p in copies}
    colab.main(copies)
    assert capsys.readouterr().out == ""
    for path in copies:
        assert path.read_bytes() == after_once[path], f"a second run changed {path.name}"
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
        first = nb.cells[0]
        assert (first.id, first.cell_type, first.source) == ("colab-install", "code", colab.install_line())
        assert "\n" not in first.source
        assert nb.cells[1:] == before[path].cells


def test_a_changed_line_is_rewritten_in_place(colab, copies):
    path = copies[0]
    nb = nbformat.read(path, as_version=4)
    n = len(nb.cells)
    assert colab.add_install_cell(nb, colab.install_line("https://github.com/old/place"))
    assert colab.add_install_cell(nb, colab.install_line())
    assert not colab.add_install_cell(nb, colab.install_line())
    assert len(nb.cells) == n + 1
    assert nb.cells[0].source == colab.install_line()
    assert "git+https://github.com/old/place" not in nb.cells[0].source


def test_a_misplaced_install_cell_is_reported(colab, copies):
    nb = nbformat.read(copies[0], as_version=4)
    colab.add_install_cell(nb, colab.install_line())
    nb.cells.append(nb.cells.pop(0))
    with pytest.raises(ValueError, match="'colab-install' exists but is not the first one"):
        colab.add_install_cell(nb, colab.install_line())


def run_cells(*sources):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    NotebookClient(nb, timeout=60, kernel_name="python3").execute()
    return [cell.outputs for cell in nb.cells]


def test_the_line_does_nothing_outside_colab_and_asks_pip_on_colab(colab):
    line = colab.install_line()
    # Outside Colab: no output at all, and nothing imported.
    outputs = run_cells(line, 'import sys; print("google.colab" in sys.modules)')
    assert outputs[0] == []
    assert outputs[1][0]["text"] == "False\n"
    # On Colab (google.colab is imported at start-up there), the line calls %pip with our spec; here
    # a stand-in %pip records the call instead of installing.
    outputs = run_cells(
        'import sys, types; sys.modules["google.colab"] = types.ModuleType("google.colab")\n'
        'get_ipython().register_magic_function(lambda line: print("pip", line), magic_name="pip")',
        line)
    spec = f"minieager[colab] @ git+{colab.repository_url()}"
    assert outputs[1][0]["text"] == f"pip install -q '{spec}'\n"
