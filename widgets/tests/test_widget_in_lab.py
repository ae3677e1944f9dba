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


BIG_RECORD = """\
import minieager as me
me.random.set_seed(0)
model = me.keras.Sequential([me.keras.layers.Dense(16, activation="relu") for _ in range(6)]
                            + [me.keras.layers.Dense(1)])
xb = me.reshape(me.linspace(-1.0, 1.0, 32), (8, 4))
yb = me.zeros((8, 1))
with me.GradientTape() as tape:
    big = tape.debugger()
    mse = me.reduce_mean(me.square(model(xb) - yb))
"""
BIG_SHOW = "big.backprop(mse, model.trainable_variables)\nbig"


def test_big_model_in_lab_fits_one_screen_and_the_kernel_lays_out_new_fold_states(lab_notebook, snap):
    # Notebook 00's big model in JupyterLab at 1280x800: the graph, the Step button and the step
    # card are on the screen together. Opening two layers is a fold state the trace did not bring:
    # the page asks the kernel, which lays it out with dot (two layer boxes, no box overlapping).
    page = lab_notebook([BIG_RECORD, BIG_SHOW], ".me-tape-debugger .me-folded", name="big_model_one_screen.ipynb")
    page.set_viewport_size({"width": 1280, "height": 800})
    widget = page.locator(WIDGET)
    widget.locator("[data-role=step-button]").click()
    widget.locator("[data-role=step-button]").click()
    page.wait_for_timeout(300)
    widget.locator(".me-toolbar").evaluate("el => el.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(300)
    panel = page.locator(".jp-NotebookPanel-notebook").bounding_box()
    bottom = min(800, panel["y"] + panel["height"])
    for role, sel in [("step", "[data-role=step-button]"), ("graph", ".me-canvas"), ("card", ".me-card.me-current")]:
        b = widget.locator(sel).bounding_box()
        assert b["y"] >= panel["y"] - 1 and b["y"] + min(b["height"], 120) <= bottom, (role, b, panel)
    snap(widget, "lab-big-model-one-screen.png")
    layers = widget.locator(".me-folded")
    first, second = layers.nth(0).get_attribute("data-cluster-id"), layers.nth(1).get_attribute("data-cluster-id")
    widget.locator(f".me-folded[data-cluster-id='{first}']").click()
    widget.locator(f".me-folded[data-cluster-id='{second}']").click()
    sync_api.expect(widget.locator(".me-graph[data-layout=dot]")).to_have_count(1, timeout=30_000)   # the kernel's answer
    sync_api.expect(widget.locator("[data-cluster-box]")).to_have_count(2)
    boxes = widget.locator(".me-nodes > g > .me-shape").evaluate_all(
        "els => els.map((e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })")
    clashes = [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:]
               if min(a[2], b[2]) - max(a[0], b[0]) > 0 and min(a[3], b[3]) - max(a[1], b[1]) > 0]
    assert not clashes
    assert widget.locator(f".me-cluster-title[data-cluster-id='{first}']").count() == 1
