"""The package ships no answers: the wheel holds no solution notebook and no hidden check."""
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    # Built from a copy, as tests/debugger/test_widget.py does: setuptools writes into the folder it builds.
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    for name in ("minieager", "course", "widgets"):
        shutil.copytree(REPO / name, source / name, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "node_modules"))
    assert list((source / "course" / "solutions").glob("*.ipynb")) and list((source / "course" / "hidden").glob("*.py"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "-w", str(tmp), str(source)], check=True, capture_output=True)
    return zipfile.ZipFile(next(tmp.glob("minieager-*.whl")))


@pytest.mark.slow
def test_the_wheel_holds_no_solutions_and_no_hidden_checks(wheel):
    names = wheel.namelist()
    assert not [n for n in names if n.startswith(("course/solutions/", "course/hidden/"))]
    # No notebook or module holds a marked answer (the generator names the marker it strips; the docs explain it).
    answers = [n for n in names if n.endswith((".py", ".ipynb")) and b"### BEGIN SOLUTION" in wheel.read(n)
               and n != "course/generate.py"]
    assert answers == []


@pytest.mark.slow
def test_the_wheel_holds_what_learners_need(wheel):
    names = set(wheel.namelist())
    assert {"course/checks/01_tensors.py", "course/spec.py", "course/probe.py", "course/checker.py",
            "course/exercises/01_tensors.ipynb"} <= names
