"""``PassStepper``: step through a ``me.function``'s optimisation passes, one pass at a time.

    concrete = f.get_concrete_function(x)
    me.widgets.PassStepper(concrete)          # or PassStepper(concrete.pass_reports)

Each step shows the graph before and after one pass, with what it removed, merged, folded,
simplified or fused in colour, and the node counts. The pictures are the static SVGs of
``minieager.graph.passes.view`` (drawn in Python, sent once), so the page only switches between
them; a notebook saved with the widget also keeps one line of text per pass.
"""
import anywidget
import traitlets

from ..graph.passes.view import PassSteps

_ESM = """
function render({ model, el }) {
  const bar = document.createElement("div");
  bar.style.cssText = "display:flex;gap:8px;align-items:center;margin:4px 0 8px;font-family:system-ui,sans-serif";
  const prev = document.createElement("button"), next = document.createElement("button");
  prev.textContent = "◀ previous pass"; next.textContent = "next pass ▶";
  const label = document.createElement("span");
  const picture = document.createElement("div");
  picture.style.overflow = "auto";
  bar.append(prev, next, label); el.append(bar, picture);
  const show = () => {
    const pages = model.get("pages"), k = model.get("step");
    label.textContent = model.get("titles")[k] || "";
    picture.innerHTML = pages[k] || "";
    prev.disabled = k <= 0; next.disabled = k >= pages.length - 1;
  };
  prev.onclick = () => { model.set("step", Math.max(0, model.get("step") - 1)); model.save_changes(); };
  next.onclick = () => { model.set("step", Math.min(model.get("pages").length - 1, model.get("step") + 1)); model.save_changes(); };
  model.on("change:step", show); model.on("change:pages", show);
  show();
}
export default { render };
"""


class PassStepper(anywidget.AnyWidget):
    """Before/after pictures of each optimisation pass; ``step`` is the pass shown (0-based)."""

    _esm = _ESM
    pages = traitlets.List(traitlets.Unicode()).tag(sync=True)
    titles = traitlets.List(traitlets.Unicode()).tag(sync=True)
    step = traitlets.Int(0).tag(sync=True)

    def __init__(self, reports, **kwargs):
        reports = getattr(reports, "pass_reports", reports)    # a ConcreteFunction, or its reports
        self.steps = PassSteps(reports)
        n = len(self.steps)
        super().__init__(pages=[self.steps.svg(k) for k in range(n)],
                         titles=[f"{k + 1} / {n} · {r.summary()}" for k, r in enumerate(self.steps.reports)], **kwargs)

    def __repr__(self):
        return "\n".join(report.summary() for report in self.steps.reports)

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        data["text/plain"] = repr(self)    # what a saved or untrusted notebook shows: each pass in a line
        return bundle
