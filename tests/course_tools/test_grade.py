"""The grader on a class of lesson-01 submissions, most of them hostile: each scores only what it earned,
and nothing outside its own sandbox changes (the submissions, the course package, the repository)."""
import copy
import csv
import hashlib
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from course import exports, notebooks, sandbox
from course.grade import SandboxUnavailable, grade_folder, in_shard, parse_shard, student_id

REPO = Path(__file__).resolve().parents[2]
SOLUTION = notebooks.SOLUTIONS / "01_tensors.ipynb"
LEARNER = notebooks.EXERCISES / "01_tensors.ipynb"
FULL = (8, 4)        # the points of broadcast_shape (visible 6 + hidden 2) and dtype_predictions


def _code_index(nb, text):
    return next(k for k, c in enumerate(nb.cells) if c.cell_type == "code" and text in c.source)


def _variant(edit, source=SOLUTION):
    nb = copy.deepcopy(nbformat.read(str(source), as_version=4))
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    edit(nb)
    return nb


def _replace_exercise(source):
    def edit(nb):
        nb.cells[_code_index(nb, "def broadcast_shape")].source = source
    return edit


def _insert_before(text, source):
    def edit(nb):
        nb.cells.insert(_code_index(nb, text), new_code_cell(source))
    return edit


def _prepend_to_exercise(source):
    def edit(nb):
        cell = nb.cells[_code_index(nb, "def broadcast_shape")]
        cell.source = source + "\n" + cell.source
    return edit


def _append(source):
    def edit(nb):
        nb.cells.append(new_code_cell(source))
    return edit


CHEAT = """\
import course, course.checker, course.judge, course.probe
course.checker.Result.status = property(lambda s: "passed")
course.judge.judge_case = lambda *a, **k: ("passed", "")
course.probe.reply = lambda *a, **k: {"outcome": "passed", "value": "passed"}
"""

# Writes wherever it can: the package it imports, and the grader's own checkout by its absolute path.
REWRITE = f"""\
import course, pathlib
written = []
for root in [pathlib.Path(course.__file__).parent, pathlib.Path({str(REPO / 'course')!r})]:
    for path in [*root.glob('tests/*.py'), *root.glob('checks/*.py'), *root.glob('hidden/*.py'), root / 'expect.py']:
        try:
            path.write_text('def test_nothing():\\n    pass\\n')
            written.append(str(path))
        except OSError:
            pass
"""

# Looks for the other submissions and the solutions: the process list, the grader's command line,
# the submissions folder and the solution notebook by their absolute paths; runs a solution if found.
SPY = """\
import glob, json, os, pathlib
found = []
for cmdline in glob.glob('/proc/*/cmdline'):
    try:
        found += [w for w in open(cmdline, 'rb').read().decode(errors='replace').split('\\0') if '.ipynb' in w]
    except OSError:
        pass
found += glob.glob({submissions!r} + '/*.ipynb') + [{solution!r}]
found += glob.glob('/grader/pkg/course/solutions/*.ipynb') + glob.glob('/**/solutions/01_tensors.ipynb', recursive=True)
for path in found:
    try:
        nb = json.load(open(path))
    except (OSError, ValueError):
        continue
    for cell in nb['cells']:
        if cell['cell_type'] == 'code' and 'check(' not in ''.join(cell['source']):
            try:
                exec(''.join(cell['source']), globals())
            except Exception:
                pass
"""

DELETE = """\
import os, shutil, pathlib
for path in [os.getcwd(), {submissions!r}, {repo_course!r}, '/grading/in', '/grader/pkg/course/checks']:
    shutil.rmtree(path, ignore_errors=True)
"""

FORK_BOMB = """\
import os, time
while True:
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        try:
            while os.fork() == 0:
                pass
        except OSError:
            pass
        time.sleep(300)
        os._exit(0)
"""

HUGE_OUTPUT = """\
import os
try:
    os.write(1, b'y' * (64 << 20))
    with open('/tmp/big', 'wb') as f:
        f.write(b'z' * (1 << 30))
except OSError:
    pass
while True:
    print('x' * 10000)
"""

FORGE = """\
import json
json.dump({'replies': {'broadcast_shape': {'pytest': {'status': 'passed'}}, 'dtype_predictions': 'passed'},
           'problem': ''}, open('/grading/out/result.json', 'w'))
"""

WEDGE = "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass"


# Where the kernel enforces the sandbox's process limit (not for root in a user namespace: see
# course/sandbox.py), the class includes a fork bomb; elsewhere it would fill the machine's process table.
BOMB_IS_BOUNDED = sandbox.usable()[0] and sandbox.process_limited()


def _submissions(folder):
    spy = SPY.format(submissions=str(folder), solution=str(SOLUTION))
    delete = DELETE.format(submissions=str(folder), repo_course=str(REPO / "course"))
    blank = lambda edit: _variant(edit, LEARNER)   # noqa: E731  (the learner version: stubs everywhere)
    return {
        "all_correct": (_variant(lambda nb: None), FULL),
        "blank": (blank(lambda nb: None), (0, 0)),
        "wrong_answer": (_variant(_replace_exercise("def broadcast_shape(a, b):\n    return a\n")), None),
        "crash": (_variant(_replace_exercise("def broadcast_shape(a, b):\n    return a[10]\n")), (0, 4)),
        "endless_loop": (_variant(_prepend_to_exercise("while True:\n    pass")), (0, 4)),
        "loops_when_checked": (_variant(_replace_exercise("def broadcast_shape(a, b):\n    while True:\n"
                                                          "        pass\n")), (0, 4)),
        "kernel_dies": (_variant(_insert_before("def broadcast_shape", "import os\nos._exit(1)")), (0, 0)),
        "wedged": (_variant(_insert_before("predictions = {", WEDGE)), (8, 0)),
        "cheat_status": (blank(_append(CHEAT)), (0, 0)),
        "rewrites_tests": (blank(_insert_before("def broadcast_shape", REWRITE)), (0, 0)),
        "spies": (blank(_append(spy)), (0, 0)),
        "deletes_files": (_variant(_insert_before("def broadcast_shape", delete)), FULL),
        **({"fork_bomb": (_variant(_append(FORK_BOMB)), FULL)} if BOMB_IS_BOUNDED else {}),
        "huge_output": (_variant(_append(HUGE_OUTPUT)), FULL),
        "forges_result": (blank(_append(FORGE)), (0, 0)),
    }


def _tree_digest(root):
    digest = hashlib.sha256()
    for path in sorted(p for p in Path(root).rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(str(path).encode() + path.read_bytes())
    return digest.hexdigest()


def _sandbox_processes():
    """Processes still running as one of the sandboxes' uids."""
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            uid = int(next(line for line in status.read_text().splitlines() if line.startswith("Uid:")).split()[1])
        except (OSError, StopIteration, ValueError):
            continue
        if uid in {sandbox.NOBODY, *range(sandbox.SLOT_UIDS, sandbox.SLOT_UIDS + 14)}:
            found.append(status.parent.name)
    return found


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("submissions")
    submissions = _submissions(folder)
    for learner, (nb, _) in submissions.items():
        nbformat.write(nb, str(folder / f"{learner}.ipynb"))
    before = {"submissions": _tree_digest(folder), "course": _tree_digest(REPO / "course"),
              "minieager": _tree_digest(REPO / "minieager")}
    out = grade_folder(folder, tmp_path_factory.mktemp("grades"), cell_timeout=8, notebook_timeout=150, parallel=2,
                       log=lambda *a: None)
    after = {"submissions": _tree_digest(folder), "course": _tree_digest(REPO / "course"),
             "minieager": _tree_digest(REPO / "minieager")}
    with open(out / "grades.csv") as f:
        rows = {r["learner"]: r for r in csv.DictReader(f)}
    return {"rows": rows, "out": out, "before": before, "after": after, "expected": submissions, "folder": folder}


@pytest.mark.slow
def test_grades_csv_has_a_row_per_learner_and_points_per_exercise(graded):
    rows = graded["rows"]
    assert sorted(rows) == sorted(graded["expected"])
    assert list(rows["blank"]) == ["learner", "id", "broadcast_shape", "dtype_predictions", "auto", "manual",
                                   "total", "max"]
    assert rows["all_correct"]["max"] == "12"


@pytest.mark.slow
@pytest.mark.parametrize("learner", [name for name, (_, expected) in _submissions(Path("/x")).items() if expected])
def test_each_submission_scores_only_what_it_earned(graded, learner):
    row = graded["rows"][learner]
    expected = graded["expected"][learner][1]
    assert (float(row["broadcast_shape"]), float(row["dtype_predictions"])) == expected
    assert float(row["total"]) == sum(expected)


def test_the_fork_bomb_is_in_the_class_where_processes_are_limited():
    assert BOMB_IS_BOUNDED == (sandbox.mode() == "root" or not sandbox._is_root())
    if sandbox._is_root() and sandbox.mode() == "root":    # this machine, and CI when bwrap may mount as root
        assert "fork_bomb" in _submissions(Path("/x"))


@pytest.mark.slow
def test_a_partly_wrong_answer_earns_partial_credit(graded):
    earned = float(graded["rows"]["wrong_answer"]["broadcast_shape"])
    assert 0 < earned < 8          # `return a` is right whenever b broadcasts into a
    feedback = (graded["out"] / "feedback" / "wrong_answer.md").read_text()
    assert "broadcast_shape((4, 1), (1, 5)): expected (4, 5), got (4, 1)." in feedback
    assert "first failing input (failed): a=[4, 1], b=[1, 5]" in feedback
    assert "(hidden)" in feedback and "(visible)" in feedback


@pytest.mark.slow
def test_nothing_outside_the_sandboxes_changed(graded):
    assert graded["before"] == graded["after"]
    assert _sandbox_processes() == []        # the fork bomb's processes went with its sandbox


@pytest.mark.slow
def test_feedback_names_the_cell_and_the_cause(graded):
    feedback = {p.stem: p.read_text() for p in (graded["out"] / "feedback").glob("*.md")}
    assert feedback["all_correct"].startswith("# Feedback for all_correct\n\n**12 of 12 points**")
    assert "your code raised IndexError: tuple index out of range" in feedback["crash"]
    assert "cell 4 (`while True:`) was stopped after 8 s (an endless loop?)" in feedback["endless_loop"]
    assert "the kernel died in cell 4 (`import os`)" in feedback["kernel_dies"]
    assert "stopped: the checks of this exercise ran longer than 8 s" in feedback["loops_when_checked"]
    assert "cell 7 (`import signal`) ran past 8 s and ignored the interrupt: the kernel was stopped; " \
           "not checked: dtype_predictions" in feedback["wedged"]
    assert "Replace the `raise NotImplementedError`" in feedback["blank"]
    html = (graded["out"] / "feedback" / "crash.html").read_text()
    assert "<h2>broadcast_shape: 0 of 8 points</h2>" in html


@pytest.mark.slow
def test_canvas_and_moodle_files_have_their_import_layouts(graded):
    with open(graded["out"] / "canvas.csv") as f:
        canvas = list(csv.reader(f))
    assert canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "minieager course"]
    assert canvas[1] == ["Points Possible", "", "", "", "", "12"]
    assert ["all_correct", "all_correct", "", "", "", "12"] in canvas
    with open(graded["out"] / "moodle.csv") as f:
        moodle = list(csv.reader(f))
    assert moodle[0] == ["ID number", "Email address", "Username", "minieager course"]
    assert ["blank", "", "", "0"] in moodle


@pytest.mark.slow
def test_the_manual_column_is_kept_and_counted_when_tables_are_rebuilt(graded, tmp_path):
    out = tmp_path / "copy"
    exports.merge(out, [graded["out"]])
    rows = list(csv.DictReader(open(out / "grades.csv")))
    for row in rows:
        row["manual"] = "2.5" if row["learner"] == "blank" else ""
    with open(out / "grades.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    exports.write_tables(out)
    rows = {r["learner"]: r for r in csv.DictReader(open(out / "grades.csv"))}
    assert (rows["blank"]["auto"], rows["blank"]["manual"], rows["blank"]["total"]) == ("0", "2.5", "2.5")
    assert "marked by hand: 2.5" in (out / "feedback" / "blank.md").read_text()


@pytest.mark.slow
def test_shards_merge_into_the_same_table(graded, tmp_path):
    """Two shards' result folders (as a CI matrix would upload them), merged, give the class's table."""
    learners = sorted(graded["rows"])
    for i in (1, 2):
        shard = tmp_path / f"shard{i}" / "results"
        shard.mkdir(parents=True)
        for learner in in_shard(learners, (i, 2)):
            (shard / f"{learner}.json").write_bytes((graded["out"] / "results" / f"{learner}.json").read_bytes())
    merged = exports.merge(tmp_path / "merged", [tmp_path / "shard1", tmp_path / "shard2"])
    assert (merged / "grades.csv").read_text() == (graded["out"] / "grades.csv").read_text()


def test_shards_split_the_class_without_overlap():
    learners = [f"s{k:03d}" for k in range(23)]
    parts = [in_shard(learners, (i, 4)) for i in range(1, 5)]
    assert sorted(sum(parts, [])) == learners
    assert max(map(len, parts)) - min(map(len, parts)) <= 1
    assert parse_shard("2/4") == (2, 4)
    with pytest.raises(ValueError, match="--shard takes I/N with 1 <= I <= N, e.g. 2/5, got '5/4'"):
        parse_shard("5/4")


def test_the_student_id_comes_from_the_file_name():
    canvas = r"^[^_]+_(?:LATE_)?(?P<id>\d+)_"
    assert student_id("smithjane_LATE_48213_1034_01_tensors", canvas) == "48213"
    assert student_id("doejohn_51234_99_lesson01", canvas) == "51234"
    assert student_id("alice") == "alice"
    assert student_id("no-number-here", canvas) == "no-number-here"


def test_without_a_sandbox_the_grader_refuses_to_grade_for_marks(tmp_path, monkeypatch):
    (tmp_path / "subs").mkdir()
    monkeypatch.setattr(sandbox, "usable", lambda: (False, "bubblewrap (bwrap) is not installed"))
    with pytest.raises(SandboxUnavailable, match=r"cannot grade for marks here: bubblewrap \(bwrap\) is not "
                                                 r"installed\..*pass --unsafe-local"):
        grade_folder(tmp_path / "subs", tmp_path / "out", log=lambda *a: None)


def test_the_command_line_says_why_it_refuses(tmp_path):
    (tmp_path / "subs").mkdir()
    done = subprocess.run([sys.executable, "-m", "course", "grade", str(tmp_path / "subs")],
                          capture_output=True, text=True, env={"PATH": "/nowhere", "PYTHONPATH": str(REPO)})
    assert done.returncode == 3
    assert "grade: cannot grade for marks here: bubblewrap (bwrap) is not installed" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_unsafe_local_grades_without_the_sandbox_and_says_so(tmp_path):
    (tmp_path / "subs").mkdir()
    nbformat.write(_variant(lambda nb: None), str(tmp_path / "subs" / "alice.ipynb"))
    done = subprocess.run([sys.executable, "-m", "course", "grade", str(tmp_path / "subs"), "--unsafe-local",
                           "--out", str(tmp_path / "out")], capture_output=True, text=True,
                          env={"PATH": "/nowhere", "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr
    assert "--unsafe-local: the notebooks run WITHOUT a sandbox" in done.stderr
    rows = list(csv.DictReader(open(tmp_path / "out" / "grades.csv")))
    assert rows[0]["total"] == "12"


def test_the_command_line_names_a_missing_folder(tmp_path):
    done = subprocess.run([sys.executable, "-m", "course", "grade", str(tmp_path / "nowhere")],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert f"grade: {tmp_path / 'nowhere'} is not a folder." in done.stderr
    assert "Traceback" not in done.stderr


@pytest.fixture(scope="module")
def other_lessons(tmp_path_factory):
    """One folder per learner, several lessons each: declared checks with array inputs (03, 04, 05), one of
    them (04's train_digits) training a model in the sandbox."""
    folder = tmp_path_factory.mktemp("class")
    for learner, source in (("ann", notebooks.SOLUTIONS), ("ben", notebooks.EXERCISES)):
        (folder / learner).mkdir()
        for lesson in ("03_gradients", "04_kernels_and_layers", "05_optimizers"):
            nbformat.write(_variant(lambda nb: None, source / f"{lesson}.ipynb"), str(folder / learner / f"{lesson}.ipynb"))
    out = grade_folder(folder, tmp_path_factory.mktemp("class-grades"), cell_timeout=60, parallel=2,
                       log=lambda *a: None)
    return {r["learner"]: r for r in csv.DictReader(open(out / "grades.csv"))}, out


@pytest.mark.slow
def test_solutions_earn_every_point_and_stubs_none_across_lessons(other_lessons):
    rows, out = other_lessons
    exercises = ["sigmoid_vjp", "softmax_xent_vjp", "scalar_tape", "numba_kernel", "dense_layer", "train_digits",
                 "momentum", "adam"]
    assert list(rows["ann"])[2:-4] == exercises
    assert rows["ann"]["total"] == rows["ann"]["max"]
    assert all(rows["ben"][e] == "0" for e in exercises)
    assert [rows["ann"][e] for e in ("numba_kernel", "dense_layer", "train_digits")] == ["9", "8", "8"]
    feedback = (out / "feedback" / "ben.md").read_text()
    assert "first failing input (not done): x=" in feedback          # arrays crossed as inputs
