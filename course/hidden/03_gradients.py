"""Lesson 03's hidden checks: only the grader runs them."""
from course.spec import check, visible_module

lesson = visible_module("03_gradients")


@check("sigmoid_vjp", points=2)
class SigmoidVjpOtherShapes:
    """Shapes of rank 3 and 4 and wide inputs, drawn fresh for every submission."""
    probe_helpers = (lesson.probe_sigmoid_vjp,)

    def cases(rng):
        cases = lesson.sigmoid_cases(rng, [(2, 3, 4), (1, 2, 1, 3), (7,)])
        for case in cases:
            case["x"] = case["x"] * 4
        return cases

    def probe(ns, x, dy):
        return probe_sigmoid_vjp(ns, x, dy)

    def judge(got, x, dy):
        lesson.judge_sigmoid_vjp(got, x, dy)


@check("softmax_xent_vjp", points=2)
class SoftmaxVjpRandomBatches:
    """Batches of random size, classes and scale."""
    probe_helpers = (lesson.probe_softmax_vjp,)

    def cases(rng):
        sizes = [(int(rng.integers(1, 9)), int(rng.integers(2, 12))) for _ in range(3)]
        return lesson.softmax_cases(rng, sizes, scale=float(rng.uniform(0.5, 20)))

    def probe(ns, logits, labels, dy):
        return probe_softmax_vjp(ns, logits, labels, dy)

    def judge(got, logits, labels, dy):
        lesson.judge_softmax_vjp(got, logits, labels, dy)


@check("scalar_tape", points=2)
class ExpressionsAtRandomPoints:
    """The five expressions at points drawn fresh for every submission."""
    probe_helpers = (lesson.expressions, lesson.probe_expression)

    def cases(rng):
        return [{"expression": e, "point": [float(v) for v in rng.uniform(-1.5, 1.5, 3)]} for e in lesson.expressions()]

    def probe(ns, expression, point):
        return probe_expression(ns, expression, point)

    def judge(got, expression, point):
        lesson.judge_expression(got, expression, point)
