"""Lesson 02's hidden checks: only the grader runs them."""
from course.spec import check, visible_module

lesson = visible_module("02_control_flow")


@check("collatz_steps", points=2)
class RandomStarts:
    """Ten starting values up to 10 000, drawn fresh for every submission."""
    probe_helpers = (lesson.probe_steps,)

    def cases(rng):
        return [{"n": int(n)} for n in rng.integers(1, 10_000, 10)]

    def probe(ns, n):
        return probe_steps(ns, n)

    def judge(got, n):
        lesson.judge_steps(got, n)
