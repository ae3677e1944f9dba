"""Ops a TF user reaches for early (issue 20): values against NumPy, gradients against finite differences
in float64 (me.testing.check_gradients), errors that name the problem. Each test names the TF behaviour."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import minieager as me
from minieager.testing import check_gradients

RNG = np.random.default_rng(20)


# ---- gather_nd / scatter_nd / embedding_lookup ----------------------------------------------------------
def test_gather_nd_picks_elements_and_slices_as_in_tf():
    # TF: tf.gather_nd(params, [[0, 1], [1, 0]]) picks elements; indices with fewer coordinates pick slices.
    params = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(me.gather_nd(params, [[0, 1, 2], [1, 0, 3]]).numpy(), [6.0, 15.0])
    np.testing.assert_array_equal(me.gather_nd(params, [[1, 2]]).numpy(), params[[1], [2]])
    np.testing.assert_array_equal(me.gather_nd(params, [[[1], [0]]]).numpy(), params[[[1, 0]]])


def test_gather_nd_and_scatter_nd_gradients_match_finite_differences():
    params = RNG.standard_normal((3, 4))
    indices = me.constant([[0, 1], [2, 3], [0, 1]])          # a repeat: its gradient adds up
    check_gradients(lambda p: me.gather_nd(p, indices) * me.gather_nd(p, indices), params)
    check_gradients(lambda u: me.scatter_nd(indices, u * u, [3, 4]), RNG.standard_normal(3))
    rows = me.constant([[2], [0]])
    check_gradients(lambda p: me.gather_nd(p, rows), params)


def test_scatter_nd_adds_repeated_indices_as_in_tf():
    # TF: tf.scatter_nd sums the updates of repeated indices.
    out = me.scatter_nd([[1], [3], [1]], me.constant([1.0, 2.0, 5.0]), [5])
    np.testing.assert_array_equal(out.numpy(), [0.0, 6.0, 0.0, 2.0, 0.0])
    rows = me.scatter_nd([[0], [2]], me.constant([[1, 2], [3, 4]]), [3, 2])
    np.testing.assert_array_equal(rows.numpy(), [[1, 2], [0, 0], [3, 4]])


def test_gather_nd_and_scatter_nd_errors():
    with pytest.raises(me.errors.InvalidArgumentError, match=r"gather_nd: index 3 in coordinate 1 is out of range.*size 3"):
        me.gather_nd(np.zeros((2, 3)), [[0, 3]])
    with pytest.raises(me.errors.InvalidArgumentError, match="integer tensor of shape"):
        me.gather_nd(np.zeros((2, 3)), [[0.0, 1.0]])
    with pytest.raises(me.errors.InvalidArgumentError, match=r"scatter_nd: updates must have shape .*\(2,\)"):
        me.scatter_nd([[0], [1]], me.constant([1.0, 2.0, 3.0]), [4])
    with pytest.raises(me.errors.InvalidArgumentError, match="3 coordinates but the tensor has only 2 axes"):
        me.gather_nd(np.zeros((2, 3)), [[0, 0, 0]])


def test_embedding_lookup_is_a_gather_of_rows_as_in_tf():
    table = RNG.standard_normal((5, 3))
    ids = me.constant([[4, 0], [4, 2]])
    np.testing.assert_array_equal(me.nn.embedding_lookup(table, ids).numpy(), table[[[4, 0], [4, 2]]])
    check_gradients(lambda t: me.nn.embedding_lookup(t, ids), table)
    with pytest.raises(me.errors.InvalidArgumentError, match="sharded params"):
        me.nn.embedding_lookup([table, table], ids)


# ---- einsum -------------------------------------------------------------------------------------------
EQUATIONS = [("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,ij->i", [(2, 3), (2, 3)]), ("ij->ji", [(2, 3)]),
             ("ij->", [(2, 3)]), ("i,j->ij", [(3,), (2,)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
             ("ij,jk,kl->il", [(2, 3), (3, 2), (2, 2)]), ("ij,j", [(2, 3), (3,)]), ("ijk->k", [(2, 3, 2)]),
             ("ij,kj->ik", [(2, 3), (4, 3)]),
             # a letter repeated within one input walks a diagonal (TF 2.21: 'ii->i' of arange(9).reshape(3, 3)
             # is [0, 4, 8], 'ii->' and 'ii' are 12, 'ii,i->i' with [1, 2, 3] is [0, 8, 24])
             ("ii->i", [(3, 3)]), ("ii->", [(3, 3)]), ("ii", [(3, 3)]), ("bxby->bxy", [(2, 3, 2, 4)]),
             ("ii,i->i", [(3, 3), (3,)]), ("iji->j", [(2, 3, 2)]), ("iik->i", [(2, 2, 3)]), ("ij,ii->j", [(2, 3), (2, 2)]),
             ("iii->i", [(2, 2, 2)])]


@pytest.mark.parametrize("equation, shapes", EQUATIONS, ids=[e for e, _ in EQUATIONS])
def test_einsum_matches_numpy_and_finite_differences(equation, shapes):
    # TF: tf.einsum follows NumPy's subscripts (implicit form: letters seen once, in alphabetical order).
    xs = [RNG.standard_normal(s) for s in shapes]
    np.testing.assert_allclose(me.einsum(equation, *xs).numpy(), np.einsum(equation, *xs), rtol=1e-12)
    check_gradients(lambda *ts: me.einsum(equation, *ts), *xs)


def test_einsum_second_order_gradient():
    x = me.constant(RNG.standard_normal((2, 3)))
    with me.GradientTape() as outer:
        outer.watch(x)
        with me.GradientTape() as inner:
            inner.watch(x)
            y = me.reduce_sum(me.einsum("ij,ij->i", x, x) ** 2)
        g = inner.gradient(y, x)
    # y = sum_i (|x_i|^2)^2, g = 4 |x_i|^2 x_ij; the outer tape sums dg/dx over g's elements:
    h = outer.gradient(g, x).numpy()
    xv = x.numpy()
    expected = 4 * np.sum(xv ** 2, axis=1, keepdims=True) + 8 * xv * np.sum(xv, axis=1, keepdims=True)
    np.testing.assert_allclose(h, expected, rtol=1e-10)


def test_einsum_diagonals_as_tfs_advanced_autodiff_guide_selects_them():
    """The guide's 'bxby->bxy' picks each example's own block of a batch Jacobian; TF 2.21 gives these values."""
    j = me.constant(np.arange(48.0).reshape(2, 3, 2, 4))
    np.testing.assert_array_equal(me.einsum("bxby->bxy", j).numpy(),
                                  np.stack([np.arange(48.0).reshape(2, 3, 2, 4)[b, :, b, :] for b in range(2)]))
    with me.GradientTape() as tape:
        tape.watch(j)
        y = me.einsum("bxby->bxy", j) * me.constant(np.arange(24.0).reshape(2, 3, 4))
    assert tape.gradient(y, j).numpy()[:, 0, :, 0].tolist() == [[0.0, 0.0], [0.0, 12.0]]   # TF 2.21's


def test_einsum_trace_second_order_gradient():
    x = me.constant(RNG.standard_normal((3, 3)))
    with me.GradientTape() as outer:
        outer.watch(x)
        with me.GradientTape() as inner:
            inner.watch(x)
            y = me.einsum("ii->", x) ** 2
        g = inner.gradient(y, x)                       # 2 trace(x) I
    np.testing.assert_allclose(g.numpy(), 2 * np.trace(x.numpy()) * np.eye(3), rtol=1e-12)
    np.testing.assert_allclose(outer.gradient(g, x).numpy(), 6 * np.eye(3), rtol=1e-12)   # d(sum g)/dx = 2*3 I


def test_einsum_errors_teach():
    a, b = me.constant(np.ones((2, 3))), me.constant(np.ones((4, 5)))
    with pytest.raises(me.errors.InvalidArgumentError, match="axis 'j' has size 3 in one input and 4"):
        me.einsum("ij,jk->ik", a, b)
    with pytest.raises(me.errors.InvalidArgumentError, match="every output letter must appear once.*'ij->ii'"):
        me.einsum("ij->ii", a)           # TF: ValueError "Output subscripts contain a label appearing more than once"
    with pytest.raises(me.errors.InvalidArgumentError, match="axis 'i' has size 2 in one input and 3"):
        me.einsum("ii->i", a)
    with pytest.raises(me.errors.InvalidArgumentError, match="float64 tensor but the second is float32"):
        me.einsum("ij,jk->ik", a, me.ones([3, 2]))
    with pytest.raises(me.errors.InvalidArgumentError, match="2 inputs but 1 tensors"):
        me.einsum("ij,jk->ik", a)


# ---- sort, argsort, unique ----------------------------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=1, max_size=12), st.sampled_from(["ASCENDING", "DESCENDING"]))
def test_sort_and_argsort_agree_with_numpy(values, direction):
    # TF: tf.sort / tf.argsort along the last axis; argsort's indices are int32.
    x = np.array(values, np.float64)
    expected = np.sort(x) if direction == "ASCENDING" else np.sort(x)[::-1]
    np.testing.assert_array_equal(me.sort(x, direction=direction).numpy(), expected)
    order = me.argsort(x, direction=direction)
    assert order.dtype == me.int32
    np.testing.assert_array_equal(x[order.numpy()], expected)


def test_sort_along_an_axis_and_its_gradient():
    x = RNG.standard_normal((3, 4))
    np.testing.assert_array_equal(me.sort(x, axis=0).numpy(), np.sort(x, axis=0))
    check_gradients(lambda t: me.sort(t) * me.constant(np.arange(4.0)), x)
    check_gradients(lambda t: me.sort(t * t, axis=0, direction="DESCENDING"), x)


def test_sort_errors():
    with pytest.raises(me.errors.InvalidArgumentError, match="direction must be 'ASCENDING' or 'DESCENDING'"):
        me.sort([1.0, 2.0], direction="up")
    with pytest.raises(me.errors.InvalidArgumentError, match="axis"):
        me.sort([1.0, 2.0], axis=1)


def test_unique_keeps_first_appearance_order_as_in_tf():
    # TF: tf.unique([1, 1, 2, 4, 4, 4, 7, 8, 8]) -> y=[1, 2, 4, 7, 8], idx=[0, 0, 1, 2, 2, 2, 3, 4, 4];
    # y is in order of first appearance, not sorted.
    y, idx = me.unique(me.constant([8, 1, 8, 3, 1]))
    assert y.numpy().tolist() == [8, 1, 3] and idx.numpy().tolist() == [0, 1, 0, 2, 1]
    assert idx.dtype == me.int32 and me.unique([1.5, 1.5], out_idx=me.int64).idx.dtype == me.int64
    with pytest.raises(me.errors.InvalidArgumentError, match="must be 1-D"):
        me.unique(me.constant([[1, 2]]))


# ---- linalg.diag / diag_part --------------------------------------------------------------------------
def test_diag_and_diag_part_as_in_tf():
    # TF: tf.linalg.diag builds (..., n, n) from (..., n); tf.linalg.diag_part reads (..., min(m, n)).
    d = RNG.standard_normal((2, 3))
    np.testing.assert_array_equal(me.linalg.diag(d).numpy(), np.stack([np.diag(r) for r in d]))
    m = RNG.standard_normal((2, 3, 4))
    np.testing.assert_array_equal(me.linalg.diag_part(m).numpy(), np.diagonal(m, axis1=-2, axis2=-1))
    check_gradients(lambda t: me.linalg.diag(t * t), d)
    check_gradients(lambda t: me.linalg.diag_part(t) ** 2, m)
    with pytest.raises(me.errors.InvalidArgumentError, match="rank >= 2"):
        me.linalg.diag_part(me.constant([1.0, 2.0]))


# ---- small conveniences ---------------------------------------------------------------------------------
def test_get_static_value_get_shape_and_name_scope_as_in_tf():
    # TF: tf.get_static_value(eager tensor) is its NumPy value; of a Variable, None; t.get_shape() is t.shape;
    # `with tf.name_scope("a") as scope` gives "a/".
    t = me.constant([[1, 2]])
    np.testing.assert_array_equal(me.get_static_value(t), [[1, 2]])
    assert me.get_static_value(me.Variable(1.0)) is None
    assert me.get_static_value(3) == 3
    assert t.get_shape() == (1, 2) and t.get_shape().as_list() == [1, 2]
    x = me.constant(2.0)
    with me.GradientTape() as tape:
        tape.watch(x)
        with me.name_scope("block") as scope:
            with me.name_scope("inner") as inner:
                x * x     # recorded under the open scopes
    assert (scope, inner) == ("block/", "block/inner/")
    assert tape.records[0].scope == "block/inner"


# ---- linalg.solve -------------------------------------------------------------------------------------
def test_solve_as_tf():
    """TF 2.21: solve([[2, 1], [1, 3]], [[1], [2]]) is [[0.2], [0.6]], adjoint=True the same (a symmetric matrix)."""
    a, b = me.constant([[2.0, 1.0], [1.0, 3.0]]), me.constant([[1.0], [2.0]])
    for adjoint in (False, True):
        x = me.linalg.solve(a, b, adjoint=adjoint)
        assert x.dtype == me.float32 and x.shape == (2, 1)
        np.testing.assert_allclose(x.numpy(), [[0.2], [0.6]], rtol=1e-6)


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 4), st.integers(1, 3), st.sampled_from([(), (2,), (2, 3)]), st.booleans(), st.integers(0, 2**16))
def test_solve_matches_numpy_and_finite_differences(m, k, batch, adjoint, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(batch + (m, m)) + 3 * np.eye(m)              # well conditioned
    b = rng.standard_normal(batch + (m, k))
    expected = np.linalg.solve(np.swapaxes(a, -1, -2) if adjoint else a, b)
    np.testing.assert_allclose(me.linalg.solve(a, b, adjoint=adjoint).numpy(), expected, rtol=1e-10, atol=1e-12)
    check_gradients(lambda a, b: me.linalg.solve(a, b, adjoint=adjoint), a, b)


def test_solve_second_order_gradient_against_finite_differences():
    a = RNG.standard_normal((3, 3)) + 3 * np.eye(3)
    b = RNG.standard_normal((3, 2))

    def first(a):
        t = me.constant(a)
        with me.GradientTape() as tape:
            tape.watch(t)
            y = me.reduce_sum(me.linalg.solve(t, me.constant(b)) ** 2)
        return tape.gradient(y, t)

    a_t = me.constant(a)
    with me.GradientTape() as outer:
        outer.watch(a_t)
        with me.GradientTape() as inner:
            inner.watch(a_t)
            y = me.reduce_sum(me.linalg.solve(a_t, me.constant(b)) ** 2)
        g = inner.gradient(y, a_t)
        total = me.reduce_sum(g)
    h = outer.gradient(total, a_t).numpy()
    eps, numeric = 1e-6, np.zeros_like(a)
    for i in np.ndindex(a.shape):
        up, down = a.copy(), a.copy()
        up[i] += eps
        down[i] -= eps
        numeric[i] = (float(me.reduce_sum(first(up))) - float(me.reduce_sum(first(down)))) / (2 * eps)
    np.testing.assert_allclose(h, numeric, rtol=1e-5, atol=1e-7)


def test_solve_in_a_function_and_as_the_advanced_autodiff_guide_uses_it():
    # The guide's Newton step: solve(hessian + eps * I, gradient) for a column gradient.
    h = me.constant([[4.0, 1.0], [1.0, 3.0]])
    g = me.constant([[1.0], [2.0]])
    step = me.function(lambda h, g: me.linalg.solve(h + 1e-3 * me.eye(2), g))
    np.testing.assert_allclose(step(h, g).numpy(), np.linalg.solve(h.numpy() + 1e-3 * np.eye(2), g.numpy()), rtol=1e-5)


@pytest.mark.parametrize("matrix, rhs, message", [
    # TF 2.21 raises InvalidArgumentError for each: "Input matrix is not invertible.", "All input tensors must
    # have the same rank.", "... same outer dimensions.", "First input (lhs) must be a square matrix.",
    # "Input matrix and rhs are incompatible."; an int32 matrix is not among MatrixSolve's dtypes.
    ([[1.0, 2.0], [2.0, 4.0]], [[1.0], [2.0]], r"linalg.solve: the matrix is not invertible .*shape \(2, 2\)"),
    ([[2.0, 1.0], [1.0, 3.0]], [1.0, 2.0], r"same rank, at least 2; .*rhs of shape \(2,\)\. For a vector rhs write rhs\[:, None\]"),
    (np.ones((2, 2, 2)), np.ones((3, 2, 1)), r"same batch axes \(they do not broadcast\)"),
    (np.ones((2, 3)), np.ones((2, 1)), r"the matrix must be square \(\.\.\., M, M\); got matrix of shape \(2, 3\)"),
    ([[2.0, 1.0], [1.0, 3.0]], np.ones((3, 1)), r"the rhs must have M = 2 rows"),
    ([[1, 2], [3, 4]], [[1], [2]], r"the matrix is int32; solving needs floats"),
])
def test_solve_errors_teach(matrix, rhs, message):
    with pytest.raises(me.errors.InvalidArgumentError, match=message):
        me.linalg.solve(matrix, rhs)
