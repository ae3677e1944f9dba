"""course/site/build.py's staging: the Colab install cell stays in the notebooks, off the pages."""
import json
from pathlib import Path

from course.site import build, colab

REPO = Path(__file__).resolve().parents[2]


def test_the_colab_cell_is_left_off_the_staged_page(tmp_path, monkeypatch):
    monkeypatch.setattr(build, "STAGE", tmp_path)
    src = REPO / "notebooks" / "01_setup_and_basic_usage.ipynb"
    original = json.loads(src.read_text())
    assert original["cells"][0].get("id") == colab.CELL_ID       # the notebook keeps it (for the Colab button)
    dst = tmp_path / "notebooks" / src.name
    dst.parent.mkdir()
    build.stage_notebook(src, dst)
    staged = json.loads(dst.read_text())
    assert colab.CELL_ID not in [c.get("id") for c in staged["cells"]]
    assert "google.colab" not in dst.read_text()
    first = staged["cells"][0]
    assert first["cell_type"] == "markdown" and "".join(first["source"]).startswith("# ")   # the title comes first
    assert len(staged["cells"]) == len(original["cells"]) - 1
    assert json.loads(src.read_text()) == original


def test_a_notebook_without_the_cell_is_unchanged():
    nb = {"cells": [{"id": "a", "cell_type": "markdown", "source": "# T"}]}
    assert build.without_colab_cell(json.loads(json.dumps(nb))) == nb
