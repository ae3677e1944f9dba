"""Lesson 11's hidden checks: only the grader runs them, on inputs drawn fresh for every submission."""
from course.spec import check, visible_module

lesson = visible_module("11_tracing")


@check("one_trace", points=2)
class OneTraceForARandomSweep:
    """A sweep of random length over random floats, on a vector of random length."""
    probe_helpers = (lesson.probe_scale_all,)

    def cases(rng):
        return [{"x": rng.normal(size=int(rng.integers(1, 6))).astype("float32"),
                 "scales": [float(s) for s in rng.uniform(-3, 3, int(rng.integers(2, 12)))]}]

    def probe(ns, x, scales):
        return probe_scale_all(ns, x, scales)

    def judge(got, x, scales):
        lesson.judge_scale_all(got, x, scales)


@check("trace_and_run", points=2)
class RandomCallSequences:
    """Calls on vectors of random lengths, some repeated."""
    probe_helpers = (lesson.probe_counting_square,)

    def cases(rng):
        return [{"lengths": [int(n) for n in rng.integers(1, 4, int(rng.integers(3, 8)))]} for _ in range(2)]

    def probe(ns, lengths):
        return probe_counting_square(ns, lengths)

    def judge(got, lengths):
        lesson.judge_counting_square(got, lengths)
