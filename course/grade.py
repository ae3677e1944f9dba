"""``python -m course grade SUBMISSIONS_DIR``: grade a folder of submitted notebooks, judged outside.

A submission folder holds either one notebook per learner (``alice.ipynb``) or one folder per learner
(``alice/03_gradients.ipynb``, ...). Each notebook's lesson comes from its metadata (the generator
writes it) or else from its file name. For each notebook the grader:

1. draws the cases of every check of the lesson's exercises, visible and hidden, fresh for this
   submission (``--seed`` makes a run repeatable);
2. runs the notebook in a throwaway sandbox (course/sandbox.py, course/run_submission.py), which
   probes each exercise right after its ``check()`` cell and hands back only plain data;
3. judges those replies here (course/judge.py) against references it computes itself, check by check,
   with partial credit.

The learner's code never runs in this process. Results go to ``OUT/results/<learner>.json`` (one
record per learner: shards of a class write theirs into the same folder or are merged later with
``python -m course merge``), and the tables are rebuilt from every record there (course/exports.py).
"""
import json
import os
import queue
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import numpy as np

from . import exports, judge, sandbox, spec
from .catalog import LESSONS, exercises_of

MAX_RESULT_BYTES = 32 << 20  # the largest result file read back from a sandbox
DEFAULT_ID_PATTERN = r"(?P<id>.+)"


class SandboxUnavailable(RuntimeError):
    """bubblewrap cannot run here, and --unsafe-local was not given."""


def lesson_of(path):
    """The lesson a notebook belongs to: its metadata's course.lesson, else a lesson name in its file name."""
    try:
        lesson = nbformat.read(str(path), as_version=4).metadata.get("course", {}).get("lesson")
    except Exception:
        lesson = None
    if lesson in LESSONS:
        return lesson
    return next((name for name in LESSONS if name in path.name or path.name.startswith(name[:3])), None)


def student_id(learner, pattern=DEFAULT_ID_PATTERN):
    """The student id in a submission's name (file stem or folder): the pattern's ``id`` group, else the name."""
    match = re.search(pattern, learner)
    if match is None:
        return learner
    return match.group("id") if "id" in match.groupdict() else match.group(0)


def _submissions(folder):
    """{learner: [notebook paths]} for a submissions folder."""
    learners = {}
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith(".") or entry.name.startswith("_"):
            continue
        if entry.is_dir():
            learners[entry.name] = sorted(p for p in entry.glob("*.ipynb") if not p.name.startswith("."))
        elif entry.suffix == ".ipynb":
            learners.setdefault(entry.stem, []).append(entry)
    return learners


def parse_shard(text):
    """'2/5' -> (2, 5): the second of five shards."""
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text or "")
    if not match or not 1 <= int(match.group(1)) <= int(match.group(2)):
        raise ValueError(f"--shard takes I/N with 1 <= I <= N, e.g. 2/5, got {text!r}")
    return int(match.group(1)), int(match.group(2))


def in_shard(learners, shard):
    """The learners of shard (i, n): every n-th in name order, so shards are disjoint and cover the class."""
    if shard is None:
        return list(learners)
    i, n = shard
    return [learner for k, learner in enumerate(sorted(learners)) if k % n == i - 1]


# ------------------------------------------------------------------------------------- one notebook

def build_request(lesson, rng, notebook, workdir, cell_timeout, exercise_timeout):
    """The request the sandbox gets, and the cases per check the judge keeps for itself."""
    exercises, drawn = [], {}
    for ex in exercises_of(lesson):
        checks = spec.checks_of(ex.name, lesson, hidden=True)
        if not checks:
            raise ValueError(f"{ex.name}: no checks declared in course/checks/{lesson}.py, and the grader judges "
                             f"only declared checks (course/README.md, 'How checks are declared').")
        items = []
        for c in checks:
            cases = c.cases(rng)
            drawn[c.id] = (c, cases)
            items.append({"check": c.id, "source": c.probe_source(), "cases": [exports.plain(x) for x in cases]})
        exercises.append({"name": ex.name, "checks": items})
    request = {"notebook": str(notebook), "workdir": str(workdir), "lesson": lesson, "exercises": exercises,
               "cell_timeout": cell_timeout, "exercise_timeout": exercise_timeout}
    return request, drawn


def _run(argv, cwd, env, timeout, log_path):
    """Run the sandbox (or the local runner); its output goes to a file (capped by the file-size limit)."""
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                start_new_session=True)
        try:
            proc.wait(timeout=timeout)
            return ""
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return f"the notebook ran longer than {timeout:g} s in all and was stopped"


def run_notebook(path, lesson, rng, slot=None, unsafe_local=False, cell_timeout=60, exercise_timeout=60,
                 notebook_timeout=600, limits=sandbox.Limits()):
    """(sandbox result dict, {check id: (Check, cases)}) for one notebook."""
    with tempfile.TemporaryDirectory(prefix="course-grade-") as tmp:
        tmp = Path(tmp)
        in_dir, out_dir = tmp / "in", tmp / "out"
        in_dir.mkdir()
        shutil.copyfile(path, in_dir / "submission.ipynb")
        if unsafe_local:
            out_dir.mkdir()
            request, drawn = build_request(lesson, rng, in_dir / "submission.ipynb", tmp / "work",
                                           cell_timeout, exercise_timeout)
            request_path, result_path = in_dir / "request.json", out_dir / "result.json"
            argv = [sys.executable, "-m", "course.run_submission", str(request_path), str(result_path)]
            root = str(Path(__file__).resolve().parent.parent)
            env = dict(os.environ, COURSE_GRADING="1", PYTHONPATH=os.pathsep.join(
                [root, *filter(None, [os.environ.get("PYTHONPATH")])]))
        else:
            sandbox.prepare_out(out_dir, slot)
            request, drawn = build_request(lesson, rng, f"{sandbox.IN}/submission.ipynb", "/tmp/submission",
                                           cell_timeout, exercise_timeout)
            request_path, result_path = in_dir / "request.json", out_dir / "result.json"
            inner = [sys.executable, "-m", "course.run_submission", f"{sandbox.IN}/request.json",
                     f"{sandbox.OUT}/result.json"]
            argv = sandbox.command(inner, in_dir, out_dir, slot=slot, limits=limits)
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        request_path.write_text(json.dumps(request))
        stopped = _run(argv, tmp, env, notebook_timeout, tmp / "log.txt")
        result = _read_result(result_path)
        if stopped:
            result["problem"] = stopped + (f" ({result['problem']})" if result.get("problem") else "")
        elif not result.get("problem") and result.get("replies") is None:
            tail = (tmp / "log.txt").read_bytes()[-2000:].decode("utf-8", "replace").strip().splitlines()
            result["problem"] = f"the grader could not run the notebook: {tail[-1] if tail else 'no output'}"
    return result, drawn


def _read_result(path):
    """The sandbox's result file, read as untrusted plain data (size-capped, shape-checked)."""
    empty = {"replies": None, "probed_at": {}, "cells": [], "problem": ""}
    try:
        if path.stat().st_size > MAX_RESULT_BYTES:
            return {**empty, "problem": "the run's result was too large to read"}
        data = json.loads(path.read_text())
    except (OSError, ValueError, RecursionError):       # missing, not JSON, or nested to crash a parser
        return empty
    if not isinstance(data, dict):
        return {**empty, "problem": "the run's result was not readable"}
    replies = data.get("replies") if isinstance(data.get("replies"), dict) else {}
    cells = [str(c)[:400] for c in data.get("cells", [])[:50]] if isinstance(data.get("cells"), list) else []
    probed = data.get("probed_at") if isinstance(data.get("probed_at"), dict) else {}
    return {"replies": replies, "probed_at": {str(k): str(v)[:80] for k, v in probed.items()}, "cells": cells,
            "problem": str(data.get("problem") or "")[:600]}


def judge_notebook(lesson, result, drawn):
    """{exercise: record} from the sandbox's replies and the grader's own cases and references."""
    records = {}
    for ex in exercises_of(lesson):
        replies = (result.get("replies") or {}).get(ex.name)
        where = result["probed_at"].get(ex.name, "")
        checks = [(c, cases) for c, cases in drawn.values() if c.exercise == ex.name]
        scores = []
        problem = replies.get("problem") if isinstance(replies, dict) else None
        for c, cases in checks:
            got = replies.get(c.id) if isinstance(replies, dict) else None
            if got is None:      # the probes never answered: say why on every case
                why = str(problem or _not_checked(ex.name, result))[:600]
                got = [{"outcome": "error", "message": why}] * len(cases)
            scores.append(judge.score(c, cases, got))
        record = {"points": sum(s.points for s in scores),
                  "earned": round(sum(s.earned for s in scores), 4), "probed_at": where,
                  "checks": [exports.check_record(s) for s in scores], "message": ""}
        if replies is None or (isinstance(replies, dict) and "problem" in replies):
            record["message"] = replies.get("problem") if isinstance(replies, dict) else _not_checked(ex.name, result)
        records[ex.name] = record
    return records


def _not_checked(name, result):
    return f"{name}: not checked ({result.get('problem') or 'no result came back'})"


def grade_one(learner, path, lesson, rng, **options):
    started = time.monotonic()
    result, drawn = run_notebook(path, lesson, rng, **options)
    return {"learner": learner, "notebook": path.name, "lesson": lesson, "exercises": judge_notebook(lesson, result, drawn),
            "cells": [f"{path.name}: {c}" for c in result["cells"]],
            "problem": f"{path.name}: {result['problem']}" if result["problem"] else "",
            "seconds": round(time.monotonic() - started, 1)}


# ------------------------------------------------------------------------------------- a folder

def grade_folder(submissions, out=None, cell_timeout=60, exercise_timeout=None, notebook_timeout=600, parallel=1,
                 shard=None, unsafe_local=False, id_pattern=DEFAULT_ID_PATTERN, assignment="minieager course",
                 seed=None, limits=sandbox.Limits(), log=print):
    """Grade the learners of ``submissions`` (those of ``shard``, when given); returns the output folder."""
    folder = Path(submissions)
    if not folder.is_dir():
        raise FileNotFoundError(f"grade: {folder} is not a folder. Pass a folder of submitted notebooks "
                                f"(LEARNER.ipynb, or LEARNER/LESSON.ipynb), e.g. `make grade SUBMISSIONS=path`.")
    if not unsafe_local:
        ok, why = sandbox.usable()
        if not ok:
            raise SandboxUnavailable(
                f"grade: cannot grade for marks here: {why}. Each submission must run in a bubblewrap sandbox, "
                f"or a notebook could change the tests, read other submissions or fake its score. Install "
                f"bubblewrap, or pass --unsafe-local to grade without a sandbox (practice runs on your own "
                f"notebooks only: the scores are not safe to record).")
    out = Path(out) if out else folder.parent / "grades"
    (out / "results").mkdir(parents=True, exist_ok=True)
    learners = _submissions(folder)
    chosen = in_shard(learners, shard)
    exercise_timeout = exercise_timeout or cell_timeout
    seeds = np.random.SeedSequence(seed if seed is not None else secrets.randbits(128))
    jobs = []
    for learner, child in zip(chosen, seeds.spawn(len(chosen))):
        records = []
        for path in learners[learner]:
            lesson = lesson_of(path)
            if lesson is None:
                records.append({"learner": learner, "notebook": path.name, "lesson": None, "exercises": {}, "cells": [],
                                "problem": f"{path.name}: not a lesson notebook (no lesson in its metadata or name); "
                                           f"skipped", "seconds": 0})
            else:
                jobs.append((learner, path, lesson, np.random.default_rng(child)))
        _write_learner(out, learner, id_pattern, records, fresh=True)

    slots = queue.Queue()
    for k in range(max(1, parallel)):
        slots.put(k)
    lock = threading.Lock()
    options = dict(unsafe_local=unsafe_local, cell_timeout=cell_timeout, exercise_timeout=exercise_timeout,
                   notebook_timeout=notebook_timeout, limits=limits)

    def one(job):
        learner, path, lesson, rng = job
        slot = slots.get()
        try:
            log(f"grading {learner}: {path.name} ({lesson})")
            record = grade_one(learner, path, lesson, rng, slot=slot if parallel > 1 else None, **options)
        finally:
            slots.put(slot)
        with lock:
            _write_learner(out, learner, id_pattern, [record])

    with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
        list(pool.map(one, jobs))
    exports.write_tables(out, assignment=assignment)
    return out


def _write_learner(out, learner, id_pattern, records, fresh=False):
    """Add ``records`` (one per notebook) to the learner's results file (started afresh when ``fresh``)."""
    path = out / "results" / f"{exports.safe_name(learner)}.json"
    data = {"learner": learner, "id": student_id(learner, id_pattern), "notebooks": []}
    if path.exists() and not fresh:
        data = json.loads(path.read_text())
    data["notebooks"] += records
    path.write_text(json.dumps(data, indent=1))
