"""How an exercise's checks are declared: cases, a probe, a judge, and points.

A check is a class decorated with ``@check(EXERCISE, points=P)`` holding three functions::

    @check("broadcast_shape", points=3)
    class MatchesNumpy:
        '''Random pairs of shapes that broadcast, against NumPy's rule.'''

        def cases(rng):                  # the grader's side: inputs, drawn fresh from rng
            return [{"a": [4, 1], "b": [1, 5]}, ...]

        def probe(ns, a, b):             # the learner's side: call their code, return plain data
            return learner(ns, "broadcast_shape")(tuple(a), tuple(b))

        def judge(got, a, b):            # the grader's side: compare with a reference it computes
            expect_equal(tuple(got), np.broadcast_shapes(a, b), f"broadcast_shape({tuple(a)}, {tuple(b)})")

- ``cases(rng)`` returns a list of keyword-argument dicts of plain data (``course.wire``: numbers,
  strings, lists, dicts, arrays). ``check()`` draws them from a fixed seed, so a learner sees the
  same cases every time; the grader draws them fresh for every submission. ``cases`` may also be a
  plain list when the inputs cannot vary (a prediction exercise).
- ``probe(ns, **case)`` is the only part that touches the learner's code (``ns`` is their
  notebook's namespace). Under the grader it runs inside the sandbox, so it is sent there as source
  text and run with only these names: ``np``, ``me`` (minieager), ``Op``, ``learner``, ``NotDone``,
  ``math``, ``modules_used`` (for a "without NumPy" constraint: the packages a function refers to), and
  the module-level functions listed in the class attribute ``probe_helpers``. It
  returns plain data (a Tensor becomes its array); it must not hold any answer.
- ``judge(got, **case)`` runs in the grader, never in the learner's process: ``got`` is what the probe
  returned (lists for tuples, NumPy arrays for tensors); it raises ``CheckFailure`` (the helpers of
  ``course.expect``) with a message for the learner when the answer is wrong.
- ``points`` is the check's worth; it is split evenly over its cases, so 9 cases of 10 earn 90%.

Where a check lives decides who sees it: ``course/checks/<lesson>.py`` holds the **visible** checks
(the learner's ``check()`` runs them; they ship with the package), ``course/hidden/<lesson>.py`` the
**hidden** ones (only the grader runs them; the folder is left out of the wheel and out of the
sandbox). Every exercise has visible checks; the grader refuses one without.
"""
import importlib.util
import inspect
import math
import textwrap
import threading
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
VISIBLE = HERE / "checks"
HIDDEN = HERE / "hidden"


@dataclass(frozen=True)
class Check:
    exercise: str
    name: str               # the class's name: unique within its exercise
    points: float
    doc: str
    cases_of: object        # rng -> list of dicts, or a list of dicts
    probe: object           # (ns, **case) -> plain data; runs where the learner's code runs
    judge: object           # (got, **case) -> None, raises CheckFailure
    helpers: tuple = ()
    hidden: bool = False    # set by the file the check is loaded from

    @property
    def id(self):
        return f"{self.exercise}.{self.name}"

    def cases(self, rng):
        cases = self.cases_of(rng) if callable(self.cases_of) else self.cases_of
        return [dict(c) for c in cases]

    def probe_source(self):
        """The probe and its helpers as source text: what the grader sends into the sandbox."""
        parts = [textwrap.dedent(inspect.getsource(f)) for f in (*self.helpers, self.probe)]
        return "\n\n".join(parts)


def check(exercise, points=1):
    """Declare a check of ``exercise`` worth ``points``, from a class with cases, probe and judge."""
    if not (isinstance(points, (int, float)) and points > 0):
        raise ValueError(f"check({exercise!r}): points must be a positive number, got {points!r}")

    def declare(cls):
        missing = [name for name in ("cases", "probe", "judge") if name not in vars(cls)]
        if missing:
            raise TypeError(f"check {cls.__name__} of {exercise!r} lacks {', '.join(missing)}: a check "
                            f"declares cases (a list, or a function of rng), probe(ns, ...) and judge(got, ...)")
        return Check(exercise, cls.__name__, float(points), inspect.getdoc(cls) or "", vars(cls)["cases"],
                     vars(cls)["probe"], vars(cls)["judge"], tuple(vars(cls).get("probe_helpers", ())))
    return declare


_modules = {}   # path -> the loaded module (or None when the file does not exist)
_loading = threading.RLock()


def _module(path, hidden):
    with _loading:          # graders draw cases in threads: a module is loaded once, by one of them
        return _module_locked(path, hidden)


def _module_locked(path, hidden):
    if path not in _modules:
        module = None
        if path.exists():
            name = f"course_{'hidden' if hidden else 'checks'}_{path.stem}"
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            _modules[path] = module          # before running it: a hidden file may ask for its visible one
            spec.loader.exec_module(module)
        _modules[path] = module
    return _modules[path]


def visible_module(lesson):
    """The module of ``course/checks/<lesson>.py``: hidden checks reuse its helpers and judges."""
    return _module(VISIBLE / f"{lesson}.py", False)


def _load(path, hidden):
    module = _module(path, hidden)
    if module is None:
        return []
    return [Check(**{**value.__dict__, "hidden": hidden}) for value in vars(module).values()
            if isinstance(value, Check)]


def checks_of(exercise, lesson, hidden=False):
    """The declared checks of one exercise: the visible ones, and the hidden ones too when ``hidden``."""
    found = [c for c in _load(VISIBLE / f"{lesson}.py", False) if c.exercise == exercise]
    if hidden:
        found += [c for c in _load(HIDDEN / f"{lesson}.py", True) if c.exercise == exercise]
    return found


# What a probe may use when it runs in the sandbox (and, for the same behaviour, under check()).
def probe_globals():
    import numpy as np

    import minieager as me
    from minieager.extend import Op

    from .expect import NotDone, learner
    from .probe import modules_used
    return {"np": np, "me": me, "Op": Op, "learner": learner, "NotDone": NotDone, "math": math,
            "modules_used": modules_used, "__name__": "course_probe"}


def compile_probe(source, name="probe"):
    """The probe function defined by ``source`` (a probe's and its helpers' source text)."""
    namespace = probe_globals()
    exec(compile(source, "<course probe>", "exec"), namespace)
    return namespace[name]
