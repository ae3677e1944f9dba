"""Split-K: a product with a small output and a long k is cut along k, and the parts summed.

The guide CNN's filter gradient, (144, 147456) @ (147456, 16), has three output tiles; split-K
gives the GPU hundreds of blocks. Here K_PER_SPLIT is made small so that short products, which
the simulator can run, are split too, with a part that ends inside a tile.
"""
import numpy as np
import pytest

import minieager as me
from minieager.kernels.cuda import matmul

from .conftest import same

RNG = np.random.default_rng(5)


def test_small_outputs_with_long_k_are_split_and_big_outputs_are_not():
    assert matmul.split_k(blocks=3, k=147456) == matmul.BLOCKS_IN_FLIGHT // 3
    assert matmul.split_k(blocks=1, k=300) == 1                # too short to be worth a second launch
    assert matmul.split_k(blocks=4096, k=10 ** 6) == 1         # enough blocks already


@pytest.mark.parametrize("kind", ["register_blocked", "tiled"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape_a,shape_b", [((3, 70), (70, 5)), ((2, 3, 45), (2, 45, 20)), ((1, 17), (17, 1))])
def test_a_split_product_equals_the_cpus(kind, dtype, shape_a, shape_b, monkeypatch):
    monkeypatch.setattr(matmul, "K_PER_SPLIT", 8)
    a, b = (RNG.standard_normal(s).astype(dtype) for s in (shape_a, shape_b))
    assert matmul.split_k(1, shape_a[-1]) > 1                  # the path under test is taken
    with me.device("/gpu:0"):
        ga, gb = me.constant(a), me.constant(b)
    out = matmul.matmul_arrays(ga._value, gb._value, kind=kind)
    np.testing.assert_allclose(out.copy_to_host(), a @ b, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-5)


def test_a_convolutions_filter_gradient_is_split_and_matches_the_cpu(monkeypatch):
    monkeypatch.setattr(matmul, "K_PER_SPLIT", 16)
    x = RNG.standard_normal((2, 7, 7, 3)).astype(np.float32)
    w = RNG.standard_normal((3, 3, 3, 4)).astype(np.float32)
    results = {}
    for device in ("/cpu:0", "/gpu:0"):
        with me.device(device):
            xv, wv = me.constant(x), me.Variable(w)
            with me.GradientTape() as tape:
                loss = me.reduce_sum(me.nn.conv2d(xv, wv, 1, "VALID") ** 2)
            results[device] = tape.gradient(loss, wv)
    same(results["/gpu:0"], results["/cpu:0"], rtol=1e-4, atol=1e-4)
