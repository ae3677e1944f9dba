"""Reductions over rows longer than the grid: each thread folds many elements (a grid-stride loop).

On a real GPU a row longer than BLOCKS_IN_FLIGHT * 256 elements (262144) sends each thread round
reduce_rows's loop several times; under the simulator so long a row would take minutes. With
BLOCKS_IN_FLIGHT = 1 a row of a few thousand takes the same path: one block of 256 threads.
"""
import numpy as np
import pytest

import minieager as me
from minieager.kernels.cuda import reduce

from .conftest import same

RNG = np.random.default_rng(11)


@pytest.mark.parametrize("op", ["reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_mean"])
@pytest.mark.parametrize("shape,axis", [((2100,), None), ((3, 1500), 1), ((1100, 2), 0)])
def test_long_rows_fold_many_values_per_thread_and_match_the_cpu(op, shape, axis, monkeypatch):
    monkeypatch.setattr(reduce, "BLOCKS_IN_FLIGHT", 1)
    x = RNG.uniform(0.999, 1.001, shape).astype(np.float32)    # products of thousands stay finite
    x.flat[RNG.integers(0, x.size)] = 1.5                      # one clear maximum
    expected = getattr(me, op)(me.constant(x), axis=axis)
    with me.device("/gpu:0"):
        result = getattr(me, op)(me.constant(x), axis=axis)
    same(result, expected, rtol=1e-5)


def test_a_nan_anywhere_in_a_long_row_wins_max_and_min(monkeypatch):
    monkeypatch.setattr(reduce, "BLOCKS_IN_FLIGHT", 1)
    x = RNG.standard_normal(2100).astype(np.float32)
    x[1537] = np.nan                                           # in a thread's seventh element
    with me.device("/gpu:0"):
        for op in (me.reduce_max, me.reduce_min):
            assert np.isnan(op(me.constant(x)).numpy())
