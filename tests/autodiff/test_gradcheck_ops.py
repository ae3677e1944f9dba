"""Every differentiable op's VJP against central finite differences (me.testing.check_gradients, float64).

Inputs are chosen where each op is smooth: positive for log/sqrt, away from 0 for abs/relu and the
other kinks, distinct values for max/min and max-pooling. check_gradients compares the tape's
gradient of sum(v * f) (v a fixed random cotangent) with finite differences at every element.
"""
import numpy as np
import pytest

import minieager as me
from minieager.ops import elementwise as elementwise_ops
from minieager.testing import check_gradients

RNG = np.random.default_rng(20240601)


def normal(*shape):
    return RNG.standard_normal(shape)


def positive(*shape, low=0.5, high=2.0):
    return RNG.uniform(low, high, shape)


def away_from_zero(*shape):
    """Values in ±[0.3, 2]: no element sits on a kink at 0."""
    return RNG.uniform(0.3, 2.0, shape) * RNG.choice([-1.0, 1.0], shape)


def distinct(*shape):
    """A random permutation of well-separated values: no ties for max/min/pooling."""
    return RNG.permutation(np.arange(np.prod(shape), dtype=np.float64)).reshape(shape) * 0.37 - 2.0


def check(f, *inputs, **tolerances):
    results = check_gradients(f, *inputs, **tolerances)
    assert all(r.ok for r in results)


# ---- elementwise, unary ---------------------------------------------------------------------------
UNARY = {
    "negative": (me.negative, normal),
    "abs": (me.abs, away_from_zero),
    "sign": (me.sign, away_from_zero),
    "square": (me.square, normal),
    "sqrt": (me.sqrt, positive),
    "rsqrt": (me.math.rsqrt, positive),
    "reciprocal": (me.math.reciprocal, away_from_zero),
    "exp": (me.exp, normal),
    "log": (me.log, positive),
    "log1p": (me.math.log1p, lambda *s: positive(*s, low=-0.5, high=2.0)),
    "expm1": (me.math.expm1, normal),
    "sin": (me.sin, normal),
    "cos": (me.cos, normal),
    "tanh": (me.tanh, normal),
    "sigmoid": (me.sigmoid, normal),
    "relu": (me.nn.relu, away_from_zero),
    "softplus": (me.nn.softplus, normal),
    "leaky_relu": (lambda x: me.nn.leaky_relu(x, alpha=0.1), away_from_zero),
    "erf": (me.math.erf, normal),
    "relu6": (me.nn.relu6, lambda *s: away_from_zero(*s) * 4.0),   # no element within 1e-6 of 0 or 6
    "elu": (me.nn.elu, away_from_zero),
    "selu": (me.nn.selu, away_from_zero),
    "gelu": (me.nn.gelu, normal),
    "gelu_approximate": (lambda x: me.nn.gelu(x, approximate=True), normal),
    "silu": (me.nn.silu, normal),
    "swish_beta": (lambda x: me.nn.swish(x, beta=1.7), normal),
    "l2_loss": (me.nn.l2_loss, normal),
    "identity": (me.identity, normal),
    "neg_operator": (lambda x: -x, normal),
    "abs_operator": (lambda x: abs(x), away_from_zero),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name):
    fn, sample = UNARY[name]
    check(fn, sample(3, 4))


# ---- elementwise, binary, with every broadcasting pattern ----------------------------------------
BINARY = {
    "add": (me.add, normal, normal),
    "subtract": (me.subtract, normal, normal),
    "multiply": (me.multiply, normal, normal),
    "divide": (me.divide, normal, away_from_zero),
    "pow": (me.pow, positive, normal),
    "maximum": (me.maximum, distinct, lambda *s: distinct(*s) + 0.11),
    "minimum": (me.minimum, distinct, lambda *s: distinct(*s) + 0.11),
    "squared_difference": (me.math.squared_difference, normal, normal),
    "mod": (me.math.floormod, lambda *s: positive(*s, low=0.1, high=0.9), lambda *s: positive(*s, low=1.1, high=2.0)),
    "add_operator": (lambda a, b: a + b, normal, normal),
    "rsub_operator": (lambda a, b: 2.0 - a * b, normal, normal),
    "truediv_operator": (lambda a, b: a / b, normal, away_from_zero),
    "pow_operator": (lambda a, b: a ** b, positive, normal),
    # Away from their masked points (y == 0, x == 0), where test_ops_math_tf checks TF's zeros.
    "divide_no_nan": (me.math.divide_no_nan, normal, away_from_zero),
    "xlogy": (me.math.xlogy, away_from_zero, positive),
}
BROADCASTS = {
    "same": ((3, 4), (3, 4)),
    "scalar": ((3, 4), ()),
    "scalar_first": ((), (3, 4)),
    "row": ((3, 4), (4,)),
    "column": ((3, 4), (3, 1)),
    "3d_vs_2d": ((2, 3, 4), (3, 4)),
    "both_stretched": ((2, 1, 4), (3, 1)),
}


@pytest.mark.parametrize("pattern", sorted(BROADCASTS))
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_broadcasting(name, pattern):
    fn, sample_a, sample_b = BINARY[name]
    shape_a, shape_b = BROADCASTS[pattern]
    check(fn, sample_a(*shape_a), sample_b(*shape_b))


# The activations' fused gradient ops (their VJPs give relu, tanh and sigmoid second derivatives).
ACTIVATION_GRADS = {
    "relu_grad": (elementwise_ops.relu_grad, normal, away_from_zero),
    "tanh_grad": (elementwise_ops.tanh_grad, normal, lambda *s: np.tanh(normal(*s))),
    "sigmoid_grad": (elementwise_ops.sigmoid_grad, normal, lambda *s: 1 / (1 + np.exp(-normal(*s)))),
}


@pytest.mark.parametrize("name", sorted(ACTIVATION_GRADS))
def test_activation_gradient_ops(name):
    fn, sample_dy, sample_y = ACTIVATION_GRADS[name]
    check(fn, sample_dy(3, 4), sample_y(3, 4))


@pytest.mark.parametrize("fn, first, second", [
    (me.maximum, [1.0, 1.0], [0.0, 0.0]),
    (me.minimum, [1.0, 1.0], [0.0, 0.0]),
])
def test_ties_send_the_gradient_to_the_first_argument(fn, first, second):
    a, b = me.constant([1.0, 2.0]), me.constant([1.0, 2.0])
    with me.GradientTape() as tape:
        tape.watch([a, b])
        y = fn(a, b)
    da, db = tape.gradient(y, [a, b])
    np.testing.assert_array_equal(da.numpy(), first)
    np.testing.assert_array_equal(db.numpy(), second)


def test_where():
    cond = me.constant(RNG.random((3, 4)) > 0.5)
    check(lambda x, y: me.where(cond, x, y), normal(3, 4), normal(3, 4))
    check(lambda x, y: me.where(cond, x, y), normal(4), normal(3, 1))


def test_clip_by_value():
    x = RNG.permutation(np.linspace(-2.0, 2.0, 12)).reshape(3, 4) + 0.05   # none exactly at the bounds
    check(lambda t: me.clip_by_value(t, -1.0, 1.0), x)


def test_cast_to_float32_and_back():
    # float32 holds 7 digits, so this check uses a large step (the function is linear: no truncation error).
    check(lambda x: me.cast(me.cast(x, me.float32) * 3.0, me.float64), normal(3, 2), eps=1e-2, atol=1e-4)


def test_cast_float32_to_float64_gives_a_float32_gradient():
    x = me.constant([1.0, 2.0])
    with me.GradientTape() as tape:
        tape.watch(x)
        y = me.cast(x, me.float64) * 3.0
    g = tape.gradient(y, x)
    assert g.dtype == me.float32
    np.testing.assert_array_equal(g.numpy(), [3.0, 3.0])


# ---- reductions ---------------------------------------------------------------------------------
AXES = [None, 0, 1, -1, (0, 2), [2, 0]]
REDUCTIONS = {
    "reduce_sum": (me.reduce_sum, normal),
    "reduce_mean": (me.reduce_mean, normal),
    "reduce_max": (me.reduce_max, distinct),
    "reduce_min": (me.reduce_min, distinct),
    "reduce_prod": (me.reduce_prod, away_from_zero),
    "reduce_logsumexp": (me.reduce_logsumexp, normal),
    "reduce_variance": (me.math.reduce_variance, normal),
    "reduce_std": (me.math.reduce_std, normal),
    "reduce_euclidean_norm": (me.math.reduce_euclidean_norm, normal),
}


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduction(name, axis, keepdims):
    fn, sample = REDUCTIONS[name]
    check(lambda x: fn(x, axis=axis, keepdims=keepdims), sample(2, 3, 4))


@pytest.mark.parametrize("zeros", [[(0, 1)], [(0, 1), (1, 2)], [(0, 1), (0, 2)]], ids=["one", "two_rows", "same_row"])
@pytest.mark.parametrize("axis", [None, 1])
def test_reduce_prod_with_zeros(zeros, axis):
    x = away_from_zero(2, 3)
    for index in zeros:
        x[index] = 0.0
    check(lambda t: me.reduce_prod(t, axis=axis), x)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_cumsum(axis, exclusive, reverse):
    check(lambda x: me.cumsum(x, axis=axis, exclusive=exclusive, reverse=reverse), normal(3, 4))


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("axis", [0, -1])
def test_cumprod_with_and_without_zeros(axis, exclusive, reverse):
    x = normal(3, 4)
    check(lambda t: me.math.cumprod(t, axis=axis, exclusive=exclusive, reverse=reverse), x)
    x[0, 1] = x[1, 0] = x[1, 2] = 0.0
    check(lambda t: me.math.cumprod(t, axis=axis, exclusive=exclusive, reverse=reverse), x)


@pytest.mark.parametrize("ord_, axis", [("euclidean", None), ("euclidean", 1), (1, None), (1, 0), (np.inf, None),
                                        (np.inf, 1)])
def test_norm(ord_, axis):
    sample = distinct if ord_ == np.inf else away_from_zero
    check(lambda x: me.norm(x, ord=ord_, axis=axis), sample(3, 4))


def test_add_n():
    check(lambda a, b, c: me.add_n([a, b * c, a]), normal(3, 4), normal(3, 4), normal(3, 4))


# ---- normalisation -------------------------------------------------------------------------------
@pytest.mark.parametrize("axis", [None, 0, -1, [0, 2]], ids=str)
def test_l2_normalize(axis):
    check(lambda x: me.nn.l2_normalize(x, axis=axis), normal(2, 3, 4))


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axes", [[0], [0, 1, 2], [1, -1]], ids=str)
def test_moments(axes, keepdims):
    check(lambda x: me.nn.moments(x, axes, keepdims=keepdims), normal(2, 3, 4))


def test_batch_normalization():
    check(lambda x, mean, variance, offset, scale: me.nn.batch_normalization(x, mean, variance, offset, scale, 1e-3),
          normal(4, 3), normal(3), positive(3), normal(3), normal(3))
    check(lambda x, mean, variance: me.nn.batch_normalization(x, mean, variance, None, None, 1e-3),
          normal(2, 3), normal(2, 1), positive(2, 1))


# ---- linear algebra -----------------------------------------------------------------------------
@pytest.mark.parametrize("transpose_b", [False, True])
@pytest.mark.parametrize("transpose_a", [False, True])
def test_matmul_transposes(transpose_a, transpose_b):
    a = normal(4, 3) if transpose_a else normal(3, 4)
    b = normal(5, 4) if transpose_b else normal(4, 5)
    check(lambda x, y: me.matmul(x, y, transpose_a=transpose_a, transpose_b=transpose_b), a, b)


@pytest.mark.parametrize("shape_a, shape_b", [
    ((2, 3, 4), (2, 4, 5)),
    ((2, 3, 4), (4, 5)),
    ((3, 4), (2, 4, 5)),
    ((1, 3, 4), (2, 4, 2)),
    ((2, 1, 2, 3), (3, 3, 2)),
])
def test_matmul_batches(shape_a, shape_b):
    check(me.matmul, normal(*shape_a), normal(*shape_b))


def test_matmul_batched_with_transposes():
    check(lambda x, y: me.matmul(x, y, transpose_a=True, transpose_b=True), normal(2, 4, 3), normal(5, 4))


@pytest.mark.parametrize("shape_a, shape_b, axes", [
    ((3, 4), (4, 5), 1),
    ((2, 3, 4), (3, 4, 2), 2),
    ((3, 4), (3, 2), [[0], [0]]),
    ((2, 3, 4), (4, 2), [[2], [0]]),
    ((2, 3), (3, 2), 0),
])
def test_tensordot(shape_a, shape_b, axes):
    check(lambda a, b: me.tensordot(a, b, axes), normal(*shape_a), normal(*shape_b))


# ---- shape ops ----------------------------------------------------------------------------------
SHAPE_OPS = {
    "reshape": (lambda x: me.reshape(x, [4, 6]), (2, 3, 4)),
    "reshape_infer": (lambda x: me.reshape(x, [-1]), (2, 3, 4)),
    "transpose_default": (me.transpose, (2, 3, 4)),
    "transpose_perm": (lambda x: me.transpose(x, [1, 2, 0]), (2, 3, 4)),
    "expand_dims": (lambda x: me.expand_dims(x, 1), (2, 3)),
    "expand_dims_last": (lambda x: me.expand_dims(x, -1), (2, 3)),
    "squeeze": (me.squeeze, (2, 1, 3, 1)),
    "squeeze_axis": (lambda x: me.squeeze(x, axis=1), (2, 1, 3)),
    "tile": (lambda x: me.tile(x, [2, 3]), (2, 3)),
    "tile_3d": (lambda x: me.tile(x, [1, 2, 2]), (2, 1, 3)),
    "broadcast_to": (lambda x: me.broadcast_to(x, [2, 3, 4]), (3, 1)),
    "broadcast_to_scalar": (lambda x: me.broadcast_to(x, [2, 3]), ()),
    "pad": (lambda x: me.pad(x, [[1, 2], [0, 1]]), (2, 3)),
    "pad_value": (lambda x: me.pad(x, [[0, 0], [2, 0]], constant_values=5.0), (2, 3)),
    "split_equal": (lambda x: me.split(x, 2, axis=1), (3, 4)),
    "split_sizes": (lambda x: me.split(x, [1, -1, 2], axis=1), (3, 6)),
    "unstack": (lambda x: me.unstack(x, axis=1), (2, 3)),
    "unstack_first": (me.unstack, (3, 2)),
    "reverse": (lambda x: me.reverse(x, [0, -1]), (2, 3, 4)),
    "roll": (lambda x: me.roll(x, [1, -2], [0, 2]), (2, 3, 4)),
    "slice": (lambda x: me.slice(x, [1, 0, 1], [1, -1, 2]), (2, 3, 4)),
    "repeat": (lambda x: me.repeat(x, [2, 0, 1], axis=1), (2, 3)),
    "repeat_flat": (lambda x: me.repeat(x, 2), (2, 3)),
    "meshgrid": (lambda x: me.meshgrid(x[0], x[1, :2]), (2, 3)),
    "top_k": (lambda x: me.math.top_k(x * x, 2).values, (3, 4)),
    "map_fn": (lambda x: me.map_fn(lambda row: row * me.reduce_sum(row), x), (3, 4)),
}


@pytest.mark.parametrize("name", sorted(SHAPE_OPS))
def test_shape_op(name):
    fn, shape = SHAPE_OPS[name]
    check(fn, normal(*shape))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat(axis):
    shapes = {0: [(1, 3), (2, 3), (3, 3)], 1: [(2, 1), (2, 3), (2, 2)], -1: [(2, 1), (2, 3), (2, 2)]}[axis]
    check(lambda a, b, c: me.concat([a, b, c], axis=axis), *[normal(*s) for s in shapes])


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_stack(axis):
    check(lambda a, b: me.stack([a, b], axis=axis), normal(2, 3), normal(2, 3))


def test_split_pieces_used_unevenly():
    # Only some pieces reach the target, and one of them twice.
    def f(x):
        a, b, c = me.split(x, 3, axis=0)
        return a * c + c
    check(f, normal(3, 2))


# ---- indexing and gather -------------------------------------------------------------------------
INDEXES = {
    "slice": (slice(1, 3),),
    "step": (slice(None, None, 2), slice(1, None)),
    "negative_step": (slice(None, None, -1),),
    "negative_index": (-1,),
    "int": (1, slice(None)),
    "int_int": (1, 2),
    "ellipsis": (Ellipsis, 0),
    "newaxis": (None, slice(0, 2)),
    "int_array_with_repeats": ([0, 0, 2, 1],),
    "int_array_columns": (slice(None), [3, 0, 3]),
    "mask": (np.array([True, False, True]),),
}


@pytest.mark.parametrize("name", sorted(INDEXES))
def test_getitem(name):
    index = INDEXES[name]
    check(lambda x: x[index], normal(3, 4))


def test_boolean_mask_elementwise():
    mask = RNG.random((3, 4)) > 0.4
    check(lambda x: me.boolean_mask(x, mask), normal(3, 4))


@pytest.mark.parametrize("axis, indices", [(0, [2, 0, 2, 2]), (1, [3, 3, 0]), (0, [[0, 1], [1, 1]]), (1, [-1, 0])])
def test_gather(axis, indices):
    check(lambda x: me.gather(x, me.constant(indices), axis=axis), normal(3, 4))


@pytest.mark.parametrize("indices", [[[2], [0]], [[0, 1], [2, 3], [0, 1]]], ids=["rows", "repeated_elements"])
def test_tensor_scatter_nd_update_and_add(indices):
    shape = (len(indices),) + ((4,) if len(indices[0]) == 1 else ())
    check(lambda t, u: me.tensor_scatter_nd_update(t, indices, u), normal(3, 4), normal(*shape))
    check(lambda t, u: me.tensor_scatter_nd_add(t, indices, u), normal(3, 4), normal(*shape))


def test_segment_sums():
    check(lambda d: me.math.unsorted_segment_sum(d, [3, -1, 0, 3], 5), normal(4, 2))
    check(lambda d: me.math.segment_sum(d, [0, 0, 2, 2]), normal(4, 2))


# ---- softmax and cross-entropy -------------------------------------------------------------------
@pytest.mark.parametrize("axis", [-1, 0])
@pytest.mark.parametrize("fn", [me.nn.softmax, me.nn.log_softmax], ids=["softmax", "log_softmax"])
def test_softmax_family(fn, axis):
    check(lambda x: fn(x, axis=axis), normal(3, 4))


def test_softmax_cross_entropy_with_logits():
    labels = me.constant(RNG.dirichlet(np.ones(4), size=3))
    check(lambda logits: me.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits), normal(3, 4))


def test_sparse_softmax_cross_entropy_with_logits():
    labels = me.constant([3, 0, 3])
    check(lambda logits: me.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits),
          normal(3, 4))


def test_sigmoid_cross_entropy_with_logits():
    # Both inputs: TF's labels get a gradient too (-logits).
    check(lambda labels, logits: me.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits),
          RNG.uniform(0, 1, (3, 4)), away_from_zero(3, 4) * 3)


def test_losses_cross_entropy_batch_means():
    """me.losses' cross-entropies are one op each (the kernel with mean=True), with their own gradient."""
    probabilities = me.constant(RNG.dirichlet(np.ones(4), size=3))
    check(lambda logits: me.losses.softmax_cross_entropy(probabilities, logits), normal(3, 4))
    check(lambda logits: me.losses.sparse_softmax_cross_entropy(me.constant([3, 0, 3]), logits), normal(3, 4))


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 3, 4), (4, 8, 8, 16)], ids=str)   # the last: the kernel's loop
def test_bias_add(shape):
    check(lambda v, b: me.nn.bias_add(v, b), normal(*shape), normal(shape[-1]))


# ---- convolution and pooling ---------------------------------------------------------------------
@pytest.mark.parametrize("strides", [1, 2])
@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_conv2d(padding, strides):
    check(lambda x, w: me.nn.conv2d(x, w, strides=strides, padding=padding), normal(2, 5, 5, 2), normal(3, 3, 2, 3))


def test_conv2d_rectangular():
    check(lambda x, w: me.nn.conv2d(x, w, strides=[1, 2], padding="SAME"), normal(1, 4, 6, 1), normal(2, 3, 1, 2))


POOLS = [(2, 2, "VALID"), (2, 1, "VALID"), (3, 2, "SAME"), (2, 2, "SAME"), (3, 1, "SAME")]


@pytest.mark.parametrize("ksize, strides, padding", POOLS)
def test_max_pool2d(ksize, strides, padding):
    check(lambda x: me.nn.max_pool2d(x, ksize, strides, padding), distinct(2, 5, 5, 2))


@pytest.mark.parametrize("ksize, strides, padding", POOLS)
def test_avg_pool2d(ksize, strides, padding):
    check(lambda x: me.nn.avg_pool2d(x, ksize, strides, padding), normal(2, 5, 5, 2))
