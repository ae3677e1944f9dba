"""Lesson 10's hidden checks: only the grader runs them, on inputs drawn fresh for every submission."""
import numpy as np

from course.spec import check, visible_module

lesson = visible_module("10_gradients_by_hand")


@check("sum_to_shape", points=2)
class SumToShapeRandomShapes:
    """Random shapes of rank 0-5 with sizes 1-4, each against a shape that broadcasts to it."""
    probe_helpers = (lesson.probe_sum_to_shape,)

    def cases(rng):
        return lesson.sum_back_cases(rng, lesson.random_sum_back_pairs(rng, 20, max_rank=5, max_size=4))

    def probe(ns, dy, shape):
        return probe_sum_to_shape(ns, dy, shape)

    def judge(got, dy, shape):
        lesson.judge_sum_to_shape(got, dy, shape)


@check("sum_to_shape", points=1)
class AddVjpRandomShapes:
    """my_add's VJP on random pairs of shapes that broadcast."""
    probe_helpers = (lesson.probe_add_vjp,)

    def cases(rng):
        pairs = []
        for big, shape in lesson.random_sum_back_pairs(rng, 6, max_rank=4, max_size=3):
            pairs.append((big, shape) if rng.random() < 0.5 else (shape, big))
        return lesson.add_cases(rng, pairs)

    def probe(ns, a, b, dy):
        return probe_add_vjp(ns, a, b, dy)

    def judge(got, a, b, dy):
        lesson.judge_add_vjp(got, a, b, dy)


@check("matmul_vjp", points=2)
class MatmulVjpRandomShapes:
    """Products of random sizes 1-6."""
    probe_helpers = (lesson.probe_matmul_vjp,)

    def cases(rng):
        return lesson.matmul_cases(rng, [tuple(int(n) for n in rng.integers(1, 7, 3)) for _ in range(5)])

    def probe(ns, a, b, dy):
        return probe_matmul_vjp(ns, a, b, dy)

    def judge(got, a, b, dy):
        lesson.judge_matmul_vjp(got, a, b, dy)


@check("tape_api", points=1)
class GradientOfAConstantAtRandomPoints:
    """The watched constant's gradient at points drawn fresh."""
    probe_helpers = (lesson.value_of,)

    def cases(rng):
        return [{"at": float(v)} for v in rng.uniform(-5, 5, 3)]

    def probe(ns, at):
        return value_of(learner(ns, "gradient_of_a_constant")(me.constant(at)))

    def judge(got, at):
        lesson.GradientOfAConstant.judge(got, at)


@check("own_op_debugger", points=2)
class SoftsignVjpRandomInputs:
    """softsign_vjp on wide inputs of rank 1-3, drawn fresh."""
    probe_helpers = (lesson.value_of, lesson.probe_softsign_vjp)

    def cases(rng):
        shapes = [tuple(int(n) for n in rng.integers(1, 5, int(rng.integers(1, 4)))) for _ in range(3)]
        return [{"x": rng.normal(size=s) * float(rng.uniform(0.1, 50)), "dy": rng.normal(size=s)} for s in shapes]

    def probe(ns, x, dy):
        return probe_softsign_vjp(ns, x, dy)

    def judge(got, x, dy):
        lesson.judge_softsign_vjp(got, x, dy)
