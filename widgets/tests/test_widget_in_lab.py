"""The real minieager.widgets.TapeDebugger end to end: in JupyterLab, and as a save_html page.

The expected schedule comes from running the notebook's own code in this process
(``dbg.trace.to_dict()["steps"]``); the page must highlight the same op and show the same
gradients, step by step. Screenshots of three steps go to test-artifacts/.
"""
import pytest

pytest.importorskip("anywidget")
sync_api = pytest.importorskip("playwright.sync_api")

import minieager as me  # noqa: E402

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


def expected_trace():
    scope = {"display": lambda *_: None}
    exec(RECORD + BACKPROP, scope)
    return scope["dbg"]


def flat(data):
    return [y for x in data for y in flat(x)] if isinstance(data, list) else [data]


def shown_numbers(element):
    return [float(td.inner_text()) for td in element.query_selector_all(".me-matrix td, .me-scalar")]


def check_step(page, root, step):
    """The page highlights ``step``'s op and shows the gradients it sends on each input edge."""
    page.wait_for_selector(f"{root} .is-current[data-node-id={step['op']}]")
    sent = page.query_selector_all(f"{root} [data-role=grad-out]")
    assert [s.get_attribute("data-edge-id") for s in sent] == [g["edge"] for g in step["grads_out"]]
    for element, g in zip(sent, step["grads_out"]):
        assert shown_numbers(element) == pytest.approx(flat(g["value"]["data"]), rel=1e-3)
        assert page.query_selector(f"{root} [data-role=edge-grad][data-edge-id={g['edge']}]") is not None


def test_step_through_backprop_in_lab(lab_notebook, snap):
    steps = expected_trace().trace.to_dict()["steps"]
    assert [s["op_name"] for s in steps] == ["reduce_sum", "add", "multiply"]
    page = lab_notebook([RECORD, BACKPROP], ".me-tape-debugger [data-node-id=op2]", name="tape_debugger_e2e.ipynb")
    label = page.locator(f"{WIDGET} [data-role=step-label]")
    sync_api.expect(label).to_have_text(f"step 0 / {len(steps)}", timeout=30_000)   # backprop armed it
    for k, step in enumerate(steps):
        page.click(f"{WIDGET} [data-role=step-button]")
        sync_api.expect(label).to_have_text(f"step {k + 1} / {len(steps)}")
        check_step(page, WIDGET, step)
        snap(page.locator(WIDGET), f"lab-tape-debugger-step-{k + 1}.png")
    final = page.query_selector_all(f"{WIDGET} [data-role=final-gradient]")
    assert len(final) == 2
    # The inspector of a source asks the kernel for a gradient check and shows its verdict.
    x_id = expected_trace().trace.to_dict()["sources"][0]
    page.click(f"{WIDGET} [data-node-id={x_id}]")
    page.click(f"{WIDGET} [data-role=check-gradient]")
    check = page.locator(f"{WIDGET} [data-role=gradient-check]")
    sync_api.expect(check).to_have_attribute("data-ok", "true", timeout=30_000)
    assert "agrees" in check.inner_text()
    # y = sum(x * w + x): dy/dx = w + 1 = [1.5, 0, 3], stepped and by finite differences alike.
    rows = [[float(v) for v in row] for row in check.locator("tr").evaluate_all(
        "trs => trs.slice(1).map(tr => [...tr.children].slice(1).map(td => td.textContent))")]
    assert rows == [[pytest.approx(g, abs=1e-3)] * 2 for g in (1.5, 0.0, 3.0)]
    snap(page.locator(WIDGET), "lab-gradient-check.png")


def test_saved_html_steps_offline(page, tmp_path, snap):
    dbg = expected_trace()
    steps = dbg.trace.to_dict()["steps"]
    path = dbg.save_html(tmp_path / "tape.html")
    page.goto(path.as_uri())
    page.wait_for_selector(".me-tape-debugger [data-node-id=op0]")
    for step in steps:
        page.click("[data-role=step-button]")
        check_step(page, ".me-tape-debugger", step)
    snap(page.locator(".me-tape-debugger"), "saved-html-final-step.png")
