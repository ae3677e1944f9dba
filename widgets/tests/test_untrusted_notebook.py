"""notebooks/00 opened untrusted, without running it, in JupyterLab 4 and Notebook 7.

A notebook a learner has just downloaded (or opened on Binder) is untrusted: the sanitiser
drops the live widget and inline SVG, and a text/html picture would become a run-on text dump.
Each debugger output therefore carries a PNG; here every one of them must show as a picture.
"""
import json
import shutil
from pathlib import Path

import pytest

sync_api = pytest.importorskip("playwright.sync_api")

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "00_tape_debugger.ipynb"


def saved_pictures():
    """How many outputs of the committed notebook are debugger pictures."""
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    return sum("image/png" in o.get("data", {}) and "TapeDebugger(" in "".join(o["data"].get("text/plain", ""))
               for c in cells for o in c.get("outputs", []))


@pytest.mark.parametrize("app", ["lab", "notebook7"])
def test_debuggers_are_pictures_when_opened_untrusted(app, request, lab_root, browser, artifacts):
    server = request.getfixturevalue("lab_server" if app == "lab" else "notebook7_server")
    name = f"untrusted-{app}.ipynb"
    shutil.copy(NOTEBOOK, lab_root / name)      # a copy nobody signed: untrusted
    expected = saved_pictures()
    assert expected >= 6
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(server + (f"lab/tree/{name}?reset" if app == "lab" else f"notebooks/{name}"))
    page.wait_for_selector(".jp-NotebookPanel .jp-OutputArea-output img", timeout=45_000)
    pictures = page.locator(".jp-OutputArea-output img[src^='data:image/png']")
    sync_api.expect(pictures).to_have_count(expected, timeout=30_000)
    sizes = pictures.evaluate_all("imgs => imgs.map(i => [i.naturalWidth, i.naturalHeight])")
    assert all(w > 200 and h > 80 for w, h in sizes), f"pictures not decoded: {sizes}"
    # No text dump of a sanitised SVG, and no live widget (it needs a trusted notebook).
    text = " ".join(page.locator(".jp-OutputArea-output").all_inner_texts())
    assert "VARIABLE" not in text and "backward: ready" not in text
    assert page.locator(".jp-OutputArea-output .me-tape-debugger").count() == 0
    page.locator(".jp-OutputArea-output img").nth(2).scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / f"untrusted-00-{app}.png"))
    context.close()


NOTEBOOK_09 = NOTEBOOK.parent / "09_graphs.ipynb"
GRAPH_VIEWS = (".draw(", "PassStepper", "PassSteps")


def test_graph_views_are_pictures_when_opened_untrusted(request, lab_root, browser, artifacts):
    # graph.draw(), the PassStepper and PassSteps in notebook 09: each output carries a PNG, and an
    # untrusted JupyterLab shows it (not "<Drawing: ...>" nor a sanitised text dump).
    server = request.getfixturevalue("lab_server")
    cells = json.loads(NOTEBOOK_09.read_text())["cells"]
    views = [o for c in cells if c["cell_type"] == "code" and any(w in "".join(c["source"]) for w in GRAPH_VIEWS)
             for o in c.get("outputs", []) if o.get("output_type") in ("display_data", "execute_result")]
    assert len(views) >= 3 and all("image/png" in o["data"] for o in views)
    pngs = sum("image/png" in o.get("data", {}) for c in cells for o in c.get("outputs", []))
    shutil.copy(NOTEBOOK_09, lab_root / "untrusted-09.ipynb")
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(server + "lab/tree/untrusted-09.ipynb?reset")
    page.wait_for_selector(".jp-NotebookPanel .jp-OutputArea-output img", timeout=45_000)
    pictures = page.locator(".jp-OutputArea-output img[src^='data:image/png']")
    sync_api.expect(pictures).to_have_count(pngs, timeout=30_000)
    text = " ".join(page.locator(".jp-OutputArea-output").all_inner_texts())
    assert "<Drawing:" not in text and "before elementwise fusion" not in text
    # Each picture fits the output's width.
    widths = pictures.evaluate_all("imgs => imgs.map(i => [i.getBoundingClientRect().width, i.closest('.jp-OutputArea-output').clientWidth])")
    assert all(w <= room + 1 for w, room in widths), widths
    page.screenshot(path=str(artifacts / "untrusted-09-lab.png"))
    context.close()
