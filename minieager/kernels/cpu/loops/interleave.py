"""Two vectors per iteration in the elementwise and fused loops: LLVM's interleave count.

LLVM vectorises ``for i: out[i] = tanh(x[i])`` to 16 float32 per AVX-512 instruction, but works
on one vector at a time. One iteration's tanh is a chain of ~25 instructions, each waiting for
the one before, and the CPU can overlap only so many iterations. Asked to interleave two vectors
per iteration, LLVM writes two independent chains side by side. The bits are the same, since
every element is computed the same way.

Measured on the 2-vCPU AMD EPYC (Zen 4, AVX-512). Each figure is the median us per call on 1e6
elements, in fresh processes with caches of their own, two runs each:

    interleave    tanh   exp   sigmoid   tanh f64   add   fused tanh(x*w+b)*0.5+x
    LLVM's own    155    416   522       480        80    175
    2             146    389   494-498   439        77    166
    4             148    412-440 497-506 429-445    77    160-174

So 2 it is, for loops over all the elements in one flat run. Not for loops whose inner loop is
short: a fused kernel that adds a bias row of 16 to (32, 26, 26, 16) runs ``for j in range(16)``
inside, and two vectors of 16 per iteration left that loop to its scalar remainder
(``tanh(x * 0.5 + b) * 2``: 313-323 us against 138-152).

numba offers no setting per loop, and LLVM's option (``-force-vector-interleave``) is global to
the process. So it is set only while numba compiles an elementwise loop or a fused kernel with one
flat loop (``ONE_FLAT_LOOP`` in its generated source; numba's ``numba:compile`` event), and put
back after: a user's own numba code, and minieager's other loops (reductions, convolutions, row
loops), compile as they would without it.
"""
import llvmlite.binding as llvm
from numba.core import event

INTERLEAVE = 2


def _interleaved(py_func):
    """Whether numba's ``py_func`` is one of the loops compiled interleaved (the docstring says which)."""
    module = getattr(py_func, "__module__", None) or ""
    if module == "minieager.kernels.cpu.loops.elementwise":
        return True
    return module.startswith("minieager_fused_") and py_func.__globals__.get("ONE_FLAT_LOOP", False)


class Interleave(event.Listener):
    """Sets LLVM's interleave count while numba compiles an elementwise or fused loop."""

    def __init__(self):
        self.depth = 0          # numba compiles the functions a loop calls inside its own compilation
        self.active = False

    def on_start(self, ev):
        self.depth += 1
        py_func = getattr(ev.data.get("dispatcher"), "py_func", None)   # (any numba target sends this event)
        if self.depth == 1 and _interleaved(py_func):
            llvm.set_option("", f"-force-vector-interleave={INTERLEAVE}")
            self.active = True

    def on_end(self, ev):
        self.depth -= 1
        if self.depth == 0 and self.active:
            llvm.set_option("", "-force-vector-interleave=0")   # 0: LLVM's own choice again
            self.active = False


_installed = False


def install():
    """Register the listener once per process."""
    global _installed
    if not _installed:
        event.register("numba:compile", Interleave())
        _installed = True
