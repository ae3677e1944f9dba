"""binder/ as repo2docker reads it: the Dockerfile it would build (no Docker needed), and start.

`make binder-check` goes further: the same files in a fresh virtualenv run every notebook.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BINDER = REPO / "binder"


@pytest.fixture(scope="module")
def dockerfile():
    """repo2docker's log and the Dockerfile it prints for this repository."""
    run = subprocess.run([sys.executable, "-m", "repo2docker", "--no-build", "--debug", str(REPO)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, f"repo2docker failed:\n{run.stderr[-3000:]}"
    return run.stdout + run.stderr


def test_the_image_has_the_python_of_runtime_txt(dockerfile):
    version = re.fullmatch(r"python-(\d+\.\d+)\s*", (BINDER / "runtime.txt").read_text()).group(1)
    assert f"Building conda environment for python={version}" in dockerfile


def test_the_image_installs_the_apt_packages(dockerfile):
    packages = [p for p in (BINDER / "apt.txt").read_text().split() if not p.startswith("#")]
    assert "graphviz" in packages   # the tape debugger's layouts
    install = re.search(r"apt-get install --yes --no-install-recommends ([^&]+)&&", dockerfile)
    assert install, "no apt-get install of binder/apt.txt in the Dockerfile"
    assert install.group(1).split() == packages


def test_the_image_installs_our_requirements_after_copying_the_repository(dockerfile):
    lines = (BINDER / "requirements.txt").read_text().splitlines()
    assert "-e .[notebook,cuda]" in [line.strip() for line in lines]
    copy = dockerfile.index("COPY --chown=0:0 src/ ${REPO_DIR}/")
    pip = dockerfile.index('pip install --no-cache-dir -r "binder/requirements.txt"')
    assert copy < pip, "requirements.txt installs the local package, so it must run after the copy"


def test_the_image_runs_post_build_and_start(dockerfile):
    assert "RUN ./binder/postBuild" in dockerfile
    assert 'ENV R2D_ENTRYPOINT="${REPO_DIR}/binder/start"' in dockerfile


def test_start_gives_numba_a_writable_cache_in_home(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"} | {"HOME": str(tmp_path)}
    code = ("import os, numba\n"
            "@numba.njit(cache=True)\n"
            "def twice(x):\n    return 2 * x\n"
            "print(twice(21), os.environ['NUMBA_CACHE_DIR'])\n")
    script = tmp_path / "src" / "kernel.py"
    script.parent.mkdir()
    script.write_text(code)
    run = subprocess.run([str(BINDER / "start"), sys.executable, str(script)], env=env,
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["42", str(tmp_path / ".cache" / "numba")]
    assert list((tmp_path / ".cache" / "numba").rglob("*.nbi")), "numba cached nothing in NUMBA_CACHE_DIR"
    assert not (script.parent / "__pycache__").exists(), "numba cached beside the source instead"


def test_start_and_post_build_compile_for_a_generic_cpu_so_the_cache_fits_any_node(tmp_path):
    """numba's cache index is keyed by (target triple, CPU name, CPU features): with NUMBA_CPU_NAME=generic
    the key names no feature of the machine that built the image, so a launch node with another CPU of
    the same architecture finds the kernels postBuild compiled instead of compiling them again."""
    assert 'export NUMBA_CPU_NAME="${NUMBA_CPU_NAME:-generic}"' in (BINDER / "postBuild").read_text()
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES")}
    env["HOME"] = str(tmp_path)
    code = ("from numba.core.registry import cpu_target\n"
            "print(*cpu_target.target_context.codegen().magic_tuple(), sep='|')\n")
    run = subprocess.run([str(BINDER / "start"), sys.executable, "-c", code], env=env,
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    triple, cpu, features = run.stdout.strip().split("|")
    assert (cpu, features) == ("generic", "")
    mine = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert mine.stdout.strip().split("|")[0] == triple      # same architecture: only the CPU name differs
