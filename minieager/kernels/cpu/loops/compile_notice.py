"""One line in a notebook while numba compiles a loop, so that a cold first run does not look frozen.

numba compiles a loop the first time it runs (seconds for a convolution) and loads it from its
disk cache afterwards (``python -m minieager.warmup`` fills the cache ahead of time). A learner
who runs a training cell on a fresh machine would otherwise watch a cell that seems stuck.

numba announces every real compilation (never a load from the cache) as a ``numba:compile``
event. A listener starts a timer when the outermost compilation begins; if it is still running
after ``DELAY`` seconds, one line is printed, once per kernel and dtype. So a warm cache prints
nothing, and neither does a quick compile.

It speaks only inside a Jupyter kernel (never in scripts or the terminal), and not when
``MINIEAGER_COMPILE_NOTICE=0`` (the test suite sets this, so that notebook outputs compared by
nbval do not depend on the state of the cache).
"""
import os
import sys
import threading

from numba.core import event

DELAY = 0.5   # seconds a compilation runs before the learner is told


def wanted():
    """True inside a Jupyter kernel, unless MINIEAGER_COMPILE_NOTICE=0."""
    if os.environ.get("MINIEAGER_COMPILE_NOTICE", "1").strip().lower() in ("0", "off", "false", "no"):
        return False
    ipython = sys.modules.get("IPython")      # looked up, never imported: the engine imports no Jupyter
    shell = ipython.get_ipython() if ipython is not None else None
    return type(shell).__name__ == "ZMQInteractiveShell"


def _dtype_name(args):
    """The dtype of the loop's first array argument (``float32``), or '' if it has none."""
    for arg in args:
        dtype = getattr(arg, "dtype", None)
        if dtype is not None:
            return str(dtype)
    return ""


class CompileNotice(event.Listener):
    """Prints ``compiling the conv loops for float32 (forward), once; ...`` when a compile runs long.

    It names what numba is compiling (the loop and its module), not the op that called it: the
    kernels sit below the ops and know nothing of them. One line per module and dtype, since the
    loops of one module (a convolution's patch copies, its sums) are compiled together."""

    def __init__(self):
        self.depth = 0          # numba compiles the loops a loop calls inside its own compilation
        self.timer = None
        self.said = set()

    def on_start(self, ev):
        self.depth += 1
        if self.depth > 1:
            return
        dispatcher, args = ev.data["dispatcher"], ev.data["args"]
        func = dispatcher.py_func
        what = (func.__module__.rsplit(".", 1)[-1], _dtype_name(args))
        if what in self.said:
            return
        self.timer = threading.Timer(DELAY, self._say, args=(what, func.__name__))
        self.timer.daemon = True
        self.timer.start()

    def on_end(self, ev):
        self.depth -= 1
        if self.depth == 0 and self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def _say(self, what, loop):
        self.said.add(what)
        module, dtype = what
        for_dtype = f" for {dtype}" if dtype else ""
        print(f"minieager: compiling the {module} loops{for_dtype} ({loop}), once; later runs use the cache "
              f"(`python -m minieager.warmup` compiles them all ahead of time).", flush=True)


_installed = False


def install():
    """Register the listener once per process, where a learner can see it."""
    global _installed
    if not _installed and wanted():
        event.register("numba:compile", CompileNotice())
    _installed = True
