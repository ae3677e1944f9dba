"""Lesson 01: broadcasting and dtypes. Each learner answer is compared with what minieager does."""
import numpy as np
import pytest

import minieager as me
from course.expect import CheckFailure, NotDone, expect_equal, learner

SHAPE_PAIRS = [((2, 3), (3,)), ((4, 1), (1, 5)), ((), (2, 2)), ((3, 1, 2), (4, 1)),
               ((1,), (7,)), ((2, 0), (1,)), ((5, 4), (5, 4))]
BAD_PAIRS = [((2, 3), (2,)), ((4, 2), (3, 1, 1, 3))]


@pytest.mark.broadcast_shape
@pytest.mark.parametrize("a, b", SHAPE_PAIRS)
def test_broadcast_shape_matches_minieager(ns, a, b):
    broadcast_shape = learner(ns, "broadcast_shape")
    expected = (me.zeros(a) + me.zeros(b)).shape
    got = broadcast_shape(a, b)
    expect_equal(tuple(got) if isinstance(got, (tuple, list)) else got, tuple(expected),
                 f"broadcast_shape({a}, {b})")


@pytest.mark.broadcast_shape
@pytest.mark.parametrize("a, b", BAD_PAIRS)
def test_broadcast_shape_rejects_incompatible_shapes(ns, a, b):
    broadcast_shape = learner(ns, "broadcast_shape")
    with pytest.raises(me.errors.InvalidArgumentError, match="incompatible for broadcasting"):   # so must you
        me.zeros(a) + me.zeros(b)
    try:
        got = broadcast_shape(a, b)
    except ValueError:
        return
    raise CheckFailure(f"broadcast_shape({a}, {b}): these shapes do not broadcast, so it should raise "
                       f"ValueError, but it returned {got!r}.")


@pytest.mark.broadcast_shape
def test_broadcast_shape_random_pairs(ns):
    """Random shapes of rank 0-4 whose sizes are 1 or one shared size, compared with NumPy's rule."""
    broadcast_shape = learner(ns, "broadcast_shape")
    rng = np.random.default_rng(0)
    for _ in range(50):
        a = tuple(int(rng.choice([1, s])) for s in rng.integers(1, 4, rng.integers(0, 5)))
        b = tuple(int(rng.choice([1, s])) for s in rng.integers(1, 4, rng.integers(0, 5)))
        try:
            expected = np.broadcast_shapes(a, b)
        except ValueError:
            continue
        got = broadcast_shape(a, b)
        expect_equal(tuple(got), expected, f"broadcast_shape({a}, {b})")


# Each expression is evaluated for real; "error" means minieager raises an error for it.
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


@pytest.mark.dtype_predictions
@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_dtype_prediction(ns, expression):
    predictions = learner(ns, "predictions")
    if expression not in predictions:
        raise NotDone(f"`predictions` has no entry for {expression!r} yet.")
    got = predictions[expression]
    if got is Ellipsis:
        raise NotDone(f"The prediction for {expression!r} is still `...`.")
    if isinstance(got, tuple) and len(got) == 2:
        got = (tuple(got[0]), str(got[1]))
    expect_equal(got, _actual(expression), f"the shape and dtype of {expression}")
