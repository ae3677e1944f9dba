"""``python -m course grade SUBMISSIONS_DIR``: grade a folder of submitted notebooks.

A submission folder holds either one notebook per learner (``alice.ipynb``) or one folder per learner
(``alice/03_gradients.ipynb``, ...). Each notebook's lesson comes from its metadata (the generator
writes it) or else from its file name. Each notebook runs in a fresh kernel, in a temporary folder
holding a copy of it (never in place), under a wall-clock limit; then every exercise of its lesson is
checked in that kernel. An exercise scores 1 when all its checks pass and 0 otherwise: a crash, an
endless loop, a deleted file or a killed kernel costs the exercises it touches, never the run.

Writes ``grades.csv`` (one row per learner, one column per exercise, and the total) and
``feedback/<learner>.txt`` into the output folder.
"""
import csv
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat

from .catalog import LESSONS, exercises_of


def report(names, namespace, limit=60):
    """Run in the learner's kernel by the grading cell: {exercise: {"status", "message"}}.

    Each exercise's checks get ``limit`` seconds: then SIGALRM interrupts them (pytest stops its
    session on KeyboardInterrupt), so an endless loop in one exercise costs that exercise only.
    """
    import signal

    from .checker import run_checks

    stopped = []

    def stop(signum, frame):
        stopped.append(True)
        raise KeyboardInterrupt

    results = {}
    previous = signal.signal(signal.SIGALRM, stop)
    try:
        for name in names:
            stopped.clear()
            signal.setitimer(signal.ITIMER_REAL, limit)
            try:
                result = run_checks(name, namespace)
                results[name] = {"status": result.status, "message": result.summary()}
            except Exception as err:       # whatever the learner's code did to the kernel, report it
                results[name] = {"status": "error", "message": f"{name}: the check failed: {type(err).__name__}: {err}"}
            except KeyboardInterrupt:
                pass
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if stopped:
                results[name] = {"status": "error", "message": f"{name}: the checks ran longer than {limit:g} s "
                                                               f"and were stopped (an endless loop in your code?)"}
    finally:
        signal.signal(signal.SIGALRM, previous)
    return results


def lesson_of(path):
    """The lesson a notebook belongs to: its metadata's course.lesson, else a lesson name in its file name."""
    try:
        lesson = nbformat.read(str(path), as_version=4).metadata.get("course", {}).get("lesson")
    except Exception:
        lesson = None
    if lesson in LESSONS:
        return lesson
    return next((name for name in LESSONS if name in path.name or path.name.startswith(name[:3])), None)


def run_notebook(path, lesson, cell_timeout=60, notebook_timeout=300):
    """Grade one notebook in a temporary copy; returns run_submission.run's dict."""
    nonce = "@@course-result-" + secrets.token_hex(8) + "@@"
    with tempfile.TemporaryDirectory(prefix="course-grade-") as tmp:
        copy = Path(tmp) / "submission.ipynb"
        shutil.copyfile(path, copy)
        proc = subprocess.Popen(
            [sys.executable, "-m", "course.run_submission", str(copy), lesson, nonce, str(cell_timeout)],
            cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=notebook_timeout)
        except subprocess.TimeoutExpired:
            # The kernel notices that its parent is gone and exits (ipykernel's parent poller).
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return {"results": {}, "cells": [], "problem": f"the notebook ran longer than {notebook_timeout:g} s "
                                                           f"and was stopped"}
    try:
        return json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        tail = err.strip().splitlines()[-1:] or ["no output"]
        return {"results": {}, "cells": [], "problem": f"the grader could not run the notebook: {tail[0]}"}


def _submissions(folder):
    """{learner: [notebook paths]} for a submissions folder."""
    learners = {}
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            learners[entry.name] = sorted(p for p in entry.glob("*.ipynb") if not p.name.startswith("."))
        elif entry.suffix == ".ipynb":
            learners.setdefault(entry.stem, []).append(entry)
    return learners


def grade_folder(submissions, out=None, cell_timeout=60, notebook_timeout=300, parallel=1, log=print):
    """Grade every learner in ``submissions``; returns the output folder."""
    folder = Path(submissions)
    if not folder.is_dir():
        raise FileNotFoundError(f"grade: {folder} is not a folder. Pass a folder of submitted notebooks "
                                f"(LEARNER.ipynb, or LEARNER/LESSON.ipynb), e.g. `make grade SUBMISSIONS=path`.")
    out = Path(out) if out else folder.parent / "grades"
    (out / "feedback").mkdir(parents=True, exist_ok=True)
    learners = _submissions(folder)
    graded = {}                       # learner -> {exercise: (score, message)}
    notes = {}
    jobs = []                         # (learner, path, lesson)
    for learner, paths in learners.items():
        graded[learner], notes[learner] = {}, []
        for path in paths:
            lesson = lesson_of(path)
            if lesson is None:
                notes[learner].append(f"{path.name}: not a lesson notebook (no lesson in its metadata or name); skipped")
            else:
                jobs.append((learner, path, lesson))

    def one(job):
        learner, path, lesson = job
        log(f"grading {learner}: {path.name} ({lesson})")
        return run_notebook(path, lesson, cell_timeout, notebook_timeout)

    # Each notebook runs in its own process and kernel: threads only wait for them.
    with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
        outcomes = list(pool.map(one, jobs))
    for (learner, path, lesson), outcome in zip(jobs, outcomes):
        notes[learner] += [f"{path.name}: {c}" for c in outcome["cells"]]
        if outcome["problem"]:
            notes[learner].append(f"{path.name}: {outcome['problem']}")
        for ex in exercises_of(lesson):
            r = outcome["results"].get(ex.name)
            if r is None:
                graded[learner][ex.name] = (0, f"{ex.name}: not checked ({outcome['problem'] or 'no result'})")
            else:
                graded[learner][ex.name] = (int(r["status"] == "passed"), r["message"])
    submitted = {lesson for _, _, lesson in jobs}   # a column for each exercise of a lesson someone submitted
    columns = [e.name for lesson in LESSONS if lesson in submitted for e in exercises_of(lesson)]
    with open(out / "grades.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["learner", *columns, "total"])
        for learner in learners:
            scores = [graded[learner].get(c, (0, ""))[0] for c in columns]
            writer.writerow([learner, *scores, sum(scores)])
    for learner in learners:
        _write_feedback(out / "feedback" / f"{learner}.txt", learner, columns, graded[learner], notes[learner])
    return out


def _write_feedback(path, learner, columns, graded, notes):
    total = sum(graded.get(c, (0, ""))[0] for c in columns)
    lines = [f"Feedback for {learner}: {total} of {len(columns)} exercises passed.", ""]
    for c in columns:
        score, message = graded.get(c, (0, f"{c}: not submitted"))
        lines.append(f"[{score}] {message}")
    if notes:
        lines += ["", "Notes on the run:", *(f"- {n}" for n in notes)]
    path.write_text("\n".join(lines) + "\n")
