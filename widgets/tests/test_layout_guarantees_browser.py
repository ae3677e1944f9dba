"""The debugger's layout guarantees, measured in headless Chromium on real models.

Each drawing is checked geometrically, in the page's own coordinates, on notebook 00's 7-Dense
MLP (folded, and with every layer open), on the CNN of notebook 05 (the TF guide's MNIST model)
and on a 1,001-op tape, at 1280x800 and 1920x1080:

- no two node boxes intersect;
- no layer box intersects a node outside it;
- no edge passes through a node box (other than the two it joins);
- every layer title is visible and clickable (the element at its centre is the title);
- no text is drawn below 10 px at the automatic zoom (kind badges such as VARIABLE: 8 px).

The layouts come from Graphviz's dot (minieager/debugger/layout.py); without it these tests skip
and tests/debugger/test_layout_views.py checks the built-in layout's own promises.
"""
import re
import shutil

import numpy as np
import pytest

import minieager as me
from example_traces import long_tape  # (widgets/tests is on sys.path: pytest's rootdir import)

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")]

SIZES = [(1280, 800), (1920, 1080)]
MIN_TEXT_PX, MIN_BADGE_PX = 10.0, 8.0


def notebook00_mlp():
    """Notebook 00's big model: six Dense(16, relu) and a Dense(1), with a mean squared error."""
    me.random.set_seed(0)
    model = me.keras.Sequential([me.keras.layers.Dense(16, activation="relu") for _ in range(6)]
                                + [me.keras.layers.Dense(1)])
    xb = me.reshape(me.linspace(-1.0, 1.0, 32), (8, 4))
    yb = me.zeros((8, 1))
    with me.GradientTape(persistent=True) as tape:
        mse = me.reduce_mean(me.square(model(xb) - yb))
    return me.debugger.trace(tape, mse, model.trainable_variables)


def guide_cnn():
    """Notebook 05's CNN (the TF guide's): two Conv2D, global average pooling, a Dense(10)."""
    me.random.set_seed(0)
    model = me.keras.Sequential([
        me.keras.layers.Conv2D(16, [3, 3], activation="relu"),
        me.keras.layers.Conv2D(16, [3, 3], activation="relu"),
        me.keras.layers.GlobalAveragePooling2D(),
        me.keras.layers.Dense(10)])
    images = me.constant(np.random.default_rng(0).random((2, 8, 8, 1), dtype=np.float32))
    labels = me.constant([3, 7], dtype=me.int64)
    with me.GradientTape(persistent=True) as tape:
        loss = me.reduce_mean(me.losses.sparse_softmax_cross_entropy(labels, model(images)))
    return me.debugger.trace(tape, loss, model.trainable_variables)


MODELS = {"mlp": notebook00_mlp, "cnn": guide_cnn, "tape1001": long_tape}
_built = {}


def built(name):
    if name not in _built:
        _built[name] = MODELS[name]()
    return _built[name]


MEASURE = """() => {
  const rect = (el) => { const r = el.getBoundingClientRect(); return { x0: r.left, y0: r.top, x1: r.right, y1: r.bottom }; };
  const svg = document.querySelector('.me-graph');
  const zoom = Number(svg.getAttribute('width')) / svg.viewBox.baseVal.width;
  const nodes = [...document.querySelectorAll('.me-nodes > g')].map((g) => ({
    id: g.dataset.nodeId ?? ('cluster:' + g.dataset.clusterId), ...rect(g.querySelector(':scope > .me-shape')) }));
  const clusters = [...document.querySelectorAll('[data-cluster-box]')].map((g) => ({
    id: g.dataset.clusterBox, ...rect(g.querySelector('.me-cluster-box')) }));
  const ctm = svg.getScreenCTM();
  const edges = [...document.querySelectorAll('path.me-edge')].map((path) => {
    const len = path.getTotalLength(), pts = [];
    for (let d = 0; d <= len; d += 3) {
      const p = path.getPointAtLength(d);
      pts.push([ctm.a * p.x + ctm.c * p.y + ctm.e, ctm.b * p.x + ctm.d * p.y + ctm.f]);
    }
    return { id: path.dataset.edgeId, pts };
  });
  const titles = [...document.querySelectorAll('.me-cluster-title')].map((t) => ({ id: t.dataset.clusterId, ...rect(t.querySelector('rect')) }));
  const texts = [...document.querySelectorAll('.me-nodes text, .me-cluster-titles text')].filter((t) => t.textContent.trim()).map((t) => ({
    cls: t.getAttribute('class') || '', text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * zoom }));
  return { zoom, nodes, clusters, edges, titles, texts };
}"""


def overlap(a, b, margin=0.0):
    return min(a["x1"], b["x1"]) - max(a["x0"], b["x0"]) > margin and min(a["y1"], b["y1"]) - max(a["y0"], b["y0"]) > margin


def inside(p, box, margin):
    return box["x0"] + margin < p[0] < box["x1"] - margin and box["y0"] + margin < p[1] < box["y1"] - margin


def assert_guarantees(page, data, what):
    geo = page.evaluate(MEASURE)
    nodes = geo["nodes"]
    assert nodes, f"{what}: nothing drawn"
    # 1. No two node boxes intersect.
    clashes = [(a["id"], b["id"]) for i, a in enumerate(nodes) for b in nodes[i + 1:] if overlap(a, b)]
    assert not clashes, f"{what}: node boxes intersect: {clashes[:5]}"
    # 2. No layer box intersects a node outside it.
    homes = me.debugger.layout.fold_homes(data)
    for c in geo["clusters"]:
        strangers = [n["id"] for n in nodes if homes.get(n["id"]) != c["id"] and overlap(n, c)]
        assert not strangers, f"{what}: the box of {c['id']} intersects nodes outside it: {strangers[:5]}"
    # 3. No edge passes through a node box other than its ends (where it starts and where it points).
    for e in geo["edges"]:
        first, last = e["pts"][0], e["pts"][-1]
        ends = {n["id"] for n in nodes for p in (first, last)
                if n["x0"] - 4 <= p[0] <= n["x1"] + 4 and n["y0"] - 4 <= p[1] <= n["y1"] + 4}
        through = {n["id"] for n in nodes if n["id"] not in ends for p in e["pts"] if inside(p, n, 1.5)}
        assert not through, f"{what}: edge {e['id']} passes through {sorted(through)[:5]}"
    # 4. Every layer title is visible (not under a node) and clickable.
    for t in geo["titles"]:
        assert not [n["id"] for n in nodes if overlap(n, t)], f"{what}: a node covers the title of {t['id']}"
        title = page.locator(f".me-cluster-title[data-cluster-id='{t['id']}']")
        title.scroll_into_view_if_needed()
        hit = page.evaluate("""(id) => {
          const t = [...document.querySelectorAll('.me-cluster-title')].find((el) => el.dataset.clusterId === id);
          const r = t.querySelector('rect').getBoundingClientRect();
          const el = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          return Boolean(el && el.closest('.me-cluster-title') === t);
        }""", t["id"])
        assert hit, f"{what}: the title of {t['id']} is not the element under its centre"
    # 5. Text at the automatic zoom: 10 px at least (kind badges 8 px).
    small = [(x["text"], round(x["px"], 1)) for x in geo["texts"]
             if x["px"] < (MIN_BADGE_PX if "me-kind-tag" in x["cls"] else MIN_TEXT_PX) - 0.05]
    assert not small, f"{what}: text below 10 px at zoom {geo['zoom']:.2f}: {small[:5]}"
    return geo


def open_page(browser, tmp_path, trace, size, name):
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(me.debugger.save_html(trace, tmp_path / f"{name}.html").as_uri())
    page.wait_for_selector(".me-tape-debugger .me-graph")
    page.js_errors = errors
    return page


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_models_folded_and_unfolded_keep_the_guarantees(browser, tmp_path, snap, name, size):
    trace = built(name)
    data = trace.to_dict()
    assert data["views"], "dot laid out no view"
    page = open_page(browser, tmp_path, trace, size, name)
    tag = f"{name}-{size[0]}x{size[1]}"
    assert page.get_attribute(".me-graph", "data-layout") == "dot"
    first = assert_guarantees(page, data, f"{tag}, as opened")
    # Every layer open at once ("open all layers"), then each layer open alone.
    if data["clusters"]:
        button = page.locator("[data-role=fold-all]")
        if page.locator(".me-folded").count():
            assert button.inner_text() == "open all layers"
            button.click()
        assert page.locator(".me-folded").count() == 0
        assert page.get_attribute(".me-graph", "data-layout") == "dot"
        geo = assert_guarantees(page, data, f"{tag}, every layer open")
        assert {t["id"] for t in geo["titles"]} == {c["id"] for c in data["clusters"]}
        snap(page.locator(".me-tape-debugger"), f"layout-{tag}-unfolded.png")
        assert button.inner_text() == "fold all layers"
        button.click()
        assert page.locator(".me-folded").count() == len(data["clusters"])
        for c in data["clusters"][:3]:
            page.locator(f".me-folded[data-cluster-id='{c['id']}']").click()
            assert page.get_attribute(".me-graph", "data-layout") == "dot"      # no kernel: the others fold
            geo = assert_guarantees(page, data, f"{tag}, {c['id']} open")
            assert [t["id"] for t in geo["titles"]] == [c["id"]]
            page.locator(f".me-cluster-title[data-cluster-id='{c['id']}']").click()   # the title folds it back
            assert page.locator(f".me-folded[data-cluster-id='{c['id']}']").count() == 1
    assert first["nodes"]
    assert not page.js_errors
    page.close()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_thousand_op_tape_keeps_the_guarantees(browser, tmp_path, snap, size):
    trace = built("tape1001")
    data = trace.to_dict()
    assert len(data["forward_steps"]) == 1001 and data["views"]
    page = open_page(browser, tmp_path, trace, size, "tape1001")
    assert page.locator(".me-folded").count() == len(data["clusters"])
    assert_guarantees(page, data, f"1,001 ops at {size[0]}x{size[1]}, folded")
    page.focus(".me-tape-debugger")
    page.keyboard.press("End")
    assert_guarantees(page, data, f"1,001 ops at {size[0]}x{size[1]}, last step")
    snap(page.locator(".me-tape-debugger"), f"layout-tape1001-{size[0]}x{size[1]}.png")
    assert not page.js_errors
    page.close()


@pytest.mark.parametrize("name", ["mlp", "cnn", "tape1001"])
def test_without_graphviz_folded_graphs_keep_the_guarantees(browser, tmp_path, name):
    # The trace a machine without Graphviz makes: no views, no layout; the page lays the folded
    # graph out itself (layers folded, so no cluster box needs placing).
    data = dict(built(name).to_dict(), views=None, layout=None)
    page = open_page(browser, tmp_path, me.debugger.Trace(data), (1280, 800), f"{name}-nodot")
    if page.locator(".me-folded").count() == 0 and data["clusters"]:
        page.locator("[data-role=fold-all]").click()
    assert page.locator(".me-folded").count() == len(data["clusters"])
    assert_guarantees(page, data, f"{name} without Graphviz, folded")
    assert not page.js_errors
    page.close()


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_every_box_has_a_unique_meaningful_name(browser, tmp_path, snap, name):
    # Each variable reads as its layer's and its own: "dense_3/kernel", "conv2d_1/bias" (shortened
    # from the left, "…/dense_3/kernel", when it must be), never "dense…"; the full name is in its
    # tooltip and in the inspector.
    data = built(name).to_dict()
    page = open_page(browser, tmp_path, built(name), (1280, 800), f"{name}-names")
    page.locator("[data-role=fold-all]").click() if page.locator(".me-folded").count() else None
    shown = page.evaluate("""() => [...document.querySelectorAll('.me-nodes > g.me-tensor')].map((g) => ({
      id: g.dataset.nodeId, label: g.querySelector('.me-node-label').textContent, title: g.querySelector('title').textContent }))""")
    labels = [x["label"] for x in shown]
    assert len(set(labels)) == len(labels), f"labels repeat: {sorted(labels)}"
    by_id = {n["id"]: n for n in data["nodes"]}
    for x in shown:
        full = by_id[x["id"]]["label"]
        assert x["title"].startswith(full)
        core = full[:-2] if by_id[x["id"]]["kind"] == "variable" and full.endswith(":0") else full
        assert x["label"] == core or (x["label"].startswith("…") and core.endswith(x["label"][1:])), (x, full)
    variables = {x["label"] for x in shown if by_id[x["id"]]["kind"] == "variable"}
    # (Keras numbers layers per process: "dense_3" here may be "dense_10" after another model.)
    def count(pattern):
        return len({v for v in variables if re.fullmatch(pattern, v)})
    if name == "mlp":
        assert count(r"dense(_\d+)?/kernel") == 7 and count(r"dense(_\d+)?/bias") == 7, variables
    else:
        assert count(r"conv2d(_\d+)?/kernel") == 2 and count(r"conv2d(_\d+)?/bias") == 2, variables
        assert count(r"dense(_\d+)?/kernel") == 1, variables
    kernel = next(x["id"] for x in shown if x["label"].endswith("/kernel"))
    page.click(f"[data-node-id={kernel}]")
    assert by_id[kernel]["label"] in page.text_content("[data-role=inspector] h3")
    snap(page.locator(".me-tape-debugger"), f"names-{name}.png")
    page.close()


LAB_CHROME = 100     # px JupyterLab's own bars take from a 800 px window above and below an output


@pytest.mark.parametrize("width", [1280, 1008, 800], ids=["wide", "lab-968px-output", "narrow"])
@pytest.mark.parametrize("name", ["mlp", "cnn", "tape1001"])
def test_graph_step_button_and_step_card_fit_on_one_screen(browser, tmp_path, snap, name, width):
    page = open_page(browser, tmp_path, built(name), (width, 800), f"{name}-onescreen")
    for _ in range(3):
        page.click("[data-role=step-button]")
    boxes = {role: page.locator(sel).bounding_box() for role, sel in
             [("widget", ".me-tape-debugger"), ("step", "[data-role=step-button]"), ("graph", ".me-canvas"),
              ("card", ".me-card.me-current")]}
    wide = "is-wide" in page.get_attribute(".me-tape-debugger", "class")
    assert wide == (boxes["widget"]["width"] >= 900)
    top = boxes["widget"]["y"]
    for role in ("step", "graph", "card"):
        b = boxes[role]
        assert b["y"] >= top and b["y"] + min(b["height"], 120) <= top + 800 - LAB_CHROME, (role, b, top)
    assert boxes["graph"]["y"] + boxes["graph"]["height"] <= top + 800 - LAB_CHROME
    if wide:      # the card beside the graph, at its height
        assert boxes["card"]["x"] >= boxes["graph"]["x"] + boxes["graph"]["width"] - 1
    else:         # below it, compact
        assert boxes["card"]["y"] >= boxes["graph"]["y"] + boxes["graph"]["height"] - 1
        assert boxes["card"]["y"] + boxes["card"]["height"] <= top + 800 - LAB_CHROME
    snap(page.locator(".me-tape-debugger"), f"onescreen-{name}-{width}.png")
    assert not page.js_errors
    page.close()
