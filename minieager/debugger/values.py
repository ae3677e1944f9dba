"""Value summaries: a tensor's value as small, JSON-safe data the front-end can draw.

A tensor of at most ``FULL_LIMIT`` elements is sent whole; a bigger one as min/max/mean (over
its finite elements) plus, for a matrix, a heatmap of at most 16x16 block means. JSON has no
NaN or Infinity, so non-finite numbers travel as the strings "nan", "inf" and "-inf".
"""
import math

import numpy as np

FULL_LIMIT = 16
HEATMAP_SIZE = 16


def number(v):
    """A JSON-safe Python scalar; float32 values keep 7 significant digits (all they have)."""
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def _nested(array):
    if array.ndim == 0:
        return number(array[()])
    return [_nested(row) for row in array]


def _rounded(array):
    # float32 -> float64 prints 0.1 as 0.10000000149011612; 7 digits are what float32 holds.
    if array.dtype.kind == "f" and array.dtype.itemsize < 8:
        return np.array([float(f"{v:.7g}") for v in array.ravel().tolist()], dtype=np.float64).reshape(array.shape)
    return array


def _heatmap(matrix):
    """Block means of a 2-D array, at most HEATMAP_SIZE x HEATMAP_SIZE (NaN blocks stay NaN)."""
    rows = np.array_split(np.arange(matrix.shape[0]), min(HEATMAP_SIZE, matrix.shape[0]))
    cols = np.array_split(np.arange(matrix.shape[1]), min(HEATMAP_SIZE, matrix.shape[1]))
    row_starts = [r[0] for r in rows]
    col_starts = [c[0] for c in cols]
    sums = np.add.reduceat(np.add.reduceat(matrix, row_starts, axis=0), col_starts, axis=1)
    counts = np.outer([len(r) for r in rows], [len(c) for c in cols])
    return [[number(v) for v in row] for row in sums / counts]


def summarize(tensor):
    """``{"shape", "dtype", "full", ...}`` for a Tensor (or array-like); None stays None."""
    if tensor is None:
        return None
    array = np.asarray(tensor)        # a read-only view: huge tensors are never copied to lists
    dtype = getattr(getattr(tensor, "dtype", None), "name", None) or array.dtype.name
    out = {"shape": list(array.shape), "dtype": dtype}
    if array.size <= FULL_LIMIT:
        out.update(full=True, data=_nested(_rounded(array)))
        return out
    values = array.astype(np.float64, copy=False) if array.dtype.kind in "fiub" else None
    out["full"] = False
    if values is None:
        return out
    finite = np.isfinite(values)
    all_finite = bool(finite.all())
    picked = values if all_finite else values[finite]
    if picked.size:
        out.update(min=number(picked.min()), max=number(picked.max()), mean=number(picked.mean()))
    else:
        out.update(min=None, max=None, mean=None)
    if not all_finite:
        out["nonfinite"] = int(values.size - picked.size)
    if array.ndim == 2:
        out["heatmap"] = _heatmap(values)
    return out
