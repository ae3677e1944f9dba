"""The grader's side of a declared check: score the learner's replies against its own reference.

Nothing here runs the learner's code: a reply is plain data (``course.wire``) that came out of the
sandbox (or, under ``check()``, out of the notebook's process), and each check's ``judge`` compares
it with what the grader computes itself. A check's points are split evenly over its cases.
"""
from dataclasses import dataclass, field

from . import wire
from .expect import CheckFailure

MAX_MESSAGE = 2000   # characters of a message that came from the learner's side


@dataclass
class CaseResult:
    index: int
    outcome: str            # "passed", "failed", "not done", "error"
    message: str = ""
    case: dict = field(default_factory=dict)


@dataclass
class CheckScore:
    check: str              # the check's id, "exercise.Name"
    name: str
    doc: str
    hidden: bool
    points: float
    earned: float
    cases: list


def describe_case(case, limit=160):
    """The failing input in one line: 'a=[4, 1], b=[1, 5]' (long values shortened)."""
    text = ", ".join(f"{k}={v!r}" for k, v in case.items())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _clip(text):
    text = str(text)
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE] + " [...]"


def judge_case(check, case, reply):
    """(outcome, message) for one reply; a reply of the wrong form is a failed case, never a crash."""
    if not isinstance(reply, dict):
        return "error", "no reply for this case"
    if "value" not in reply:
        outcome = reply.get("outcome")
        return (outcome if outcome in ("not done", "error") else "error"), _clip(reply.get("message", "no result"))
    try:
        got = wire.from_plain(reply["value"])
    except Exception as err:        # a malformed array, a forged document: it scores nothing, and stops nothing
        return "error", f"the result could not be read: {type(err).__name__}: {str(err)[:200]}"
    try:
        check.judge(got, **case)
    except CheckFailure as err:
        return "failed", str(err)
    except Exception as err:        # an answer of a form the judge did not expect (a str for a list ...)
        return "failed", f"{check.exercise}: the answer {_clip(repr(got))[:200]} has an unexpected form " \
                         f"({type(err).__name__}: {err})."
    return "passed", ""


def score(check, cases, replies):
    """A CheckScore from the cases the grader drew and the replies (a list, one per case, or None)."""
    replies = replies if isinstance(replies, list) else []
    results = []
    for k, case in enumerate(cases):
        outcome, message = judge_case(check, case, replies[k] if k < len(replies) else None)
        results.append(CaseResult(k, outcome, message, case))
    passed = sum(r.outcome == "passed" for r in results)
    earned = round(check.points * passed / len(results), 4) if results else 0.0
    return CheckScore(check.id, check.name, check.doc, check.hidden, check.points, earned, results)
