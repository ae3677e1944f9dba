"""Shared helpers for the engine tests: compare tensors with NumPy, and keep hypothesis small.

numba compiles each kernel once per signature, so hypothesis examples are kept few and the
dtypes a test draws from are kept to a handful.
"""
import numpy as np
from hypothesis import HealthCheck, settings

import minieager as me

# Used as a decorator on each hypothesis test (not a global profile: other suites choose their own).
few_examples = settings(max_examples=12, deadline=None,
                        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

# Tolerances by result dtype, for comparisons against NumPy computed in float64.
TOLERANCE = {
    "float16": dict(rtol=2e-3, atol=2e-3),
    "float32": dict(rtol=1e-5, atol=1e-6),
    "float64": dict(rtol=1e-12, atol=1e-12),
}


def assert_tensor(t, expected, dtype=None, **tolerance):
    """``t`` is a Tensor with ``expected``'s values and shape (and ``dtype``, when given)."""
    assert isinstance(t, me.Tensor), f"expected a Tensor, got {type(t).__name__}"
    expected = np.asarray(expected)
    if dtype is not None:
        assert t.dtype == me.as_dtype(dtype), f"dtype {t.dtype} != {me.as_dtype(dtype)}"
    assert t.shape == expected.shape, f"shape {t.shape} != {expected.shape}"
    got = t.numpy()
    if got.dtype.kind == "f":
        tol = {**TOLERANCE[got.dtype.name], **tolerance}
        np.testing.assert_allclose(got, expected.astype(got.dtype), equal_nan=True, **tol)
    else:
        np.testing.assert_array_equal(got, expected)


def random_array(shape, dtype="float32", low=-3.0, high=3.0, seed=0):
    """A reproducible array of ``shape`` with values in [low, high) (integers for int dtypes)."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(int(low), int(high) + 1, size=shape).astype(dtype)
    return rng.uniform(low, high, size=shape).astype(dtype)
