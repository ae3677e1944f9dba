"""The CPU op table on "/gpu:0": every op's forward and gradients, compared with the CPU's.

Each case is a function of tensors and its inputs (NumPy arrays). It runs twice, on the CPU and
on the GPU, under a GradientTape; the GPU's outputs and its gradients with respect to every float
input must equal the CPU's. The CPU's gradients are themselves checked against finite
differences (tests/autodiff), so equal here means right. Shapes are tiny under the simulator
and larger on a real GPU (conftest.scale).
"""
import numpy as np
import pytest

import minieager as me
from minieager.kernels.cuda import gpu_kernel

from .conftest import same, scale

GPU_0 = "/job:localhost/replica:0/task:0/device:GPU:0"   # tensor.device, as TF names it

RNG = np.random.default_rng(20261123)
N = scale(3, 64)


def normal(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def positive(*shape):
    return RNG.uniform(0.5, 2.0, shape).astype(np.float32)


def away_from_zero(*shape):
    return (RNG.uniform(0.3, 2.0, shape) * RNG.choice([-1.0, 1.0], shape)).astype(np.float32)


def distinct(*shape):
    return (RNG.permutation(np.arange(np.prod(shape))).reshape(shape) * 0.37 - 2.0).astype(np.float32)


def run(f, arrays, device, grads=True):
    """f's outputs and the gradients of sum(outputs * fixed weights) for every float input, on ``device``."""
    with me.device(device):
        xs = [me.constant(a) for a in arrays]
        with me.GradientTape() as tape:
            for x in xs:
                if x.dtype.is_floating:
                    tape.watch(x)
            outs = f(*xs)
            outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
            weights = [me.constant(np.linspace(-1, 1, max(o.shape.num_elements(), 1)).reshape(o.shape)
                                   .astype(o.dtype.np_dtype)) for o in outs]
            # each term in float64: outputs of several dtypes never meet in one op (no silent promotion)
            loss = sum(me.cast(me.reduce_sum(o * w), me.float64) for o, w in zip(outs, weights) if o.dtype.is_floating)
        floats = [x for x in xs if x.dtype.is_floating]
        grads = tape.gradient(loss, floats) if grads and floats and not isinstance(loss, int) else []
    return outs, [g for g in grads if g is not None]


def check(f, *arrays, rtol=1e-5, atol=1e-5, grads=True):
    """f on the GPU equals f on the CPU, and so do its gradients (unless ``grads=False``: the
    simulator is slow, so cases that add nothing new to a gradient test skip it)."""
    gpu_outs, gpu_grads = run(f, arrays, "/gpu:0", grads)
    cpu_outs, cpu_grads = run(f, arrays, "/cpu:0", grads)
    assert len(gpu_outs) == len(cpu_outs) and len(gpu_grads) == len(cpu_grads)
    for g, c in zip(gpu_outs + gpu_grads, cpu_outs + cpu_grads):
        same(g, c, rtol=rtol, atol=atol)


# ---- elementwise -------------------------------------------------------------------------------
UNARY = {
    "negative": (me.negative, normal), "abs": (me.abs, away_from_zero), "sign": (me.sign, away_from_zero),
    "square": (me.square, normal), "sqrt": (me.sqrt, positive), "rsqrt": (me.math.rsqrt, positive),
    "reciprocal": (me.math.reciprocal, away_from_zero), "exp": (me.exp, normal), "log": (me.log, positive),
    "log1p": (me.math.log1p, positive), "expm1": (me.math.expm1, normal), "sin": (me.sin, normal),
    "cos": (me.cos, normal), "tanh": (me.tanh, normal), "sigmoid": (me.sigmoid, normal),
    "relu": (me.nn.relu, away_from_zero), "softplus": (me.nn.softplus, normal),
    "leaky_relu": (lambda x: me.nn.leaky_relu(x, alpha=0.1), away_from_zero),
    "isnan": (me.math.is_nan, normal), "isfinite": (me.math.is_finite, normal),
    # the host round trip (no gradients for the rounding ops), and compositions that use them
    "floor": (me.floor, normal), "ceil": (me.math.ceil, normal), "round": (me.round, normal),
    "erf": (me.math.erf, normal), "gelu": (me.nn.gelu, normal), "elu": (me.nn.elu, away_from_zero),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name):
    f, make = UNARY[name]
    check(f, make(2, N))


BINARY = {
    "add": me.add, "subtract": me.subtract, "multiply": me.multiply, "divide": me.divide,
    "maximum": me.maximum, "minimum": me.minimum, "pow": lambda a, b: me.pow(me.abs(a) + 0.5, b),
    "less": me.less, "greater_equal": me.greater_equal, "equal": me.equal, "not_equal": me.not_equal,
}


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("shapes", [((2, N), (2, N)), ((2, 1, N), (4, 1)), ((N,), ()), ((), (2, N))],
                         ids=["same", "both-broadcast", "scalar-right", "scalar-left"])
def test_binary_with_broadcasting(name, shapes):
    a, b = distinct(*shapes[0]), away_from_zero(*shapes[1])
    check(BINARY[name], a, b, rtol=2e-5)


def test_non_contiguous_inputs():
    base = normal(4, 2 * N)
    views = base.T, base[:, ::2], base[::-1]                 # NumPy views: strided, reversed
    assert not any(v.flags.c_contiguous for v in views)
    check(lambda a, b, c: (me.tanh(a) * 2.0, b + c[:, :N], me.transpose(a) - c), *views)


def test_layout_ops():
    x = normal(2, 3, N)
    check(lambda t: (me.transpose(t, [2, 0, 1]), me.reshape(t, [-1]), me.broadcast_to(t[:1], [4, 3, N]),
                     me.tile(t, [1, 2, 1]), me.concat([t, t * 2.0], axis=1), me.gather(t, [1, 0, 1], axis=0),
                     me.cast(t, me.float64), me.pad(t, [[0, 0], [1, 2], [0, 1]]), t[:, 1:, ::2]), x)


def test_array_ops_and_their_gradients_through_the_host_round_trip():
    """Compositions make their index constants on the input's device, and the new primitives
    (searchsorted, tensor_scatter_nd_update/add) run their CPU kernels through the round trip."""
    check(lambda t: (me.reverse(t, [0, 1]), me.roll(t, [1, -1], [0, 1]), me.slice(t, [1, 0], [2, -1]),
                     me.repeat(t, [2, 0, 1], axis=0), me.math.top_k(t, 2).values, me.cumprod(t, axis=1),
                     me.tensor_scatter_nd_update(t, [[2], [0], [2]], t * 2.0),
                     me.tensor_scatter_nd_add(t, [[1, 0]], t[0, :1]), me.math.unsorted_segment_sum(t, [1, -1, 1], 2),
                     me.meshgrid(t[0], t[1, :2])[0], me.map_fn(me.reduce_sum, t), me.searchsorted(me.sort(t), t),
                     me.sequence_mask([1, 3], N)), distinct(3, N))
    square = normal(2, 3, 3) + 3 * np.eye(3, dtype=np.float32)
    check(lambda a, b: (me.linalg.solve(a, b), me.linalg.solve(a, b, adjoint=True), me.einsum("bii->bi", a)),
          square, normal(2, 3, 2))


# ---- reductions --------------------------------------------------------------------------------
REDUCTIONS = {"sum": me.reduce_sum, "mean": me.reduce_mean, "max": me.reduce_max, "min": me.reduce_min,
              "prod": me.reduce_prod}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions_over_every_axis(name):
    x = distinct(2, 3, N)
    for axis in [None, 0, 1, 2, (0, 2), (1, 2), -1]:
        check(lambda t: REDUCTIONS[name](t, axis=axis), x, rtol=1e-4, grads=False)
    check(lambda t: REDUCTIONS[name](t, axis=(0, 2), keepdims=True), x, rtol=1e-4, grads=False)


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("axis", [(0, 2), -1])
def test_reduction_gradients(name, axis):
    check(lambda t: REDUCTIONS[name](t, axis=axis), distinct(2, 3, N), rtol=1e-4)


@pytest.mark.slow   # ~10 s under the simulator: every block of a long row is a simulated thread block
def test_long_rows_reduce_across_blocks():
    """More elements in a row than one block's threads: partial results per block, then across blocks."""
    check(lambda t: (me.reduce_sum(t, axis=1), me.reduce_max(t, axis=1), me.reduce_mean(t)),
          normal(2, scale(600, 100_000)), rtol=1e-4, atol=1e-4, grads=False)


def test_argmax_and_argmin_with_ties_take_the_first():
    x = np.round(normal(2, 3, 5), 0)                       # many ties
    for axis in (0, 1, 2):
        check(lambda t: (me.argmax(t, axis=axis), me.argmin(t, axis=axis)), x)


def test_reductions_of_nan_and_empty_rows_match_the_cpu():
    x = normal(3, 4)
    x[1, 2] = np.nan
    check(lambda t: (me.reduce_max(t, axis=1), me.reduce_sum(t, axis=1), me.argmax(t, axis=1)), x)
    check(lambda t: (me.reduce_max(t, axis=1), me.reduce_sum(t, axis=1)), normal(2, 0))


# ---- matmul ------------------------------------------------------------------------------------
@pytest.mark.parametrize("m, k, n, grads", [(1, 1, 1, True), (3, 5, 2, True), (17, 33, 5, False),
                                            pytest.param(*scale((65, 9, 70, False), (300, 257, 130, True)),
                                                         marks=pytest.mark.slow)])   # ~10 s simulated
def test_matmul_sizes_that_are_not_multiples_of_the_tile(m, k, n, grads):
    check(me.matmul, normal(m, k), normal(k, n), rtol=1e-4, atol=1e-4, grads=grads)


@pytest.mark.slow   # ~15 s under the simulator
def test_matmul_transposes_batches_and_float64():
    check(lambda a, b: (me.matmul(a, b, transpose_a=True), me.matmul(a, b, transpose_b=True)),
          normal(2, 4, 4), normal(4, 4), rtol=1e-4, grads=False)
    check(me.matmul, normal(2, 1, 3, 4), normal(3, 4, 2), rtol=1e-4)
    check(me.matmul, normal(5, 3, dtype=np.float64), normal(3, 4, dtype=np.float64), grads=False)


@pytest.mark.parametrize("kind", ["tiled", "register_blocked"])
def test_both_matmul_kernels_match_numpy(kind):
    from minieager.kernels.cuda.matmul import matmul_arrays
    a, b = normal(1, 19, 23), normal(1, 23, 20)
    with me.device("/gpu:0"):
        out = matmul_arrays(me.constant(a)._value, me.constant(b)._value, kind=kind).copy_to_host()
    np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-4)


# ---- neural-network ops ------------------------------------------------------------------------
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("strides", [1, 2])
def test_conv2d_and_its_gradients(padding, strides):
    check(lambda x, w: me.nn.conv2d(x, w, strides=strides, padding=padding),
          normal(2, scale(5, 17), scale(6, 19), 3), normal(3, 3, 3, 4), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("activation", ["relu", None])
def test_fused_conv2d_and_its_gradients(activation):
    """Graph mode's conv2d + bias_add (+ relu), which the GPU runs as its three kernels."""
    from minieager.ops.nn import fused_conv2d
    check(lambda x, w, b: fused_conv2d(x, w, b, strides=(1, 1), padding="SAME", activation=activation),
          normal(2, 5, 6, 3), normal(3, 3, 3, 4), normal(4), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("pool", ["max", "avg"])
@pytest.mark.parametrize("ksize, strides", [(2, 2), (3, 1)])
def test_pooling_and_its_gradients(padding, pool, ksize, strides):
    f = me.nn.max_pool2d if pool == "max" else me.nn.avg_pool2d
    check(lambda x: f(x, ksize, strides, padding), distinct(2, scale(5, 16), scale(5, 15), 2))


def test_max_pool_sends_ties_to_the_first_maximum():
    check(lambda x: me.nn.max_pool2d(x, 2, 1, "VALID"), np.ones((1, 3, 3, 1), np.float32))


@pytest.mark.parametrize("axis", [0, -1])
def test_softmax_and_log_softmax(axis):
    check(lambda t: (me.nn.softmax(t, axis=axis), me.nn.log_softmax(t, axis=axis)), normal(3, N + 2) * 5)


def test_fused_cross_entropies_and_bias_add():
    logits, labels = normal(4, N + 2), RNG.integers(0, N + 2, 4)
    probs = np.abs(normal(4, N + 2))
    probs /= probs.sum(axis=1, keepdims=True)
    check(lambda t: me.nn.sparse_softmax_cross_entropy_with_logits(labels=me.constant(labels), logits=t), logits)
    check(lambda t, p: me.nn.softmax_cross_entropy_with_logits(labels=p, logits=t), logits, probs)
    check(lambda t: me.keras.losses.SparseCategoricalCrossentropy(from_logits=True)(me.constant(labels), t), logits)
    check(lambda x, b: me.nn.bias_add(x, b), normal(2, 3, 4), normal(4))


def test_sparse_cross_entropy_ignores_a_minus_inf_logit_in_another_class():
    # The CPU (and TF) give the finite loss: the -inf class has probability 0 and no label. The GPU's row
    # kernel once added 0 * -inf = nan for it.
    logits = np.array([[1.0, -np.inf, 2.0], [0.5, 0.0, -np.inf]], np.float32)
    with me.device("/gpu:0"):
        gpu = me.nn.sparse_softmax_cross_entropy_with_logits(labels=me.constant([2, 0]), logits=me.constant(logits))
    cpu = me.nn.sparse_softmax_cross_entropy_with_logits(labels=me.constant([2, 0]), logits=me.constant(logits))
    assert np.isfinite(gpu.numpy()).all()
    same(gpu, cpu)


def test_random_numbers_are_reproducible_and_distributed():
    n = scale(2048, 1_000_000)
    with me.device("/gpu:0"):
        me.random.set_seed(7)
        u1, z1 = me.random.uniform([n], 2.0, 5.0), me.random.normal([n], 1.0, 2.0)
        me.random.set_seed(7)
        u2 = me.random.uniform([n], 2.0, 5.0)
        u3 = me.random.uniform([n], 2.0, 5.0)
    u, z = u1.numpy(), z1.numpy()
    assert u1.device == GPU_0 and u1.dtype == me.float32
    np.testing.assert_array_equal(u, u2.numpy())             # the same seed, the same numbers
    assert not np.array_equal(u, u3.numpy())                 # the next call, new numbers
    assert 2.0 <= u.min() and u.max() < 5.0
    tolerance = 4 / np.sqrt(n)                               # ~4 standard errors
    assert abs(u.mean() - 3.5) < 3 * tolerance and abs(u.std() - np.sqrt(0.75)) < 3 * tolerance
    assert abs(z.mean() - 1.0) < 2 * tolerance * 2 and abs(z.std() - 2.0) < 2 * tolerance * 2


def test_the_architecture_table_says_how_every_op_runs_on_the_gpu():
    """Every op with a CPU kernel has a "gpu" kernel, and docs/architecture.md's table lists it in the
    right row: "host round trip" exactly for the ops whose CPU kernel is wrapped in the round trip."""
    import pathlib
    import re

    from minieager.kernels.registry import registered_ops
    text = (pathlib.Path(__file__).parents[2] / "docs" / "architecture.md").read_text()
    rows = [line for line in text[text.index("## The CUDA backend"):].splitlines() if line.startswith("| `")]
    for name in registered_ops("cpu"):
        kernel = gpu_kernel(name)
        listed = [row for row in rows if re.search(rf"[` ]{name}[` ]", row.split(" | ")[0])]
        assert len(listed) == 1, f"{name} is in {len(listed)} rows of the table"
        assert listed[0].endswith("| host round trip |") == getattr(kernel, "round_trip", False), name
