"""The numba loops behind the CPU kernels: ``elementwise``, ``reduce``, ``nn`` and ``conv``.

These modules, with ``vecmath`` (the vectorisable exp and tanh they share) and ``scalar`` and
``cpumath`` (the elementwise formulas of ``kernels/formulas.py`` compiled for the CPU), are the
only ones in minieager that import numba (but for the GPU backend), and nothing imports them
when minieager is imported. The
kernels one folder up name a loop where they call it
(``loops.reduce.arg_extreme(x3, largest, out)``), and the first such call imports its module
through ``__getattr__`` below, and numba with it.

Why: importing numba takes 0.2-0.4 s on a small machine, most of ``import minieager``, while a
tiny tensor (every example of the first notebooks) is computed by NumPy and never reaches a
loop. So a session that only adds and multiplies small tensors never pays for numba; the first
loop that runs pays for it once, and then loads its compiled code from numba's disk cache.
On a fresh machine nothing is in that cache yet: inside a notebook, ``compile_notice`` then says
which kernels are compiling, so that the cell does not look frozen. (``interleave`` sets an
LLVM option while the elementwise loops compile.)
"""
import functools
import importlib
import os

_FAMILIES = ("conv", "elementwise", "nn", "reduce")


@functools.cache
def formulas_digest():
    """A hash of the formulas, of the CPU's math library and of how their loops are compiled
    (``interleave.py``) (``scalar.DIGEST``), read from the files themselves: the fusion pass names
    its kernels with it without importing numba."""
    from ... import formulas
    here = os.path.dirname(__file__)
    return formulas.source_digest(*[os.path.join(here, name) for name in ("cpumath.py", "vecmath.py", "interleave.py")])


def __getattr__(name):
    # Called only while ``name`` is not yet an attribute: importing a submodule makes it one.
    if name in _FAMILIES:
        from . import compile_notice, interleave
        compile_notice.install()
        interleave.install()
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
