"""Importing minieager compiles nothing; eager execution is always on."""
import json
import subprocess
import sys

import minieager as me

# Run in a fresh interpreter: in this process other tests have already called (compiled) kernels.
_PROBE = r"""
import json, sys
import minieager
from numba.core.registry import CPUDispatcher
compiled, dispatchers = [], 0
for name, module in list(sys.modules.items()):
    if not name.startswith("minieager.kernels"):
        continue
    for attr, value in vars(module).items():
        if isinstance(value, CPUDispatcher):
            dispatchers += 1
            if value.signatures:
                compiled.append(f"{name}.{attr}")
print(json.dumps({"dispatchers": dispatchers, "compiled": compiled}))
"""


def test_import_compiles_no_kernel():
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=120, check=True)
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["dispatchers"] > 0, "no numba kernels were found in minieager.kernels"
    assert report["compiled"] == []


def test_import_does_not_pull_in_jupyter():
    probe = ("import sys, minieager; "
             "print(sorted(m for m in ('IPython', 'ipywidgets', 'jupyter_client') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[]"


def test_executing_eagerly():
    assert me.executing_eagerly() is True
    assert me.enable_eager_execution() is None
    me.enable_eager_execution(config=None)          # the TF 1 signature is accepted too
    assert me.executing_eagerly() is True
