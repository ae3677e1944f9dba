"""Lesson 01's hidden checks: only the grader runs them (never shipped in the wheel, never in the sandbox)."""
from course.spec import check, visible_module

lesson = visible_module("01_tensors")


@check("broadcast_shape", points=2)
class LongerRandomShapes:
    """Random shapes of rank 0-6 with sizes 1-5, drawn fresh for every submission."""
    probe_helpers = (lesson.probe_broadcast,)

    def cases(rng):
        return lesson.random_shape_pairs(rng, 30, max_rank=6, max_size=5)

    def probe(ns, a, b):
        return probe_broadcast(ns, a, b)

    def judge(got, a, b):
        lesson.judge_broadcast(got, a, b)
