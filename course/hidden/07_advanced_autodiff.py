"""Lesson 07's hidden checks: only the grader runs them."""
import numpy as np

from course.spec import check, visible_module

lesson = visible_module("07_advanced_autodiff")


@check("higher_order", points=2)
class HigherOrderAtRandomPoints:
    """Each function at a point and to an order (1-5) drawn fresh for every submission."""
    probe_helpers = (lesson.functions, lesson.probe_derivatives)

    def cases(rng):
        return [{"name": name, "at": round(float(rng.uniform(-1.5, 1.5)), 4), "n": int(rng.integers(1, 6))}
                for name in lesson.functions()]

    def probe(ns, name, at, n):
        return probe_derivatives(ns, name, at, n)

    def judge(got, name, at, n):
        lesson.judge_derivatives(got, name, at, n)


@check("clip_gradient", points=2)
class ClipRandomUpstreamGradients:
    """Upstream gradients of random shape, one of norm below MAX_NORM and two above it."""
    probe_helpers = (lesson.probe_clip,)

    def cases(rng):
        cases = []
        for norm in (float(rng.uniform(0.1, 0.9)), float(rng.uniform(1.5, 5)), float(rng.uniform(10, 1000))):
            shape = tuple(int(n) for n in rng.integers(1, 5, size=int(rng.integers(1, 3))))
            upstream = rng.normal(size=shape)
            cases.append({"x": rng.normal(size=shape).astype(np.float32),
                          "upstream": (upstream * norm / np.linalg.norm(upstream)).astype(np.float32)})
        return cases

    def probe(ns, x, upstream):
        return probe_clip(ns, x, upstream)

    def judge(got, x, upstream):
        lesson.judge_clip(got, x, upstream)


@check("find_the_bug", points=2)
class FixedVjpAtRandomPoints:
    """fixed_vjp at random points and upstream gradients, drawn fresh for every submission."""
    probe_helpers = (lesson.probe_fixed_vjp,)

    def cases(rng):
        n = int(rng.integers(2, 9))
        return [{"x": rng.uniform(-4, 4, size=n), "dy": rng.normal(size=n)}]

    def probe(ns, x, dy):
        return probe_fixed_vjp(ns, x, dy)

    def judge(got, x, dy):
        lesson.judge_fixed_vjp(got, x, dy)
