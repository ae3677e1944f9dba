"""The set-up on a fresh machine: what `make` installs, what it checks first, and how Python finds us."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _dry_run(target):
    """The commands `make TARGET` would run from scratch (-B: as if nothing were built; -n: run none)."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    return subprocess.run(["make", "-n", "-B", target], cwd=ROOT, capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize("target", ["test", "test-fast", "lab"])
def test_test_and_lab_never_install_pytorch(target):
    commands = _dry_run(target)
    assert "pip install" in commands and "torch" not in commands


def test_bench_installs_pytorch_when_its_wheel_exists():
    commands = _dry_run("bench")
    assert "install -q 'torch==" in commands and "not available here; skipped" in commands


@pytest.mark.parametrize("target, flag", [("test", ""), ("test-fast", " --no-browser")])
def test_make_test_checks_the_system_packages_first(target, flag):
    commands = _dry_run(target).splitlines()
    check = commands.index(f".ci/check-system{flag}")
    assert check < next(i for i, c in enumerate(commands) if "-m pytest" in c)


@pytest.mark.parametrize("target", ["test", "test-fast"])
def test_make_test_fills_numbas_cache_before_the_tests(target):
    """The warm-up compiles the loops once; without it every pytest worker and notebook kernel would."""
    commands = _dry_run(target).splitlines()
    warmup = next(i for i, c in enumerate(commands) if "-m minieager.warmup" in c)
    assert warmup < next(i for i, c in enumerate(commands) if "-m pytest" in c)


def test_check_system_names_what_is_missing(tmp_path):
    run = subprocess.run(["/bin/bash", str(ROOT / ".ci" / "check-system"), "--no-browser"],
                         env={"PATH": str(tmp_path)}, capture_output=True, text=True)   # finds no dot, no setpriv
    assert run.returncode == 1
    assert "graphviz (its 'dot' draws" in run.stderr
    assert "bubblewrap (bwrap: the course grader runs" in run.stderr
    assert "sudo apt-get install graphviz util-linux bubblewrap" in run.stderr


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed here")
def test_check_system_passes_on_this_machine():
    run = subprocess.run([str(ROOT / ".ci" / "check-system"), "--no-browser"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_running_beside_a_checkout_named_minieager_imports_the_package(tmp_path):
    """From the folder that holds a checkout called minieager/, ``import minieager`` must find the
    package, not the checkout as an empty namespace package (the Makefile's editable_mode=compat)."""
    (tmp_path / "minieager").symlink_to(ROOT, target_is_directory=True)
    code = "import minieager as me; print(me.__file__); print(me.constant(2.0) * 3)"
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=""))
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[0] == str(ROOT / "minieager" / "__init__.py")
    assert "6.0" in run.stdout


def test_kernels_stay_quiet_about_inf_and_nan():
    """me.log(0.) is -inf and 1/0 is inf with no NumPy RuntimeWarning, as in TF; a plain NumPy warning still shows."""
    code = ("import numpy as np, minieager as me\n"
            "print(me.log(0.0).numpy(), (me.constant(1.0) / 0.0).numpy(), me.sqrt(-1.0).numpy())\n"
            "np.log(np.float32(0))\n")
    run = subprocess.run([sys.executable, "-W", "default", "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["-inf", "inf", "nan"]
    assert run.stderr.count("RuntimeWarning") == 1 and "<string>:3" in run.stderr   # only NumPy's own call
