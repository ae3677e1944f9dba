"""Lesson 06's hidden checks: only the grader runs them."""
import numpy as np

from course.spec import check, visible_module

lesson = visible_module("06_state")


@check("running_mean", points=2)
class RunningMeanRandomBatches:
    """Five batches of random shapes (a scalar among them) and values, drawn fresh for every submission."""
    probe_helpers = (lesson.probe_made, lesson.probe_batches)

    def cases(rng):
        shapes = [(), *(tuple(int(n) for n in rng.integers(1, 5, size=rank)) for rank in (1, 2, 3, 1))]
        return [{"batches": [(rng.normal(size=s) * 10 + rng.uniform(-5, 5)).astype(np.float32) for s in shapes]}]

    def probe(ns, batches):
        return probe_batches(ns, batches)

    def judge(got, batches):
        lesson.judge_batches(got, batches)
