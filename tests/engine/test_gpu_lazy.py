"""The GPU backend is optional and lazy: ``import minieager`` imports nothing of CUDA, and a
machine without a GPU says so (tests/gpu has the tests that run ops on a GPU or its simulator)."""
import json
import os
import subprocess
import sys

import pytest

import minieager as me
from minieager.errors import NotFoundError

CPU_0 = "/job:localhost/replica:0/task:0/device:CPU:0"   # tensor.device, as TF names it


def _fresh_python(code, **env):
    clean = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True,
                         env={**clean, **env})
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_and_cpu_ops_import_nothing_of_cuda():
    report = _fresh_python(r"""
import json, sys
before = set(sys.modules)     # numba-cuda's import redirector is loaded at start-up, by a .pth file
import minieager as me
(me.constant([1.0, 2.0]) * 2.0 + 1.0).numpy()
cuda = sorted(m for m in set(sys.modules) - before if "cuda" in m)
print(json.dumps({"cuda_modules": cuda, "gpu_kernels": me.kernels.registry.registered_ops("gpu")}))
""")
    assert report == {"cuda_modules": [], "gpu_kernels": []}


def test_num_gpus_counts_the_simulated_gpu_in_a_simulator_process():
    assert _fresh_python("import json, minieager as me; print(json.dumps(me.num_gpus()))",
                         NUMBA_ENABLE_CUDASIM="1") == 1


@pytest.mark.skipif(me.num_gpus() > 0, reason="this machine has a GPU")
def test_without_a_gpu_gpu_copies_and_placement_raise_the_clear_error():
    assert me.num_gpus() == 0
    with pytest.raises(NotFoundError, match=r"/gpu:0: no GPU was found.*me\.num_gpus\(\)"):
        me.constant([1.0]).gpu()
    assert me.constant([1.0]).cpu().device == CPU_0
