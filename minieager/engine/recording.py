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
    """``with outside_traces():`` (``me.init_scope()``, as TF's) runs eagerly even while me.function
    traces, with the tapes paused: a variable's initial value is computed now, once, not recorded
    into the graph nor on a tape."""

    def __enter__(self):
        self._paused = tracers[:], observers[:]
        tracers.clear()
        observers.clear()

    def __exit__(self, *exc):
        tracers[:], observers[:] = self._paused
        return False

