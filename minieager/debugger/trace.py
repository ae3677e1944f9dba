"""Turn a GradientTape into a Trace: plain, JSON-serialisable data the debugger draws.

Built only on the tape's introspection API (``tape.records``, see docs/architecture.md); the
format is documented in docs/trace-format.md. Node ids are sequential in recording order
(``t0, t1, ...`` for tensors, ``op0, op1, ...`` for ops), so the same code gives the same ids.

The backprop schedule comes from ``autodiff.backprop.backward`` itself (through its
``on_step`` hook), so the trace's final gradients are exactly ``tape.gradient``'s. Tracing
does not use the tape up: a non-persistent tape can still give its one ``tape.gradient``.
"""
import math

import numpy as np

from .. import nest
from ..autodiff.backprop import backward
from ..autodiff.variable import Variable
from ..engine import recording
from ..engine.tensor import Tensor
from ..errors import InvalidArgumentError
from . import geometry, layout as layout_mod
from .html import save_html
from .names import name_of
from .png import to_png
from .source import code_line, op_code
from .svg import render
from .values import summarize

FORMAT_VERSION = 2         # 2: every node carries its ``size``, every cluster its ``folded_size``
DEFAULT_MAX_NODES = 400


class TraceError(ValueError):
    """The tape cannot be traced as asked; the message says why and what to do instead."""


class Trace:
    """A traced tape: ``to_dict()`` is the JSON data of docs/trace-format.md."""

    def __init__(self, data):
        self._data = data

    def to_dict(self):
        """The trace as plain data (json.dumps-able). Treat it as read-only."""
        return self._data

    @property
    def error(self):
        return self._data.get("error")

    @property
    def num_ops(self):
        return len(self._data["forward_steps"])

    @property
    def num_steps(self):
        return len(self._data["steps"])

    def to_svg(self, step=None, mode="backward"):
        """A static SVG picture after backward (or forward) step ``step``: 1 is the first step,
        0 before it, as in the widget's "step 1 / n" (default: the last)."""
        return render(self._data, step=step, mode=mode)

    def to_png(self, step=None, mode="backward"):
        """The same picture as PNG bytes (needs Pillow)."""
        return to_png(self.to_svg(step=step, mode=mode))

    def save_html(self, path):
        """Write one self-contained HTML file that steps through this trace offline."""
        return save_html(self, path)

    def _repr_svg_(self):
        return self.to_svg()

    def _repr_png_(self):       # what an untrusted notebook shows (its sanitiser drops SVG)
        return self.to_png()

    def __repr__(self):
        return f"Trace(ops={self.num_ops}, steps={self.num_steps})"


# ---- reading the tape --------------------------------------------------------------------

def tape_records(tape):
    """The tape's records, or a TraceError when a non-persistent tape has already been used."""
    if getattr(tape, "_used", False):
        raise TraceError(
            "This non-persistent GradientTape has already computed its gradients (tape.gradient frees "
            "its records), so there is nothing left to step through. Record the computation again, or "
            "use me.GradientTape(persistent=True) to step it and call tape.gradient as often as you like.")
    return tape.records


def _custom_inner(records):
    """Positions of the records a ``@custom_gradient`` function ran inside itself.

    They were recorded just before its node and nothing outside the function uses them: the
    tape differentiates the function through its own grad_fn, so they are never stepped.
    """
    last_use = {}
    for i, r in enumerate(records):
        for t in r.input_ids:
            last_use[t] = i
    hidden = set()      # record indexes (a record's index is its position on the tape)
    for i, r in enumerate(records):
        if not r.is_custom:
            continue
        own_inputs = set(r.input_ids)
        j = i - 1
        while j >= 0 and all(last_use.get(o, -1) < i and o not in own_inputs for o in records[j].output_ids):
            hidden.add(j)
            j -= 1
    return hidden


# ---- the backprop schedule ---------------------------------------------------------------

def _flat_sources(sources):
    flat = nest.flatten(sources)
    for k, s in enumerate(flat):
        if not isinstance(s, Tensor):
            raise TypeError(f"debugger: every source must be a Tensor or Variable, got {type(s).__name__} "
                            f"for source {k}.")
        if not s.dtype.is_floating:
            raise TraceError(
                f"Source {k} ({name_of(s) or 'a tensor'} of dtype {s.dtype.name}) is not differentiable: only "
                f"floating-point tensors have gradients. Use a float tensor, e.g. me.cast(x, me.float32), "
                f"before recording.")
    return flat


def _check_target(target, records, sources):
    if not isinstance(target, Tensor):
        raise TypeError(f"debugger: the target must be a Tensor, got {type(target).__name__}.")
    on_tape = any(target._id in r.output_ids for r in records) or any(target is s for s in sources)
    if not on_tape:
        raise TraceError(
            "The target is not on this tape: no recorded op produced it. Compute it inside the "
            "`with me.GradientTape() as tape:` block from a Variable or a watched tensor "
            "(tape.watch(x)), and pass that result.")


def _schedule(records, target, sources):
    """Run the real backward pass; returns (raw steps, {source id: gradient})."""
    raw, totals = [], {}

    def on_step(record, dys, sent):
        grads_out = []
        for k, (tensor, g) in enumerate(zip(record.inputs, sent)):
            if g is None:
                continue
            previous = totals.get(tensor._id)
            value = np.asarray(g)
            totals[tensor._id] = value if previous is None else previous + value
            grads_out.append((k, tensor, g, totals[tensor._id], previous is not None))
        raw.append((record, [(o, dy) for o, dy in zip(record.outputs, dys) if dy is not None], grads_out))

    # Other open tapes must not record the debugger's backward pass (it is not the user's code).
    try:
        with recording.paused():
            grads = backward(records, [target], [None], sources, on_step=on_step)
    except InvalidArgumentError as e:
        raise TraceError(str(e)) from e
    return raw, grads


# ---- building the graph ------------------------------------------------------------------

class _Builder:
    """Assigns ids and names in recording order and collects nodes and edges."""

    def __init__(self, tape, target, summaries, code_lines):
        self.code_lines = code_lines      # record index -> (file, line) of the code that ran it
        self.watched = {t._id for t in getattr(tape, "_watched", ())}
        self.target_id = target._id if target is not None else None
        self.summaries = summaries
        self.tensor_ids = {}      # tensor._id -> "tK"
        self.nodes, self.edges, self.forward = [], [], []
        self.node_by_id = {}
        self.edge_of_input = {}   # (record index, input index) -> edge id
        self.op_of_record = {}    # record index -> "opK"
        self.produced = set()     # tensor._ids made by a drawn record
        self.counts = {}
        self.given = {}           # a name given to a tensor -> how many tensors carry it so far

    def _unique(self, base):
        n = self.counts.get(base, 0)
        self.counts[base] = n + 1
        return base if n == 0 else f"{base}_{n}"

    def _summary(self, t):
        key = (t._id, getattr(t, "_version", 0))
        if key not in self.summaries:
            self.summaries[key] = summarize(t)
        return self.summaries[key]

    def _kind(self, t):
        if t._id == self.target_id:
            return "target"
        if isinstance(t, Variable):
            return "variable"
        if t._id in self.watched:
            return "watched"
        return "tensor" if t._id in self.produced else "constant"

    def tensor(self, t, label=None):
        tid = self.tensor_ids.get(t._id)
        if tid is not None:
            return tid
        tid = self.tensor_ids[t._id] = f"t{len(self.tensor_ids)}"
        kind = self._kind(t)
        value = self._summary(t)
        given = name_of(t)
        if given is None and label is None:
            if value.get("full") and not value["shape"] and kind in ("constant", "watched"):
                label = str(value["data"])      # a scalar constant reads best as its value: "2.0"
            else:
                label = self._unique("const")   # a watched one also says WATCHED in its tag
        name = given or label
        if given is not None and given in self.given:
            # Two tensors given one name (two Variables "w"): each box must still say which it is.
            self.given[given] += 1
            name = f"{given} ({self.given[given]})"
        elif given is not None:
            self.given[given] = 1
        node = {"id": tid, "kind": kind, "op": None, "name": name, "label": name,
                "shape": list(t.shape), "dtype": t.dtype.name, "value": value, "cluster": None}
        self.nodes.append(node)
        self.node_by_id[tid] = node
        return tid

    def record(self, r):
        pos = r.index
        inputs = [self.tensor(t) for t in r.inputs]
        op_id = self.op_of_record[pos] = f"op{len(self.op_of_record)}"
        op_name = self._unique(r.op_name)
        scope = getattr(r, "scope", None)
        # The box shows what ran ("matmul"); the unique name ("matmul_1") names its outputs.
        node = {"id": op_id, "kind": "op", "op": r.op_name, "name": op_name, "label": r.op_name,
                "attrs": _json_attrs(r.attrs), "rule": list(r.rule), "custom": bool(r.is_custom),
                "cluster": scope or None, "code": code_line(self.code_lines.get(pos)), **op_code(r.op)}
        self.nodes.append(node)
        self.node_by_id[op_id] = node
        for k, tid in enumerate(inputs):
            edge_id = f"e{len(self.edges)}"
            self.edges.append({"id": edge_id, "source": tid, "target": op_id, "input_index": k})
            self.edge_of_input[(pos, k)] = edge_id
        outputs = []
        for k, t in enumerate(r.outputs):
            self.produced.add(t._id)
            tid = self.tensor(t, label=f"{op_name}:{k}")
            self.node_by_id[tid]["cluster"] = scope or None
            outputs.append(tid)
            self.edges.append({"id": f"e{len(self.edges)}", "source": op_id, "target": tid,
                               "input_index": None, "output_index": k})
        self.forward.append({"index": len(self.forward), "op": op_id, "inputs": inputs, "outputs": outputs})


def _json_attrs(attrs):
    def plain(v):
        if isinstance(v, (bool, int, float, str)) or v is None:
            return v if not (isinstance(v, float) and not math.isfinite(v)) else str(v)
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        if isinstance(v, np.generic):
            return plain(v.item())
        return repr(v)
    return {k: plain(v) for k, v in attrs.items()}


def _clusters(nodes):
    clusters = {}
    for n in nodes:
        if n["cluster"] is not None:
            clusters.setdefault(n["cluster"], []).append(n["id"])
    return [{"id": c, "label": c, "nodes": members} for c, members in clusters.items()]


def _collapse(nodes, edges, max_nodes):
    """Put unscoped ops (and constants they alone use) in clusters of consecutive ops."""
    ops = [n for n in nodes if n["kind"] == "op" and n["cluster"] is None]
    per = max(1, math.ceil(len(ops) / max(1, max_nodes // 4)))
    cluster_of = {}
    for k, op in enumerate(ops):
        first, last = (k // per) * per, min(len(ops), (k // per + 1) * per) - 1
        op["cluster"] = cluster_of[op["id"]] = f"ops {first}–{last}"
    by_id = {n["id"]: n for n in nodes}
    consumers = {}
    for e in edges:
        if e["input_index"] is None:
            if by_id[e["target"]]["cluster"] is None:   # an op's output joins the op's cluster
                by_id[e["target"]]["cluster"] = by_id[e["source"]]["cluster"]
        else:
            consumers.setdefault(e["source"], set()).add(by_id[e["target"]]["cluster"])
    for n in nodes:
        if n["kind"] == "constant" and n["cluster"] is None and len(consumers.get(n["id"], ())) == 1:
            n["cluster"] = next(iter(consumers[n["id"]]))


def trace(tape, target=None, sources=None, *, max_nodes=DEFAULT_MAX_NODES, hide_constants=False,
          direction="LR", layout=True, _summaries=None, _code_lines=None):
    """Trace ``tape``: its graph and, given ``target`` and ``sources``, the backprop steps.

    target, sources   what to differentiate (as in ``tape.gradient(target, sources)``); without
                      them the trace has the graph and the forward steps only
    max_nodes         above this many nodes, ops are grouped into collapsed clusters
    hide_constants    leave constant inputs out of the drawing
    direction         "LR" (left to right) or "TB" (top to bottom)
    layout            lay the graph out with Graphviz (or the built-in layout) now

    Raises TraceError (a ValueError) for a target not on the tape, a non-differentiable source,
    a tape with nothing recorded or a non-persistent tape already used; TypeError for non-tensors.
    """
    if direction not in ("LR", "TB"):
        raise ValueError(f"direction must be 'LR' or 'TB', got {direction!r}.")
    records = tape_records(tape)
    flat_sources = _flat_sources(sources) if sources is not None else []
    raw, grads = [], {}
    if target is not None:
        if sources is None:
            raise TypeError("debugger: give the sources too, e.g. trace(tape, loss, [w, b]).")
        if not records:
            raise TraceError("This tape recorded nothing, so there is nothing to differentiate. Run the ops "
                             "on a Variable or a watched tensor inside `with me.GradientTape() as tape:`.")
        _check_target(target, records, flat_sources)
        raw, grads = _schedule(records, target, flat_sources)
    elif sources is not None:
        raise TypeError("debugger: sources were given without a target.")

    hidden = _custom_inner(records) - {r.index for r, _, _ in raw}
    builder = _Builder(tape, target, {} if _summaries is None else _summaries, _code_lines or {})
    for r in records:
        if r.index not in hidden:
            builder.record(r)
    source_ids = [builder.tensor(s) for s in flat_sources]
    if target is not None:
        target_id = builder.tensor(target)

    steps = []
    for record, upstream, grads_out in raw:
        pos = record.index
        steps.append({
            "index": len(steps), "op": builder.op_of_record[pos], "op_name": record.op_name,
            "upstream": [{"tensor": builder.tensor(o), "value": summarize(dy)} for o, dy in upstream],
            "rule": list(record.rule),
            "grads_out": [{"edge": builder.edge_of_input[(pos, k)], "tensor": builder.tensor(t), "input_index": k,
                           "value": summarize(g), "accumulated": summarize(total), "is_accumulation": again}
                          for k, t, g, total, again in grads_out],
        })
    gradients = [{"source": sid, "name": builder.node_by_id[sid]["label"], "value": summarize(grads.get(s._id))}
                 for sid, s in zip(source_ids, flat_sources)]

    nodes, edges = builder.nodes, builder.edges
    if hide_constants:
        keep = {n["id"] for n in nodes if n["kind"] != "constant" or n["id"] in source_ids}
        nodes = [n for n in nodes if n["id"] in keep]
        edges = [e for e in edges if e["source"] in keep and e["target"] in keep]
    truncated = None
    if len(nodes) > max_nodes:
        truncated = {"limit": max_nodes, "total": len(nodes)}
        _collapse(nodes, edges, max_nodes)
    data = {
        "version": FORMAT_VERSION,
        "direction": direction,
        "nodes": nodes,
        "edges": edges,
        "clusters": _clusters(nodes),
        "forward_steps": builder.forward,
        "target": target_id if target is not None else None,
        "sources": source_ids,
        "steps": steps,
        "gradients": gradients,
        "unreached": [g["source"] for g in gradients if g["value"] is None],
        # A collapsed graph is laid out by whoever draws it, with its clusters folded.
        "layout": None,
        "truncated": truncated,
        "error": None,
    }
    geometry.add_sizes(data)        # the boxes every drawing draws, the widget's included
    if layout and truncated is None:
        data["layout"] = layout_mod.compute([(n["id"], n["size"]) for n in nodes], edges,
                                            data["clusters"], direction)
    # The views the widget shows (layers folded or open), each laid out by dot with its open
    # layers as clusters; None without Graphviz (the widget then lays folded graphs out itself).
    data["views"] = layout_mod.views(data) if layout else None
    return Trace(data)


def error_trace(message, base=None):
    """A trace that shows ``message`` (and ``base``'s graph, if given) instead of steps."""
    data = dict(base.to_dict()) if base is not None else {
        "version": FORMAT_VERSION, "direction": "LR", "nodes": [], "edges": [], "clusters": [],
        "forward_steps": [], "target": None, "sources": [], "steps": [], "gradients": [], "unreached": [],
        "layout": None, "truncated": None}
    data["error"] = message
    return Trace(data)
