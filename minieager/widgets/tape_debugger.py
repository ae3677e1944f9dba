"""``TapeDebugger``: the anywidget that draws a GradientTape live and steps through backprop.

The front-end (widgets/tape_debugger.js, shipped in ./static) holds the whole trace and steps
by itself, so stepping needs no round trip to the kernel. Python sends a new trace when ops are
recorded (at most every ``SYNC_INTERVAL_S`` while recording, so a long tape does not crawl,
and once more when the cell finishes) and when ``backprop`` arms the stepper.
"""
import base64
import subprocess
import time
import weakref

import anywidget
import traitlets

from ..debugger import assets, layout as layout_mod
from .. import nest
from ..debugger.gradcheck import check_gradient
from ..debugger.html import save_html
from ..debugger.png import to_png
from ..debugger.source import caller
from ..debugger.svg import render
from ..debugger.trace import DEFAULT_MAX_NODES, Trace, TraceError, error_trace, trace

PICTURE_WIDTH = 1100       # px: a saved picture wider than this is drawn in rows
_live = weakref.WeakSet()      # debuggers whose tape may still be recording
_hooked = False


def _after_cell(*_):
    for debugger in list(_live):
        debugger._flush(final=True)
        debugger._update_pictures()


def _hook_cells():
    """Flush every live debugger after each notebook cell (the tape has no "closed" event)."""
    global _hooked
    if _hooked:
        return
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None:
        shell.events.register("post_execute", _after_cell)
        _hooked = True


class _LiveTrace(traitlets.Instance):
    """The ``trace`` trait: reading it first takes in any op recorded since the last sync."""

    def get(self, obj, cls=None):
        obj._flush()
        return super().get(obj, cls)


def _trace_to_json(value, widget):
    return value.to_dict() if value is not None else {}


class TapeDebugger(anywidget.AnyWidget):
    """Draws ``tape`` as a graph while it records; ``backprop(target, sources)`` arms the stepper.

        with me.GradientTape() as tape:
            dbg = me.widgets.TapeDebugger(tape)     # or tape.debugger()
            display(dbg)
            y = me.reduce_sum(me.tanh(x @ w + b))
        dbg.backprop(y, [w, b])

    Synced state: ``trace`` (sent to the page as the dict of docs/trace-format.md), ``step`` (the
    step shown, counted from 1 as in the widget's "step 2 / 5" label; 0 before the first step),
    ``mode`` ("backward" or "forward") and ``selected`` (a node id).

    Each display also carries a PNG picture and a one-line text/plain, for notebooks opened
    untrusted or without a kernel (their sanitiser drops the widget and inline SVG); after every
    cell the pictures of displays whose trace changed are redrawn.
    """

    _esm = assets.read("tape_debugger.js")
    _css = assets.read("tape_debugger.css")
    trace = _LiveTrace(Trace, allow_none=True).tag(sync=True, to_json=_trace_to_json)
    step = traitlets.Int(0).tag(sync=True)
    mode = traitlets.Unicode("backward").tag(sync=True)
    selected = traitlets.Unicode("").tag(sync=True)
    checks = traitlets.Dict().tag(sync=True)      # node id -> check_gradient's result

    SYNC_INTERVAL_S = 0.25

    def __init__(self, tape, *, direction="LR", max_nodes=DEFAULT_MAX_NODES, hide_constants=False, **kwargs):
        self._tape = tape
        self._options = dict(direction=direction, max_nodes=max_nodes, hide_constants=hide_constants)
        self._summaries = {}        # tensor values are summarised once, not on every redraw
        self._code_lines = {}       # record index -> (file, line) of the code that recorded it
        self._dirty, self._laid_out, self._last_sync = False, False, 0.0
        self._displays = []         # (display id, the trace drawn in its picture)
        super().__init__(trace=self._build(layout=True), **kwargs)
        self._target, self._sources, self._records = None, None, None
        tape._debuggers.append(self)
        self.on_msg(self._on_page_message)
        _live.add(self)
        _hook_cells()

    # ---- following the tape ----------------------------------------------------------------
    def _on_record(self, record):
        """Called by the tape for each op it records: note the learner's line that ran it."""
        self._code_lines[record.index] = caller()
        self._dirty = True
        if time.monotonic() - self._last_sync >= self.SYNC_INTERVAL_S:
            self._flush()

    def _build(self, layout, target=None, sources=None):
        self._laid_out = layout
        self._last_sync = time.monotonic()
        return trace(self._tape, target, sources, layout=layout, _summaries=self._summaries,
                     _code_lines=self._code_lines, **self._options)

    def _flush(self, final=False):
        """Redraw if ops were recorded since the last sync; ``final`` also adds the Graphviz layout."""
        if not (self._dirty or (final and not self._laid_out)):
            return
        self._dirty = False
        try:
            # While ops keep coming the page lays the graph out itself; Graphviz runs once at the end.
            new = self._build(layout=final)
        except TraceError:
            return              # the tape was used up meanwhile: keep the last drawing
        self.set_trait("trace", new)
        self.step = 0

    # ---- stepping ----------------------------------------------------------------------------
    def backprop(self, target, sources):
        """Arm the stepper: the backprop schedule of ``target`` with respect to ``sources``.

        Like ``tape.gradient(target, sources)``, without using the tape up. Raises TraceError
        (also shown in the widget) for a target not on the tape, a non-differentiable source or
        a non-persistent tape already used.
        """
        self._flush()       # the graph so far, to show under an error message
        try:
            new = self._build(layout=True, target=target, sources=sources)
        except (TraceError, TypeError) as e:
            self.set_trait("trace", error_trace(str(e), base=self.trace))
            raise
        self.set_trait("trace", new)
        # The records as they are now: a later tape.gradient frees a non-persistent tape, and the
        # finite-difference check replays these (the forward re-recorded from the tape's records).
        self._target, self._sources, self._records = target, sources, self._tape.records
        self.step, self.mode, self.selected, self.checks = 0, "backward", "", {}

    def check_gradient(self, source):
        """Compare the stepped gradient of ``source`` with finite differences of the replayed tape.

        ``source`` is one of the sources given to ``backprop`` (or its node id, e.g. "t0"). Returns
        a dict: ``stepped`` and ``numeric`` values at the probed ``positions``, ``max_abs_error``
        and ``ok``; the inspector shows the same (its "Check gradient" button calls this).
        """
        if self._target is None:
            raise TraceError("check_gradient needs backprop(target, sources) first.")
        flat = nest.flatten(self._sources)
        if isinstance(source, str):
            ids = self.trace.to_dict()["sources"]
            if source not in ids:
                raise TraceError(f"check_gradient: {source!r} is not a source node; the sources are {ids}.")
            source = flat[ids.index(source)]
        result = check_gradient(self._records, self._target, self._sources, source)
        node_id = self.trace.to_dict()["sources"][next(k for k, s in enumerate(flat) if s is source)]
        self.checks = {**self.checks, node_id: result}
        return result

    def _on_page_message(self, _, content, buffers):
        ask = content.get("layout") if isinstance(content, dict) else None
        if isinstance(ask, dict):
            self.send(self.view_layout(ask.get("folded") or [], ask.get("direction")))
            return
        node_id = content.get("check_gradient") if isinstance(content, dict) else None
        if node_id:
            try:
                self.check_gradient(node_id)
            except (TraceError, TypeError, ValueError) as e:
                self.checks = {**self.checks, node_id: {"error": str(e)}}

    def view_layout(self, folded, direction=None):
        """dot's layout of the graph with the clusters ``folded`` folded (the page asks for a fold
        state the trace did not bring): {"view": key, "direction", "layout": view or None}."""
        data = self.trace.to_dict()
        direction = direction if direction in ("LR", "TB") else data["direction"]
        known = {c["id"] for c in data["clusters"]}
        folded = [c for c in folded if c in known]
        dot, result = layout_mod.find_dot(), None
        if dot is not None and data["nodes"]:
            try:
                result = layout_mod.layout_view(dot, data, folded, direction=direction)
            except (OSError, subprocess.SubprocessError, ValueError, KeyError):
                result = None
        return {"view": layout_mod.view_key(folded), "direction": direction, "layout": result}

    # ---- static output -------------------------------------------------------------------
    def to_svg(self, step=None, mode=None, builtin_layout=False):
        """SVG text after step ``step`` (counted from 1; default: the one shown now)."""
        return render(self.trace.to_dict(), step=self.step if step is None else step,
                      mode=mode or self.mode, builtin_layout=builtin_layout)

    def to_png(self, step=None, mode=None):
        """PNG bytes of the picture a saved notebook shows (built-in layout, long graphs in rows)."""
        svg = render(self.trace.to_dict(), step=self.step if step is None else step, mode=mode or self.mode,
                     builtin_layout=True, wrap=PICTURE_WIDTH)
        return to_png(svg)

    def save_html(self, path):
        """Write one self-contained HTML file that steps through this trace in any browser."""
        return save_html(self.trace, path)

    def __repr__(self):
        # Deterministic (no address): nbval compares it in saved notebooks.
        tr = self.trace
        return f"TapeDebugger(ops={tr.num_ops}, steps={tr.num_steps}, step={self.step})"

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        data.pop("text/html", None)     # sanitised into a text dump where the widget is not shown
        data["text/plain"] = repr(self)
        # The picture for places without the widget: an untrusted notebook in JupyterLab or
        # Notebook 7 (their sanitiser keeps a PNG), GitHub, nbconvert. nbval does not compare PNGs.
        data["image/png"] = base64.b64encode(self.to_png()).decode("ascii")
        return data, metadata

    def _ipython_display_(self, **kwargs):
        # Displayed with an id, so that the picture can follow the tape after the cell (a debugger
        # shown inside `with GradientTape()` is empty when displayed).
        from IPython.display import display
        bundle = self._repr_mimebundle_()[0]
        handle = display(bundle, raw=True, display_id=True)
        if handle is not None:
            self._displays.append((handle.display_id, self.trace, bundle["text/plain"]))

    def _update_pictures(self):
        # Only the picture follows the tape: the text stays what it was when displayed, as nbval
        # (which replays the display but not its updates) compares it with the saved one.
        from IPython.display import update_display
        now = self.trace
        for k, (display_id, drawn, text) in enumerate(self._displays):
            if drawn is not now:
                update_display({**self._repr_mimebundle_()[0], "text/plain": text}, raw=True, display_id=display_id)
                self._displays[k] = (display_id, now, text)
