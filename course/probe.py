"""The learner's side of a declared check: run probes on a notebook's namespace, reply in plain data.

Under the grader this runs inside the sandbox, in the learner's kernel, on a request the grader
wrote (each check's probe as source text and its cases); under ``check()`` it runs in the notebook's
own process. Either way it decides nothing: each reply is what the learner's code returned (as
``course.wire`` plain data) or how it failed, and the judge (``course/judge.py``) scores it
elsewhere. A reply is ``{"value": ...}`` or ``{"outcome": "not done" | "error", "message": ...}``.
"""
import os
import signal
import traceback

from . import wire
from .spec import compile_probe

_OURS = ("<course probe>",)


def _where(tb):
    """' (in `f`, line N: `source`)' for the deepest frame of the learner's own code, else ''."""
    from .checker import _frame_is_learners, _describe_frame
    frames = [f for f in traceback.extract_tb(tb) if f.filename not in _OURS and _frame_is_learners(f)]
    return _describe_frame(frames[-1]) if frames else ""


def reply(probe, ns, case):
    """Run one probe on one case (plain data); never raises for what the learner's code does."""
    from .expect import NotDone
    try:
        value = probe(ns, **wire.roundtrip(case))
        return {"value": wire.to_plain(value)}
    except NotDone as err:
        return {"outcome": "not done", "message": str(err)}
    except NotImplementedError as err:
        return {"outcome": "not done", "message": f"Replace the `raise NotImplementedError`{_where(err.__traceback__)} "
                                                  f"with your code."}
    except wire.WireError as err:
        return {"outcome": "error", "message": f"your code gave back {err}: the checks cannot read that."}
    except RecursionError as err:
        return {"outcome": "error", "message": f"your code raised RecursionError: {err}"}
    except Exception as err:
        return {"outcome": "error",
                "message": f"your code raised {type(err).__name__}: {err}{_where(err.__traceback__)}"}


def run_exercise(request, ns, time_limit=None):
    """{check id: [reply per case]} for one exercise's request: [{"check", "source", "cases"}].

    With ``time_limit`` (seconds, for the whole exercise) SIGALRM interrupts code that runs too
    long, and keeps interrupting every second (code that swallows KeyboardInterrupt gets it again);
    the cases not reached then reply that they were stopped.
    """
    replies = {item["check"]: [] for item in request}
    stopped = []

    def stop(signum, frame):
        stopped.append(True)
        raise KeyboardInterrupt

    def run_all():
        for item in request:
            answers = replies[item["check"]]
            try:
                probe = compile_probe(item["source"])
            except Exception as err:       # the grader's own probe is broken: say so, score nothing
                answers += [{"outcome": "error", "message": f"the probe of {item['check']} could not load: "
                                                            f"{err}"}] * len(item["cases"])
                continue
            for case in item["cases"]:        # the request holds them as plain data (arrays encoded)
                answers.append(reply(probe, ns, wire.from_plain(case)))

    previous = signal.signal(signal.SIGALRM, stop) if time_limit else None
    try:
        if time_limit:
            signal.setitimer(signal.ITIMER_REAL, time_limit, 1.0)
        try:
            run_all()
        except KeyboardInterrupt:
            if not stopped:
                raise
    finally:
        if time_limit:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    for item in request:                  # the cases the time limit left unanswered
        answers = replies[item["check"]]
        while len(answers) < len(item["cases"]):
            answers.append({"outcome": "error", "message": f"stopped: the checks of this exercise ran longer "
                                                           f"than {time_limit:g} s (an endless loop in your code?)"})
    return replies


def probe_cell(request_path, name, out_path, time_limit, ns):
    """What the runner's probe cell calls in the learner's kernel: probe one exercise, write the replies.

    The replies are per check and case: plain data the grader judges outside the sandbox.
    """
    import json
    exercise = next(e for e in json.load(open(request_path))["exercises"] if e["name"] == name)
    replies = run_exercise(exercise["checks"], ns, time_limit)
    os.makedirs(os.path.dirname(out_path), exist_ok=True)    # the notebook may have deleted its folder
    with open(out_path, "w") as f:
        json.dump(replies, f)


def modules_used(fn, depth=3, seen=None):
    """The root packages ``fn`` (and the notebook functions it calls) refers to by its global names,
    or imports inside itself: what the exercise's "without calling NumPy" is checked against."""
    import dis
    seen = set() if seen is None else seen
    code = getattr(fn, "__code__", None)
    if code is None or id(fn) in seen or depth == 0:
        return []
    seen.add(id(fn))
    namespace = dict(getattr(fn, "__globals__", {}))
    for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
        try:
            namespace[name] = cell.cell_contents
        except ValueError:          # an empty cell (a name assigned later)
            pass
    found, codes = [], [code]
    while codes:
        c = codes.pop()
        codes.extend(k for k in c.co_consts if hasattr(k, "co_names"))
        for ins in dis.get_instructions(c):
            if ins.opname == "IMPORT_NAME":
                found.append([ins.argval, ins.argval.split(".")[0]])
            elif ins.opname in ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_DEREF") and ins.argval in namespace:
                value = namespace[ins.argval]
                module = value.__name__ if type(value).__name__ == "module" else getattr(value, "__module__", None)
                found.append([ins.argval, (module or "").split(".")[0]])
                if getattr(value, "__globals__", None) is fn.__globals__:
                    found += modules_used(value, depth - 1, seen)
    return found
