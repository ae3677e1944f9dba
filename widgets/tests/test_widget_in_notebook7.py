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

import minieager as me  # noqa: E402,F401  (the notebook's code is run here too)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

RECORD = """\
import minieager as me
x = me.Variable([1.0, 2.0, 3.0], name="x")
w = me.Variable([0.5, -1.0, 2.0], name="w")
with me.GradientTape() as tape:
    dbg = me.widgets.TapeDebugger(tape)
    display(dbg)
    y = me.reduce_sum(x * w + x)
"""
BACKPROP = "dbg.backprop(y, [x, w])"
WIDGET = ".jp-OutputArea-output .me-tape-debugger"


def expected_steps():
    scope = {"display": lambda *_: None}
    exec(RECORD + BACKPROP, scope)
    return scope["dbg"].trace.to_dict()["steps"]


def test_step_through_backprop_in_notebook7(notebook7_notebook, artifacts):
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
    page.locator(WIDGET).screenshot(path=str(artifacts / "notebook7-tape-debugger.png"))
