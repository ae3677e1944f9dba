"""Lesson 01's visible checks: broadcasting and dtypes, each answer compared with what minieager does.

The format is described in course/spec.py; the hidden checks are in course/hidden/01_tensors.py.
"""
import re

import numpy as np

import minieager as me
from course.expect import expect, expect_equal
from course.spec import check


def _broadcast(a, b):
    """minieager's own answer: the shape of zeros(a) + zeros(b), or None when it refuses."""
    try:
        return tuple((me.zeros(tuple(a)) + me.zeros(tuple(b))).shape)
    except me.errors.InvalidArgumentError:
        return None


def _as_shape(got):
    return tuple(got) if isinstance(got, list) else got


def random_shape_pairs(rng, count, max_rank, max_size):
    """Pairs of shapes whose sizes are 1 or a size shared by both, so that most of them broadcast."""
    pairs = []
    for _ in range(count):
        sizes = rng.integers(1, max_size + 1, max_rank)
        a = [int(rng.choice([1, s])) for s in sizes[max_rank - rng.integers(0, max_rank + 1):]]
        b = [int(rng.choice([1, s])) for s in sizes[max_rank - rng.integers(0, max_rank + 1):]]
        pairs.append({"a": a, "b": b})
    return pairs


def _clash(a, b):
    """The first pair of sizes, from the right, that neither match nor contain a 1."""
    for m, n in zip(reversed(a), reversed(b)):
        if m != n and 1 not in (m, n):
            return m, n
    return None


def judge_broadcast(got, a, b):
    """Shared by the visible and hidden checks: a shape where minieager gives one, ValueError where it refuses
    (naming the two sizes that clash)."""
    a, b = tuple(a), tuple(b)
    expected = _broadcast(a, b)
    if expected is None:
        expect(got.get("raised") == "ValueError",
               f"broadcast_shape({a}, {b}): these shapes do not broadcast, so it should raise ValueError, "
               f"but it {'returned ' + repr(_as_shape(got.get('returned'))) if 'returned' in got else 'raised ' + str(got.get('raised'))}.")
        sizes = {int(n) for n in re.findall(r"\d+", str(got.get("message", "")))}
        expect(set(_clash(a, b)) <= sizes,
               f"broadcast_shape({a}, {b}) raised ValueError({got.get('message')!r}): right, these shapes do not "
               f"broadcast, but the message should name the two sizes that clash.")
    else:
        expect("returned" in got, f"broadcast_shape({a}, {b}) raised {got.get('raised')}, but these shapes broadcast.")
        expect_equal(_as_shape(got["returned"]), expected, f"broadcast_shape({a}, {b})")


def probe_broadcast(ns, a, b):
    """Call the learner's broadcast_shape; say what it returned or which exception it raised."""
    broadcast_shape = learner(ns, "broadcast_shape")
    try:
        return {"returned": broadcast_shape(tuple(a), tuple(b))}
    except ValueError as err:
        return {"raised": "ValueError", "message": str(err)[:300]}


@check("broadcast_shape", points=2)
class ShapesFromTheLesson:
    """The pairs of shapes the lesson shows, including a scalar and an empty dimension."""
    cases = [{"a": list(a), "b": list(b)} for a, b in
             [((2, 3), (3,)), ((4, 1), (1, 5)), ((), (2, 2)), ((3, 1, 2), (4, 1)), ((1,), (7,)),
              ((2, 0), (1,)), ((5, 4), (5, 4))]]
    probe_helpers = (probe_broadcast,)

    def probe(ns, a, b):
        return probe_broadcast(ns, a, b)

    def judge(got, a, b):
        judge_broadcast(got, a, b)


@check("broadcast_shape", points=1)
class RejectsShapesThatDoNotBroadcast:
    """Shapes that do not broadcast raise ValueError, as minieager raises its own error."""
    cases = [{"a": [2, 3], "b": [2]}, {"a": [4, 2], "b": [3, 1, 1, 3]}]
    probe_helpers = (probe_broadcast,)

    def probe(ns, a, b):
        return probe_broadcast(ns, a, b)

    def judge(got, a, b):
        judge_broadcast(got, a, b)


@check("broadcast_shape", points=1)
class WrittenWithoutNumpy:
    """The exercise says: with a loop, without calling NumPy (or minieager, which would do it for you)."""
    cases = [{}]

    def probe(ns):
        broadcast_shape = learner(ns, "broadcast_shape")
        broadcast_shape((1,), (1,))         # a stub raises NotImplementedError here: "not done"
        return modules_used(broadcast_shape)

    def judge(got):
        banned = {"numpy": "NumPy", "minieager": "minieager"}
        for name, root in got:
            expect(root not in banned, f"broadcast_shape: your code uses `{name}` ({banned.get(root)}); the "
                                       f"exercise asks you to write it without NumPy or minieager.")


@check("broadcast_shape", points=2)
class RandomPairs:
    """Random shapes of rank 0-4 with sizes 1-3, against minieager's rule."""
    probe_helpers = (probe_broadcast,)

    def cases(rng):
        return random_shape_pairs(rng, 20, max_rank=4, max_size=3)

    def probe(ns, a, b):
        return probe_broadcast(ns, a, b)

    def judge(got, a, b):
        judge_broadcast(got, a, b)


# Each expression is evaluated for real by the judge; "error" means minieager raises an error for it.
EXPRESSIONS = [
    "me.constant([[1, 2]]) + me.constant([[1], [2]])",
    "me.constant([1.0, 2.0]) * 3",
    "me.constant(np.zeros((2, 1))) + 1.5",
    "me.constant([1, 2]) / 2",
    "me.reduce_sum(me.ones((3, 4)), axis=0)",
    "me.constant([[1.0], [2.0]]) * me.constant([10.0, 20.0, 30.0])",
    "me.constant([1, 2, 3]) < 2",
    "me.ones((2, 3)) + me.ones((3, 2))",
]


def _actual(expression):
    try:
        t = eval(expression, {"me": me, "np": np})
    except Exception:
        return "error"
    return (tuple(t.shape), t.dtype.name)


@check("dtype_predictions", points=4)
class Predictions:
    """Each prediction in `predictions` against what minieager computes (the answers are never shown)."""
    cases = [{"expression": e} for e in EXPRESSIONS]

    def probe(ns, expression):
        predictions = learner(ns, "predictions")
        if expression not in predictions:
            raise NotDone(f"`predictions` has no entry for {expression!r} yet.")
        if predictions[expression] is Ellipsis:
            raise NotDone(f"The prediction for {expression!r} is still `...`.")
        return predictions[expression]

    def judge(got, expression):
        if isinstance(got, list) and len(got) == 2 and isinstance(got[0], list):
            got = (tuple(got[0]), str(got[1]))
        actual = _actual(expression)
        expect(got == actual, what_is_wrong(expression, got, actual))


def what_is_wrong(expression, got, actual):
    """Which part of a prediction is wrong, without saying what is right: this is a prediction exercise."""
    if actual == "error":
        return (f"your prediction {got!r} for `{expression}` is not what minieager gives. Do these shapes "
                f"broadcast at all? Line them up from the right.")
    if got == "error":
        return f"you predicted an error for `{expression}`, but minieager computes it. Line the shapes up again."
    if not (isinstance(got, tuple) and len(got) == 2):
        return (f"your prediction for `{expression}` is {got!r}: write it as (shape, \"dtype name\"), "
                f"e.g. ((2, 2), \"float32\"), or \"error\".")
    wrong = [part for part, ok in (("shape", got[0] == actual[0]), ("dtype", got[1] == actual[1])) if not ok]
    right = [part for part in ("shape", "dtype") if part not in wrong]
    return (f"your prediction {got!r} for `{expression}`: the {' and the '.join(wrong)} "
            f"{'is' if len(wrong) == 1 else 'are'} not what minieager gives"
            + (f" (the {right[0]} is right)." if right else "."))
