"""What the exercise tests use to fetch the learner's definitions and compare results.

A failed comparison raises ``CheckFailure`` with a message written for the learner (what was
computed, expected against got, shapes); the checker prints that message instead of a traceback.
"""
import numpy as np


class NotDone(Exception):
    """The learner has not written this part yet (a stub is still there)."""


class CheckFailure(AssertionError):
    """A learner's answer is wrong; the message says which case and how."""


def learner(ns, name):
    """The learner's definition of ``name`` from the notebook namespace ``ns``.

    Raises NotDone when it is missing or still the ``...`` stub the learner version starts with.
    """
    if name not in ns:
        raise NotDone(f"`{name}` is not defined yet: run the cell that defines it.")
    value = ns[name]
    if value is Ellipsis:
        raise NotDone(f"`{name}` is still `...`: replace it with your answer.")
    return value


def as_array(value):
    """A NumPy array from a Tensor, Variable, array or number (None stays None)."""
    if value is None:
        return None
    if hasattr(value, "numpy"):
        value = value.numpy()
    return np.asarray(value)


def _show(a):
    return np.array2string(a, precision=5, threshold=12, edgeitems=2, suppress_small=True)


def expect_close(got, expected, what, rtol=1e-5, atol=1e-6):
    """Fail unless ``got`` has ``expected``'s shape and values (within rtol/atol)."""
    exp = as_array(expected)
    if got is None:
        raise CheckFailure(f"{what}: expected an array of shape {exp.shape}, got None (did you forget `return`?)")
    g = as_array(got)
    if g.shape != exp.shape:
        raise CheckFailure(f"{what}: expected shape {exp.shape}, got shape {g.shape}.\n"
                           f"  expected {_show(exp)}\n  got      {_show(g)}")
    if not np.allclose(g.astype(np.float64), exp.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True):
        diff = np.abs(g.astype(np.float64) - exp.astype(np.float64))
        worst = np.unravel_index(np.nanargmax(diff), diff.shape) if diff.ndim else ()
        raise CheckFailure(f"{what}: values differ (largest difference {np.nanmax(diff):.3g} at index "
                           f"{tuple(int(i) for i in worst)}).\n  expected {_show(exp)}\n  got      {_show(g)}")


def expect_equal(got, expected, what):
    """Fail unless ``got == expected`` (plain Python values: shapes, dtypes, names)."""
    if got != expected:
        raise CheckFailure(f"{what}: expected {expected!r}, got {got!r}.")


def expect(condition, message):
    """Fail with ``message`` unless ``condition`` holds."""
    if not condition:
        raise CheckFailure(message)
