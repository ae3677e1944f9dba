"""``check("sigmoid_vjp")``: run one exercise's visible checks against the learner's own definitions.

The checks are declared per lesson in ``course/checks/<lesson>.py`` (``course/spec.py``): ``check``
draws their cases from a fixed seed, runs each probe on the calling notebook's namespace, judges
the replies as the grader does, and prints one friendly summary: passed, not done yet, or the
failing case with its hint. Nothing the checker does itself ever shows a traceback.
"""
import contextlib
import inspect
import linecache
import re
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import minieager

from . import spec
from .catalog import BY_NAME

_PACKAGE = str(Path(__file__).resolve().parent)
_MINIEAGER = str(Path(minieager.__file__).resolve().parent)

GRADING = "COURSE_GRADING"   # set in the environment of a kernel the grader runs: check() then only says so
_disabled = False   # True while a solution notebook is exec'd for the tests: check() is then a no-op
failed_tries = {}   # exercise -> how many times check() found it failing in this kernel (picks the hint)


@contextlib.contextmanager
def checks_disabled():
    global _disabled
    previous, _disabled = _disabled, True
    try:
        yield
    finally:
        _disabled = previous


@dataclass
class Case:
    test: str          # the test's id, e.g. "test_sigmoid_vjp_values[shape1]"
    outcome: str       # "passed", "failed", "not done", "error"
    message: str = ""


@dataclass
class Result:
    exercise: str
    cases: list = field(default_factory=list)
    problem: str = ""   # set when the tests could not run at all

    @property
    def status(self):
        """'passed', 'not done', 'failed' (a wrong answer) or 'error' (the learner's code raised)."""
        if self.problem or not self.cases:
            return "error"
        outcomes = {c.outcome for c in self.cases}
        if outcomes == {"passed"}:
            return "passed"
        if "failed" in outcomes:
            return "failed"
        if "error" in outcomes:
            return "error"
        return "not done"

    def summary(self, failures=1):
        """The text check() prints; ``failures`` (this one included) picks the hint's tier."""
        ex = BY_NAME[self.exercise]
        n = len(self.cases)
        if self.problem:
            return f"{self.exercise}: the check could not run: {self.problem}"
        status = self.status
        if status == "passed":
            return f"✔ {self.exercise}: all {n} checks passed. Well done!"
        if status == "not done":
            first = next(c for c in self.cases if c.outcome == "not done")
            return f"… {self.exercise}: not done yet. {first.message}"
        bad = [c for c in self.cases if c.outcome in ("failed", "error")]
        first = bad[0]
        pending = sum(c.outcome == "not done" for c in self.cases)
        lines = [f"✘ {self.exercise}: {len(bad)} of {n} checks did not pass"
                 + (f" ({pending} more not done yet)." if pending else "."),
                 f"  First problem ({_describe(first.test)}):",
                 *("    " + line for line in first.message.splitlines()),
                 f"  Hint: {ex.hint_for(failures)}"]
        if ex.has_more_hints(failures):
            lines.append("  (Think it over and try again: a more specific hint comes after another failed try.)")
        return "\n".join(lines)


def _describe(test_id):
    name, _, params = test_id.partition("[")
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name.removeprefix("test_")).replace("_", " ").lower()
    return f"{words}, case {params[:-1]}" if params else words


def _frame_is_learners(f):
    """A traceback frame outside this package, minieager and the installed libraries."""
    return (not f.filename.startswith(_PACKAGE) and "site-packages" not in f.filename
            and not f.filename.startswith(_MINIEAGER) and not f.filename.startswith(sys.prefix))


def _describe_frame(f):
    line = (f.line or linecache.getline(f.filename, f.lineno)).strip()
    return f" (in `{f.name}`, line {f.lineno}: `{line}`)" if line else f" (in `{f.name}`, line {f.lineno})"


def run_checks(exercise, namespace):
    """Run ``exercise``'s visible checks against ``namespace``; returns a Result (never raises for failures)."""
    if exercise not in BY_NAME:
        known = ", ".join(sorted(BY_NAME))
        raise ValueError(f"check: there is no exercise named {exercise!r}. The exercises are: {known}.")
    return run_declared(exercise, namespace)


def run_declared(exercise, namespace, seed=0):
    """The visible checks of an exercise declared in course/checks (course/spec.py), in this process.

    The same probes and judges the grader uses, with cases drawn from a fixed seed so that every run
    shows the same cases; the probe's result goes through the same plain-data conversion.
    """
    import numpy as np

    from . import judge, probe
    result = Result(exercise)
    rng = np.random.default_rng(seed)
    for declared_check in spec.checks_of(exercise, BY_NAME[exercise].lesson):
        cases = declared_check.cases(rng)
        np.random.seed(seed)
        minieager.random.set_seed(seed)
        run = spec.compile_probe(declared_check.probe_source())
        scored = judge.score(declared_check, cases, [probe.reply(run, namespace, case) for case in cases])
        result.cases += [Case(f"{declared_check.name}[{r.index}]", r.outcome,
                              f"with {judge.describe_case(r.case)}: {r.message}" if r.outcome == "error" and r.case
                              else r.message) for r in scored.cases]
    return result


def check(exercise, namespace=None):
    """Check one exercise against the definitions of the notebook that calls it, and print the result.

    ``namespace`` defaults to the caller's globals (a notebook's namespace when called from a cell).
    """
    if _disabled:
        return
    if os.environ.get(GRADING):
        print(f"{exercise}: the grader checks this at the end of the notebook.")
        return
    if namespace is None:
        namespace = inspect.currentframe().f_back.f_globals
    try:
        result = run_checks(exercise, namespace)
    except ValueError as err:
        print(err)
        return
    if result.status in ("failed", "error"):
        failed_tries[exercise] = failed_tries.get(exercise, 0) + 1
    print(result.summary(failed_tries.get(exercise, 1)))
