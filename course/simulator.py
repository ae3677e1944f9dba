"""Running a GPU lesson's probes under numba's CUDA simulator, in a Python of their own.

The simulator is switched on by ``NUMBA_ENABLE_CUDASIM=1``, which numba reads once, when it is
first imported. A lesson notebook sets it in its first cell, so ``check()`` and the grader (in the
sandbox, in the learner's kernel) run the lesson's probes in a process that has it. A lesson says it
needs the simulator with ``CUDA_SIMULATOR = True`` in its ``course/checks`` file. Only the tests that
prove its checks against the solution and learner notebooks (course/tests/test_declared_checks.py)
run outside a notebook, in a pytest process that has usually imported numba without the simulator:
``declared_replies`` runs the probes there in a fresh Python with the variable set and hands back
their plain replies; the judges need no simulator and run in the caller's process.

``python -m course.simulator LESSON VERSION SEED OUT.json`` is that fresh Python's entry point.
"""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ENV = "NUMBA_ENABLE_CUDASIM"
TIMEOUT = 300   # seconds for a whole lesson's checks: the simulator is slow, but the shapes are tiny

_replies = {}   # (lesson, version, seed) -> the replies, so each runs once per process


def simulator_on():
    """True when numba.cuda in this process is the simulator (importing numba here if nothing has yet)."""
    from numba import config
    return bool(config.ENABLE_CUDASIM)


def needs_simulator(lesson):
    """True when ``lesson``'s declared checks launch CUDA kernels (``CUDA_SIMULATOR = True`` in its checks file)."""
    from . import spec
    module = spec.visible_module(lesson)
    return bool(getattr(module, "CUDA_SIMULATOR", False))


def declared_replies(lesson, version, seed):
    """{check id: [reply per case]}: every declared check (visible and hidden) of ``lesson`` probed on its
    ``version`` notebook ("solution" or "learner") with cases drawn from ``seed``, under the simulator in a
    fresh Python. The cases are the ones ``check.cases(np.random.default_rng(seed))`` draws here."""
    key = (lesson, version, seed)
    if key not in _replies:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "replies.json"
            done = subprocess.run([sys.executable, "-m", "course.simulator", lesson, version, str(seed),
                                   str(out)], env=dict(os.environ, **{ENV: "1"}), capture_output=True, text=True,
                                  timeout=TIMEOUT)
            if done.returncode != 0 or not out.exists():
                raise RuntimeError(f"the probes of {lesson} could not run under the CUDA simulator "
                                   f"(exit code {done.returncode}):\n{(done.stderr or done.stdout)[-3000:]}")
            _replies[key] = json.loads(out.read_text())
    return _replies[key]


def _main(lesson, version, seed, out_path):
    import numpy as np

    from . import notebooks, probe, spec
    from .catalog import exercises_of
    if not simulator_on():
        sys.exit(f"{ENV}=1 must be set before Python starts (numba reads it when first imported).")
    namespace = (notebooks.solution_namespace if version == "solution" else notebooks.learner_namespace)(lesson)
    replies = {}
    for exercise in exercises_of(lesson):
        for declared in spec.checks_of(exercise.name, lesson, hidden=True):
            run = spec.compile_probe(declared.probe_source())
            replies[declared.id] = [probe.reply(run, namespace, case)
                                    for case in declared.cases(np.random.default_rng(int(seed)))]
    Path(out_path).write_text(json.dumps(replies))


if __name__ == "__main__":
    _main(*sys.argv[1:])
