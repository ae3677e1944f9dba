"""``PassStepper``: step through a ``me.function``'s optimisation passes, one pass at a time.

    concrete = f.get_concrete_function(x)
    me.widgets.PassStepper(concrete)          # or PassStepper(concrete.pass_reports)

Each step shows the graph before and after one pass, with what it removed, merged, folded,
simplified or fused marked, and the node counts. The graphs are drawn by the tape debugger's
front-end (widgets/tape_debugger.js, its graph mode): the same dot layout, drawing and zoom as a
tape, side by side when the output is wide and one above the other when it is narrow. A saved or
untrusted notebook shows a PNG of every pass that changed something, and one line of text per pass.
"""
import base64

import anywidget
import traitlets

from ..debugger import assets
from ..debugger.png import to_png
from ..graph.passes.view import PassSteps, overview_svg


class PassStepper(anywidget.AnyWidget):
    """Before/after graphs of each optimisation pass; ``step`` is the pass shown (0-based).

    Synced state: ``passes``, one ``{"title", "before", "after"}`` per pass (before and after as
    the debugger's trace data, ``graph/passes/view.report_traces``), and ``step``.
    """

    _esm = assets.read("tape_debugger.js")
    _css = assets.read("tape_debugger.css")
    passes = traitlets.List(traitlets.Dict()).tag(sync=True)
    step = traitlets.Int(0).tag(sync=True)

    def __init__(self, reports, **kwargs):
        reports = getattr(reports, "pass_reports", reports)    # a ConcreteFunction, or its reports
        self.steps = PassSteps(reports)
        passes = []
        for k, report in enumerate(self.steps.reports):
            before, after = self.steps.traces(k)
            passes.append({"title": report.summary(), "before": before, "after": after})
        super().__init__(passes=passes, **kwargs)

    def __repr__(self):
        return "\n".join(report.summary() for report in self.steps.reports) or "PassStepper: no pass ran on this graph"

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        data["text/plain"] = repr(self)    # what a saved or untrusted notebook shows: each pass in a line
        data.pop("text/html", None)        # sanitised into a run-on text dump where the widget is not shown
        # The picture for places without the widget (an untrusted notebook, GitHub, the course
        # site): every pass that changed something, before above after where side by side is too wide.
        data["image/png"] = base64.b64encode(to_png(overview_svg(self.steps.reports))).decode("ascii")
        return bundle
