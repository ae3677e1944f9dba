"""Initializer statistics follow their formulas, and set_seed makes them reproducible."""
import numpy as np
import pytest

import minieager as me

SHAPE = (200, 300)          # fan_in 200, fan_out 300
CONV = (3, 3, 20, 30)       # fan_in 180, fan_out 270


@pytest.mark.parametrize("name, shape, std", [
    ("glorot_uniform", SHAPE, np.sqrt(2 / 500)),
    ("glorot_normal", SHAPE, np.sqrt(2 / 500)),
    ("he_normal", SHAPE, np.sqrt(2 / 200)),
    ("he_uniform", SHAPE, np.sqrt(2 / 200)),
    ("he_normal", CONV, np.sqrt(2 / 180)),
    ("random_normal", SHAPE, 0.05),
])
def test_statistics(name, shape, std):
    values = me.initializers.get(name)(shape).numpy()
    assert values.shape == shape and values.dtype == np.float32
    assert abs(values.mean()) < 5 * std / np.sqrt(values.size)     # five standard errors
    assert abs(values.std() / std - 1) < 0.05


def test_uniform_limits():
    values = me.initializers.glorot_uniform()(SHAPE).numpy()
    assert np.abs(values).max() <= np.sqrt(6 / 500)


def test_constants():
    assert me.initializers.zeros()((2,)).numpy().tolist() == [0, 0]
    assert me.initializers.ones()((2,), me.float64).dtype == me.float64
    assert me.initializers.constant(3.5)((2, 2)).numpy().tolist() == [[3.5, 3.5]] * 2


def test_reproducible_with_set_seed():
    me.random.set_seed(7)
    a = me.layers.Dense(4)(np.ones((1, 3), np.float32))
    me.random.set_seed(7)
    b = me.layers.Dense(4)(np.ones((1, 3), np.float32))
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_unknown_name():
    with pytest.raises(ValueError, match="Unknown initializer 'xavier'"):
        me.initializers.get("xavier")
