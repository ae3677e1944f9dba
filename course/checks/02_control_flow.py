"""Lesson 02's visible checks: a while loop over tensor values (format: course/spec.py)."""
from course.expect import expect, expect_equal
from course.spec import check


def reference_steps(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def probe_steps(ns, n):
    """The learner's count for me.constant(n), and the Python type it came back as."""
    got = learner(ns, "collatz_steps")(me.constant(n))
    if isinstance(got, me.Tensor):
        got = got.numpy().item()
    return {"type": type(got).__name__, "value": got if isinstance(got, (int, float)) else None}


def judge_steps(got, n):
    expect(got["type"] == "int", f"collatz_steps should return a Python int, got {got['type']}.")
    expect_equal(got["value"], reference_steps(n), f"collatz_steps(me.constant({n}))")


@check("collatz_steps", points=3)
class StartsFromTheLesson:
    """Starting values from 1 (no step at all) to 97 (118 steps)."""
    cases = [{"n": n} for n in [1, 2, 6, 7, 27, 97]]
    probe_helpers = (probe_steps,)

    def probe(ns, n):
        return probe_steps(ns, n)

    def judge(got, n):
        judge_steps(got, n)
