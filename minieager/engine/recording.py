"""The hook between running ops and the tapes that record them.

``observers`` lists the open GradientTapes and variable watchers. It is empty when no
tape is open, so an op run outside every tape pays for one ``if`` and nothing more.
The tapes themselves live in ``minieager/autodiff/tape.py``.
"""

observers = []          # open tapes / variable watchers, innermost last
tracers = []            # open me.function traces, innermost last (see minieager/graph/tracing.py)
check_numerics = False  # set by me.debugging.enable_check_numerics()


def record(op, inputs, outputs, attrs):
    """Offer one op call to every open observer (each decides whether it is watching)."""
    for observer in observers:
        observer._observe(op, inputs, outputs, attrs)


class outside_traces:
    """``with outside_traces():`` runs eagerly even while me.function traces (TF's ``init_scope``):
    a variable's initial value is computed now, once, not recorded into the graph."""

    def __enter__(self):
        self._paused = tracers[:]
        tracers.clear()

    def __exit__(self, *exc):
        tracers[:] = self._paused
        return False

