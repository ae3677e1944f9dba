"""Lesson 05's hidden checks: only the grader runs them."""
from course.spec import check, visible_module

lesson = visible_module("05_optimizers")


@check("momentum", points=2)
class MomentumRandomSettings:
    """Ten steps with a learning rate and momentum drawn fresh for every submission."""
    probe_helpers = (lesson.probe_trajectory,)

    def cases(rng):
        return lesson.trajectory_cases(rng, [(float(rng.uniform(0.01, 0.2)), float(rng.uniform(0.1, 0.95)))], steps=10)

    def probe(ns, args, starts, grads):
        return probe_trajectory(ns, "MomentumSGD", args, starts, grads)

    def judge(got, args, starts, grads):
        lesson.judge_trajectory(got, lesson.builtin_sgd, args, starts, grads)


@check("adam", points=2)
class AdamRandomSettings:
    """Ten steps with learning rate and betas drawn fresh for every submission."""
    probe_helpers = (lesson.probe_trajectory,)

    def cases(rng):
        args = (float(rng.uniform(0.005, 0.2)), float(rng.uniform(0.5, 0.95)), float(rng.uniform(0.9, 0.9999)), 1e-7)
        return lesson.trajectory_cases(rng, [args], steps=10)

    def probe(ns, args, starts, grads):
        return probe_trajectory(ns, "MyAdam", args, starts, grads)

    def judge(got, args, starts, grads):
        lesson.judge_trajectory(got, lesson.builtin_adam, args, starts, grads)
