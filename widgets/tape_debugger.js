// minieager tape debugger: the front-end of the visual GradientTape debugger.
//
// One ES module with no dependencies and no build step. In Jupyter, anywidget loads it and calls
// `render({ model, el })`; the standalone HTML export inlines it and calls `mount(el, trace)`.
// Both go through `mount`: without a kernel, a small in-memory stand-in for the anywidget model
// holds the state, so there is a single code path.
//
// Input: a trace in the format of docs/trace-format.md. Synced state: `trace` (dict), `step`
// (int, counted from 1 as the "step 2 / 5" label shows it; 0 = before the first step), `mode`
// ("backward" | "forward"), `selected` (node id or ""), `checks` (node id -> a gradient check).
// Inside this file `k` is the step's index in the trace's list, step - 1 (-1 before the first).
//
// How the file is organised (anywidget loads one module, so it is one file, top to bottom):
//   helpers          DOM helpers, values and how they are written, the model stand-in without a kernel
//   the trace        prepareTrace (the trace made ready to draw), visibleGraph (folded, constants hidden)
//   layout           the page's own layered layout, edge routes, layoutForCanvas (rows that fit)
//   steps            what each backward / forward step shows, the rule with its numbers
//   the views        one small class per concern, each building its own DOM:
//                      ControlsView   toolbar (mode, reset/back/step/play, speed, slider) and footer options
//                      CanvasView     the graph: nodes, edges, clusters; per step highlights and gradients
//                      InspectorView  the side panel's step card and the selected node's card
//                      ViewportView   zoom, scrolling, the minimap and the target / current-op finders
//   the widget       TapeDebugger: the model's state and the prepared trace; tells the views what to show
//   the pass viewer  PassViewer: a graph before and after each optimisation pass, each drawn by a
//                    TapeDebugger in graph mode (no steps), so graphs and tapes share one drawing
//   entry points     mount (standalone page), mountPasses, and anywidget's render
//
// Geometry: every box's size comes from the trace (node `size`, cluster `folded_size`, set by
// minieager/debugger/geometry.py), so the pictures Python draws and this page draw the same
// boxes. This file defines no node sizes; it places nodes itself only where Python cannot
// (while a tape records, rows that fit the canvas, the other direction, folded layers).

const SVG_NS = "http://www.w3.org/2000/svg";
const PAD = 28; // margin around the drawing, px
// The smallest zoom that keeps node text at 10 px or more (its smallest is 11 px; kind badges,
// 9 px, stay at 8 px or more): below it, text is too small to read, so wrap, fold or scroll instead.
const READABLE = 10 / 11;
const WIDE = 900; // px: a widget at least this wide puts the step card beside the graph, not below it
const AUTO_FOLD_NODES = 40; // a graph with more nodes than this starts with its layers folded
const SPEEDS = [["0.5×", 2400], ["1×", 1200], ["2×", 600], ["4×", 300]];
const KIND_TAG = { variable: "variable", watched: "watched", constant: "constant", target: "target", placeholder: "placeholder" };
const LEGEND = [
  ["variable", "Variable"], ["watched", "watched tensor"], ["constant", "constant"],
  ["tensor", "intermediate"], ["target", "target"], ["op", "op"], ["placeholder", "argument"],
];
// What an optimisation pass did to a node of a graph view (the trace's `mark`, set by
// minieager/graph/draw.py); the same colours as minieager/debugger/svg.py's MARKS.
const MARKS = ["removed", "merged", "simplified", "folded", "fused"];
let instances = 0; // gives each drawing unique SVG ids (several widgets can share a page)

// ---------------------------------------------------------------- DOM helpers

function setProps(node, props) {
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
}

function h(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  setProps(node, props);
  node.append(...[].concat(children).filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

function s(tag, props = {}, children = []) {
  const node = document.createElementNS(SVG_NS, tag);
  setProps(node, props);
  node.append(...[].concat(children).filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

// Button icons as inline SVG: fonts differ in which media-control glyphs they have.
const ICONS = {
  reset: "M3.2 8a4.8 4.8 0 1 0 1.4-3.4M4.6 1.6v3h3",
  back: "M13 2.5v11L5 8zM2.5 2.5h2v11h-2z",
  step: "M3 2.5v11L11 8zM11.5 2.5h2v11h-2z",
  play: "M4 2.5v11L13 8z",
  pause: "M3.5 2.5h3v11h-3zM9.5 2.5h3v11h-3z",
};
const icon = (name) => s("svg", { class: `me-icon me-icon-${name}`, viewBox: "0 0 16 16", width: 13, height: 13, "aria-hidden": "true" },
  [s("path", { d: ICONS[name] })]);

const r1 = (v) => Math.round(v * 10) / 10; // keeps the SVG source short

function truncate(text, maxChars) {
  text = String(text);
  return text.length <= maxChars ? text : text.slice(0, Math.max(1, maxChars - 1)) + "…";
}

// A name shortened from the left, so that what tells names apart stays: whole leading parts of a
// path go first ("sequential/dense_3/kernel" -> "…/dense_3/kernel"), then characters.
function shortenLeft(text, maxChars) {
  text = String(text);
  if (text.length <= maxChars) return text;
  const parts = text.split("/");
  for (let i = 1; i < parts.length; i++) {
    const rest = "…/" + parts.slice(i).join("/");
    if (rest.length <= maxChars) return rest;
  }
  return "…" + text.slice(text.length - Math.max(1, maxChars - 1));
}

// The name a tensor's box shows: a Variable's without TF's ":0" ("dense_3/kernel"); the full
// name stays in its tooltip and the inspector.
const boxLabel = (n) => (n.kind === "variable" ? nodeLabel(n).replace(/:0(?=( \(\d+\))?$)/, "") : nodeLabel(n));

// The pill of an open layer's title, "▾ name" in 12 px semi-bold (dot left room for it).
const titleWidth = (label) => textWidth(`▾ ${label}`, 12) * 1.12 + 22;

// Rough text width for fitting labels into boxes, without measuring (nodes are drawn detached).
const textWidth = (text, fontSize, mono = false) => String(text).length * fontSize * (mono ? 0.61 : 0.57);

// ---------------------------------------------------------------- values

export function formatNumber(v, digits = 4) {
  if (v === null || v === undefined) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "string") return v; // "nan", "inf", "-inf": JSON has no non-finite numbers
  if (!Number.isFinite(v)) return Number.isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf";
  if (Number.isInteger(v) && Math.abs(v) < 1e6) return String(v);
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return v.toExponential(Math.min(2, digits - 1));
  return String(Number(v.toPrecision(digits)));
}

// A value is {shape, dtype, full, data} or a summary {full: false, min, max, mean, heatmap}.
// Be lenient with bare numbers and lists so that a hand-built trace still renders.
function asValue(value) {
  if (value === null || value === undefined) return null;
  if (typeof value !== "object" || Array.isArray(value)) return { full: true, data: value };
  return value;
}

function shapeOf(value) {
  if (!value) return [];
  if (Array.isArray(value.shape)) return value.shape;
  const shape = [];
  for (let d = value.data; Array.isArray(d); d = d[0]) shape.push(d.length);
  return shape;
}

const numel = (shape) => shape.reduce((a, b) => a * b, 1);
const formatShape = (shape) => (shape.length ? shape.join("×") : "scalar");
const flat = (data) => (Array.isArray(data) ? data.flat(Infinity) : [data]);

function formatData(data, digits = 4) {
  return Array.isArray(data) ? "[" + data.map((d) => formatData(d, digits)).join(", ") + "]" : formatNumber(data, digits);
}

function stats(value) {
  if (!value.full) return { min: value.min, max: value.max, mean: value.mean };
  const xs = flat(value.data).filter((x) => typeof x === "number");
  if (!xs.length) return { min: null, max: null, mean: null };
  return { min: Math.min(...xs), max: Math.max(...xs), mean: xs.reduce((a, b) => a + b, 0) / xs.length };
}

// Short text for edge labels and badges: every number when there are few, else shape and mean.
function compactValue(value, maxItems = 4, digits = 4) {
  value = asValue(value);
  if (!value) return "None";
  const shape = shapeOf(value);
  if (value.full && numel(shape) <= maxItems) return formatData(value.data, digits);
  return `${formatShape(shape)} · mean ${formatNumber(stats(value).mean, digits)}`;
}

// The matrix to draw as a heatmap, if any: the data of a full 2-D value, or a summary's heatmap.
function heatmapOf(value) {
  value = asValue(value);
  if (!value) return null;
  if (!value.full) return Array.isArray(value.heatmap) && value.heatmap.length ? value.heatmap : null;
  return shapeOf(value).length === 2 && numel(shapeOf(value)) > 1 ? value.data : null;
}

// Diverging colours centred on zero: the sign of a gradient matters more than its size.
function heatColor(v, absMax) {
  if (typeof v !== "number" || !Number.isFinite(v)) return "rgb(190,190,190)";
  const t = absMax > 0 ? Math.max(-1, Math.min(1, v / absMax)) : 0;
  const [r0, g0, b0] = [244, 244, 246];
  const [r1, g1, b1] = t >= 0 ? [214, 62, 52] : [40, 110, 205];
  const k = Math.abs(t);
  return `rgb(${Math.round(r0 + (r1 - r0) * k)},${Math.round(g0 + (g1 - g0) * k)},${Math.round(b0 + (b1 - b0) * k)})`;
}

const absMaxOf = (matrix) => Math.max(0, ...flat(matrix).filter(Number.isFinite).map(Math.abs));

function heatmapSvg(matrix, x, y, w, h) {
  const rows = matrix.length, cols = Math.max(...matrix.map((row) => row.length));
  const absMax = absMaxOf(matrix);
  const cw = w / cols, ch = h / rows;
  const cells = [];
  matrix.forEach((row, i) => row.forEach((v, j) => cells.push(s("rect", {
    x: r1(x + j * cw), y: r1(y + i * ch), width: r1(cw + 0.3), height: r1(ch + 0.3), fill: heatColor(v, absMax),
  }))));
  cells.push(s("rect", { class: "me-heatmap-frame", x, y, width: w, height: h }));
  return s("g", { class: "me-heatmap", "aria-hidden": "true" }, cells);
}

// A value in the side panel: a number, a small table with heat-coloured cells, or a summary;
// the numbers are in `.me-value-data`, the shape and dtype in a caption under them.
function valueView(value) {
  value = asValue(value);
  if (!value) return h("span", { class: "me-none", text: "None" });
  const shape = shapeOf(value);
  const caption = h("div", { class: "me-value-meta", text: [formatShape(shape), value.dtype].filter(Boolean).join(" · ") });
  if (value.full && shape.length === 0) {
    return h("div", { class: "me-value" }, [h("span", { class: "me-value-data me-scalar", text: formatNumber(value.data) }), caption]);
  }
  if (value.full && shape.length <= 2) {
    const matrix = shape.length === 1 ? [value.data] : value.data;
    const absMax = absMaxOf(matrix);
    const rows = matrix.map((row) => h("tr", {}, row.map((v) => h("td", {
      text: formatNumber(v), style: `--me-cell: ${heatColor(v, absMax)}`,
    }))));
    return h("div", { class: "me-value" }, [h("table", { class: "me-value-data me-matrix" }, rows), caption]);
  }
  if (value.full) return h("div", { class: "me-value" }, [h("pre", { class: "me-value-data me-nested", text: formatData(value.data) }), caption]);
  const st = stats(value);
  const hm = heatmapOf(value);
  const cols = hm ? Math.max(...hm.map((row) => row.length)) : 0;
  return h("div", { class: "me-value" }, [
    h("dl", { class: "me-value-data me-stats" }, ["min", "max", "mean"].flatMap((k) => [h("dt", { text: k }), h("dd", { text: formatNumber(st[k]) })])),
    value.nonfinite && h("div", { class: "me-note", text: `+ ${value.nonfinite} non-finite (nan or inf) elements, left out of the statistics` }),
    hm && s("svg", { class: "me-heatmap-large", width: 12 * cols, height: 12 * hm.length, viewBox: `0 0 ${12 * cols} ${12 * hm.length}` },
      [heatmapSvg(hm, 0, 0, 12 * cols, 12 * hm.length)]),
    caption,
  ]);
}

// ---------------------------------------------------------------- state without a kernel

// The subset of the anywidget model API that this file uses, for the standalone page.
function createLocalModel(state) {
  const handlers = new Map();
  return {
    get: (key) => state[key],
    set(key, value) {
      if (state[key] === value) return;
      state[key] = value;
      for (const f of [...(handlers.get("change:" + key) ?? [])]) f();
    },
    on(event, f) {
      if (!handlers.has(event)) handlers.set(event, new Set());
      handlers.get(event).add(f);
    },
    off(event, f) { handlers.get(event)?.delete(f); },
    save_changes() {},
  };
}

// ---------------------------------------------------------------- the trace

// A box size as the trace gives it: [width, height] in px, both positive.
const isSize = (v) => Array.isArray(v) && v.length === 2 && v.every((x) => Number.isFinite(x) && x > 0);

function prepareTrace(raw) {
  const t = raw && typeof raw === "object" ? raw : {};
  let nodes = (Array.isArray(t.nodes) ? t.nodes : []).filter((n) => n && n.id != null);
  // Sizes come from Python (minieager/debugger/geometry.py); a trace without them (one made
  // before format 2, or by hand) cannot be drawn as Python draws it, so it says so instead.
  const unsized = nodes.find((n) => !isSize(n.size)) ?? (t.clusters ?? []).find((c) => c && c.id != null && !isSize(c.folded_size));
  const sizeError = unsized ? `This trace gives no box size for ${unsized.nodes ? "cluster" : "node"} ${unsized.id} (a trace from before `
    + "format 2, or made by hand): trace the tape again with this minieager." : null;
  if (unsized) nodes = [];
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const edges = (t.edges ?? []).filter((e) => byId.has(e.source) && byId.has(e.target));
  const forward = (t.forward_steps ?? []).filter((f) => byId.has(f.op));
  // The op -> output edges can be derived from forward_steps; draw them even if a trace omits them.
  const linked = new Set(edges.map((e) => `${e.source}>${e.target}`));
  for (const f of forward) {
    (f.outputs ?? []).forEach((out, i) => {
      if (byId.has(out) && !linked.has(`${f.op}>${out}`)) edges.push({ id: `${f.op}:out${i}`, source: f.op, target: out, output_index: i });
    });
  }
  const clusters = unsized ? [] : (t.clusters ?? []).filter((c) => c && c.id != null);
  const clusterOf = new Map();
  for (const n of nodes) if (n.cluster != null) clusterOf.set(n.id, n.cluster);
  for (const c of clusters) for (const id of c.nodes ?? []) if (byId.has(id)) clusterOf.set(id, c.id);
  const producedAt = new Map(); // tensor id -> index of the forward step that computes it
  forward.forEach((f, i) => (f.outputs ?? []).forEach((out) => producedAt.set(out, i)));
  // An input (a layer's kernel and bias) that only one layer reads folds into that layer with it.
  const readers = new Map();
  for (const e of edges) if (byId.get(e.target)?.kind === "op") (readers.get(e.source) ?? readers.set(e.source, new Set()).get(e.source)).add(clusterOf.get(e.target) ?? null);
  const inputHome = new Map();
  for (const [id, cs] of readers) {
    if (clusterOf.has(id) || producedAt.has(id) || cs.size !== 1 || [...cs][0] === null || id === t.target) continue;
    inputHome.set(id, [...cs][0]);
  }
  return {
    nodes, byId, edges, forward, producedAt, clusterOf, inputHome,
    forwardIndex: new Map(forward.map((f, i) => [f.op, i])),
    edgeById: new Map(edges.map((e) => [e.id, e])),
    clusters: new Map(clusters.map((c) => [c.id, c])),
    steps: (t.steps ?? []).filter((st) => st && byId.has(st.op)),
    target: t.target ?? null,
    sources: t.sources ?? [],
    unreached: new Set(t.unreached ?? []),
    gradients: new Map((t.gradients ?? []).map((g) => [g.source, g])),
    layout: t.layout && t.layout.positions ? t.layout : null,
    // Fold states laid out by dot (minieager/debugger/layout.py): "direction|folded ids, one a line".
    views: new Map(Object.entries(t.views && typeof t.views === "object" ? t.views : {}).map(([key, v]) => [`${t.direction === "TB" ? "TB" : "LR"}|${key}`, v])),
    direction: t.direction === "TB" ? "TB" : "LR",
    truncated: t.truncated ?? null,
    error: sizeError ?? (typeof t.error === "string" && t.error ? t.error : null),
    unsized: Boolean(unsized),
  };
}

const nodeLabel = (n) => (n ? String(n.label ?? n.name ?? n.id) : "?");
// A name inside ∂.../∂...: bracketed when it has characters of its own (a target named "dy/dx").
const dName = (name) => (/^[\w.:]+$/.test(name) ? name : `(${name})`);
const opLabel = (n) => String(n.custom ? (n.name ?? n.op ?? n.label) : (n.op ?? n.label ?? n.name ?? n.id));

// What the reader is looking at: clusters folded into one node, constants hidden or not.
function visibleGraph(p, view) {
  const rep = new Map(); // node id -> id of the node that stands for it, or null when hidden
  const vnodes = [];
  const folded = new Map();
  for (const n of p.nodes) {
    if (view.hideConstants && n.kind === "constant") { rep.set(n.id, null); continue; }
    const c = p.clusterOf.get(n.id) ?? p.inputHome.get(n.id);
    if (c != null && view.collapsed.has(c)) {
      if (!folded.has(c)) {
        const vn = { id: `cluster:${c}`, kind: "cluster", cluster: p.clusters.get(c) ?? { id: c, label: c }, members: [] };
        folded.set(c, vn);
        vnodes.push(vn);
      }
      folded.get(c).members.push(n.id);
      rep.set(n.id, `cluster:${c}`);
    } else {
      rep.set(n.id, n.id);
      vnodes.push({ id: n.id, kind: n.kind, node: n });
    }
  }
  const vedges = [];
  for (const e of p.edges) {
    const from = rep.get(e.source), to = rep.get(e.target);
    if (from && to && from !== to) vedges.push({ id: e.id, edge: e, from, to });
  }
  return { vnodes, vedges, rep };
}

// ---------------------------------------------------------------- layout

// The box of a visible node, as the trace sizes it: a node's `size`, a folded cluster's `folded_size`.
const sizeOf = (vn) => (vn.kind === "cluster" ? vn.cluster.folded_size : vn.node.size);

// Positions from trace.layout (centres, y down) when it covers every node and matches the direction.
function layoutFromTrace(p, g, direction) {
  const L = p.layout;
  if (!L || p.direction !== direction) return null;
  const has = (id) => Array.isArray(L.positions[id]);
  if (!g.vnodes.every((v) => (v.kind === "cluster" ? v.members.every(has) : has(v.id)))) return null;
  const boxes = new Map();
  for (const v of g.vnodes) {
    const [w, hh] = sizeOf(v);
    if (v.kind === "cluster") { // a folded cluster sits where its members were
      const xs = v.members.map((m) => L.positions[m][0]), ys = v.members.map((m) => L.positions[m][1]);
      boxes.set(v.id, { x: (Math.min(...xs) + Math.max(...xs)) / 2, y: (Math.min(...ys) + Math.max(...ys)) / 2, w, h: hh });
    } else {
      const [x, y] = L.positions[v.id];
      boxes.set(v.id, { x, y, w, h: hh });
    }
  }
  return boxes;
}

// Fallback when the trace has no layout: a small layered (Sugiyama-style) layout in the tape's order.
function layeredLayout(g, direction, wrap = null) {
  const ids = g.vnodes.map((v) => v.id);
  const size = new Map(g.vnodes.map((v) => [v.id, sizeOf(v)]));
  const succ = new Map(ids.map((i) => [i, []])), pred = new Map(ids.map((i) => [i, []]));
  for (const e of g.vedges) { succ.get(e.from).push(e.to); pred.get(e.to).push(e.from); }

  // 1. Ranks: longest path from the inputs, in Kahn's topological order.
  const rank = new Map(), indeg = new Map(ids.map((i) => [i, pred.get(i).length]));
  const queue = ids.filter((i) => indeg.get(i) === 0);
  queue.forEach((i) => rank.set(i, 0));
  for (let k = 0; k < queue.length; k++) {
    const u = queue[k];
    for (const v of succ.get(u)) {
      rank.set(v, Math.max(rank.get(v) ?? 0, rank.get(u) + 1));
      indeg.set(v, indeg.get(v) - 1);
      if (indeg.get(v) === 0) queue.push(v);
    }
  }
  for (const i of ids) if (!rank.has(i)) rank.set(i, 0); // a tape has no cycles; stay total anyway
  // Inputs sit just before their first consumer (a bias next to its add, not at the far left).
  for (const i of ids) {
    if (!pred.get(i).length && succ.get(i).length) rank.set(i, Math.min(...succ.get(i).map((v) => rank.get(v))) - 1);
  }

  // 2. Order within each rank: recording order, then barycentre sweeps to untangle edges.
  const layers = [];
  for (const i of ids) (layers[rank.get(i)] ??= []).push(i);
  for (let r = 0; r < layers.length; r++) layers[r] ??= [];
  const order = new Map();
  const renumber = (layer) => layer.forEach((id, k) => order.set(id, k));
  layers.forEach(renumber);
  const bary = (id, nbrs) => {
    const ns = nbrs.get(id);
    return ns.length ? ns.reduce((sum, n) => sum + order.get(n), 0) / ns.length : order.get(id);
  };
  const ranksUp = [...layers.keys()], ranksDown = [...ranksUp].reverse();
  for (let sweep = 0; sweep < 4; sweep++) {
    const nbrs = sweep % 2 === 0 ? pred : succ;
    for (const r of sweep % 2 === 0 ? ranksUp : ranksDown) {
      layers[r].sort((a, b) => bary(a, nbrs) - bary(b, nbrs));
      renumber(layers[r]);
    }
  }

  // 3. Coordinates. "main" runs along the flow (x for LR), "cross" across it.
  const lr = direction === "LR";
  const mainSize = (id) => size.get(id)[lr ? 0 : 1], crossSize = (id) => size.get(id)[lr ? 1 : 0];
  const GAP_MAIN = lr ? 48 : 54, GAP_CROSS = lr ? 34 : 30;
  const mainPos = new Map(), crossPos = new Map();
  let m = 0;
  for (const layer of layers) {
    if (!layer.length) continue;
    const span = Math.max(...layer.map(mainSize));
    layer.forEach((id) => mainPos.set(id, m + span / 2));
    m += span + GAP_MAIN;
  }
  for (const layer of layers) {
    let c = 0;
    for (const id of layer) { crossPos.set(id, c + crossSize(id) / 2); c += crossSize(id) + GAP_CROSS; }
  }
  // Pull each node towards its neighbours' centre, keeping the order and the gaps, so chains run straight.
  const align = (layer, nbrs) => {
    if (!layer.length) return;
    const want = layer.map((id) => {
      const ns = nbrs.get(id);
      return ns.length ? ns.reduce((sum, n) => sum + crossPos.get(n), 0) / ns.length : crossPos.get(id);
    });
    const pos = [];
    layer.forEach((id, k) => {
      pos[k] = k ? Math.max(want[k], pos[k - 1] + (crossSize(layer[k - 1]) + crossSize(id)) / 2 + GAP_CROSS) : want[k];
    });
    const shift = want.reduce((sum, w, k) => sum + w - pos[k], 0) / layer.length;
    layer.forEach((id, k) => crossPos.set(id, pos[k] + shift));
  };
  for (let pass = 0; pass < 4; pass++) {
    for (const r of pass % 2 === 0 ? ranksUp : ranksDown) align(layers[r], pass % 2 === 0 ? pred : succ);
  }

  // 4. Rows: a long left-to-right graph breaks into rows at most `wrap` px wide, read like lines of text.
  if (lr && wrap) {
    const rows = [[]];
    let start = 0;
    for (const layer of layers) {
      if (!layer.length) continue;
      const right = Math.max(...layer.map((id) => mainPos.get(id) + mainSize(id) / 2));
      if (rows[rows.length - 1].length && right - start > wrap) { rows.push([]); start = Math.min(...layer.map((id) => mainPos.get(id) - mainSize(id) / 2)); }
      rows[rows.length - 1].push(layer);
      for (const id of layer) mainPos.set(id, mainPos.get(id) - start);
    }
    let offset = 0;
    for (const row of rows) {
      const ids = row.flat();
      const lo = Math.min(...ids.map((id) => crossPos.get(id) - crossSize(id) / 2));
      const hi = Math.max(...ids.map((id) => crossPos.get(id) + crossSize(id) / 2));
      for (const id of ids) crossPos.set(id, crossPos.get(id) - lo + offset);
      offset += hi - lo + 70; // room for the edges that run down to the next row
    }
  }

  const boxes = new Map();
  for (const id of ids) {
    const [w, hh] = size.get(id);
    boxes.set(id, lr ? { x: mainPos.get(id), y: crossPos.get(id), w, h: hh } : { x: crossPos.get(id), y: mainPos.get(id), w, h: hh });
  }
  return boxes;
}

function bezier([p0, c1, c2, p3], t) {
  const u = 1 - t;
  return {
    x: u * u * u * p0.x + 3 * u * u * t * c1.x + 3 * u * t * t * c2.x + t * t * t * p3.x,
    y: u * u * u * p0.y + 3 * u * u * t * c1.y + 3 * u * t * t * c2.y + t * t * t * p3.y,
  };
}

// An edge's route is a chain of cubic Bézier segments: points p0 c1 c2 p1 c1 c2 p2 ... (3n + 1).
const routePath = (pts) => `M${r1(pts[0].x)},${r1(pts[0].y)}` + pts.slice(1).map((q, i) => `${i % 3 === 0 ? " C" : " "}${r1(q.x)},${r1(q.y)}`).join("");
function routePoint(pts, t) {
  const n = Math.max(1, (pts.length - 1) / 3), k = Math.min(n - 1, Math.floor(t * n));
  return bezier(pts.slice(3 * k, 3 * k + 4), t * n - k);
}

// A cubic curve from the side of one box to the facing side of the other, bent sideways by `bend`;
// `shift` moves both ends sideways, so that parallel edges keep apart where they meet the nodes.
function curveBetween(a, b, bend, lr, shift = 0) {
  if (lr && b.x - b.w / 2 < a.x + a.w / 2 - 4 && b.y - b.h / 2 > a.y + a.h / 2) {
    // To the start of the next row: down from a, back along the gap above b, down into b.
    const p0 = { x: a.x + shift, y: a.y + a.h / 2 }, p3 = { x: b.x + shift, y: b.y - b.h / 2 - 3 };
    const gap = Math.max(p0.y + 20, p3.y - 34);
    return [p0, { x: p0.x + bend / 4, y: gap }, { x: p3.x, y: gap }, p3];
  }
  if (lr) {
    const p0 = { x: a.x + a.w / 2, y: a.y + shift }, p3 = { x: b.x - b.w / 2 - 3, y: b.y + shift };
    const d = Math.max(40, (p3.x - p0.x) / 2);
    return [p0, { x: p0.x + d, y: p0.y + bend }, { x: p3.x - d, y: p3.y + bend }, p3];
  }
  const p0 = { x: a.x + shift, y: a.y + a.h / 2 }, p3 = { x: b.x + shift, y: b.y - b.h / 2 - 3 };
  const d = Math.max(36, (p3.y - p0.y) / 2);
  return [p0, { x: p0.x + bend, y: p0.y + d }, { x: p3.x + bend, y: p3.y - d }, p3];
}

// A route that leaves `a`, runs past every box in between on one side (the nearer one), and
// enters `b`: straight segments as a Bézier chain. For the edges no bend of one curve clears.
function aroundBoxes(a, b, obstacles, lr, k = 0) {
  // In "flow" coordinates: u along the flow (x for LR), v across it.
  const U = (q) => (lr ? q.x : q.y), V = (q) => (lr ? q.y : q.x), HU = (q) => (lr ? q.w : q.h) / 2, HV = (q) => (lr ? q.h : q.w) / 2;
  const pt = (u, v) => (lr ? { x: u, y: v } : { x: v, y: u });
  if (U(b) - HU(b) <= U(a) + HU(a)) return lr ? toNextRow(a, b, obstacles) : null; // not one after the other along the flow
  const u0 = U(a) + HU(a), u1 = U(b) - HU(b) - 3, gap = 16 + 6 * k;
  const between = obstacles.filter((o) => U(o) + HU(o) > u0 && U(o) - HU(o) < u1);
  if (!between.length) return null;
  const lo = Math.min(...between.map((o) => V(o) - HV(o))) - gap, hi = Math.max(...between.map((o) => V(o) + HV(o))) + gap;
  const v = Math.abs(lo - V(a)) + Math.abs(lo - V(b)) <= Math.abs(hi - V(a)) + Math.abs(hi - V(b)) ? lo : hi;
  const ua = u0 + Math.min(12, (u1 - u0) / 4), ub = u1 - Math.min(12, (u1 - u0) / 4);
  const corners = [pt(u0, V(a)), pt(ua, V(a)), pt(ua, v), pt(ub, v), pt(ub, V(b)), pt(u1, V(b))];
  const chain = [corners[0]];
  for (let i = 1; i < corners.length; i++) chain.push(corners[i - 1], corners[i], corners[i]);
  const clear = !crossesBoxes(chain, obstacles);
  return clear ? chain : null;
}

// An edge to a later row (a long left-to-right graph in rows): down from `a` into the free band
// above the next row, along it, down a free channel left of `b`, and into `b`'s left side.
function toNextRow(a, b, obstacles) {
  const chainOf = (corners) => corners.slice(1).reduce((chain, q, i) => chain.concat([corners[i], q, q]), [corners[0]]);
  // The top of b's row: the boxes that overlap b's height, and those overlapping them, and so on.
  let rowTop = b.y - b.h / 2;
  for (let moved = true; moved;) {
    moved = false;
    for (const o of obstacles) if (o.y - o.h / 2 < rowTop - 0.5 && o.y + o.h / 2 > rowTop) { rowTop = o.y - o.h / 2; moved = true; }
  }
  if (rowTop <= a.y + a.h / 2 + 40) return null;
  const band = rowTop - 30;
  // Out of a's bottom, or (a node below it in the way) out of its right side and down the gap.
  const starts = [[{ x: a.x, y: a.y + a.h / 2 }, { x: a.x, y: band }],
    [{ x: a.x + a.w / 2, y: a.y }, { x: a.x + a.w / 2 + 14, y: a.y }, { x: a.x + a.w / 2 + 14, y: band }]];
  for (const start of starts) {
    for (let dx = 14; dx <= 64; dx += 10) {
      const x = b.x - b.w / 2 - dx;
      const chain = chainOf([...start, { x, y: band }, { x, y: b.y }, { x: b.x - b.w / 2 - 3, y: b.y }]);
      if (!crossesBoxes(chain, obstacles)) return chain;
    }
  }
  return null;
}

function crossesBoxes(curve, obstacles, from = 0.06, to = 0.95) {
  if (curve.length > 4) { // a chain: each of its segments, corners included (not its two ends)
    const n = (curve.length - 1) / 3;
    for (let i = 0; i < n; i++) if (crossesBoxes(curve.slice(3 * i, 3 * i + 4), obstacles, i ? 0 : 0.06, i === n - 1 ? 0.95 : 1)) return true;
    return false;
  }
  // A sample every few px along the curve (its control polygon bounds its length): none missed.
  const length = curve.slice(1).reduce((sum, q, i) => sum + Math.hypot(q.x - curve[i].x, q.y - curve[i].y), 0);
  const dt = 1 / Math.max(25, Math.ceil(length / 5));
  for (let t = from; t <= to; t += dt) {
    const pt = bezier(curve, t);
    for (const o of obstacles) if (Math.abs(pt.x - o.x) < o.w / 2 + 6 && Math.abs(pt.y - o.y) < o.h / 2 + 6) return true;
  }
  return false;
}

// Edges carry no routing in the trace, so bend each one around the nodes in its way.
// Parallel edges (x * x uses x twice) fan out so that each keeps its own gradient label.
function routeEdges(g, boxes, lr) {
  const groups = new Map();
  for (const e of g.vedges) {
    const key = `${e.from}>${e.to}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(e);
  }
  const all = [...boxes.entries()];
  const routes = new Map();
  for (const group of groups.values()) {
    const a = boxes.get(group[0].from), b = boxes.get(group[0].to);
    const obstacles = all.filter(([id]) => id !== group[0].from && id !== group[0].to).map(([, box]) => box);
    group.forEach((e, k) => {
      const spread = (k - (group.length - 1) / 2) * 34, shift = spread / 4;
      let curve = curveBetween(a, b, spread, lr, shift);
      for (const bend of [-1, 1, -2, 2, -3, 3, -4, 4].map((i) => spread + i * 42)) {
        if (!crossesBoxes(curve, obstacles)) break;
        curve = curveBetween(a, b, bend, lr, shift);
      }
      if (crossesBoxes(curve, obstacles)) curve = aroundBoxes(a, b, obstacles, lr, k) ?? curve;
      routes.set(e.id, curve);
    });
  }
  return routes;
}

function clusterBoxes(p, g, boxes) {
  const result = [];
  for (const [id, c] of p.clusters) {
    const members = g.vnodes.filter((v) => v.node && p.clusterOf.get(v.id) === id).map((v) => boxes.get(v.id));
    if (!members.length) continue;
    const x0 = Math.min(...members.map((b) => b.x - b.w / 2)) - 16, x1 = Math.max(...members.map((b) => b.x + b.w / 2)) + 16;
    const y0 = Math.min(...members.map((b) => b.y - b.h / 2)) - 34, y1 = Math.max(...members.map((b) => b.y + b.h / 2)) + 22;
    result.push({ id, label: String(c.label ?? id), x: x0, y: y0, w: x1 - x0, h: y1 - y0 });
  }
  return result;
}

// The key of the fold state shown: the folded clusters that stand for a node, sorted, one a line.
const viewKey = (g) => g.vnodes.filter((v) => v.kind === "cluster").map((v) => v.cluster.id).sort().join("\n");

// The layout dot made for this fold state (from the trace, or asked of the kernel), when it covers
// every node and edge shown: boxes, routes and cluster boxes as dot placed them. Null otherwise.
function layoutFromView(p, g, direction) {
  const V = p.views.get(`${direction}|${viewKey(g)}`);
  if (!V || !g.vnodes.every((v) => Array.isArray(V.nodes?.[v.id])) || !g.vedges.every((e) => Array.isArray(V.edges?.[e.id]))) return null;
  const boxes = new Map(g.vnodes.map((v) => { const [w, hh] = sizeOf(v), [x, y] = V.nodes[v.id]; return [v.id, { x, y, w, h: hh }]; }));
  const routes = new Map(g.vedges.map((e) => {
    const pts = V.edges[e.id].map(([x, y]) => ({ x, y }));
    const tip = (pts.length - 1) % 3 ? pts.pop() : null; // dot's arrow tip: one straight segment more
    if (tip) { const last = pts[pts.length - 1]; pts.push(last, tip, tip); }
    return [e.id, pts];
  }));
  const open = new Set(g.vnodes.filter((v) => v.node && (p.clusterOf.get(v.id) ?? p.inputHome.get(v.id)) != null).map((v) => p.clusterOf.get(v.id) ?? p.inputHome.get(v.id)));
  const clusters = [...open].filter((id) => Array.isArray(V.clusters?.[id])).map((id) => {
    const [x, y, w, hh] = V.clusters[id];
    return { id, label: String(p.clusters.get(id)?.label ?? id), x, y, w, h: hh };
  });
  return { boxes, routes, clusters, engine: "dot" };
}

function layoutAll(p, g, direction, wrap = null) {
  const lr = direction === "LR";
  const view = !wrap && layoutFromView(p, g, direction);
  const boxes = view ? view.boxes : (!wrap && layoutFromTrace(p, g, direction)) || layeredLayout(g, direction, wrap);
  const routes = view ? view.routes : routeEdges(g, boxes, lr);
  const clusters = view ? view.clusters : clusterBoxes(p, g, boxes);
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  const grow = (ax, ay, bx, by) => { x0 = Math.min(x0, ax); y0 = Math.min(y0, ay); x1 = Math.max(x1, bx); y1 = Math.max(y1, by); };
  for (const b of boxes.values()) grow(b.x - b.w / 2, b.y - b.h / 2, b.x + b.w / 2, b.y + b.h / 2 + 14); // + badge
  for (const c of clusters) grow(c.x, c.y, c.x + c.w, c.y + c.h);
  for (const pts of routes.values()) for (const pt of pts) grow(pt.x, pt.y - 14, pt.x, pt.y + 14);
  if (!Number.isFinite(x0)) { x0 = y0 = 0; x1 = y1 = 1; }
  return { boxes, routes, clusters, lr, wrapped: Boolean(wrap), engine: view ? "dot" : "page", viewBox: [x0 - PAD, y0 - PAD, x1 - x0 + 2 * PAD, y1 - y0 + 2 * PAD] };
}

// The layout for a canvas `width` px wide: the trace's (or the page's own), or, when a left-to-right
// graph is too wide to read once fitted, the page's own again in rows as wide as the canvas.
// `maxHeight()` is the tallest the canvas may grow.
function layoutForCanvas(p, g, direction, width, maxHeight) {
  const geo = layoutAll(p, g, direction);
  // dot's layout of layers is kept (the canvas scrolls: clusters need dot's guarantees); a graph
  // without layers too wide to read once fitted breaks into rows, read like lines of text.
  const layered = geo.clusters.length > 0 || g.vnodes.some((v) => v.kind === "cluster");
  if ((geo.engine === "dot" && layered) || !(direction === "LR" && width > 0 && width / geo.viewBox[2] < READABLE)) return geo;
  // The row width whose drawing fits the canvas at the largest zoom (rows trade width for height).
  const maxH = maxHeight();
  let best = null;
  for (const z of [1, 0.9, 0.8, 0.7, 0.6]) {
    const wrap = Math.max(400, width / z - 2 * PAD);
    const boxes = [...layeredLayout(g, direction, wrap).values()];
    const vw = Math.max(...boxes.map((b) => b.x + b.w / 2)) - Math.min(...boxes.map((b) => b.x - b.w / 2)) + 2 * PAD;
    const vh = Math.max(...boxes.map((b) => b.y + b.h / 2)) - Math.min(...boxes.map((b) => b.y - b.h / 2)) + 2 * PAD + 40;
    const fit = Math.min(width / vw, maxH / vh, 1.1);
    if (!best || fit > best.fit + 0.02) best = { fit, wrap };
  }
  return layoutAll(p, g, direction, best.wrap);
}

// ---------------------------------------------------------------- what each step shows

// Everything known after backward step `k` (-1: nothing yet).
function backwardState(p, k) {
  const grads = new Map(); // tensor id -> running total of its gradient
  const done = new Set(); // edges that carried a gradient in an earlier step
  for (let i = 0; i <= k && i < p.steps.length; i++) {
    const st = p.steps[i];
    for (const up of st.upstream ?? []) if (!grads.has(up.tensor)) grads.set(up.tensor, up.value); // the seed dy = 1
    for (const go of st.grads_out ?? []) {
      grads.set(go.tensor, go.accumulated ?? go.value);
      if (i < k) done.add(go.edge);
    }
  }
  const step = k >= 0 ? p.steps[k] : null;
  return {
    step, grads, done,
    current: step ? step.op : null,
    upstream: new Set((step?.upstream ?? []).map((u) => u.tensor)),
    sending: new Map((step?.grads_out ?? []).map((go) => [go.edge, go])),
    finished: p.steps.length > 0 && k === p.steps.length - 1,
  };
}

function forwardState(p, k) {
  const f = k >= 0 ? p.forward[k] : null;
  const pendingOps = new Set(p.forward.slice(k + 1).map((x) => x.op));
  const pending = new Set(pendingOps);
  for (const [tensor, i] of p.producedAt) if (i > k) pending.add(tensor);
  return { step: f, current: f ? f.op : null, inputs: new Set(f?.inputs ?? []), outputs: new Set(f?.outputs ?? []), pending };
}

// Where to put a w×h label for a point on an edge: there, or nudged across the edge to the nearest
// place that covers no node, badge or other label (or, in a crowded spot, covers the least),
// staying inside the drawing's viewBox [vx, vy, vw, vh].
function placeLabel(at, w, hh, taken, lr, [vx, vy, vw, vh]) {
  let best = at, bestOverlap = Infinity;
  for (const k of [0, -1, 1, -2, 2, -3, 3, -4, 4, -5, 5, -6, 6, -7, 7]) {
    const x = lr ? at.x : at.x + k * 20, y = lr ? at.y + k * 14 : at.y;
    if (k !== 0 && (x - w / 2 < vx || x + w / 2 > vx + vw || y - hh / 2 < vy || y + hh / 2 > vy + vh)) continue;
    let overlap = 0;
    for (const r of taken) {
      const ox = Math.min(x + w / 2 + 3, r.x1) - Math.max(x - w / 2 - 3, r.x0);
      const oy = Math.min(y + hh / 2 + 3, r.y1) - Math.max(y - hh / 2 - 3, r.y0);
      if (ox > 0 && oy > 0) overlap += ox * oy;
    }
    if (overlap === 0) return { x, y };
    if (overlap < bestOverlap) { best = { x, y }; bestOverlap = overlap; }
  }
  return best;
}

// "d(a * b)/db = dy * a" -> "b": the input a rule line is about.
const ruleInput = (line) => (/\/d\s*([A-Za-z_][\w']*)/.exec(String(line)) ?? [])[1] ?? null;

// True when `small` is `big` with broadcast axes summed away (the tape undoes broadcasting).
function isBroadcastOf(small, big) {
  if (small.length > big.length || numel(small) >= numel(big)) return false;
  return small.every((d, i) => d === 1 || d === big[big.length - small.length + i]);
}

// ---------------------------------------------------------------- the rule with its numbers

const CODE_RULE = "(code)"; // the rule text of an op whose gradient rule exists only as code (engine/op.py)
const SMALL = 6; // values of at most this many elements are written into the rule, number by number
const RULE_WORDS = new Set(["exp", "log", "sqrt", "tanh", "sigmoid", "sign", "abs", "cos", "sin", "floor", "max", "min", "T"]);
const tupleText = (shape) => `(${shape.join(", ")}${shape.length === 1 ? "," : ""})`;

// The axes summed when a gradient of shape `big` goes back to an input of shape `small`.
function sumAxes(small, big) {
  const lead = big.length - small.length, axes = [];
  big.forEach((d, i) => { if (i < lead || (small[i - lead] === 1 && d !== 1)) axes.push(i); });
  return axes;
}

// A value as it reads inside a formula: a number, a short list, negatives in brackets.
function inFormula(value) {
  const text = formatData(value.data, 4);
  return text.startsWith("-") ? `(${text})` : text;
}

// The rule of one input with the numbers put in, as lines: "= 1 × 3 = 3" for small values,
// the shapes and a preview for bigger ones, and the sum that undoes broadcasting on its own line.
// `values` maps the names the rule uses (dy, a, b, x, out) to value summaries.
function ruleNumbers(line, values, sent, upShape) {
  const rhs = String(line).split(" = ").slice(1).join(" = ");
  if (rhs === CODE_RULE) return [`= ${previewOf(sent)}`]; // a rule given as code only: its numbers
  const words = rhs.match(/[A-Za-z_]\w*/g) ?? [];
  if (!rhs || !words.length || !words.every((w) => values.has(w) || RULE_WORDS.has(w))) return [];
  const used = [...new Set(words.filter((w) => values.has(w)))].map((w) => [w, values.get(w)]);
  if (used.some(([, v]) => !v)) return [];
  const gShape = shapeOf(sent), broadcast = isBroadcastOf(gShape, upShape);
  const lines = [];
  if (used.every(([, v]) => v.full && numel(shapeOf(v)) <= SMALL)) {
    const put = rhs.replace(/[A-Za-z_]\w*/g, (w) => (values.has(w) ? inFormula(values.get(w)) : w)).replace(/\*/g, "×");
    const result = compactValue(sent, 6);
    lines.push(broadcast || put === result ? `= ${put}` : `= ${put} = ${result}`);
  } else {
    lines.push(`shapes: ${used.map(([w, v]) => `${w} ${formatShape(shapeOf(v))}`).join(", ")} → ${formatShape(broadcast ? upShape : gShape)}`);
  }
  if (broadcast) lines.push(`sum over axis ${sumAxes(gShape, upShape).join(", ")}: ${tupleText(upShape)} → ${tupleText(gShape)}`);
  if (!(lines.length === 1 && !broadcast && used.every(([, v]) => v.full && numel(shapeOf(v)) <= SMALL))) lines.push(`= ${previewOf(sent)}`);
  return lines;
}

// A value in one short line: its numbers when it is small, else its shape and range.
const previewOf = (v) => (v.full ? truncate(formatData(v.data, 4), 64) : `${formatShape(shapeOf(v))} · min ${formatNumber(v.min)}, max ${formatNumber(v.max)}`);

// The op's formula, read from its rule text: "d(a * b)/da = dy * b" -> "a * b".
const formulaOf = (rule) => (/^d\((.*)\)\/d\s*[A-Za-z_][\w']*(?: = |: )/.exec(String(rule?.[0] ?? "")) ?? [])[1] ?? null;

// The forward step with its numbers, as backward's rule gets them: "= 3 × 3 = 9" for small values,
// the shapes for bigger ones. `values` maps the formula's input names to value summaries; words
// that are neither (function names such as "sum") must be followed by "(".
function forwardNumbers(formula, values, out) {
  if (!formula || !out) return [];
  const words = [...formula.matchAll(/[A-Za-z_]\w*(\s*\()?/g)];
  if (!words.length || !words.every((m) => values.has(m[0]) || m[1] || RULE_WORDS.has(m[0]))) return [];
  const used = [...new Set(words.map((m) => m[0]).filter((w) => values.has(w)))].map((w) => [w, values.get(w)]);
  if (!used.length || used.some(([, v]) => !v)) return [];
  if (used.every(([, v]) => v.full && numel(shapeOf(v)) <= SMALL)) {
    const put = formula.replace(/[A-Za-z_]\w*/g, (w) => (values.has(w) ? inFormula(values.get(w)) : w)).replace(/\*/g, "×");
    return [`= ${put} = ${compactValue(out, 6)}`];
  }
  return [`shapes: ${used.map(([w, v]) => `${w} ${formatShape(shapeOf(v))}`).join(", ")} → ${formatShape(shapeOf(out))}`, `= ${previewOf(out)}`];
}

// Rule text in a monospace block, with the incoming gradient `dy` picked out in the gradient colour.
// A rule that is code only ("d(f(x))/dx = (code)": an Op given a vjp but no words) ends in a link
// "rule: (code)" that opens the op's VJP source in the inspector (`openCode`).
function ruleLine(line, active = true, openCode = null) {
  const text = String(line);
  if (text.endsWith(` = ${CODE_RULE}`)) {
    const link = openCode
      ? h("button", { type: "button", class: "me-code-rule", "data-role": "code-rule", title: "Open its gradient rule's source (the op's vjp)", text: "rule: (code)", onclick: openCode })
      : h("span", { class: "me-code-rule", "data-role": "code-rule", text: "rule: (code)" });
    return h("div", { class: "me-rule-line" + (active ? "" : " is-muted") }, [text.slice(0, -CODE_RULE.length), link]);
  }
  const parts = text.split(/(\bdy\b)/);
  return h("div", { class: "me-rule-line" + (active ? "" : " is-muted") },
    parts.map((part) => (part === "dy" ? h("span", { class: "me-dy", text: "dy" }) : part)));
}

// ---------------------------------------------------------------- the views
//
// Each view builds its own part of the page, owns its listeners, and reads what it shows from the
// widget (`this.app`: the model, the prepared trace `p`, the visible graph and its geometry `geo`);
// the widget (TapeDebugger, below) tells them when to redraw.

// The controls: the toolbar (backward/forward, reset, back, step, play and its speed, the slider
// with "step 2 / 5") and the footer's view options (hide constants, direction, zoom).
class ControlsView {
  constructor(app) {
    this.app = app;
    this.timer = null;
    const button = (role, label, text, iconName, onclick) => h("button", { type: "button", class: "me-btn", "data-role": role, "aria-label": label, title: label, onclick },
      role === "step-button" ? [h("span", { text }), icon(iconName)] : [icon(iconName), h("span", { text })]);
    this.modeToggle = h("button", {
      type: "button", class: "me-mode", role: "switch", "data-role": "mode-toggle",
      onclick: () => { this.stopPlaying(); app.set("mode", app.mode === "backward" ? "forward" : "backward"); app.set("step", 0); },
    }, [h("span", { class: "me-mode-opt", "data-mode": "backward", text: "Backward" }), h("span", { class: "me-mode-opt", "data-mode": "forward", text: "Forward" })]);
    this.resetBtn = button("reset-button", "Reset to the start", "Reset", "reset", () => { this.stopPlaying(); app.goTo(-1); });
    this.backBtn = button("back-button", "Back one step", "Back", "back", () => { this.stopPlaying(); app.goTo(app.step - 1); });
    this.stepBtn = button("step-button", "Step forward one op", "Step", "step", () => { this.stopPlaying(); app.goTo(app.step + 1); });
    this.playBtn = button("play-button", "Play", "Play", "play", () => this.togglePlay());
    this.speed = h("select", { class: "me-speed", "data-role": "speed", "aria-label": "Playback speed", title: "Playback speed" },
      SPEEDS.map(([label, ms]) => h("option", { value: ms, text: label, selected: label === "1×" })));
    this.speed.addEventListener("change", () => { if (this.timer) { this.stopPlaying(); this.togglePlay(); } });
    this.slider = h("input", { type: "range", class: "me-slider", "data-role": "slider", min: "-1", value: "-1", step: "1", "aria-label": "Step" });
    this.slider.addEventListener("input", () => { this.stopPlaying(); app.goTo(Number(this.slider.value)); });
    this.stepLabel = h("span", { class: "me-step-label", "data-role": "step-label", "aria-live": "polite" });
    this.toolbar = h("div", { class: "me-toolbar", role: "toolbar", "aria-label": "Step through the tape" }, [
      this.modeToggle,
      h("div", { class: "me-btn-group" }, [this.resetBtn, this.backBtn, this.stepBtn, this.playBtn, this.speed]),
      h("div", { class: "me-scrub" }, [this.slider, this.stepLabel]),
    ]);

    this.hideConstants = h("input", { type: "checkbox", "data-role": "hide-constants" });
    this.hideConstants.addEventListener("change", () => { app.view.hideConstants = this.hideConstants.checked; app.draw(); });
    this.direction = h("select", { "data-role": "direction", "aria-label": "Layout direction", title: "Layout direction" },
      [h("option", { value: "LR", text: "left → right" }), h("option", { value: "TB", text: "top → bottom" })]);
    this.direction.addEventListener("change", () => { app.view.direction = this.direction.value; app.draw(); });
    const zoomBtn = (label, text, f) => h("button", { type: "button", class: "me-btn me-btn-small", "aria-label": label, title: label, text, onclick: f });
    this.footer = h("div", { class: "me-footer" }, [
      h("ul", { class: "me-legend", "aria-label": "Legend" }, [
        ...LEGEND.map(([kind, label]) => h("li", { "data-kind": kind }, [h("span", { class: `me-swatch me-kind-${kind}` }), label])),
        h("li", { "data-kind": "gradient" }, [h("span", { class: "me-swatch me-swatch-grad" }), "gradient"]),
        // A graph view's marks: shown for the marks its graph has (showLegend).
        ...MARKS.map((mark) => h("li", { "data-mark": mark, hidden: true }, [h("span", { class: `me-swatch me-swatch-mark me-mark-${mark}` }), mark])),
      ]),
      h("div", { class: "me-view-options" }, [
        this.foldAll = h("button", { type: "button", class: "me-btn me-btn-small", "data-role": "fold-all", hidden: true, onclick: () => {
          const all = [...app.p.clusters.keys()];
          app.view.collapsed = app.view.collapsed.size ? new Set() : new Set(all);
          app.draw();
        } }),
        h("label", { class: "me-check" }, [this.hideConstants, "hide constants"]),
        this.direction,
        h("span", { class: "me-zoom" }, [
          zoomBtn("Zoom out", "−", () => app.viewport.zoomBy(1 / 1.25)),
          zoomBtn("Fit the whole graph", "fit", () => { app.view.zoom = "fit"; app.viewport.applyZoom(); }),
          zoomBtn("Zoom in", "+", () => app.viewport.zoomBy(1.25)),
        ]),
      ]),
    ]);
  }

  // "open all layers" while any is folded, "fold all layers" when all are open.
  showFolding(clusters, collapsed) {
    this.foldAll.hidden = clusters === 0;
    this.foldAll.textContent = collapsed ? "open all layers" : "fold all layers";
  }

  // The legend names the kinds the graph has (a tape: all but arguments, which only graphs have)
  // and the marks a graph view has (what a pass did to its nodes).
  showLegend(kinds, marks) {
    this.footer.querySelectorAll("[data-kind]").forEach((li) => {
      li.hidden = this.app.options.graph ? !kinds.has(li.dataset.kind) : li.dataset.kind === "placeholder";
    });
    this.footer.querySelectorAll("[data-mark]").forEach((li) => { li.hidden = !marks.has(li.dataset.mark); });
  }

  // The direction the trace was laid out in, until the reader picks one.
  showDirection(direction) { if (!this.app.view.direction) this.direction.value = direction; }

  // Step k (-1: none yet) of n, in `mode`.
  update(k, n, mode) {
    this.modeToggle.setAttribute("aria-checked", String(mode === "forward"));
    this.modeToggle.setAttribute("aria-label", `Mode: ${mode} pass. Click to switch to the ${mode === "backward" ? "forward" : "backward"} pass`);
    this.modeToggle.querySelectorAll(".me-mode-opt").forEach((o) => o.classList.toggle("is-active", o.dataset.mode === mode));
    this.slider.max = String(Math.max(n - 1, -1));
    this.slider.value = String(k);
    this.slider.disabled = n === 0;
    this.stepLabel.textContent = `step ${k + 1} / ${n}`;
    this.resetBtn.disabled = this.backBtn.disabled = k < 0;
    this.stepBtn.disabled = k >= n - 1;
    this.playBtn.disabled = n === 0;
  }

  togglePlay() {
    const app = this.app;
    if (this.timer) { this.stopPlaying(); return; }
    if (app.step >= app.stepCount - 1) app.goTo(-1); // play again from the start
    this.timer = setInterval(() => {
      if (app.step >= app.stepCount - 1) this.stopPlaying();
      else app.goTo(app.step + 1);
    }, Number(this.speed.value));
    this.playBtn.replaceChildren(icon("pause"), h("span", { text: "Pause" }));
    this.playBtn.setAttribute("aria-label", "Pause");
    this.playBtn.classList.add("is-playing");
  }

  stopPlaying() {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
    this.playBtn.replaceChildren(icon("play"), h("span", { text: "Play" }));
    this.playBtn.setAttribute("aria-label", "Play");
    this.playBtn.classList.remove("is-playing");
  }
}

// The canvas: the graph as SVG, drawn into the scrolling `.me-canvas` element when the graph or
// the view changes, and per step its highlights, gradient flows, labels and badges.
class CanvasView {
  constructor(app, el) {
    this.app = app;
    this.el = el;
    el.addEventListener("click", (e) => this.onClick(e));
    el.addEventListener("keydown", (e) => {
      if ((e.key === "Enter" || e.key === " ") && e.target.closest?.("[data-node-id], [data-cluster-id]")) { e.preventDefault(); this.onClick(e); }
    });
  }

  // -- the drawing: rebuilt when the graph or the view changes, not on every step

  draw() {
    const { boxes, routes, clusters, viewBox } = this.app.geo;
    const id = (name) => `${this.app.uid}-${name}`;
    const marker = (name) => s("marker", {
      id: id(name), viewBox: "0 0 10 10", refX: "9", refY: "5", markerWidth: "9", markerHeight: "9",
      markerUnits: "userSpaceOnUse", orient: "auto",
    }, [s("path", { d: "M0,0.5 L10,5 L0,9.5 z", class: `me-marker-${name}` })]);

    this.edgeEls = new Map();
    const edgeLayer = s("g", { class: "me-edges" }, this.app.graph.vedges.map((e) => {
      const path = s("path", { class: "me-edge", "data-edge-id": e.id, "marker-end": `url(#${id("arrow")})`, d: routePath(routes.get(e.id)) });
      this.edgeEls.set(e.id, path);
      return path;
    }));

    this.nodeEls = new Map();
    this.membersOf = new Map(this.app.graph.vnodes.filter((v) => v.kind === "cluster").map((v) => [v.id, v.members]));
    const nodeLayer = s("g", { class: "me-nodes" }, this.app.graph.vnodes.map((vn) => {
      const g = vn.kind === "cluster" ? this.drawFolded(vn, boxes.get(vn.id)) : vn.kind === "op" ? this.drawOp(vn.node, boxes.get(vn.id)) : this.drawTensor(vn.node, boxes.get(vn.id));
      this.nodeEls.set(vn.id, g);
      return g;
    }));

    const clusterLayer = s("g", { class: "me-clusters" }, clusters.map((c) => s("g", { class: "me-cluster", "data-cluster-box": c.id }, [
      s("rect", { class: "me-cluster-box", x: r1(c.x), y: r1(c.y), width: r1(c.w), height: r1(c.h), rx: 12 }),
    ])));
    // The titles (each also the control that folds its layer) above the edges: always clickable.
    const titleLayer = s("g", { class: "me-cluster-titles" }, clusters.map((c) => s("g", {
        class: "me-cluster-title", "data-role": "cluster-toggle", "data-cluster-id": c.id, role: "button", tabindex: "0",
        "aria-expanded": "true", "aria-label": `Collapse ${c.label}`,
      }, [
        s("rect", { x: r1(c.x + 8), y: r1(c.y + 6), width: r1(titleWidth(c.label)), height: 20, rx: 10 }),
        s("text", { x: r1(c.x + 18), y: r1(c.y + 20), text: `▾ ${c.label}` }),
      ])));

    this.overlay = s("g", { class: "me-overlay" });
    const [vx, vy, vw, vh] = viewBox;
    this.svg = s("svg", {
      class: "me-graph", xmlns: SVG_NS, viewBox: `${r1(vx)} ${r1(vy)} ${r1(vw)} ${r1(vh)}`, role: "img",
      "aria-label": "Graph of the recorded ops", "data-layout": this.app.geo.engine, // "dot", or "page": laid out here
    }, [
      s("defs", {}, [marker("arrow"), marker("arrow-grad"), marker("arrow-fwd")]),
      clusterLayer, edgeLayer, titleLayer, nodeLayer, this.overlay,
    ]);
    this.el.replaceChildren(this.svg);
  }

  drawTensor(n, box) {
    const { w, h: hh } = box;
    const value = asValue(n.value);
    const shape = n.shape ?? shapeOf(value);
    const hm = heatmapOf(value);
    const hmW = hm ? Math.min(40, Math.max(18, 6 * Math.max(...hm.map((row) => row.length)))) : 0;
    const textRight = w - 10 - (hm ? hmW + 8 : 0);
    const tag = KIND_TAG[n.kind];
    // The tag is upper case, bold and letter-spaced (about 0.8 em a letter), on the box's top edge:
    // the name has the box's whole width.
    const tagW = tag ? tag.length * 9 * 0.8 + 10 : 0;
    const labelRoom = w - 20;
    let valueText = "";
    if (value && value.full && numel(shapeOf(value)) <= 6) valueText = formatData(value.data, 3);
    else if (value) { const st = stats(value); valueText = `${formatNumber(st.min, 3)} … ${formatNumber(st.max, 3)}`; }
    const shapeStr = [formatShape(shape), n.dtype].filter(Boolean).join(" · ");
    const mark = MARKS.includes(n.mark) ? n.mark : null;
    if (mark) valueText = ""; // what the pass did is written where a tape's tensor shows its value
    return s("g", {
      class: `me-node me-tensor me-kind-${n.kind}${mark ? ` me-mark-${mark}` : ""}`, "data-node-id": n.id, transform: `translate(${r1(box.x - w / 2)},${r1(box.y - hh / 2)})`,
      tabindex: "0", role: "button", "aria-label": `${KIND_TAG[n.kind] ?? "tensor"} ${nodeLabel(n)}, ${shapeStr}`,
    }, [
      s("title", { text: `${nodeLabel(n)} (${n.kind})\n${shapeStr}\n${mark ? n.mark_text ?? mark : value ? truncate(compactValue(value, 16), 300) : ""}` }),
      s("rect", { class: "me-shape", width: w, height: hh, rx: 9 }),
      n.kind === "target" && s("rect", { class: "me-shape-inner", x: 3, y: 3, width: w - 6, height: hh - 6, rx: 7 }),
      s("text", { class: "me-node-label", x: 10, y: 19, text: shortenLeft(boxLabel(n), Math.floor(labelRoom / (12.5 * 0.64))) }),
      tag && s("g", { class: "me-kind-badge", transform: `translate(${r1(w - 8 - tagW)},-7)` }, [
        s("rect", { width: r1(tagW), height: 13, rx: 6.5 }),
        s("text", { class: "me-kind-tag", x: r1(tagW / 2), y: 9.6, "text-anchor": "middle", text: tag.toUpperCase() }),
      ]),
      s("text", { class: "me-node-meta", x: 10, y: 36, text: truncate(shapeStr, Math.floor(textRight / (11 * 0.57)) - 1) }),
      valueText && s("text", { class: "me-node-value", x: 10, y: hh - 11, text: truncate(valueText, Math.floor((textRight - 10) / (11 * 0.61))) }),
      mark && s("text", { class: "me-mark-text", x: 10, y: hh - 11, text: truncate(n.mark_text ?? mark, Math.floor((w - 20) / (11 * 0.6))) }),
      hm && heatmapSvg(hm, w - 10 - hmW, 24, hmW, hh - 32),
    ]);
  }

  drawOp(n, box) {
    const { w, h: hh } = box;
    const label = opLabel(n);
    return s("g", {
      class: `me-node me-op${n.custom ? " is-custom" : ""}${MARKS.includes(n.mark) ? ` me-mark-${n.mark}` : ""}`, "data-node-id": n.id, transform: `translate(${r1(box.x - w / 2)},${r1(box.y - hh / 2)})`,
      tabindex: "0", role: "button", "aria-label": `op ${label}${n.custom ? " (custom gradient)" : ""}`,
    }, [
      s("title", { text: [label + (n.custom ? " (custom gradient)" : ""), ...(n.rule ?? []), n.mark_text].filter(Boolean).join("\n") }),
      s("rect", { class: "me-shape", width: w, height: hh, rx: hh / 2 }),
      s("text", { class: "me-op-label", x: w / 2, y: hh / 2 + 4.5, "text-anchor": "middle", text: truncate(label, Math.floor((w - 14) / (12.5 * 0.6))) }),
      n.custom && s("g", { class: "me-custom-badge", "data-role": "custom-badge" }, [
        s("rect", { x: w - 52, y: -10, width: 50, height: 16, rx: 8 }),
        s("text", { x: w - 27, y: 1.5, "text-anchor": "middle", text: "custom" }),
      ]),
    ]);
  }

  drawFolded(vn, box) {
    const { w, h: hh } = box;
    const label = String(vn.cluster.label ?? vn.cluster.id);
    const ops = vn.members.filter((m) => this.app.p.byId.get(m)?.kind === "op").length;
    return s("g", {
      class: "me-node me-folded", "data-cluster-id": vn.cluster.id, "data-role": "cluster-toggle", role: "button", tabindex: "0",
      "aria-expanded": "false", "aria-label": `Expand ${label}`, transform: `translate(${r1(box.x - w / 2)},${r1(box.y - hh / 2)})`,
    }, [
      s("title", { text: `${label}: ${vn.members.length} nodes (click to expand)` }),
      s("rect", { class: "me-shape-back", x: 5, y: 5, width: w, height: hh, rx: 12 }),
      s("rect", { class: "me-shape", width: w, height: hh, rx: 12 }),
      s("text", { class: "me-node-label", x: 12, y: 22, text: `▸ ${shortenLeft(label, Math.floor((w - 20) / (12.5 * 0.6)) - 2)}` }),
      s("text", { class: "me-node-meta", x: 12, y: 40, text: truncate(`${ops} op${ops === 1 ? "" : "s"}, ${vn.members.length} nodes · open ▸`, Math.floor((w - 24) / (11 * 0.57))) }),
    ]);
  }

  // -- per step: classes, then the overlay (gradient labels and badges)

  update(state, back, fwd) {
    const p = this.app.p;
    const sel = this.app.selected;
    for (const [id, g] of this.nodeEls) {
      const folded = id.startsWith("cluster:");
      const members = folded ? this.membersOf.get(id) : [id];
      g.classList.toggle("is-current", !folded && state.current === id);
      g.classList.toggle("contains-current", folded && members.includes(state.current));
      g.classList.toggle("is-selected", sel !== "" && members.includes(sel));
      g.classList.toggle("is-upstream", Boolean(back?.upstream.has(id)));
      g.classList.toggle("has-grad", Boolean(back?.grads.has(id)));
      g.classList.toggle("is-unreached", Boolean(back?.finished && p.unreached.has(id)));
      g.classList.toggle("is-pending", Boolean(fwd && members.every((m) => fwd.pending.has(m))));
      g.classList.toggle("is-produced-now", Boolean(fwd?.outputs.has(id)));
      g.classList.toggle("is-input-now", Boolean(fwd?.inputs.has(id)));
    }
    for (const [id, path] of this.edgeEls) {
      const e = p.edgeById.get(id);
      const grad = Boolean(back?.sending.has(id));
      const upstream = Boolean(back && e.source === back.current && back.upstream.has(e.target));
      const fwdNow = Boolean(fwd?.current && (e.target === fwd.current || e.source === fwd.current));
      path.classList.toggle("is-grad", grad);
      path.classList.toggle("is-done", Boolean(back?.done.has(id)) && !grad);
      path.classList.toggle("is-upstream", upstream);
      path.classList.toggle("is-fwd", fwdNow);
      path.setAttribute("marker-end", `url(#${this.app.uid}-${fwdNow ? "arrow-fwd" : "arrow"})`);
    }
    this.drawOverlay(back);
  }

  drawOverlay(back) {
    if (!back) { this.overlay.replaceChildren(); return; }
    const p = this.app.p, { routes, boxes, lr, viewBox } = this.app.geo;
    const taken = [...boxes.values()].map((b) => ({ x0: b.x - b.w / 2, y0: b.y - b.h / 2, x1: b.x + b.w / 2, y1: b.y + b.h / 2 }));
    // Cluster titles too: a gradient label never covers a layer's name.
    for (const c of this.app.geo.clusters) taken.push({ x0: c.x + 8, y0: c.y + 6, x1: c.x + 8 + titleWidth(c.label), y1: c.y + 26 });

    // Gradient badges: the running total on every tensor reached so far; final values at the end.
    const badges = new Map(); // tensor id -> [value, style]
    for (const [tensor, value] of back.grads) badges.set(tensor, [value, back.upstream.has(tensor) ? "is-upstream" : ""]);
    if (back.finished) {
      for (const src of p.sources) {
        const g = p.gradients.get(src);
        if (p.unreached.has(src) || (g && g.value == null)) badges.set(src, [null, "is-none"]);
        else if (g) badges.set(src, [g.value, "is-final"]);
      }
    }
    const badgeEls = [];
    for (const [tensor, [value, style]] of badges) {
      const badge = this.badge(tensor, value, style);
      if (badge) { badgeEls.push(badge.el); taken.push(badge.rect); }
    }

    // Gradients flow against the arrows: draw each one from the op back to the input it reaches,
    // labelled with its value next to the edge, clear of nodes, badges and other labels.
    const flows = [], labels = [];
    for (const [edgeId, go] of back.sending) {
      const curve = routes.get(edgeId);
      if (!curve) continue;
      flows.push(s("path", { class: "me-grad-flow", "marker-end": `url(#${this.app.uid}-arrow-grad)`, d: routePath([...curve].reverse()) }));
      const text = compactValue(go.value);
      const w = textWidth(text, 11, true) + 16, hh = 20;
      const mid = routePoint(curve, 0.5);
      const at = placeLabel(mid, w, hh, taken, lr, viewBox);
      taken.push({ x0: at.x - w / 2, y0: at.y - hh / 2, x1: at.x + w / 2, y1: at.y + hh / 2 });
      labels.push(s("g", { class: "me-edge-grad", "data-role": "edge-grad", "data-edge-id": edgeId }, [
        s("title", { text: `gradient sent to ${nodeLabel(p.byId.get(go.tensor))}: ${compactValue(go.value, 16)}` }),
        (at.x !== mid.x || at.y !== mid.y) && s("line", { class: "me-leader", x1: r1(mid.x), y1: r1(mid.y), x2: r1(at.x), y2: r1(at.y) }),
        s("rect", { x: r1(at.x - w / 2), y: r1(at.y - hh / 2), width: r1(w), height: hh, rx: 10 }),
        s("text", { x: r1(at.x), y: r1(at.y + 4), "text-anchor": "middle", text }),
      ]));
    }
    this.overlay.replaceChildren(...flows, ...badgeEls, ...labels);
  }

  // A gradient badge straddling the bottom-right corner of a tensor: {el, rect}, or null if not drawn.
  // Top to bottom, edges leave from the bottom middle, so the badge keeps to the right of it.
  badge(tensor, value, style) {
    if (this.app.graph.rep.get(tensor) !== tensor) return null; // hidden, or inside a folded cluster
    const box = this.app.geo.boxes.get(tensor);
    const text = `∇ ${truncate(compactValue(value, 3, 3), 24)}`;
    const w = textWidth(text, 10.5, true) + 14, hh = 17;
    const x = this.app.geo.lr ? box.x + box.w / 2 - w - 6 : Math.max(box.x + 14, box.x + box.w / 2 - w - 6), y = box.y + box.h / 2 - 7;
    const el = s("g", { class: `me-badge ${style}`.trim(), "data-role": "grad-badge", "data-for": tensor, transform: `translate(${r1(x)},${r1(y)})` }, [
      s("title", { text: `gradient of the target with respect to ${nodeLabel(this.app.p.byId.get(tensor))}: ${compactValue(value, 16)}` }),
      s("rect", { width: r1(w), height: hh, rx: 8.5 }),
      s("text", { x: r1(w / 2), y: 12.2, "text-anchor": "middle", text }),
    ]);
    return { el, rect: { x0: x, y0: y, x1: x + w, y1: y + hh } };
  }

  onClick(e) {
    const toggle = e.target.closest?.("[data-role=cluster-toggle]");
    if (toggle) {
      const c = toggle.dataset.clusterId, app = this.app, view = app.view;
      if (view.collapsed.has(c)) {
        view.collapsed.delete(c);
        // Without a kernel to lay a new fold state out with dot, opening a layer folds the others
        // when dot laid that out ahead (the trace's views): every drawing keeps dot's guarantees.
        const direction = view.direction ?? app.p.direction;
        if (!app.canAskKernel && app.p.views.size && !app.p.views.has(`${direction}|${viewKey(visibleGraph(app.p, view))}`)) {
          const alone = new Set([...app.p.clusters.keys()].filter((id) => id !== c));
          if (app.p.views.has(`${direction}|${[...alone].sort().join("\n")}`)) view.collapsed = alone;
        }
      } else view.collapsed.add(c);
      app.draw();
      return;
    }
    const node = e.target.closest?.("[data-node-id]");
    this.app.set("selected", node ? node.dataset.nodeId : "");
  }
}

// The inspector: the side panel (the step card: the rule, what it sends back, the final gradients)
// and the card of the selected node, docked beside the graph.
class InspectorView {
  constructor(app) {
    this.app = app;
    this.slot = h("div", { class: "me-inspector-slot" });
    this.panel = h("aside", { class: "me-panel", "aria-live": "polite" });
  }

  // The side panel for this step and, when a node is selected, its card; true when there is one.
  render(back, fwd) {
    const p = this.app.p;
    const sections = [];
    if (back) sections.push(...this.backwardSections(back));
    else sections.push(...this.forwardSections(fwd));
    const sel = this.app.selected && p.byId.get(this.app.selected);
    // The inspector docks beside the graph, at its top, where the eye is after a click; the
    // graph makes room for it (and fits itself again) rather than being covered.
    this.slot.replaceChildren(...(sel ? [this.inspectorCard(sel, back)] : []));
    if (!sel) sections.push(h("p", { class: "me-hint", text: "Click any node to see its value, its gradient and its code." }));
    this.panel.replaceChildren(...sections);
    return Boolean(sel);
  }

  backwardSections(back) {
    const p = this.app.p;
    const label = (id) => nodeLabel(p.byId.get(id));
    if (!p.steps.length) {
      return [h("section", { class: "me-card" }, [h("h3", { text: "No backward steps" }),
        h("p", { text: p.error ? "See the message above. Forward still replays what the tape recorded."
          : p.forward.length ? "The tape has recorded ops but no gradient has been traced yet. Switch to Forward to replay what was recorded."
            : "Nothing to differentiate yet." })])];
    }
    if (!back.step) {
      return [h("section", { class: "me-card" }, [
        h("h3", { text: "Ready for backprop" }),
        h("p", {}, ["Backprop starts at the target ", h("strong", { text: label(p.target) }), " with ", h("span", { class: "me-dy", text: "dy" }),
          " = 1 (the target's gradient with respect to itself), and walks the tape backwards, one op per step."]),
        h("p", { text: "Press Step (or the → key) to run the first op's gradient rule." }),
      ])];
    }
    const st = back.step;
    const op = p.byId.get(st.op);
    const rule = st.rule ?? op.rule ?? [];
    const openCode = () => this.app.set("selected", op.id);   // the inspector shows the vjp's source
    const sentTo = new Set((st.grads_out ?? []).map((go) => go.input_index));
    const header = h("section", { class: "me-card me-current" }, [
      h("div", { class: "me-card-kicker", text: `Backward step ${this.app.step + 1} of ${p.steps.length}` }),
      h("h3", {}, [h("code", { text: opLabel(op) }), op.custom && h("span", { class: "me-tag me-tag-custom", text: "custom" })]),
      h("div", { class: "me-field-label", text: "Gradient arriving at its output" }),
      h("div", { class: "me-upstream", "data-role": "upstream" }, (st.upstream ?? []).map((u) => h("div", { class: "me-upstream-item" }, [
        h("div", { class: "me-eq" }, [h("span", { class: "me-dy", text: "dy" }), ` = ∂${dName(label(p.target))}/∂${dName(label(u.tensor))}`]),
        valueView(u.value),
      ]))),
      h("div", { class: "me-field-label", text: "Chain rule: local derivative × dy" }),
      h("div", { class: "me-rule", "data-role": "rule" }, rule.map((line, i) => ruleLine(line, sentTo.has(i) || !sentTo.size, openCode))),
    ]);
    const upShape = shapeOf(asValue(st.upstream?.[0]?.value));
    // What the rule's names stand for at this step: dy, the op's inputs by the names its rule uses, out.
    const f = p.forward[p.forwardIndex.get(st.op)];
    const values = new Map([["dy", asValue(st.upstream?.[0]?.value)]]);
    (f?.inputs ?? []).forEach((id, i) => { const name = ruleInput(rule[i]); if (name && !values.has(name)) values.set(name, asValue(p.byId.get(id)?.value)); });
    if (f?.outputs?.length === 1) values.set("out", asValue(p.byId.get(f.outputs[0])?.value));
    const sends = h("section", { class: "me-card" }, [
      h("div", { class: "me-field-label", text: "Sends back" }),
      ...(st.grads_out ?? []).map((go) => {
        const who = label(go.tensor);
        const input = ruleInput(rule[go.input_index]);
        const gShape = shapeOf(asValue(go.value));
        return h("div", { class: "me-send", "data-role": "grad-out", "data-edge-id": go.edge, "data-tensor": go.tensor }, [
          h("div", { class: "me-send-title" }, [input ? `to input ${input} = ` : "to ", h("strong", { text: who })]),
          rule[go.input_index] && h("div", { class: "me-rule me-rule-inline" }, [ruleLine(rule[go.input_index], true, openCode),
            ...ruleNumbers(rule[go.input_index], values, asValue(go.value), upShape).map((l) => h("div", { class: "me-rule-line me-rule-numbers", "data-role": "rule-numbers", text: l }))]),
          valueView(go.value),
          isBroadcastOf(gShape, upShape) && h("div", { class: "me-note", text:
            `${who} was broadcast from ${formatShape(gShape)} to ${formatShape(upShape)} on the way forward, so its gradient is summed back to ${formatShape(gShape)}.` }),
          go.is_accumulation
            ? h("div", { class: "me-accum", "data-role": "accumulation" }, [
              h("code", { text: `${who}.grad += ${compactValue(go.value)} → total ${compactValue(go.accumulated)}` }),
              h("div", { class: "me-note", text: `${who} is used more than once, so the gradients from each use add up.` }),
            ])
            : h("div", { class: "me-accum is-first" }, [h("code", { text: `${who}.grad = ${compactValue(go.accumulated ?? go.value)}` })]),
        ]);
      }),
      !(st.grads_out ?? []).length && h("p", { class: "me-hint", text: "No input of this op needs a gradient." }),
    ]);
    const out = [header, sends];
    if (back.finished) {
      out.push(h("section", { class: "me-card me-final", "data-role": "final-gradients" }, [
        h("h3", { text: "Done: the final gradients" }),
        ...p.sources.map((src) => {
          const g = p.gradients.get(src);
          const none = p.unreached.has(src) || !g || g.value == null;
          return h("div", { class: "me-final-item" + (none ? " is-none" : ""), "data-role": "final-gradient", "data-source": src }, [
            h("div", { class: "me-eq" }, [`∂${dName(label(p.target))}/∂`, h("strong", { text: dName(g?.name ?? label(src)) }), " ="]),
            none ? h("div", {}, [h("span", { class: "me-none", text: "None" }), h("span", { class: "me-note", text: ` — ${label(p.target)} does not depend on it` })])
              : valueView(g.value),
          ]);
        }),
      ]));
    }
    return out;
  }

  forwardSections(fwd) {
    const p = this.app.p;
    const label = (id) => nodeLabel(p.byId.get(id));
    if (!p.forward.length) return [h("section", { class: "me-card" }, [h("h3", { text: "No forward steps" }), h("p", { text: "No op was recorded on this tape." })])];
    if (!fwd.step) {
      return [h("section", { class: "me-card" }, [
        h("h3", { text: "Forward replay" }),
        h("p", { text: "Replays the ops in the order the tape recorded them. Faded nodes are not computed yet." }),
        h("p", { text: "Press Step (or the → key) to run the first op." }),
      ])];
    }
    const op = p.byId.get(fwd.step.op);
    return [h("section", { class: "me-card me-current is-forward" }, [
      h("div", { class: "me-card-kicker", text: `Forward step ${this.app.step + 1} of ${p.forward.length}` }),
      h("h3", {}, [h("code", { text: opLabel(op) }), op.custom && h("span", { class: "me-tag me-tag-custom", text: "custom" })]),
      h("div", { class: "me-eq me-forward-eq" }, `${(fwd.step.outputs ?? []).map(label).join(", ")} = ${opLabel(op)}(${(fwd.step.inputs ?? []).map(label).join(", ")})`),
      ...this.forwardFormula(op, fwd.step),
      ...(fwd.step.outputs ?? []).flatMap((id) => [h("div", { class: "me-field-label", text: `${label(id)} =` }), valueView(p.byId.get(id)?.value)]),
    ])];
  }

  // The op's formula with this step's numbers put in, as the backward card does with its rule.
  forwardFormula(op, step) {
    const p = this.app.p;
    const rule = op.rule ?? [], formula = formulaOf(rule);
    if (!formula || (step.outputs ?? []).length !== 1) return [];
    const values = new Map();
    (step.inputs ?? []).forEach((id, i) => { const name = ruleInput(rule[i]); if (name && !values.has(name)) values.set(name, asValue(p.byId.get(id)?.value)); });
    const lines = forwardNumbers(formula, values, asValue(p.byId.get(step.outputs[0])?.value));
    if (!lines.length) return [];
    return [h("div", { class: "me-rule", "data-role": "forward-numbers" }, [h("div", { class: "me-rule-line", text: formula }),
      ...lines.map((l) => h("div", { class: "me-rule-line me-rule-numbers", text: l }))])];
  }

  inspectorCard(n, back) {
    const p = this.app.p;
    const close = h("button", { type: "button", class: "me-btn me-btn-small me-close", "data-role": "inspector-close", "aria-label": "Close the inspector",
      title: "Close", text: "×", onclick: () => this.app.set("selected", "") });
    const items = [h("div", { class: "me-card-kicker" }, [n.kind === "op" ? (n.custom ? "custom-gradient op" : "op") : KIND_TAG[n.kind] ?? "intermediate tensor", close]),
      h("h3", {}, [h("code", { text: n.kind === "op" ? opLabel(n) : nodeLabel(n) })])];
    const where = (loc) => `${loc.file}, line ${loc.line}`;
    const code = () => n.code && [h("div", { class: "me-field-label", text: "Created by your code" }),
      h("div", { class: "me-code-link", "data-role": "inspector-code" }, [h("span", { class: "me-where", text: where(n.code) }), h("pre", { class: "me-code", text: n.code.text || "(source not available)" })])];
    // A graph view: what the pass did to the node.
    if (n.mark_text) items.push(h("div", { class: `me-mark-note me-mark-${n.mark}`, "data-role": "inspector-mark", text: n.mark_text }));
    if (n.kind === "op") {
      if (n.code) items.push(...code());
      const attrs = Object.entries(n.attrs ?? {});
      if (attrs.length) items.push(h("div", { class: "me-field-label", text: "Attributes" }),
        h("code", { class: "me-attrs", text: attrs.map(([key, v]) => `${key}=${JSON.stringify(v)}`).join(", ") }));
      if ((n.rule ?? []).length) items.push(h("div", { class: "me-field-label", text: "Gradient rule" }), h("div", { class: "me-rule" }, n.rule.map((l) => ruleLine(l))));
      const codeOnly = (n.rule ?? []).some((l) => String(l).endsWith(` = ${CODE_RULE}`));
      if (n.vjp) items.push(h("details", { class: "me-source", "data-role": "inspector-vjp", open: n.custom || codeOnly }, [
        h("summary", {}, [n.custom ? "Its source (your custom gradient) " : "Its gradient rule as code ", h("span", { class: "me-where", text: where(n.vjp) })]),
        h("pre", { class: "me-code", text: n.vjp.text }),
      ]));
      if (n.kernel) items.push(h("div", { class: "me-field-label", text: "Computed on the CPU by" }),
        h("div", { class: "me-code-link", "data-role": "inspector-kernel" }, [h("code", { text: `${n.kernel.name}()` }), " in ", h("span", { class: "me-where", text: where(n.kernel) })]));
    } else if (this.app.options.graph) { // a graph's value is known only when it runs: its type, and its line
      items.push(h("div", { class: "me-field-label", text: "Type" }), h("code", { text: [formatShape(n.shape ?? []), n.dtype].filter(Boolean).join(" · ") }));
      if (n.code) items.push(...code());
    } else {
      items.push(h("div", { class: "me-field-label", text: "Value" }), h("div", { "data-role": "inspector-value" }, [valueView(n.value)]));
      let grad;
      if (!back) grad = h("p", { class: "me-hint", text: "Gradients appear in the backward pass." });
      else if (back.finished && p.unreached.has(n.id)) grad = h("span", { class: "me-none", text: "None (the target does not depend on it)" });
      else if (back.finished && p.gradients.has(n.id)) grad = valueView(p.gradients.get(n.id).value);
      else if (back.grads.has(n.id)) grad = valueView(back.grads.get(n.id));
      else grad = h("p", { class: "me-hint", text: "Not computed yet at this step." });
      items.push(h("div", { class: "me-field-label", text: back?.finished ? "Gradient" : "Gradient so far" }), h("div", { "data-role": "inspector-grad" }, [grad]));
      if (p.sources.includes(n.id)) items.push(this.gradientCheck(n));
    }
    return h("section", { class: "me-card me-inspector", "data-role": "inspector", "data-node-id": n.id }, items);
  }

  // Finite differences against the stepped gradient: computed by the kernel (dbg.check_gradient),
  // so the button is there only with a live kernel; a result already made is shown anywhere.
  gradientCheck(n) {
    const result = (this.app.model.get("checks") ?? {})[n.id];
    const canAsk = typeof this.app.model.send === "function" && this.app.p.steps.length > 0;
    const out = [h("div", { class: "me-field-label", text: "Gradient check" })];
    if (canAsk) out.push(h("button", { type: "button", class: "me-btn me-btn-small", "data-role": "check-gradient",
      title: "Compare the stepped gradient with finite differences of the tape, in float64", text: result ? "Check again" : "Check with finite differences",
      onclick: () => this.app.model.send({ check_gradient: n.id }) }));
    if (result?.error) out.push(h("div", { class: "me-note me-gcheck-bad", "data-role": "gradient-check", text: result.error }));
    else if (result) {
      const rows = result.positions.map((pos, i) => h("tr", {}, [
        h("td", { text: pos.length ? `[${pos.join(", ")}]` : "·" }), h("td", { text: formatNumber(result.stepped[i], 6) }), h("td", { text: formatNumber(result.numeric[i], 6) }),
      ]));
      out.push(h("div", { class: `me-gcheck ${result.ok ? "is-ok" : "is-bad"}`, "data-role": "gradient-check", "data-ok": String(result.ok) }, [
        h("div", { class: "me-gcheck-verdict", text: result.ok ? `✓ agrees (largest difference ${formatNumber(result.max_abs_error, 3)})`
          : `✗ disagrees (largest difference ${formatNumber(result.max_abs_error, 3)})` }),
        h("table", { class: "me-gcheck-table" }, [h("tr", {}, [h("th", { text: "element" }), h("th", { text: "stepped" }), h("th", { text: "finite diff." })]), ...rows]),
        !result.all_elements && h("div", { class: "me-note", text: `${result.positions.length} evenly spaced elements probed.` }),
      ]));
    } else if (!canAsk) out.push(h("p", { class: "me-hint", text: "Run dbg.check_gradient(source) in the notebook to compare with finite differences." }));
    return h("div", { class: "me-gcheck-block" }, out);
  }
}

// The viewport: how the drawing fits its canvas (zoom), scrolling to a node, the minimap of a
// graph bigger than its canvas, and the "target" / "now" finders above it.
class ViewportView {
  constructor(app) {
    this.app = app;
    this.canvas = h("div", { class: "me-canvas" });
    this.canvas.addEventListener("scroll", () => this.update(), { passive: true });
    this.minimap = h("div", { class: "me-minimap", "data-role": "minimap", title: "Overview: click to go there" });
    this.minimap.addEventListener("click", (e) => this.onMinimapClick(e));
    this.finders = h("div", { class: "me-finders" });
    if (globalThis.ResizeObserver) { // keep the fit right when the notebook resizes (rows follow the width)
      const ro = new ResizeObserver(() => {
        if (typeof app.view.zoom === "number") return;
        if (Math.abs(this.canvasWidth() - (this.laidOutFor ?? 0)) > 40) app.draw();
        else this.applyZoom();
      });
      ro.observe(this.canvas);
      app.cleanups.push(() => ro.disconnect());
    }
  }

  // -- zoom. The canvas is as tall as the drawing needs, up to most of the window. "auto" fits the
  // whole graph when its text stays readable, else fits the width and scrolls (with a minimap);
  // "fit" shows all of it at any scale.

  get svg() { return this.app.canvasView.svg; }

  canvasWidth() { return Math.max(0, this.canvas.clientWidth - 2); }

  // One screen: the Step button above the canvas and the step card beside it (a wide output) or
  // below it (a narrow one, the card compact) fit in the window together, with room for the
  // notebook's own bars (JupyterLab at 1280x800: about 700 px for the output).
  maxCanvasHeight() {
    const H = globalThis.innerHeight || 800;
    if (this.app.options.maxHeight) return this.app.options.maxHeight(H); // a graph view: its viewer decides
    return this.app.root.classList.contains("is-wide") ? Math.max(280, Math.min(700, H - 340)) : Math.max(220, Math.min(700, H - 560));
  }

  applyZoom() {
    if (!this.svg) return;
    const [, , vw, vh] = this.app.geo.viewBox;
    const availW = this.canvasWidth(), maxH = this.maxCanvasHeight();
    let zoom = typeof this.app.view.zoom === "number" ? this.app.view.zoom : 1;
    if (typeof this.app.view.zoom !== "number" && availW > 0) {
      const fitW = availW / vw, fitAll = Math.min(fitW, (maxH - 2) / vh, 1.1);
      zoom = this.app.view.zoom === "fit" || fitAll >= READABLE ? fitAll : Math.max(READABLE, Math.min(fitW, 1.1));
    }
    this.svg.setAttribute("width", r1(vw * zoom));
    this.svg.setAttribute("height", r1(vh * zoom));
    this.canvas.style.height = `${Math.ceil(Math.min(maxH, vh * zoom + 2))}px`;
    this.currentZoom = zoom;
    this.update();
  }

  zoomBy(f) {
    this.app.view.zoom = Math.max(0.05, Math.min(3, (this.currentZoom ?? 1) * f));
    this.applyZoom();
  }

  // Where a node of the drawing is on the canvas, in px of the scrolled content.
  toCanvas(box) {
    const z = this.currentZoom ?? 1, [vx, vy, vw, vh] = this.app.geo.viewBox;
    // The svg is centred when it is smaller than the canvas.
    const ox = Math.max(0, (this.canvas.clientWidth - vw * z) / 2), oy = Math.max(0, (this.canvas.clientHeight - vh * z) / 2);
    return { x: (box.x - vx) * z + ox, y: (box.y - vy) * z + oy };
  }

  // Scroll the canvas (never the notebook page) so that node `vid` is in view; `always` centres it.
  scrollToNode(vid, always = false) {
    const box = vid && this.app.geo.boxes.get(vid);
    if (!box || !this.canvas.clientWidth) return;
    const { x, y } = this.toCanvas(box), c = this.canvas;
    const underMinimap = !this.minimap.hidden && x > c.scrollLeft + c.clientWidth - this.minimap.offsetWidth - 30
      && y > c.scrollTop + c.clientHeight - this.minimap.offsetHeight - 30;
    always ||= underMinimap;
    if (always || x < c.scrollLeft + 40 || x > c.scrollLeft + c.clientWidth - 40) c.scrollLeft = x - c.clientWidth / 2;
    if (always || y < c.scrollTop + 40 || y > c.scrollTop + c.clientHeight - 40) c.scrollTop = y - c.clientHeight / 2;
    this.update();
  }

  // A small overview of a graph bigger than its canvas: one rect per node, the visible part framed.
  drawMinimap() {
    const [vx, vy, vw, vh] = this.app.geo.viewBox;
    const scale = Math.min(170 / vw, 110 / vh);
    this.minimapScale = scale;
    const rects = this.app.graph.vnodes.map((vn) => {
      const b = this.app.geo.boxes.get(vn.id);
      return s("rect", { class: `me-mini-node me-kind-${vn.kind}`, "data-mini-id": vn.id, x: r1((b.x - b.w / 2 - vx) * scale), y: r1((b.y - b.h / 2 - vy) * scale),
        width: r1(Math.max(2, b.w * scale)), height: r1(Math.max(2, b.h * scale)), rx: 1 });
    });
    this.minimapView = s("rect", { class: "me-mini-view", x: 0, y: 0, width: 0, height: 0 });
    this.minimap.replaceChildren(s("svg", { width: r1(vw * scale), height: r1(vh * scale), viewBox: `0 0 ${r1(vw * scale)} ${r1(vh * scale)}` },
      [...rects, this.minimapView]));
  }

  onMinimapClick(e) {
    const svg = this.minimap.querySelector("svg");
    if (!svg) return;
    const r = svg.getBoundingClientRect(), z = this.currentZoom ?? 1, k = z / this.minimapScale;
    this.canvas.scrollLeft = (e.clientX - r.left) * k - this.canvas.clientWidth / 2;
    this.canvas.scrollTop = (e.clientY - r.top) * k - this.canvas.clientHeight / 2;
    this.update();
  }

  // The minimap's frame and the "target" / "current op" finders, after every scroll or zoom.
  update() {
    if (!this.app.geo || !this.minimapView) return;
    const c = this.canvas, z = this.currentZoom ?? 1, k = this.minimapScale / z;
    // The drawing's own size, not the scroll size (which includes the room left under the minimap).
    const overflows = Number(this.svg.getAttribute("width")) > c.clientWidth + 4 || Number(this.svg.getAttribute("height")) > c.clientHeight + 4;
    this.minimap.hidden = !overflows;
    c.classList.toggle("has-minimap", overflows); // room to scroll any node out from under the minimap
    if (overflows) {
      setProps(this.minimapView, { x: r1(c.scrollLeft * k), y: r1(c.scrollTop * k), width: r1(c.clientWidth * k), height: r1(c.clientHeight * k) });
    }
    const finders = [];
    const find = (role, vid, text) => {
      const box = vid && this.app.geo.boxes.get(vid);
      if (!box) return;
      const { x, y } = this.toCanvas(box);
      const dx = x < c.scrollLeft ? "←" : x > c.scrollLeft + c.clientWidth ? "→" : "";
      const dy = y < c.scrollTop ? "↑" : y > c.scrollTop + c.clientHeight ? "↓" : "";
      const off = dx || dy;
      finders.push(h("button", { type: "button", class: `me-finder${off ? " is-offscreen" : ""}`, "data-role": role, "data-for": vid,
        title: off ? `${text} is out of view: click to go there` : text, onclick: () => this.scrollToNode(vid, true) },
      [h("span", { class: `me-finder-dot me-finder-${role}` }), `${text}${off ? ` ${dy}${dx}` : ""}`]));
    };
    const { p, graph, mode, step } = this.app;
    if (p.target) find("find-target", graph.rep.get(p.target), `target ${nodeLabel(p.byId.get(p.target))}`);
    const current = mode === "forward" ? p.forward[step]?.op : p.steps[step]?.op;
    if (current) find("find-current", graph.rep.get(current), `now: ${opLabel(p.byId.get(current))}`);
    this.finders.replaceChildren(...finders);
  }
}

// ---------------------------------------------------------------- the widget

// The state and the views: reads and writes the model, prepares the trace, lays it out for the
// canvas, and tells the views what to show when the trace, the step or the view changes.
class TapeDebugger {
  constructor(el, model, options) {
    this.model = model;
    this.options = options;
    this.uid = `me${++instances}`;
    // zoom: null = "auto" (fit when readable, else fit the width and scroll), "fit" = the whole graph
    // at any scale, a number = the reader's own.
    this.view = { collapsed: new Set(), hideConstants: false, direction: null, zoom: null };
    this.foldDecided = false; // a big trace folds its layers once, not on every live update
    this.cleanups = [];

    // Graph mode (options.graph): a graph, not a tape; no steps, so no step controls and no step card.
    this.root = h("div", { class: `me-tape-debugger${options.graph ? " me-graph-mode" : ""}`, tabindex: "0", role: "group",
      "aria-label": options.graph ? "Graph" : "GradientTape debugger" });
    if (options.theme === "dark" || (options.theme === "auto" && globalThis.matchMedia?.("(prefers-color-scheme: dark)").matches)) {
      this.root.classList.add("me-dark");
    }
    el.replaceChildren(this.root);
    this.controls = new ControlsView(this);
    this.viewport = new ViewportView(this);
    this.canvasView = new CanvasView(this, this.viewport.canvas);
    this.inspector = new InspectorView(this);
    this.title = h("div", { class: "me-title" });
    this.notices = h("div", { class: "me-notices" });
    this.canvasWrap = h("div", { class: "me-canvas-wrap" }, [this.viewport.finders, this.viewport.canvas, this.viewport.minimap, this.inspector.slot]);
    this.layoutHint = h("div", { class: "me-note me-layout-hint", "data-role": "layout-hint" });
    this.root.append(h("div", { class: "me-header" }, [h("span", { class: "me-logo", text: "∇" }), this.title]),
      this.notices, this.controls.toolbar, h("div", { class: "me-body" }, [this.canvasWrap, this.inspector.panel]),
      this.controls.footer, this.layoutHint);

    const listen = (event, f) => { model.on(event, f); this.cleanups.push(() => model.off(event, f)); };
    listen("change:trace", () => this.loadTrace());
    listen("change:step", () => this.refresh());
    listen("change:mode", () => this.refresh());
    listen("change:selected", () => this.refresh());
    listen("change:checks", () => this.refresh());
    // The kernel's answer to a fold state asked for in draw(): dot's layout of it.
    listen("msg:custom", (msg) => {
      if (!msg || msg.view == null || !this.p) return;
      this.p.views.set(`${msg.direction}|${msg.view}`, msg.layout);
      this.draw();
    });
    this.root.addEventListener("keydown", (e) => this.onKey(e));
    this.loadTrace();
  }

  destroy() {
    this.controls.stopPlaying();
    this.cleanups.forEach((f) => f());
    this.root.remove();
  }

  // -- state, always through the model so that Python sees it too

  get mode() { return this.model.get("mode") === "forward" ? "forward" : "backward"; }
  get stepCount() { return this.mode === "forward" ? this.p.forward.length : this.p.steps.length; }
  get step() { // the index k of the step shown (-1: none yet); the model counts from 1
    const k = Number(this.model.get("step")) - 1;
    return Number.isInteger(k) ? Math.max(-1, Math.min(k, this.stepCount - 1)) : -1;
  }
  get selected() { return this.model.get("selected") || ""; }

  set(key, value) {
    this.model.set(key, value);
    this.model.save_changes();
  }

  goTo(k) { this.set("step", Math.max(-1, Math.min(k, this.stepCount - 1)) + 1); }

  // A live kernel behind the page (Jupyter), which can lay out fold states and check gradients.
  get canAskKernel() { return typeof this.model.send === "function"; }

  loadTrace() {
    this.p = prepareTrace(this.model.get("trace"));
    this.asked = new Set(); // fold states asked of the kernel for this trace
    const p = this.p;
    // A big tape starts with its layers (name scopes) folded, one node each; the reader's own
    // folding is kept across live updates.
    if (!this.foldDecided && p.clusters.size && (p.truncated || p.nodes.length > AUTO_FOLD_NODES)) {
      this.view.collapsed = new Set(p.clusters.keys());
      this.foldDecided = true;
    }
    this.layoutHint.textContent = p.layout?.hint ?? "";
    for (const c of [...this.view.collapsed]) if (!p.clusters.has(c)) this.view.collapsed.delete(c);
    this.controls.showDirection(p.direction);

    const empty = p.nodes.length === 0 && !p.unsized;
    this.root.classList.toggle("is-empty", empty);
    const ops = p.nodes.filter((n) => n.kind === "op").length;
    const target = p.byId.get(p.target);
    this.controls.showLegend(new Set(p.nodes.map((n) => n.kind)), new Set(p.nodes.map((n) => n.mark).filter(Boolean)));
    const raw = this.model.get("trace") ?? {};
    if (this.options.graph) this.title.replaceChildren(h("strong", { "data-role": "graph-title", text: String(raw.title ?? "graph") }));
    else this.title.replaceChildren(h("strong", { text: "GradientTape" }), h("span", { class: "me-subtitle", text: empty ? "empty" : [
      `${ops} op${ops === 1 ? "" : "s"}`,
      target && `target ${nodeLabel(target)}`,
      p.sources.length && `sources ${p.sources.map((id) => nodeLabel(p.byId.get(id))).join(", ")}`,
    ].filter(Boolean).join(" · ") }));

    const notices = [];
    if (p.error) notices.push(h("div", { class: "me-notice me-error", role: "alert", "data-role": "error" }, [
      h("strong", { text: "The debugger couldn't trace this tape. " }), p.error,
    ]));
    if (this.view.collapsed.size) notices.push(h("div", { class: "me-notice", "data-role": "notice", text:
      `${p.truncated?.total ?? p.nodes.length} nodes: each layer is folded into one node. Click one to open it (its title folds it again).` }));
    if (empty) notices.push(h("div", { class: "me-empty", "data-role": "empty" }, [
      h("div", { class: "me-empty-title", text: "This tape recorded nothing yet…" }),
      h("div", { text: "Run some ops on a Variable or a watched tensor inside " }, [h("code", { text: "with me.GradientTape() as tape:" })]),
      h("div", { text: "and the graph appears here as they are recorded." }),
    ]));
    this.notices.replaceChildren(...notices);
    this.draw();
  }

  // The graph and its geometry, for the canvas as wide as it is now; then the views draw it.
  draw() {
    const p = this.p;
    this.root.classList.toggle("is-wide", this.root.clientWidth >= WIDE);
    const direction = this.view.direction ?? p.direction;
    this.graph = visibleGraph(p, this.view);
    this.controls.showFolding(p.clusters.size, this.view.collapsed.size);
    const notice = this.notices.querySelector("[data-role=notice]");
    if (notice) notice.hidden = !this.view.collapsed.size; // "each layer is folded", while some are
    const width = this.viewport.canvasWidth();
    this.viewport.laidOutFor = width;
    this.geo = layoutForCanvas(p, this.graph, direction, width, () => this.viewport.maxCanvasHeight());
    // A fold state dot has not laid out yet: ask the kernel (when there is one and it has dot);
    // the page's own layout is drawn meanwhile.
    const key = viewKey(this.graph);
    if (this.geo.engine !== "dot" && this.canAskKernel && p.views.size && !this.asked.has(`${direction}|${key}`)) {
      this.asked.add(`${direction}|${key}`);
      this.model.send({ layout: { folded: key ? key.split("\n") : [], direction } });
    }
    this.viewport.drawMinimap();
    this.canvasView.draw();
    this.viewport.applyZoom();
    this.refresh();
  }

  // Per step: every view shows the step the model says.
  refresh() {
    if (!this.p) return;
    const p = this.p, k = this.step, n = this.stepCount, mode = this.mode;
    const back = mode === "backward" ? backwardState(p, k) : null;
    const fwd = mode === "forward" ? forwardState(p, k) : null;
    const state = back ?? fwd;
    this.root.classList.toggle("me-mode-forward", mode === "forward");
    this.root.classList.toggle("is-finished", Boolean(back?.finished));
    this.controls.update(k, n, mode);
    this.canvasView.update(state, back, fwd);
    // The inspector docks beside the graph, at its top; the graph makes room for it.
    this.canvasWrap.classList.toggle("has-inspector", this.inspector.render(back, fwd));
    this.viewport.scrollToNode(state.current ? this.graph.rep.get(state.current) : null);
    this.viewport.update();
  }

  onKey(e) {
    if (e.target.closest?.("input, select, textarea")) return; // the slider has its own arrow keys
    const moves = { ArrowRight: this.step + 1, ArrowLeft: this.step - 1, Home: -1, End: this.stepCount - 1 };
    if (!(e.key in moves)) return;
    e.preventDefault();
    this.controls.stopPlaying();
    this.goTo(moves[e.key]);
  }
}

// ---------------------------------------------------------------- the pass viewer

// A me.function's optimisation passes, one at a time: the graph before the pass and after it, each
// drawn by a TapeDebugger in graph mode (the same layout, drawing and zoom as a tape), side by side
// when the output is wide, one above the other when it is narrow. Synced state: `passes` (a list of
// { title, before, after }, before and after as traces with `mark`s) and `step` (the pass shown, from 0).
class PassViewer {
  constructor(el, model, options = {}) {
    this.model = model;
    this.cleanups = [];
    const button = (role, text, path, after) => {
      const glyph = s("svg", { class: "me-icon", viewBox: "0 0 16 16", width: 12, height: 12, "aria-hidden": "true" }, [s("path", { d: path })]);
      return h("button", { type: "button", class: "me-btn", "data-role": role, onclick: () => this.go(role === "next-pass" ? 1 : -1) },
        after ? [h("span", { text }), glyph] : [glyph, h("span", { text })]);
    };
    this.prev = button("previous-pass", "previous pass", "M11 2.5v11L3 8z", false);
    this.next = button("next-pass", "next pass", "M5 2.5v11L13 8z", true);
    this.label = h("span", { class: "me-step-label", "data-role": "pass-label", "aria-live": "polite" });
    this.pair = h("div", { class: "me-pass-pair" });
    this.root = h("div", { class: "me-pass-viewer", role: "group", "aria-label": "Optimisation passes" }, [
      h("div", { class: "me-pass-bar" }, [this.prev, this.next, this.label]), this.pair]);
    el.replaceChildren(this.root);
    // Side by side, each canvas may be as tall as a debugger's; stacked, the two share the window.
    const maxHeight = (H) => (this.pair.classList.contains("is-side") ? Math.max(260, Math.min(700, H - 250))
      : Math.max(250, Math.min(420, (H - 330) / 2)));
    this.panes = ["before", "after"].map(() => {
      const el = h("div", { class: "me-pass-pane" });
      this.pair.append(el);
      return mount(el, {}, { graph: true, mode: "forward", step: 0, maxHeight, theme: options.theme });
    });
    if (globalThis.ResizeObserver) {
      // Each pane follows its own width (the debugger's ResizeObserver); the viewer redraws both
      // when the arrangement changes, which changes how tall their canvases may be.
      const ro = new ResizeObserver(() => {
        const side = this.pair.classList.contains("is-side");
        if (side !== this.arrange()) this.show();
      });
      ro.observe(this.root);
      this.cleanups.push(() => ro.disconnect());
    }
    const show = () => this.show();
    for (const event of ["change:step", "change:passes"]) { model.on(event, show); this.cleanups.push(() => model.off(event, show)); }
    this.show();
  }

  get passes() { return Array.isArray(this.model.get("passes")) ? this.model.get("passes") : []; }

  go(d) {
    const k = Math.max(0, Math.min(this.passes.length - 1, Number(this.model.get("step")) + d));
    this.model.set("step", k);
    this.model.save_changes();
  }

  get index() { return Math.max(0, Math.min(this.passes.length - 1, Number(this.model.get("step")) || 0)); }

  // Side by side when both graphs are readable at half the width each (dot's widths, plus the
  // canvas margin and the pane's own border and padding, at the debugger's READABLE zoom); one
  // above the other otherwise, each with the whole width. Each graph fits its pane as the debugger
  // fits its canvas ("auto" zoom) and scrolls past it. Returns whether they are side by side.
  arrange() {
    const pass = this.passes[this.index], width = this.root.clientWidth;
    const natural = pass && [pass.before, pass.after].map((t) => (t?.views?.[""]?.width ?? Infinity) + 2 * PAD + 30);
    return this.pair.classList.toggle("is-side", Boolean(natural) && (natural[0] + natural[1]) * READABLE + 10 <= width);
  }

  show() {
    const passes = this.passes, k = this.index, pass = passes[k];
    this.arrange();
    this.label.textContent = pass ? `${k + 1} / ${passes.length} · ${pass.title}` : "No pass ran on this graph.";
    this.pair.hidden = !pass;
    this.prev.disabled = k <= 0;
    this.next.disabled = k >= passes.length - 1;
    // A new object each time, so that a pane redraws even when it shows the same graph again.
    this.panes.forEach((pane, i) => pane.model.set("trace", { ...(pass ? [pass.before, pass.after][i] : {}) }));
  }

  destroy() {
    this.cleanups.forEach((f) => f());
    this.panes.forEach((pane) => pane.destroy());
    this.root.remove();
  }
}

// ---------------------------------------------------------------- entry points

/**
 * Draw a trace into `el`. Without `options.model`, the state lives in the page (standalone HTML).
 * options: { model, step, mode, selected, theme: "auto" | "light" | "dark" }.
 * Returns { model, destroy }; `model.set("trace", t)` redraws, as a kernel does in Jupyter.
 */
export function mount(el, trace, options = {}) {
  const model = options.model ?? createLocalModel({
    trace, step: options.step ?? -1, mode: options.mode ?? "backward", selected: options.selected ?? "",
  });
  const debuggerView = new TapeDebugger(el, model, options);
  return { model, destroy: () => debuggerView.destroy() };
}

/** The pass viewer in `el`: `passes` as PassViewer's. Returns { model, destroy }. */
export function mountPasses(el, passes, options = {}) {
  const model = options.model ?? createLocalModel({ passes, step: options.step ?? 0 });
  const viewer = new PassViewer(el, model, options);
  return { model, destroy: () => viewer.destroy() };
}

export default {
  render({ model, el }) {
    // One module for both widgets: minieager.widgets.PassStepper syncs `passes`, TapeDebugger `trace`.
    const { destroy } = model.get("passes") !== undefined ? mountPasses(el, null, { model }) : mount(el, model.get("trace"), { model });
    return destroy;
  },
};
