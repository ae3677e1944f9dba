"""Notebook 09's graph views in JupyterLab, measured in Chromium at 1280x800 and 1920x1080.

The cells that draw graphs in notebooks/09_graphs.ipynb run in a real JupyterLab, once; the
window is then resized. Checked geometrically, in the page's own coordinates:

- ``graph.draw()`` (a static picture, laid out by dot as the debugger lays out a tape): it fits
  its output's width, no two node boxes intersect, no edge passes through a node box, and no
  text is drawn below 10 px (kind badges such as PLACEHOLDER: 8 px);
- the PassStepper, at every pass: it fits its output's width; each graph, before and after, is
  drawn by the debugger's front-end (graph mode) with dot's layout, keeps the same three
  guarantees at the automatic zoom, and marks what the pass changed; before and after sit side
  by side when both are readable so, one above the other when not;
- ``PassSteps`` (one static picture of every pass): it fits its output, no boxes intersect, no
  edge passes through a box. A static picture cannot zoom: where it is wider than its output it
  shrinks, and its text with it (at 1280x800 the widest pass graph, 1,117 px, shrinks into 848 px:
  11 px text is drawn at 8.4 px), so its text is checked at 1920x1080 only; the PassStepper above
  is the view that stays readable at every size.

The PNG pictures the same outputs carry for untrusted notebooks are checked by
test_untrusted_notebook.py.
"""
import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("anywidget")
sync_api = pytest.importorskip("playwright.sync_api")

pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")]

NOTEBOOK_09 = Path(__file__).resolve().parents[2] / "notebooks" / "09_graphs.ipynb"
SIZES = [(1280, 800), (1920, 1080)]
MIN_TEXT_PX, MIN_BADGE_PX = 10.0, 8.0
VIEWER = ".jp-OutputArea-output .me-pass-viewer"


def graph_cells():
    """Notebook 09's own cells, up to its PassStepper: its imports, the graphs and their views."""
    code = ["".join(c["source"]) for c in json.loads(NOTEBOOK_09.read_text())["cells"] if c["cell_type"] == "code"]
    starts = ("import time", "@me.function\ndef scaled_tanh", "concrete = scaled_tanh.get_concrete_function",
              "concrete.graph.draw()", "@me.function\ndef wasteful", "me.widgets.PassStepper(concrete)",
              "from minieager.graph.passes.view import PassSteps")
    cells = [next(c for c in code if c.startswith(start)) for start in starts]
    return cells


# Boxes, edge points and text sizes, in px of the page. `root` is an element holding the drawing:
# a pane of the pass viewer (the debugger's own classes) or a graph.draw() picture (svg.render's
# SVG, put inline over its <img> at the size it is shown, so that it measures as seen).
MEASURE = """(root) => {
  const rect = (el) => { const r = el.getBoundingClientRect(); return { x0: r.left, y0: r.top, x1: r.right, y1: r.bottom }; };
  let svg = root.querySelector('svg.me-graph'), scale, nodes, paths, texts, cleanup = () => {};
  if (svg) {             // the widget: the debugger's DOM
    scale = Number(svg.getAttribute('width')) / svg.viewBox.baseVal.width;
    nodes = [...svg.querySelectorAll('.me-nodes > g')].map((g) => ({ id: g.dataset.nodeId, ...rect(g.querySelector(':scope > .me-shape')) }));
    paths = [...svg.querySelectorAll('path.me-edge')];
    texts = [...svg.querySelectorAll('.me-nodes text')].map((t) => ({ badge: (t.getAttribute('class') || '').includes('me-kind-tag'),
      text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * scale }));
  } else {              // a static picture: its SVG, inline where the <img> is and as big
    const img = root.querySelector('img[src^="data:image/svg+xml"]') || root;
    const src = img.getAttribute('src');
    const text = src.includes(';base64,') ? atob(src.split(',')[1]) : decodeURIComponent(src.split(',')[1]);
    const r = img.getBoundingClientRect(), holder = document.createElement('div');
    holder.style.cssText = `position:fixed;left:${r.left}px;top:${r.top}px;width:${r.width}px;height:${r.height}px;pointer-events:none`;
    holder.innerHTML = text;
    document.body.append(holder);
    cleanup = () => holder.remove();
    svg = holder.querySelector('svg');
    svg.setAttribute('width', r.width); svg.setAttribute('height', r.height);
    scale = r.width / svg.viewBox.baseVal.width;
    nodes = [...svg.querySelectorAll('g[data-node-id]')].map((g) => ({ id: g.dataset.nodeId, ...rect(g.querySelector(':scope > rect')) }));
    paths = [...svg.querySelectorAll('path[marker-end]')];
    texts = [...svg.querySelectorAll('g[data-node-id] text')].map((t) => ({ badge: Number(t.getAttribute('font-size')) < 10,
      text: t.textContent, px: Number(t.getAttribute('font-size')) * scale }));
  }
  const ctm = svg.getScreenCTM();
  const edges = paths.map((path) => {
    const len = path.getTotalLength(), pts = [];
    for (let d = 0; d <= len; d += 3) {
      const p = path.getPointAtLength(d);
      pts.push([ctm.a * p.x + ctm.c * p.y + ctm.e, ctm.b * p.x + ctm.d * p.y + ctm.f]);
    }
    return pts;
  });
  const out = root.closest('.jp-OutputArea-output') ?? root;
  const result = { scale, nodes, edges, texts, box: rect(root), output: rect(out) };
  cleanup();
  return result;
}"""


def overlap(a, b):
    return min(a["x1"], b["x1"]) - max(a["x0"], b["x0"]) > 0 and min(a["y1"], b["y1"]) - max(a["y0"], b["y0"]) > 0


def assert_guarantees(geo, what, text=True):
    nodes = geo["nodes"]
    assert nodes and geo["edges"], f"{what}: nothing drawn"
    # It fits its output's width (a graph wider than its canvas scrolls inside it).
    assert geo["box"]["x1"] <= geo["output"]["x1"] + 1 and geo["box"]["x0"] >= geo["output"]["x0"] - 1, \
        f"{what}: {geo['box']} runs past its output {geo['output']}"
    clashes = [(a["id"], b["id"]) for i, a in enumerate(nodes) for b in nodes[i + 1:] if overlap(a, b)]
    assert not clashes, f"{what}: node boxes intersect: {clashes[:5]}"
    for pts in geo["edges"]:
        ends = {n["id"] for n in nodes for p in (pts[0], pts[-1])
                if n["x0"] - 4 <= p[0] <= n["x1"] + 4 and n["y0"] - 4 <= p[1] <= n["y1"] + 4}
        through = {n["id"] for n in nodes if n["id"] not in ends for p in pts
                   if n["x0"] + 1.5 < p[0] < n["x1"] - 1.5 and n["y0"] + 1.5 < p[1] < n["y1"] - 1.5}
        assert not through, f"{what}: an edge from {pts[0]} passes through {sorted(through)}"
    small = [(t["text"], round(t["px"], 1)) for t in geo["texts"]
             if t["px"] < (MIN_BADGE_PX if t["badge"] else MIN_TEXT_PX) - 0.05]
    assert not text or not small, f"{what}: text below 10 px at scale {geo['scale']:.2f}: {small[:5]}"


def test_notebook_09_graph_views_fit_and_keep_the_guarantees(lab_notebook, snap):
    page = lab_notebook(graph_cells(), ".me-pass-viewer .me-graph", name="graph_views_09.ipynb", timeout_ms=90_000)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    pictures = page.locator(".jp-OutputArea-output:has(img[src^='data:image/svg+xml'])")
    sync_api.expect(pictures).to_have_count(2, timeout=60_000)        # graph.draw(), then PassSteps
    drawing, steps = pictures.first, pictures.last
    viewer = page.locator(VIEWER)
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(600)            # JupyterLab and the widget's ResizeObserver settle
        tag = f"{width}x{height}"
        # graph.draw(): laid out top to bottom (left to right would be 2,036 px for 9 nodes).
        drawing.scroll_into_view_if_needed()
        geo = drawing.evaluate(MEASURE)
        assert len(geo["nodes"]) == 14, geo["nodes"]          # 9 values and 5 op pills
        assert_guarantees(geo, f"graph.draw() at {tag}")
        snap(drawing, f"graph-draw-09-{tag}.png")
        # PassSteps: every pass in one static picture.
        steps.scroll_into_view_if_needed()
        geo = steps.evaluate(MEASURE)
        assert geo["scale"] <= 1.0 + 1e-6 and len(geo["nodes"]) > 60, (geo["scale"], len(geo["nodes"]))
        assert_guarantees(geo, f"PassSteps at {tag}", text=width >= 1920)
        # The PassStepper, pass by pass.
        viewer.scroll_into_view_if_needed()
        while not page.locator(f"{VIEWER} [data-role=previous-pass]").is_disabled():
            page.click(f"{VIEWER} [data-role=previous-pass]")
        passes = []
        while True:
            label = page.locator(f"{VIEWER} [data-role=pass-label]").inner_text()
            panes = viewer.locator(".me-pass-pane")
            assert panes.count() == 2
            boxes = []
            for i, side in enumerate(("before", "after")):
                pane = panes.nth(i)
                assert pane.locator(".me-graph").get_attribute("data-layout") == "dot", (label, side)
                assert pane.locator("[data-role=graph-title]").inner_text().startswith(side)
                assert_guarantees(pane.evaluate(MEASURE), f"{label} ({side}) at {tag}")
                boxes.append(pane.bounding_box())
            beside = "is-side" in viewer.locator(".me-pass-pair").get_attribute("class")
            if beside:
                assert boxes[1]["x"] >= boxes[0]["x"] + boxes[0]["width"] - 1 and abs(boxes[1]["y"] - boxes[0]["y"]) < 2
            else:
                assert boxes[1]["y"] >= boxes[0]["y"] + boxes[0]["height"] - 1
            marks = viewer.locator(".me-pass-pane").nth(0).locator("[class*='me-mark-']:not(.me-swatch)").count()
            if label.startswith("3 / 5") and width == 1280:
                # A merged node's card: what the pass did to it and the learner's line that made it.
                panes.nth(0).locator(".me-tensor.me-mark-merged").first.click()
                card = panes.nth(0).locator("[data-role=inspector]")
                assert card.locator("[data-role=inspector-mark]").inner_text().startswith("merged into %")
                assert "me.exp(x) * scale" in card.locator("[data-role=inspector-code]").inner_text()
                card.locator("[data-role=inspector-close]").click()
            passes.append((label, beside, marks))
            if page.locator(f"{VIEWER} [data-role=next-pass]").is_disabled():
                break
            page.click(f"{VIEWER} [data-role=next-pass]")
        snap(viewer, f"pass-viewer-09-{tag}.png")
        titles = [p[0].split(" · ")[1].split(":")[0] for p in passes]
        assert titles == ["constant folding", "arithmetic simplification", "common-subexpression elimination",
                          "dead-code elimination", "convolution epilogue fusion", "elementwise fusion"], titles
        # Every pass but the convolution epilogues (this function has no convolution) changed
        # something here: the graph before it marks what (a folded, simplified, merged, removed or
        # fused node; its op pill too).
        assert [marks > 0 for _, _, marks in passes] == [True, True, True, True, False, True], passes
        # Fusion's graphs are small: side by side at both sizes; CSE's are too wide for that at 1280.
        assert passes[5][1], passes
        if width == 1280:
            assert not passes[2][1], passes
    assert not errors, errors
