"""Running a GPU lesson's checks under numba's CUDA simulator, in a Python of their own.

The simulator is switched on by ``NUMBA_ENABLE_CUDASIM=1``, which numba reads once, when it is
first imported. A lesson notebook sets it in its first cell, so ``check()`` runs in a process that
has it. A plain pytest run (``pytest -m gpu_saxpy course/``, ``make test``) has usually imported
numba without it by the time these tests come, so ``course/tests/conftest.py`` runs the tests of a
file marked ``cuda_simulator`` here instead: one fresh Python with the variable set runs every check
of the lesson against its solution notebook, and each test reports its own outcome from there.

``python -m course.simulator LESSON OUT.json`` is that fresh Python's entry point.
"""
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

ENV = "NUMBA_ENABLE_CUDASIM"
TIMEOUT = 300   # seconds for a whole lesson's checks: the simulator is slow, but the shapes are tiny

_outcomes = {}   # lesson -> {test name: (outcome, message)}, so each lesson runs once per process


def simulator_on():
    """True when numba.cuda in this process is the simulator (importing numba here if nothing has yet)."""
    from numba import config
    return bool(config.ENABLE_CUDASIM)


def outcomes(lesson):
    """{test name: (outcome, message)} of every check of ``lesson``, run under the simulator in a subprocess.

    Raises RuntimeError with the subprocess's own error output when it could not run the checks.
    """
    if lesson not in _outcomes:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "outcomes.json"
            done = subprocess.run([sys.executable, "-m", "course.simulator", lesson, str(out)],
                                  env=dict(os.environ, **{ENV: "1"}), capture_output=True, text=True,
                                  timeout=TIMEOUT)
            if done.returncode != 0 or not out.exists():
                raise RuntimeError(f"the checks of {lesson} could not run under the CUDA simulator "
                                   f"(exit code {done.returncode}):\n{(done.stderr or done.stdout)[-3000:]}")
            cases = json.loads(out.read_text())
        _outcomes[lesson] = {case["test"]: (case["outcome"], case["message"]) for case in cases}
    return _outcomes[lesson]


def _main(lesson, out_path):
    from . import checker, notebooks
    from .catalog import exercises_of
    if not simulator_on():
        sys.exit(f"{ENV}=1 must be set before Python starts (numba reads it when first imported).")
    namespace = notebooks.solution_namespace(lesson)
    cases = []
    for exercise in exercises_of(lesson):
        result = checker.run_checks(exercise.name, namespace)
        if result.problem:
            sys.exit(f"{exercise.name}: {result.problem}")
        cases += [asdict(case) for case in result.cases]
    Path(out_path).write_text(json.dumps(cases))


if __name__ == "__main__":
    _main(*sys.argv[1:])
