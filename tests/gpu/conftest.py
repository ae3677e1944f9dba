"""The GPU tests: every op of the CPU op table run on "/gpu:0" and compared with the CPU.

They need a GPU, real or simulated. ``make test`` runs this folder in a pytest process of its own
under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1`` must be set before numba is imported,
so it cannot share the main test process), on tiny inputs: the simulator runs each GPU thread
as a Python thread. ``make test-gpu`` runs the same tests on a real NVIDIA GPU with larger
shapes (``MINIEAGER_GPU_SCALE=large``). In a process with no GPU at all they are not collected.
"""
import os

import numpy as np
import pytest

import minieager as me

CPU_0 = "/job:localhost/replica:0/task:0/device:CPU:0"   # tensor.device, as TF names it
GPU_0 = "/job:localhost/replica:0/task:0/device:GPU:0"

SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
LARGE = os.environ.get("MINIEAGER_GPU_SCALE") == "large"

if me.num_gpus() == 0:
    collect_ignore_glob = ["test_*.py"]


def scale(small, large):
    """A size for this run: ``small`` under the simulator, ``large`` on a real GPU with make test-gpu."""
    return large if LARGE else small


@pytest.fixture(autouse=True)
def _fresh_state_for_every_test(fresh_state):
    """tests/conftest.py's ``fresh_state`` (seed, layer names, global step), for every GPU test."""


def same(gpu_result, cpu_result, rtol=1e-5, atol=1e-6):
    """The GPU result lives on the GPU and equals the CPU result (values, shape, dtype)."""
    assert gpu_result.device == GPU_0
    assert cpu_result.device == CPU_0
    assert gpu_result.dtype == cpu_result.dtype, (gpu_result.dtype, cpu_result.dtype)
    assert gpu_result.shape == cpu_result.shape
    np.testing.assert_allclose(gpu_result.numpy(), cpu_result.numpy(), rtol=rtol, atol=atol)
