"""Make a notebook's saved widget outputs live in a static page, without a kernel.

Jupyter saves each widget output as a view (a model id) plus the models' state in the notebook's
metadata. A static site has no widget manager to bring them back, so before Sphinx reads a
notebook, ``embed_widgets`` rewrites those outputs as HTML:

- a tape debugger (an anywidget model whose state holds a ``trace``) becomes an ``<iframe>`` on
  the debugger's own standalone page (``minieager.debugger.html``), written beside the site's
  static files: it steps through backprop in any browser, offline; its source links are published
  without comments and without absolute paths (``published_trace``);
- a pass viewer (``me.widgets.PassStepper``, whose state holds ``passes``) becomes the same kind of
  frame, on the standalone page of its pass viewer;
- a progress bar (tqdm's HBox of HTML and progress models) becomes the same text and a
  ``<progress>`` element, at the state it was saved in;
- any other widget keeps only its text fallback.

The widget state is then dropped from the metadata, so that myst-nb adds no widget manager
(which it would load from a CDN).
"""
import copy
import html
import os
from pathlib import Path

from minieager.debugger.html import standalone_html
from minieager.debugger.source import without_comments

VIEW = "application/vnd.jupyter.widget-view+json"
STATE = "application/vnd.jupyter.widget-state+json"

# Appended to each debugger page: it tells the page embedding it how tall it is, so the frame
# fits its content (postMessage works across the opaque origins of file:// pages too).
RESIZE_SCRIPT = """<script>
new ResizeObserver(() => parent.postMessage(
  { meDebuggerFrame: window.name, height: document.documentElement.scrollHeight }, "*"
)).observe(document.documentElement);
</script>
"""


def widget_states(nb):
    """model id -> that model's saved state (empty when the notebook saved none)."""
    saved = nb.get("metadata", {}).get("widgets", {}).get(STATE, {})
    return {model_id: model.get("state", {}) for model_id, model in saved.get("state", {}).items()}


def published_trace(trace):
    """A saved trace as the site may publish it: no source comments, no absolute paths.

    Traces saved by today's minieager are already so (``minieager.debugger.source``); a notebook
    saved before that, or on another machine, is cleaned here rather than trusted.
    """
    trace = copy.deepcopy(trace)
    for node in trace.get("nodes", []):
        for key in ("code", "vjp", "kernel"):
            link = node.get(key)
            if not isinstance(link, dict):
                continue
            if isinstance(link.get("text"), str):
                link["text"] = without_comments(link["text"])
            if isinstance(link.get("file"), str) and os.path.isabs(link["file"]):
                link["file"] = os.path.basename(link["file"])
    return trace


def debugger_page(trace):
    """The standalone debugger page, reporting its height to the page around it. ``trace`` may be a
    pass viewer's ``{"passes": [...]}``: each pass's graphs are published as traces are."""
    if "passes" in trace:
        trace = {"passes": [dict(p, before=published_trace(p["before"]), after=published_trace(p["after"]))
                            for p in trace["passes"]]}
    else:
        trace = published_trace(trace)
    page = standalone_html(trace)
    return page.replace("</body>", RESIZE_SCRIPT + "</body>", 1)


def debugger_frame(src, name, title):
    """The iframe that shows one saved debugger (its height is set by _static/me-debugger-frame.js)."""
    return (f'<iframe class="me-debugger-frame" name="{name}" src="{html.escape(src)}" '
            f'title="{html.escape(title)}" loading="lazy" style="width:100%;height:420px;border:0"></iframe>')


def progress_html(model, states):
    """tqdm's bar as static HTML: its label, a <progress> element and its counts, as saved."""
    parts = []
    for ref in model.get("children", []):
        child = states.get(ref.removeprefix("IPY_MODEL_"), {})
        kind = child.get("_model_name")
        if kind == "HTMLModel":
            parts.append(f"<span>{child.get('value', '')}</span>")
        elif kind in ("FloatProgressModel", "IntProgressModel"):
            parts.append(f'<progress value="{child.get("value", 0)}" max="{child.get("max", 100)}"></progress>')
        else:
            return None
    return f'<div class="me-progress">{" ".join(parts)}</div>'


def embed_widgets(nb, frames_dir, page_dir, stem):
    """Rewrite ``nb``'s widget outputs in place (see the module's docstring).

    Debugger pages are written to ``frames_dir``, and linked relative to ``page_dir`` (the
    folder of the page the notebook becomes); ``stem`` names them. Returns the pages written
    (one per debugger, however many times the notebook displayed it).
    """
    states = widget_states(nb)
    written = {}
    for cell in nb.get("cells", []):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if VIEW not in data:
                continue
            model_id = data.pop(VIEW)["model_id"]
            model = states.get(model_id, {})
            if "trace" in model or "passes" in model:
                path = Path(frames_dir) / f"{stem}-{model_id}.html"
                if model_id not in written:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    page = debugger_page(model["trace"] if "trace" in model else {"passes": model["passes"]})
                    path.write_text(page, encoding="utf-8")
                    written[model_id] = path
                src = Path(os.path.relpath(path, page_dir)).as_posix()
                title = "GradientTape debugger" if "trace" in model else "optimisation passes"
                data["text/html"] = debugger_frame(src, f"me-{model_id}", title)
            elif model.get("_model_name") == "HBoxModel" and (bar := progress_html(model, states)):
                data["text/html"] = bar
            elif not data:
                output["data"] = {"text/plain": "[an interactive widget: run the notebook to see it]"}
    nb.get("metadata", {}).pop("widgets", None)
    return list(written.values())
