"""Ops that a differential fuzz against TensorFlow found wrong (issue 28); each test names TF's answer."""
import tracemalloc

import numpy as np
import pytest

import minieager as me
from minieager.errors import DTypeError, InvalidArgumentError, ResourceExhaustedError
from minieager.testing import check_gradients


def test_gather_nd_with_empty_indices_picks_all_of_params_per_index():
    # TF: gather_nd(v, zeros((2, 0))) has shape indices.shape[:-1] + v.shape = (2, 3), every row v.
    v = np.array([1.0, 2.0, 3.0])
    out = me.gather_nd(v, np.zeros((2, 0), np.int32))
    assert out.shape == (2, 3)
    np.testing.assert_array_equal(out.numpy(), [v, v])
    m = np.arange(6.0).reshape(2, 3)
    assert me.gather_nd(m, np.zeros((4, 0), np.int32)).shape == (4, 2, 3)       # TF: (4, 2, 3)


def test_gather_nd_with_empty_indices_has_the_summed_gradient():
    # Each output row is v itself, so d(sum(w * out))/dv = w[0] + w[1] (TF's own gradient raises here).
    v = me.constant([1.0, 2.0, 3.0], me.float64)
    w = me.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], me.float64)
    with me.GradientTape() as tape:
        tape.watch(v)
        y = me.reduce_sum(me.gather_nd(v, np.zeros((2, 0), np.int32)) * w)
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [5.0, 7.0, 9.0])
    check_gradients(lambda t: me.gather_nd(t, np.zeros((2, 0), np.int32)), np.array([[1.0, -2.0], [0.5, 3.0]]))


def test_scatter_nd_with_index_depth_zero_is_a_named_error():
    # TF: InvalidArgumentError "Indices and updates specified for empty output shape"; not NumPy's error.
    with pytest.raises(InvalidArgumentError, match=r"scatter_nd: each index needs at least one coordinate.*\(2, 0\)"):
        me.scatter_nd(np.zeros((2, 0), np.int32), np.ones((2, 3), np.float32), [3])


def test_embedding_lookup_errors_name_embedding_lookup():
    params = me.ones((3, 2))
    with pytest.raises(InvalidArgumentError, match=r"^embedding_lookup: index 5 is out of range .* size 3"):
        me.nn.embedding_lookup(params, [5])
    with pytest.raises(DTypeError, match=r"^embedding_lookup: indices must be integers, got float32"):
        me.nn.embedding_lookup(params, [0.5])
    np.testing.assert_array_equal(me.nn.embedding_lookup(params, [2, 0]).numpy(), np.ones((2, 2)))


def test_einsum_without_an_equation_or_without_tensors_is_a_named_error():
    with pytest.raises(TypeError, match=r"einsum: the first argument is the equation.*got int 5"):
        me.einsum(5, me.ones((3,)))
    with pytest.raises(InvalidArgumentError, match=r"einsum: the equation 'i->' needs at least one tensor"):
        me.einsum("i->")


@pytest.mark.parametrize("make, name", [
    (lambda: me.zeros((2 ** 40,)), "zeros"),
    (lambda: me.fill([2 ** 40], 1.0), "fill"),
    (lambda: me.one_hot([1], 2 ** 40), "one_hot"),
    (lambda: me.tile(me.ones((2,)), [2 ** 39]), "tile"),
    (lambda: me.broadcast_to(me.ones(()), [2 ** 40]), "broadcast_to"),
    (lambda: me.random.normal([2 ** 40]), "random.normal"),
])
def test_a_size_too_large_for_memory_names_the_op(make, name):
    # TF: ResourceExhaustedError (OOM); never NumPy's bare MemoryError without the op's name.
    with pytest.raises(ResourceExhaustedError, match=rf"^{name}: not enough memory for the result .*2\*\*40"):
        make()
    with pytest.raises(MemoryError):      # still a MemoryError for code that catches that
        make()


def test_cumprod_of_a_long_axis_runs_in_linear_memory_with_its_gradient():
    n = 40_000
    x = me.Variable(me.ones((n,)))
    with me.GradientTape() as tape:          # compile the kernels first: compiling allocates too
        tape.gradient(me.reduce_sum(me.math.cumprod(x[:3])), x)
    tracemalloc.start()
    try:
        with me.GradientTape() as tape:
            y = me.reduce_sum(me.math.cumprod(x))
        g = tape.gradient(y, x)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * n * 4, peak          # a few arrays of n floats; the n*n window method needed 6 GiB
    np.testing.assert_array_equal(g.numpy()[[0, 1, -1]], [n, n - 1, 1])    # d sum(cumprod)/dx_k = n - k at ones


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumprod_second_derivative_is_exact_at_zeros(exclusive, reverse):
    x = np.array([[2.0, 0.0, 3.0, 0.5], [1.0, -2.0, 0.0, 4.0]])

    def gradient(t):
        with me.GradientTape() as tape:
            tape.watch(t)
            y = me.reduce_sum(me.math.cumprod(t, 1, exclusive, reverse) ** 2)
        return tape.gradient(y, t)

    check_gradients(gradient, x)


def test_int32_power_wraps_the_same_for_small_and_large_tensors():
    # TF: 3 ** (2**31 - 1) in int32 is -1431655765 for a scalar and for every element of a large tensor;
    # the small-tensor (NumPy) and large-tensor (numba) paths must agree.
    big = 100_000
    for base, want in ((3, -1431655765), (-3, 1431655765), (2, 0)):
        assert (me.constant(base) ** (2 ** 31 - 1)).numpy() == want
        large = me.fill([big], base) ** me.fill([big], 2 ** 31 - 1)
        assert (large.numpy() == want).all()
