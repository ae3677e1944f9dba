"""``PassReport``: what one pass did to a graph, for printing and for the pass-stepping widget."""
import functools
from dataclasses import dataclass, field


@dataclass
class PassReport:
    """One pass's work. Node names refer to ``before`` (removed, merged, folded, fused members)
    or to ``after`` (the nodes that replace them).

    removed   names of nodes that are gone (dead, or bypassed by a simplification)
    merged    ``{name: name of the node it was merged into}`` (CSE)
    folded    ``{name: name of the constant that replaced it}``
    simplified ``{name: name of the node that replaced it}`` (``x * 1`` -> ``x``)
    fused     ``{name of the fused node: [names of the nodes it computes]}``
    """
    name: str
    before: object
    after: object = None
    removed: list = field(default_factory=list)
    merged: dict = field(default_factory=dict)
    folded: dict = field(default_factory=dict)
    simplified: dict = field(default_factory=dict)
    fused: dict = field(default_factory=dict)

    @property
    def changed(self):
        return bool(self.removed or self.merged or self.folded or self.simplified or self.fused)

    def summary(self):
        """One line: ``cse: 12 -> 10 nodes; merged %4 into %2, ...``."""
        parts = []
        if self.folded:
            parts.append("folded " + ", ".join(f"{a} into constant {b}" for a, b in self.folded.items()))
        if self.simplified:
            parts.append("simplified " + ", ".join(f"{a} to {b}" for a, b in self.simplified.items()))
        if self.merged:
            parts.append("merged " + ", ".join(f"{a} into {b}" for a, b in self.merged.items()))
        if self.fused:
            parts.append("fused " + "; ".join(f"{', '.join(m)} into {f}" for f, m in self.fused.items()))
        if self.removed:
            parts.append("removed " + ", ".join(self.removed))
        counts = f"{self.name}: {len(self.before.nodes)} -> {len(self.after.nodes)} nodes"
        return counts + ("; " + "; ".join(parts) if parts else "; no change")

    def __str__(self):
        return self.summary()


def graph_pass(name):
    """Make ``transform(graph, report) -> graph`` a pass: ``pass_(graph) -> graph`` (pure: it
    works on a copy) with ``pass_.with_report(graph) -> (graph, PassReport)`` beside it."""
    def decorate(transform):
        def with_report(graph):
            report = PassReport(name, before=graph)
            report.after = transform(graph.copy(), report)
            return report.after, report

        @functools.wraps(transform)
        def run(graph):
            return with_report(graph)[0]
        run.with_report = with_report
        run.pass_name = name
        return run
    return decorate
