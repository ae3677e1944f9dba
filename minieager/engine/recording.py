"""The hook between running ops and the tapes and traces that record them.

Each thread has its own open tapes (and variable watchers: the *observers*) and its own open
``me.function`` traces (the *tracers*), in ``this_thread``, as TF keeps its tape and graph stacks
per thread: a tape opened in one thread never sees another thread's ops, and two threads can
trace two functions at once. The tapes themselves live in ``minieager/autodiff/tape.py``, the
tracer in ``minieager/graph/tracing.py``.

Reading a thread-local costs more than reading a global, and an op run outside every tape and
trace must pay for one ``if`` and nothing more. So ``observing`` and ``tracing`` list every open
observer and tracer *of every thread*: the eager path tests them first, and looks at its own
thread's stacks only when one is non-empty somewhere. Change the stacks only through the
functions below, which keep the two views in step.
"""
import threading


class _ThisThread(threading.local):
    def __init__(self):
        self.observers = []    # this thread's open tapes / variable watchers, innermost last
        self.tracers = []      # this thread's open me.function traces, innermost last


this_thread = _ThisThread()
observing = []      # every thread's open observers: empty when no tape is open anywhere (only ever mutated)
tracing = []        # every thread's open tracers: empty when nothing is traced anywhere (only ever mutated)
check_numerics = False  # set by me.debugging.enable_check_numerics()
_lock = threading.Lock()   # one thread at a time changes ``observing`` / ``tracing``


def tracer():
    """This thread's innermost open trace, or None when it runs eagerly."""
    if tracing:
        stack = this_thread.tracers
        if stack:
            return stack[-1]
    return None


def observed():
    """Whether this thread has an open observer (a tape, a variable watcher)."""
    return bool(observing) and bool(this_thread.observers)


def record(op, inputs, outputs, attrs):
    """Offer one op call to this thread's open observers (each decides whether it is watching)."""
    if observing:
        for observer in this_thread.observers:
            observer._observe(op, inputs, outputs, attrs)


def add_observer(observer):
    with _lock:
        this_thread.observers.append(observer)
        observing.append(observer)


def remove_observer(observer):
    """Close ``observer`` on this thread; ValueError if it is not open here."""
    with _lock:
        _drop(this_thread.observers, observer)
        _drop(observing, observer)


def add_tracer(tracer_):
    with _lock:
        this_thread.tracers.append(tracer_)
        tracing.append(tracer_)


def remove_tracer(tracer_):
    with _lock:
        _drop(this_thread.tracers, tracer_)
        _drop(tracing, tracer_)


def set_observers(observers):
    """Make ``observers`` this thread's open observers; returns the ones it replaced (to set back)."""
    return _replace("observers", observing, observers)


def set_tracers(tracers):
    """Make ``tracers`` this thread's open traces; returns the ones it replaced (to set back)."""
    return _replace("tracers", tracing, tracers)


def _replace(name, everywhere, new):
    with _lock:
        old = getattr(this_thread, name)
        for item in old:
            _drop(everywhere, item)
        everywhere.extend(new)
        setattr(this_thread, name, list(new))
    return old


def _drop(items, item):
    """Remove ``item`` itself (by identity, not ==) from ``items``."""
    for i, x in enumerate(items):
        if x is item:
            del items[i]
            return
    raise ValueError(f"{item!r} is not open on this thread")


class paused:
    """``with paused():`` runs with this thread's tapes (and, with ``tracers=True``, its traces)
    set aside, restoring them after: work that is not the user's program (a finite-difference
    check, a pass folding constants) must not be recorded."""

    def __init__(self, tracers=False):
        self._tracers = tracers

    def __enter__(self):
        self._observers = set_observers([])
        if self._tracers:
            self._traces = set_tracers([])
        return self

    def __exit__(self, *exc):
        if self._tracers:
            set_tracers(self._traces)
        set_observers(self._observers)
        return False


class outside_traces(paused):
    """``with outside_traces():`` (``me.init_scope()``, as TF's) runs eagerly even while me.function
    traces, with the tapes paused: a variable's initial value is computed now, once, not recorded
    into the graph nor on a tape."""

    def __init__(self):
        super().__init__(tracers=True)
