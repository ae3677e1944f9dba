"""The tape debugger front-end in headless Chromium, on standalone pages built from the fixtures.

Every expectation comes from the fixture's own trace: the op highlighted at each step, the
gradients on the edges and in the side panel, the final gradients, the unreached sources.
"""
import math
import re
from pathlib import Path

import pytest

WIDGETS = Path(__file__).resolve().parent.parent
REPO = WIDGETS.parent

NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")
FIXTURES_WITH_STEPS = ["square_plus_x", "dense_tanh"]


def numbers(text):
    return [float(x) for x in NUMBER.findall(text)]


def flat(data):
    return [y for x in data for y in flat(x)] if isinstance(data, list) else [data]


def assert_close(shown, expected, what):
    assert len(shown) == len(expected), f"{what}: shows {shown}, expected {expected}"
    for a, b in zip(shown, expected):
        assert math.isclose(a, b, rel_tol=2e-3, abs_tol=1e-3), f"{what}: shows {shown}, expected {expected}"


def current_op(page):
    ids = page.eval_on_selector_all(".is-current[data-node-id]", "els => els.map(e => e.dataset.nodeId)")
    assert len(ids) <= 1, f"more than one op highlighted: {ids}"
    return ids[0] if ids else None


def step_label(page):
    return page.text_content("[data-role=step-label]").strip()


def open_page(page, standalone, trace, name="debugger"):
    page.goto(standalone(trace, name))
    page.wait_for_selector(".me-tape-debugger")
    return page


@pytest.mark.browser
@pytest.mark.parametrize("name", FIXTURES_WITH_STEPS)
def test_backward_steps_follow_the_trace(page, standalone, artifacts, name, trace_fixture):
    trace = trace_fixture(name)
    steps, n = trace["steps"], len(trace["steps"])
    labels = {n["id"]: n["label"] for n in trace["nodes"]}
    open_page(page, standalone, name)
    assert step_label(page) == f"step 0 / {n}"
    assert current_op(page) is None
    page.locator(".me-tape-debugger").screenshot(path=str(artifacts / f"{name}-step-0.png"))

    for k, step in enumerate(steps):
        page.click("[data-role=step-button]")
        assert step_label(page) == f"step {k + 1} / {n}"
        assert current_op(page) == step["op"]
        rule = page.text_content("[data-role=rule]")
        for line in step["rule"]:
            assert line in rule
        upstream = step["upstream"][0]["value"]
        if upstream["full"]:
            assert_close(numbers(page.inner_text("[data-role=upstream] .me-value-data")), flat(upstream["data"]), f"upstream at step {k}")

        shown_edges = page.eval_on_selector_all("[data-role=edge-grad]", "els => els.map(e => e.dataset.edgeId)")
        assert sorted(shown_edges) == sorted(go["edge"] for go in step["grads_out"])
        for go in step["grads_out"]:
            value, edge = go["value"], go["edge"]
            card = page.locator(f"[data-role=grad-out][data-edge-id={edge}]")
            assert_close(numbers(card.locator(".me-value-data").first.inner_text()), flat(value["data"]), f"{edge} in the panel")
            edge_label = page.text_content(f"[data-role=edge-grad][data-edge-id={edge}] text")
            if len(flat(value["data"])) <= 4:
                assert_close(numbers(edge_label), flat(value["data"]), f"{edge} on the graph")
            else:
                assert "×".join(map(str, value["shape"])) in edge_label
            who = labels[go["tensor"]]
            if go["is_accumulation"]:
                text = card.locator("[data-role=accumulation]").text_content()
                assert f"{who}.grad +=" in text and "→ total" in text
                assert_close(numbers(text.split("→ total")[1]), flat(go["accumulated"]["data"]), f"total on {who}")
            else:
                assert card.locator("[data-role=accumulation]").count() == 0
        if k + 1 == min(2, n) or k == n - 1:
            page.locator(".me-tape-debugger").screenshot(path=str(artifacts / f"{name}-step-{k + 1}.png"))

    # The end: every source shows its final gradient, unreached ones show None.
    assert page.locator("[data-role=step-button]").is_disabled()
    for g in trace["gradients"]:
        item = page.locator(f"[data-role=final-gradient][data-source={g['source']}]")
        badge = page.text_content(f"[data-role=grad-badge][data-for={g['source']}] text")
        if g["value"] is None:
            assert "None" in item.text_content() and "None" in badge
            assert "is-unreached" in page.get_attribute(f"[data-node-id={g['source']}]", "class")
        else:
            assert_close(numbers(item.locator(".me-value-data").inner_text()), flat(g["value"]["data"]), f"final gradient of {g['name']}")
    assert set(trace["unreached"]) == {g["source"] for g in trace["gradients"] if g["value"] is None}


@pytest.mark.browser
def test_back_reset_and_slider(page, standalone, trace_fixture):
    steps = trace_fixture("square_plus_x")["steps"]
    open_page(page, standalone, "square_plus_x")
    page.click("[data-role=step-button]")
    page.click("[data-role=step-button]")
    assert current_op(page) == steps[1]["op"]
    page.click("[data-role=back-button]")
    assert (step_label(page), current_op(page)) == ("step 1 / 2", steps[0]["op"])
    page.click("[data-role=reset-button]")
    assert (step_label(page), current_op(page)) == ("step 0 / 2", None)
    assert page.locator("[data-role=edge-grad]").count() == 0
    page.locator("[data-role=slider]").fill("1")
    assert (step_label(page), current_op(page)) == ("step 2 / 2", steps[1]["op"])
    page.locator("[data-role=slider]").fill("0")
    assert (step_label(page), current_op(page)) == ("step 1 / 2", steps[0]["op"])


@pytest.mark.browser
def test_arrow_keys_step_when_focused(page, standalone):
    open_page(page, standalone, "square_plus_x")
    page.focus(".me-tape-debugger")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert step_label(page) == "step 2 / 2"
    page.keyboard.press("ArrowLeft")
    assert step_label(page) == "step 1 / 2"
    page.keyboard.press("Home")
    assert step_label(page) == "step 0 / 2"


@pytest.mark.browser
def test_play_runs_to_the_end(page, standalone):
    open_page(page, standalone, "dense_tanh")
    page.select_option("[data-role=speed]", label="4×")
    page.click("[data-role=play-button]")
    assert page.get_attribute("[data-role=play-button]", "aria-label") == "Pause"
    page.wait_for_function("document.querySelector('[data-role=step-label]').textContent === 'step 4 / 4'", timeout=5000)
    page.wait_for_function("document.querySelector('[data-role=play-button]').getAttribute('aria-label') === 'Play'", timeout=2000)


@pytest.mark.browser
def test_forward_mode_replays_the_tape(page, standalone, artifacts, trace_fixture):
    trace = trace_fixture("dense_tanh")
    open_page(page, standalone, "dense_tanh")
    page.click("[data-role=mode-toggle]")
    assert page.get_attribute("[data-role=mode-toggle]", "aria-checked") == "true"
    assert step_label(page) == f"step 0 / {len(trace['forward_steps'])}"
    produced = [out for f in trace["forward_steps"] for out in f["outputs"]]
    for tensor in produced:
        assert "is-pending" in page.get_attribute(f"[data-node-id={tensor}]", "class")
    for k, f in enumerate(trace["forward_steps"]):
        page.click("[data-role=step-button]")
        assert current_op(page) == f["op"]
        for out in f["outputs"]:
            classes = page.get_attribute(f"[data-node-id={out}]", "class")
            assert "is-produced-now" in classes and "is-pending" not in classes
        if k == 1:
            page.wait_for_timeout(500)  # let the new output fade in
            page.locator(".me-tape-debugger").screenshot(path=str(artifacts / "dense_tanh-forward-step-2.png"))
    # Switching back starts the backward pass from the beginning.
    page.click("[data-role=mode-toggle]")
    assert (step_label(page), current_op(page)) == (f"step 0 / {len(trace['steps'])}", None)


@pytest.mark.browser
def test_clicking_a_node_shows_its_value_and_gradient(page, standalone):
    open_page(page, standalone, "square_plus_x")
    page.click("[data-node-id=t0]")
    assert "is-selected" in page.get_attribute("[data-node-id=t0]", "class")
    assert_close(numbers(page.inner_text("[data-role=inspector-value] .me-value-data")), [1, 2, 3], "value of x")
    assert "Not computed yet" in page.text_content("[data-role=inspector-grad]")
    page.click("[data-role=step-button]")
    assert_close(numbers(page.inner_text("[data-role=inspector-grad] .me-value-data")), [1, 1, 1], "gradient of x after step 1")
    page.click("[data-role=step-button]")
    assert_close(numbers(page.inner_text("[data-role=inspector-grad] .me-value-data")), [3, 5, 7], "gradient of x at the end")
    page.click(".me-canvas", position={"x": 5, "y": 5})  # the background clears the selection
    assert page.locator("[data-role=inspector]").count() == 0


@pytest.mark.browser
def test_summary_values_show_statistics(page, standalone, trace_fixture):
    open_page(page, standalone, "dense_tanh")
    x = next(n for n in trace_fixture("dense_tanh")["nodes"] if n["id"] == "t0")["value"]
    assert x["full"] is False
    assert page.locator("[data-node-id=t0] .me-heatmap rect").count() == 4 * 5 + 1  # cells + frame
    page.click("[data-node-id=t0]")
    assert_close(numbers(page.inner_text("[data-role=inspector-value] .me-value-data")), [x["min"], x["max"], x["mean"]], "stats of x")


@pytest.mark.browser
def test_empty_trace_says_so(page, standalone):
    open_page(page, standalone, "empty")
    assert page.locator("[data-role=empty]").is_visible()
    assert "This tape recorded nothing yet" in page.text_content("[data-role=empty]")
    assert not page.locator("[data-role=step-button]").is_visible()


@pytest.mark.browser
def test_error_is_shown_kindly(page, standalone, trace_fixture):
    trace = dict(trace_fixture("empty"), error="target is not a Tensor recorded on this tape")
    open_page(page, standalone, trace)
    alert = page.locator("[role=alert][data-role=error]")
    assert alert.is_visible() and "target is not a Tensor recorded on this tape" in alert.text_content()


@pytest.mark.browser
def test_truncated_trace_starts_collapsed(page, standalone, trace_fixture):
    trace = dict(trace_fixture("dense_tanh"), truncated={"limit": 8, "total": 12})
    open_page(page, standalone, trace)
    assert "12 nodes: each layer is folded into one node" in page.text_content("[data-role=notice]")
    assert page.locator(".me-folded[data-cluster-id=dense]").count() == 1
    assert page.locator("[data-node-id=op0]").count() == 0
    for _ in range(3):  # step 3 differentiates op1, which is inside the folded cluster
        page.click("[data-role=step-button]")
    assert "contains-current" in page.get_attribute(".me-folded[data-cluster-id=dense]", "class")
    page.click(".me-folded[data-cluster-id=dense]")
    assert current_op(page) == "op1"
    page.click(".me-cluster-title[data-cluster-id=dense]")
    assert page.locator("[data-node-id=op1]").count() == 0


@pytest.mark.browser
def test_hide_constants(page, standalone):
    open_page(page, standalone, "dense_tanh")
    assert page.locator("[data-node-id=t0]").count() == 1
    page.check("[data-role=hide-constants]")
    assert page.locator("[data-node-id=t0]").count() == 0
    assert page.locator("[data-edge-id=e0]").count() == 0
    page.uncheck("[data-role=hide-constants]")
    assert page.locator("[data-node-id=t0]").count() == 1


@pytest.mark.browser
def test_custom_gradient_op_has_a_badge(page, standalone, trace_fixture):
    trace = trace_fixture("square_plus_x")
    op = next(n for n in trace["nodes"] if n["id"] == "op0")
    op.update(custom=True, name="my_square")
    open_page(page, standalone, trace)
    assert page.locator("[data-node-id=op0] [data-role=custom-badge]").is_visible()
    assert "my_square" in page.text_content("[data-node-id=op0] .me-op-label")


@pytest.mark.browser
def test_fallback_layout_follows_the_direction(page, standalone, trace_fixture):
    trace = trace_fixture("square_plus_x")
    assert trace["layout"] is None
    open_page(page, standalone, trace)
    chain = ["t0", "op0", "t1", "op1", "t2"]

    def centres():
        return page.evaluate("""ids => ids.map(id => {
            const r = document.querySelector(`[data-node-id="${id}"] .me-shape`).getBoundingClientRect();
            return [r.x + r.width / 2, r.y + r.height / 2]; })""", chain)
    xs = [x for x, _ in centres()]
    assert xs == sorted(xs) and len(set(xs)) == len(xs)
    page.select_option("[data-role=direction]", "TB")
    ys = [y for _, y in centres()]
    assert ys == sorted(ys) and len(set(ys)) == len(ys)


@pytest.mark.browser
def test_a_trace_without_node_sizes_says_so(page, standalone, trace_fixture):
    """The page has no sizes of its own (they come from minieager/debugger/geometry.py)."""
    trace = trace_fixture("square_plus_x")
    del trace["nodes"][1]["size"]
    open_page(page, standalone, trace)
    assert "no box size for node op0" in page.text_content("[data-role=error]")
    assert page.locator("[data-node-id]").count() == 0
    assert not page.locator("[data-role=empty]").is_visible()


@pytest.mark.browser
def test_live_trace_updates_redraw(page, standalone, trace_fixture):
    open_page(page, standalone, "empty")
    page.evaluate("t => window.meTapeDebugger.model.set('trace', t)", trace_fixture("square_plus_x"))
    assert page.locator("[data-node-id]").count() == 5
    assert not page.locator("[data-role=empty]").is_visible()
    page.click("[data-role=step-button]")
    trace = trace_fixture("square_plus_x")
    trace["steps"] = trace["steps"][:1]  # a shorter trace clamps the step
    page.evaluate("t => window.meTapeDebugger.model.set('trace', t)", trace)
    assert step_label(page) == "step 1 / 1"


@pytest.mark.browser
def test_dark_theme(browser, standalone, artifacts):
    context = browser.new_context(viewport={"width": 1280, "height": 860}, color_scheme="dark")
    try:
        page = context.new_page()
        page.goto(standalone("dense_tanh"))
        for _ in range(3):
            page.click("[data-role=step-button]")
        assert "me-dark" in page.get_attribute(".me-tape-debugger", "class")
        page.locator(".me-tape-debugger").screenshot(path=str(artifacts / "dense_tanh-dark-step-3.png"))
    finally:
        context.close()


# -- static checks: no browser needed


def test_inlined_code_cannot_end_its_html_block_early(html_builder):
    assert "</script" not in (WIDGETS / "tape_debugger.js").read_text().lower()
    assert "</style" not in (WIDGETS / "tape_debugger.css").read_text().lower()
    html = html_builder({"nodes": [{"id": "t0", "kind": "tensor", "label": "</script><b>"}]})
    assert html.count("</script>") == 2


@pytest.mark.browser
def test_forward_mode_puts_the_numbers_into_the_formula(page, standalone):
    open_page(page, standalone, "square_plus_x")         # y = x * x + x at x = [1, 2, 3]
    page.click("[data-role=mode-toggle]")
    page.click("[data-role=step-button]")
    text = page.inner_text("[data-role=forward-numbers]")
    assert "a * b" in text
    assert_close(numbers(text.split("\n", 1)[1]), [1, 2, 3, 1, 2, 3, 1, 4, 9], "x * x with its numbers")
    page.click("[data-role=step-button]")
    assert_close(numbers(page.inner_text("[data-role=forward-numbers]").split("\n", 1)[1]),
                 [1, 4, 9, 1, 2, 3, 2, 6, 12], "x * x + x with its numbers")


@pytest.mark.browser
def test_an_op_whose_rule_is_code_shows_its_numbers_and_links_its_vjp(page, standalone):
    # An op defined as course lesson 04 says: a vjp, no rule words. Its gradient ran, so the step
    # shows the numbers it sent and "rule: (code)", which opens the vjp's source; never "no gradient".
    import numpy as np
    import minieager as me
    from minieager.extend import Op, register_kernel

    @register_kernel("browser_my_sigmoid", "cpu")
    def _kernel(x):
        return 1 / (1 + np.exp(-x))
    my_sigmoid = Op("browser_my_sigmoid", inputs=("x",), vjp=lambda dy, x, out: (dy * out * (1.0 - out),))
    x = me.Variable([0.0, 2.0], name="x")
    with me.GradientTape() as tape:
        y = me.reduce_sum(my_sigmoid(x))
    trace = me.debugger.trace(tape, y, [x]).to_dict()
    open_page(page, standalone, trace, "code_rule")
    page.click("[data-role=step-button]")
    page.click("[data-role=step-button]")                 # the second step: my_sigmoid
    card = page.inner_text(".me-panel")
    assert "no gradient" not in card
    assert "rule: (code)" in page.inner_text("[data-role=rule]")
    s = 1 / (1 + np.exp(-np.array([0.0, 2.0])))
    assert_close(numbers(page.inner_text("[data-role=rule-numbers]")), list(s * (1 - s)), "the gradient sent to x")
    page.click("[data-role=rule] [data-role=code-rule]")
    vjp = page.locator("[data-role=inspector-vjp]")
    assert vjp.get_attribute("open") is not None
    assert "browser_my_sigmoid" in vjp.inner_text() and "out * (1.0 - out)" in vjp.inner_text()
