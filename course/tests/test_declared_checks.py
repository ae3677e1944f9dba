"""Every check declared in course/checks (visible) and course/hidden (hidden, when present) is proved
both ways: the solution notebook earns every point, the learner version (stubs) earns none and is
told it is "not done". The probes run from their source text, as the grader sends them; a lesson whose
kernels need numba's CUDA simulator has its probes run in a fresh Python with it on (course/simulator.py)."""
import numpy as np
import pytest

from minieager.kernels import registry
from course import judge, notebooks, probe, simulator, spec
from course.catalog import EXERCISES

# slow: a lesson under the CUDA simulator runs its probes in a fresh Python (about 10 s each time)
DECLARED = [pytest.param(e, c, id=c.id, marks=[pytest.mark.slow] if simulator.needs_simulator(e.lesson) else [])
            for e in EXERCISES for c in spec.checks_of(e.name, e.lesson, hidden=True)]

# Notebooks register kernels in one process-wide table, and two lessons may name the same op (04's and
# 10's my_softsign): each namespace is probed with the kernels its own notebook left registered, as
# in the notebook's own kernel, whatever notebook this process ran after it.
_own_kernels = {}


def _namespace(kind, lesson):
    key = (kind, lesson)
    if key not in _own_kernels:
        before = dict(registry._KERNELS)
        ns = getattr(notebooks, f"{kind}_namespace")(lesson)
        _own_kernels[key] = {k: v for k, v in registry._KERNELS.items() if before.get(k) is not v}
        return ns
    registry._KERNELS.update(_own_kernels[key])   # only the kernels this notebook registered itself
    return getattr(notebooks, f"{kind}_namespace")(lesson)


def _score(check, lesson, version, seed):
    cases = check.cases(np.random.default_rng(seed))
    if simulator.needs_simulator(lesson):
        replies = simulator.declared_replies(lesson, version, seed)[check.id]
    else:
        ns = _namespace(version, lesson)
        run = spec.compile_probe(check.probe_source())
        replies = [probe.reply(run, ns, case) for case in cases]
    return judge.score(check, cases, replies)


@pytest.mark.parametrize("exercise, check", DECLARED)
@pytest.mark.parametrize("seed", [0, 1])
def test_the_solution_earns_every_point(exercise, check, seed):
    scored = _score(check, exercise.lesson, "solution", seed)
    failed = [(r.case, r.message) for r in scored.cases if r.outcome != "passed"]
    assert failed == []
    assert scored.earned == check.points


@pytest.mark.parametrize("exercise, check", DECLARED)
def test_the_learner_version_is_not_done(exercise, check):
    scored = _score(check, exercise.lesson, "learner", 0)
    assert {r.outcome for r in scored.cases} == {"not done"}
    assert scored.earned == 0


def test_checks_are_declared_for_known_exercises_only():
    names = {e.name for e in EXERCISES}
    for path in [*spec.VISIBLE.glob("*.py"), *spec.HIDDEN.glob("*.py")]:
        module = spec._module(path, path.parent == spec.HIDDEN)
        for value in vars(module).values():
            if isinstance(value, spec.Check):
                assert value.exercise in names, f"{path.name}: {value.id} names no exercise of course/catalog.py"


def test_every_exercise_has_visible_and_hidden_checks():
    """The grader judges declared checks only (it refuses an exercise without them): every exercise of
    the catalog declares visible checks (course/checks) and hidden ones (course/hidden)."""
    assert [e.name for e in EXERCISES if not spec.checks_of(e.name, e.lesson)] == []
    # Prediction exercises ask fixed questions the learner sees: there is nothing hidden to ask.
    predictions = {"dtype_predictions", "tracing_counts"}
    assert [e.name for e in EXERCISES if e.name not in predictions
            and not [c for c in spec.checks_of(e.name, e.lesson, hidden=True) if c.hidden]] == []
