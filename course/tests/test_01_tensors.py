"""Lesson 01: broadcasting and dtypes. Each learner answer is compared with what minieager does."""
import re

import numpy as np
import pytest

import minieager as me
from course.expect import CheckFailure, NotDone, call, expect_equal, expect_no_calls_to, learner

SHAPE_PAIRS = [((2, 3), (3,)), ((4, 1), (1, 5)), ((), (2, 2)), ((3, 1, 2), (4, 1)),
               ((1,), (7,)), ((2, 0), (1,)), ((5, 4), (5, 4))]


def _pair_id(pair):
    return f"{pair[0]} and {pair[1]}"


@pytest.mark.broadcast_shape
@pytest.mark.parametrize("a, b", SHAPE_PAIRS, ids=[_pair_id(p) for p in SHAPE_PAIRS])
def test_broadcast_shape_matches_minieager(ns, a, b):
    broadcast_shape = learner(ns, "broadcast_shape")
    expected = (me.zeros(a) + me.zeros(b)).shape
    got = call(broadcast_shape, a, b, what=f"broadcast_shape({a}, {b})")
    expect_equal(tuple(got) if isinstance(got, (tuple, list)) else got, tuple(expected),
                 f"broadcast_shape({a}, {b})")


# (a, b, the two sizes that clash)
BAD_PAIRS = [((2, 3), (2,), (3, 2)), ((4, 2), (3, 1, 1, 3), (2, 3))]


@pytest.mark.broadcast_shape
@pytest.mark.parametrize("a, b, clash", BAD_PAIRS, ids=[_pair_id(p) for p in BAD_PAIRS])
def test_broadcast_shape_rejects_incompatible_shapes(ns, a, b, clash):
    broadcast_shape = learner(ns, "broadcast_shape")
    with pytest.raises(me.errors.InvalidArgumentError, match="incompatible for broadcasting"):   # so must you
        me.zeros(a) + me.zeros(b)
    try:
        got = broadcast_shape(a, b)
    except NotImplementedError:
        raise
    except ValueError as err:
        message = str(err)
        sizes = {int(n) for n in re.findall(r"\d+", message)}
        if not set(clash) <= sizes:
            raise CheckFailure(f"broadcast_shape({a}, {b}) raised ValueError({message!r}): right, these shapes "
                               f"do not broadcast, but the message should name the two sizes that clash.") from None
        return
    except Exception as err:
        raise CheckFailure(f"broadcast_shape({a}, {b}) raised {type(err).__name__}: {err}; shapes that do not "
                           f"broadcast should raise ValueError.") from None
    raise CheckFailure(f"broadcast_shape({a}, {b}): these shapes do not broadcast, so it should raise "
                       f"ValueError, but it returned {got!r}.")


@pytest.mark.broadcast_shape
def test_broadcast_shape_is_written_without_numpy(ns):
    """The exercise says: with a loop, without calling NumPy (or minieager, which would do it for you)."""
    broadcast_shape = learner(ns, "broadcast_shape")
    expect_no_calls_to(broadcast_shape, {"numpy": "NumPy", "minieager": "minieager"}, "broadcast_shape")


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
        got = call(broadcast_shape, a, b, what=f"broadcast_shape({a}, {b})")
        expect_equal(tuple(got) if isinstance(got, (tuple, list)) else got, expected, f"broadcast_shape({a}, {b})")


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


def _what_is_wrong(expression, got, actual):
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


@pytest.mark.dtype_predictions
@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_dtype_prediction(ns, expression):
    predictions = learner(ns, "predictions")
    if expression not in predictions:
        raise NotDone(f"`predictions` has no entry for {expression!r} yet.")
    got = predictions[expression]
    if got is Ellipsis:
        raise NotDone(f"The prediction for {expression!r} is still `...`.")
    if isinstance(got, (tuple, list)) and len(got) == 2 and isinstance(got[0], (tuple, list)):
        got = (tuple(got[0]), str(got[1]))
    actual = _actual(expression)
    if got != actual:
        raise CheckFailure(_what_is_wrong(expression, got, actual))
