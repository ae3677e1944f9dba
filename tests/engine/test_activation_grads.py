"""The fused gradient ops of relu, tanh and sigmoid against their NumPy formulas."""
import numpy as np
import pytest

import minieager as me
from minieager.ops.elementwise import relu_grad, sigmoid_grad, tanh_grad

FORMULAS = {
    "relu_grad": (relu_grad, lambda dy, x: np.where(x > 0, dy, 0)),
    "tanh_grad": (tanh_grad, lambda dy, y: dy * (1 - y * y)),
    "sigmoid_grad": (sigmoid_grad, lambda dy, y: dy * y * (1 - y)),
}


@pytest.mark.parametrize("name", sorted(FORMULAS))
@pytest.mark.parametrize("size", [7, 100_003])      # the NumPy path for tiny arrays, the numba loop above
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matches_the_formula(name, size, dtype):
    fn, formula = FORMULAS[name]
    rng = np.random.default_rng(size)
    dy, y = rng.standard_normal(size).astype(dtype), rng.uniform(-1, 1, size).astype(dtype)
    got = fn(me.constant(dy), me.constant(y))
    assert got.dtype == me.as_dtype(dtype)
    np.testing.assert_allclose(got.numpy(), formula(dy, y), rtol=1e-6 if dtype == np.float32 else 1e-15)


@pytest.mark.parametrize("size", [5, 100_000])
def test_relu_grad_is_zero_at_zero_and_at_nan(size):
    x = np.zeros(size, np.float32)
    x[0], x[1], x[2] = np.nan, 1.0, -1.0
    got = relu_grad(me.ones([size]), me.constant(x)).numpy()
    assert got[0] == 0 and got[1] == 1 and got[2] == 0 and got[3:].sum() == 0


def test_relu_tanh_sigmoid_backward_passes_use_one_op_each():
    x = me.constant(np.linspace(-2, 2, 12).reshape(3, 4))
    for activation, fused in [(me.nn.relu, "relu_grad"), (me.tanh, "tanh_grad"), (me.sigmoid, "sigmoid_grad")]:
        with me.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = activation(x)
            tape.gradient(y, x)      # recorded on the persistent tape: the backward pass's ops
        assert [r.op_name for r in tape.records][1:] == [fused]
