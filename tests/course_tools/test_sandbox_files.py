"""What a learner's notebook can read inside the grading sandbox (course/sandbox.py)."""
import subprocess
import sys

import pytest

from course import sandbox


def test_the_tape_debuggers_front_end_is_readable_in_the_sandbox(tmp_path):
    """minieager/widgets/static/*.js are links to the repository's widgets/ folder in a checkout: the
    sandbox binds their targets, so a lesson's debugger cell renders there as in the learner's kernel."""
    ok, why = sandbox.usable()
    if not ok:
        pytest.skip(why)           # .ci/run installs bubblewrap, so CI runs this
    in_dir, out_dir = tmp_path / "in", tmp_path / "out"
    in_dir.mkdir()
    sandbox.prepare_out(out_dir)
    code = ("import pathlib, minieager.widgets as w\n"
            "static = pathlib.Path(w.__file__).parent / 'static'\n"
            "print(sorted((p.name, len(p.read_text()) > 100) for p in static.iterdir()))")
    done = subprocess.run(sandbox.command([sys.executable, "-c", code], in_dir, out_dir), capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "('tape_debugger.js', True)" in done.stdout and "('tape_debugger.css', True)" in done.stdout
