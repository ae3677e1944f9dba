"""Lesson 05's visible checks: momentum SGD and Adam written by hand (format: course/spec.py).

The grader hands the learner's optimizer a sequence of gradients (plain arrays, no loss needed) for
two variables, and compares the variables after every step with minieager's built-in optimizer fed
the same gradients, which the judge runs here.
"""
import numpy as np

import minieager as me
from course.expect import expect_close
from course.spec import check


def trajectory_cases(rng, hyperparameters, steps=6):
    """For each set of hyperparameters: starting values of w (3, 2) and b (2,), and a gradient per step."""
    cases = []
    for args in hyperparameters:
        starts = [rng.normal(size=(3, 2)).astype(np.float32), rng.normal(size=(2,)).astype(np.float32)]
        grads = [[rng.normal(size=s.shape).astype(np.float32) for s in starts] for _ in range(steps)]
        cases.append({"args": list(args), "starts": starts, "grads": grads})
    return cases


def probe_trajectory(ns, name, args, starts, grads):
    """The learner's optimizer stepped with the grader's gradients: the variables after each step."""
    optimizer = learner(ns, name)(*args)
    variables = [me.Variable(np.asarray(s, dtype=np.float32)) for s in starts]
    history = []
    for step in grads:
        optimizer.apply_gradients([(me.constant(np.asarray(g, dtype=np.float32)), v)
                                   for g, v in zip(step, variables)])
        history.append([v.numpy().copy() for v in variables])
    return history


def judge_trajectory(got, builtin, args, starts, grads):
    variables = [me.Variable(np.asarray(s, dtype=np.float32)) for s in starts]
    optimizer = builtin(*args)
    names = [f"the {tuple(np.shape(s))} variable {'wb'[k] if len(starts) == 2 else k}" for k, s in enumerate(starts)]
    for step, (mine, g) in enumerate(zip(got, grads), start=1):
        optimizer.apply_gradients([(me.constant(np.asarray(x, dtype=np.float32)), v) for x, v in zip(g, variables)])
        for name, value, v in zip(names, mine, variables):
            expect_close(value, v.numpy(), f"{name} after step {step} (arguments {tuple(args)}), against "
                                           f"the built-in", rtol=1e-4, atol=1e-6)


def builtin_sgd(learning_rate, momentum):
    return me.optimizers.SGD(learning_rate, momentum=momentum)


def builtin_adam(learning_rate, beta_1, beta_2, epsilon):
    return me.optimizers.Adam(learning_rate, beta_1, beta_2, epsilon)


@check("momentum", points=3)
class MomentumMatchesBuiltinSgd:
    """Six steps side by side with me.optimizers.SGD(momentum=...), for three settings (momentum 0 too)."""
    probe_helpers = (probe_trajectory,)

    def cases(rng):
        return trajectory_cases(rng, [(0.1, 0.9), (0.05, 0.5), (0.1, 0.0)])

    def probe(ns, args, starts, grads):
        return probe_trajectory(ns, "MomentumSGD", args, starts, grads)

    def judge(got, args, starts, grads):
        judge_trajectory(got, builtin_sgd, args, starts, grads)


@check("adam", points=3)
class AdamMatchesBuiltinAdam:
    """Six steps side by side with me.optimizers.Adam, for two settings."""
    probe_helpers = (probe_trajectory,)

    def cases(rng):
        return trajectory_cases(rng, [(0.1, 0.9, 0.999, 1e-7), (0.01, 0.5, 0.9, 1e-7)])

    def probe(ns, args, starts, grads):
        return probe_trajectory(ns, "MyAdam", args, starts, grads)

    def judge(got, args, starts, grads):
        judge_trajectory(got, builtin_adam, args, starts, grads)


@check("adam", points=1)
class AdamKeepsStatePerVariable:
    """Two variables of different shapes stepped together must not share m and v."""
    cases = [{"args": [0.1, 0.9, 0.999, 1e-7], "starts": [np.array([1.0, -2.0], np.float32), np.array([3.0], np.float32)],
              "grads": [[np.array([1.0, 2.0], np.float32), np.array([0.5], np.float32)],
                        [np.array([-1.0, 0.5], np.float32), np.array([2.0], np.float32)]]}]
    probe_helpers = (probe_trajectory,)

    def probe(ns, args, starts, grads):
        return probe_trajectory(ns, "MyAdam", args, starts, grads)

    def judge(got, args, starts, grads):
        judge_trajectory(got, builtin_adam, args, starts, grads)
