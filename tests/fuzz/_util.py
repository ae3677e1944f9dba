"""What the differential fuzz tests share: the kernel paths, random arrays with special values, ulps.

Each op runs on one of three paths, chosen by the ``path`` fixture:

* ``numpy``: every kernel hands its work to NumPy (the size thresholds set out of reach);
* ``numba``: every kernel that has a numba loop runs it, on all threads, at every size, even a
  scalar (``SMALL_SIZE`` and ``PARALLEL_SIZE`` set to 0);
* ``natural``: the real thresholds, with shapes drawn on both sides of ``SMALL_SIZE`` (4096).

so that each op is compared against NumPy (or a written-out reference) on both of its paths.
"""
import numpy as np
import pytest
from hypothesis import settings, strategies as st

from minieager.kernels.cpu import broadcast, elementwise, nn, reduce, threads

FLOATS = (np.float16, np.float32, np.float64)
INTS = (np.uint8, np.int32, np.int64)


def examples(n):
    """``n`` examples under the default ("ci") profile, the profile's count under a longer one."""
    return settings(max_examples=max(n, settings.default.max_examples) if settings.default.max_examples > 100
                    else n)


@pytest.fixture(params=["numpy", "numba", "natural"])
def path(request, monkeypatch):
    if request.param != "natural":
        size = 0 if request.param == "numba" else 1 << 62
        for module in (broadcast, elementwise, reduce, nn):
            monkeypatch.setattr(module, "SMALL_SIZE", size)
        for module in (broadcast, threads):
            monkeypatch.setattr(module, "PARALLEL_SIZE", size)
    return request.param


def shapes(path, min_dims=0, max_dims=3):
    """Shapes with 0-size axes and scalars, and on the natural path also ones above SMALL_SIZE."""
    small = st.lists(st.integers(0, 6), min_size=min_dims, max_size=max_dims).map(tuple)
    if path != "natural":
        return small
    large = st.lists(st.integers(1, 40), min_size=max(min_dims, 3), max_size=max(max_dims, 3)).map(tuple).filter(
        lambda s: 4096 <= np.prod(s) <= 40000)
    return st.one_of(small, large)


SPECIALS = {
    "f": [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-30, 1e30, 65504.0, 1.0, -1.0, 0.5],
    "i": "min max 0 -1 1".split(),
}


@st.composite
def arrays(draw, shape, dtype, positive=False, low=None, high=None):
    """A seeded random array of ``dtype`` and ``shape``, with a few special values put in
    (nan, +-inf, -0.0, subnormals, huge values; for ints the extremes, 0 and -1)."""
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    size = int(np.prod(shape))
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind == "f":
        scale = draw(st.sampled_from([1e-3, 1.0, 30.0, 1e4]))
        a = rng.standard_normal(size) * scale
        specials = [v for v in SPECIALS["f"] if not positive or v > 0]
    else:
        info = np.iinfo(dtype)
        lo, hi = info.min if low is None else low, info.max if high is None else high
        a = rng.integers(max(lo, -1000), min(hi, 1000) + 1, size)
        specials = [v for v in (info.min, info.max, 0, -1, 1) if lo <= v <= hi]
    if positive:
        a = np.abs(a)
    if size and specials and draw(st.booleans()):
        for _ in range(draw(st.integers(1, 4))):
            a[rng.integers(size)] = draw(st.sampled_from(specials))
    with np.errstate(over="ignore"):
        return a.astype(dtype).reshape(shape)


def ulps(got, want):
    """Elementwise distance in units of ``want``'s last place (0 where both are the same nan or inf)."""
    got, want = np.asarray(got, np.float64), np.asarray(want)
    with np.errstate(invalid="ignore"):
        spacing = np.spacing(np.abs(want).astype(want.dtype)).astype(np.float64)
    same = (got == want.astype(np.float64)) | (np.isnan(got) & np.isnan(want))
    with np.errstate(invalid="ignore"):
        return np.where(same, 0.0, np.abs(got - want.astype(np.float64)) / spacing)


def assert_same(got, want, max_ulps=0, what=""):
    """``got`` equals ``want`` in shape and dtype, elementwise within ``max_ulps`` (nan where nan)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
    if got.dtype.kind in "fc":
        assert np.array_equal(np.isnan(got), np.isnan(want)), (what, got, want)
        if max_ulps == 0:
            np.testing.assert_array_equal(got, want, err_msg=what)
        else:
            worst = ulps(got, want).max(initial=0)
            assert worst <= max_ulps, f"{what}: {worst} ulps (bound {max_ulps})\n{got}\n{want}"
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def tensor(a, strided):
    """A Tensor holding ``a``: made by me.constant, or (``strided``) wrapped around a non-contiguous
    view with the same values, as a kernel that returns a view would hand it to the next op."""
    import minieager as me
    from minieager.engine.tensor import wrap
    if not strided or a.ndim == 0 or a.size <= 1:
        return me.constant(a)
    holder = np.empty(a.shape[:-1] + (2 * a.shape[-1],), a.dtype)
    holder[..., ::2] = a
    view = holder[..., ::2]
    assert not view.flags.c_contiguous
    return wrap(view)


def broadcast_pair(draw, shape):
    """Two shapes that broadcast to ``shape``: axes set to 1 and leading axes dropped at random."""
    out = []
    for _ in range(2):
        s = [1 if draw(st.booleans()) and draw(st.booleans()) else n for n in shape]
        out.append(tuple(s[draw(st.integers(0, len(s))) if draw(st.booleans()) else 0:]))
    return out
