"""Lesson 02: a while loop over tensor values."""
import pytest

import minieager as me
from course.expect import expect, expect_equal, learner


def _reference(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


@pytest.mark.collatz_steps
@pytest.mark.parametrize("n", [1, 2, 6, 7, 27, 97])
def test_collatz_steps(ns, n):
    collatz_steps = learner(ns, "collatz_steps")
    got = collatz_steps(me.constant(n))
    if isinstance(got, me.Tensor):
        got = got.numpy().item()
    expect(isinstance(got, int), f"collatz_steps should return a Python int, got {type(got).__name__}.")
    expect_equal(got, _reference(n), f"collatz_steps(me.constant({n}))")
