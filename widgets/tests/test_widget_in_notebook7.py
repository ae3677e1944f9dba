"""The real minieager.widgets.TapeDebugger in Jupyter Notebook 7 (`jupyter notebook`).

Notebook 7 is built from JupyterLab's components but is its own application (own page, own
settings and extension loading), so the widget is checked there too: the same notebook as
test_widget_in_lab.py, run in a private Notebook 7 server (lab_fixtures.py), stepped twice. The
expected schedule is ``dbg.trace.to_dict()["steps"]`` from running the same code in this process.
"""
import pytest

pytest.importorskip("anywidget")
pytest.importorskip("notebook")
sync_api = pytest.importorskip("playwright.sync_api")

import importlib.util  # noqa: E402
from pathlib import Path  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# The same notebook cells as the JupyterLab test (this folder is no package: load it by path).
_spec = importlib.util.spec_from_file_location("_widget_in_lab", Path(__file__).with_name("test_widget_in_lab.py"))
_lab_test = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_lab_test)
RECORD, BACKPROP, WIDGET = _lab_test.RECORD, _lab_test.BACKPROP, _lab_test.WIDGET


def expected_steps():
    return _lab_test.expected_trace().trace.to_dict()["steps"]


def test_step_through_backprop_in_notebook7(notebook7_notebook, snap):
    steps = expected_steps()
    assert len(steps) >= 2
    page = notebook7_notebook([RECORD, BACKPROP], ".me-tape-debugger [data-node-id]",
                              name="tape_debugger_notebook7.ipynb")
    assert "/notebooks/" in page.url    # Notebook 7's own page, not JupyterLab's
    label = page.locator(f"{WIDGET} [data-role=step-label]")
    sync_api.expect(label).to_have_text(f"step 0 / {len(steps)}", timeout=30_000)   # backprop armed it
    for k, step in enumerate(steps[:2]):
        page.click(f"{WIDGET} [data-role=step-button]")
        sync_api.expect(label).to_have_text(f"step {k + 1} / {len(steps)}")
        current = page.locator(f"{WIDGET} .is-current")
        sync_api.expect(current).to_have_count(1)
        sync_api.expect(current).to_have_attribute("data-node-id", step["op"])
    snap(page.locator(WIDGET), "notebook7-tape-debugger.png")
