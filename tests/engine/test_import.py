"""Importing minieager compiles nothing and imports neither numba nor Jupyter; eager execution is always on."""
import json
import subprocess
import sys

import minieager as me


def _fresh_python(code):
    """Run ``code`` in a fresh interpreter (in this process other tests have imported and compiled kernels)."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_compiles_no_kernel():
    report = _fresh_python(r"""
import json, sys
import minieager
import minieager.kernels.cpu.loops as loops
from numba.core.registry import CPUDispatcher
compiled, dispatchers = [], 0
for family in ("elementwise", "reduce", "nn"):
    module = getattr(loops, family)        # imports the loops, as a kernel's first call would
    for attr, value in vars(module).items():
        if isinstance(value, CPUDispatcher):
            dispatchers += 1
            if value.signatures:
                compiled.append(f"{family}.{attr}")
print(json.dumps({"dispatchers": dispatchers, "compiled": compiled}))
""")
    assert report["dispatchers"] > 40, "the numba loops were not found in minieager.kernels.cpu.loops"
    assert report["compiled"] == []


def test_numba_is_imported_by_the_first_loop_not_by_import_or_tiny_ops():
    report = _fresh_python(r"""
import json, sys
import minieager as me
seen = {"import": "numba" in sys.modules}
x = me.constant([[1.0, -2.0], [3.0, 4.0]])
with me.GradientTape() as tape:
    tape.watch(x)
    y = me.reduce_sum(me.relu(me.matmul(x, x) * 2.0 + 1.0))
tape.gradient(y, x)
seen["tiny ops and their gradient"] = "numba" in sys.modules
me.relu(me.ones([100, 100]))               # relu on 10,000 elements runs its numba loop
seen["a relu loop"] = "numba" in sys.modules
seen["loops"] = sorted(m.rsplit(".", 1)[1] for m in sys.modules if m.startswith("minieager.kernels.cpu.loops."))
print(json.dumps(seen))
""")
    assert report == {"import": False, "tiny ops and their gradient": False, "a relu loop": True,
                      "loops": ["compile_notice", "cpumath", "elementwise", "interleave", "scalar", "vecmath"]}


def test_import_does_not_pull_in_jupyter():
    probe = ("import json, sys, minieager; "
             "print(json.dumps(sorted(m for m in ('IPython', 'ipywidgets', 'jupyter_client') if m in sys.modules)))")
    assert _fresh_python(probe) == []


def test_executing_eagerly():
    assert me.executing_eagerly() is True
    assert me.enable_eager_execution() is None
    me.enable_eager_execution(config=None)          # the TF 1 signature is accepted too
    assert me.executing_eagerly() is True
