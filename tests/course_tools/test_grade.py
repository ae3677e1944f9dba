"""The grader on a folder of fake submissions of lesson 01: each misbehaves in its own way."""
import copy
import csv
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from course import notebooks
from course.grade import grade_folder

SOLUTION = notebooks.SOLUTIONS / "01_tensors.ipynb"
WRONG = "def broadcast_shape(a, b):\n    return a\n"
RAISES = "def broadcast_shape(a, b):\n    return a[10]\n"


def _code_index(nb, text):
    return next(k for k, c in enumerate(nb.cells) if c.cell_type == "code" and text in c.source)


def _variant(edit):
    nb = copy.deepcopy(nbformat.read(str(SOLUTION), as_version=4))
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    edit(nb)
    return nb


def _replace_exercise(source):
    def edit(nb):
        nb.cells[_code_index(nb, "def broadcast_shape")].source = source
    return edit


def _insert_before_exercise(source):
    def edit(nb):
        nb.cells.insert(_code_index(nb, "def broadcast_shape"), new_code_cell(source))
    return edit


def _prepend_to_exercise(source):
    def edit(nb):
        cell = nb.cells[_code_index(nb, "def broadcast_shape")]
        cell.source = source + "\n" + cell.source
    return edit


SUBMISSIONS = {
    "all_correct": lambda nb: None,
    "wrong_answer": _replace_exercise(WRONG),
    "crash": _replace_exercise(RAISES),
    "endless_loop": _prepend_to_exercise("while True:\n    pass"),
    "deletes_files": _insert_before_exercise("import os, shutil\nshutil.rmtree(os.getcwd())"),
    "kernel_dies": _insert_before_exercise("import os\nos._exit(1)"),
    "loops_when_checked": _replace_exercise("def broadcast_shape(a, b):\n    while True:\n        pass\n"),
}
# learner: (broadcast_shape, dtype_predictions)
EXPECTED = {"all_correct": (1, 1), "wrong_answer": (0, 1), "crash": (0, 1), "endless_loop": (0, 1),
            "deletes_files": (1, 1), "kernel_dies": (0, 0), "loops_when_checked": (0, 1)}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("submissions")
    for learner, edit in SUBMISSIONS.items():
        nbformat.write(_variant(edit), str(folder / f"{learner}.ipynb"))
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    out = grade_folder(folder, folder.parent / "grades", cell_timeout=15, parallel=2, log=lambda *a: None)
    after = {p.name: p.read_bytes() for p in folder.iterdir()}
    with open(out / "grades.csv") as f:
        rows = list(csv.DictReader(f))
    return rows, out, before == after


@pytest.mark.slow
def test_grades_csv_has_a_row_per_learner_and_a_column_per_exercise(graded):
    rows, _, _ = graded
    assert list(rows[0]) == ["learner", "broadcast_shape", "dtype_predictions", "total"]
    assert sorted(r["learner"] for r in rows) == sorted(SUBMISSIONS)


@pytest.mark.slow
@pytest.mark.parametrize("learner", list(SUBMISSIONS))
def test_each_submission_scores_as_expected(graded, learner):
    rows, _, _ = graded
    row = next(r for r in rows if r["learner"] == learner)
    got = (int(row["broadcast_shape"]), int(row["dtype_predictions"]))
    assert got == EXPECTED[learner]
    assert int(row["total"]) == sum(EXPECTED[learner])


@pytest.mark.slow
def test_feedback_says_what_went_wrong(graded):
    _, out, _ = graded
    feedback = {p.stem: p.read_text() for p in (out / "feedback").iterdir()}
    assert feedback["all_correct"].startswith("Feedback for all_correct: 2 of 2 exercises passed.")
    assert "broadcast_shape((4, 1), (1, 5)): expected (4, 5), got (4, 1)." in feedback["wrong_answer"]
    assert "broadcast_shape((2, 3), (3,)) raised IndexError: tuple index out of range" in feedback["crash"]
    assert "was stopped after 15 s (an endless loop?)" in feedback["endless_loop"]
    assert "the kernel died" in feedback["kernel_dies"]
    assert "broadcast_shape: the checks ran longer than 15 s and were stopped" in feedback["loops_when_checked"]


@pytest.mark.slow
def test_submissions_are_graded_in_a_copy(graded):
    _, _, unchanged = graded
    assert unchanged        # deletes_files removed its working folder: a temporary copy, not the submission


def _processes_in(folder):
    """Pids of processes whose working directory is inside ``folder`` (Linux /proc).

    A folder of this test's own, not any "course-grade-*" folder on the machine: another pytest
    worker, or another checkout's test run, may be grading at the same time.
    """
    pids = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if os.readlink(proc / "cwd").startswith(str(folder) + os.sep):
                pids.append(int(proc.name))
        except OSError:
            continue
    return pids


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="reads /proc to find left-over kernels")
def test_a_kernel_that_ignores_interrupts_is_stopped_at_the_notebook_limit(tmp_path, monkeypatch):
    folder = tmp_path / "submissions"
    folder.mkdir()
    copies = tmp_path / "tmp"          # grade_folder's temporary copies (course-grade-*) go here
    copies.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(copies))
    wedge = "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass"
    nbformat.write(_variant(_insert_before_exercise(wedge)), str(folder / "wedged.ipynb"))
    started = time.monotonic()
    out = grade_folder(folder, tmp_path / "grades", cell_timeout=5, notebook_timeout=30, log=lambda *a: None)
    rows = {r["learner"]: r for r in csv.DictReader(open(out / "grades.csv"))}
    assert rows["wedged"]["total"] == "0"
    assert "the notebook ran longer than 30 s and was stopped" in (out / "feedback" / "wedged.txt").read_text()
    assert time.monotonic() - started < 30 + 15      # stopped at its limit, and grade_folder returned
    deadline = time.monotonic() + 10                 # its kernel exits once it sees its parent gone
    while _processes_in(copies) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _processes_in(copies) == []


def test_the_command_line_names_a_missing_folder(tmp_path):
    done = subprocess.run([sys.executable, "-m", "course", "grade", str(tmp_path / "nowhere")],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert f"grade: {tmp_path / 'nowhere'} is not a folder." in done.stderr
    assert "Traceback" not in done.stderr
