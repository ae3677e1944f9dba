"""Elementwise fusion: generated loops equal the unfused graph, over the whole elementwise op set.

Each distinct generated kernel costs a numba compile (about a second, then cached on disk), so
the op-set test puts every op into ONE fused kernel per dtype, and hypothesis varies the
shapes and values that kernel runs on, not its source.
"""
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minieager as me
from minieager.graph.passes import fusion
from minieager.engine import recording
from minieager.graph.passes import elementwise_fusion, optimize
from minieager.graph.passes.fused import FUSIBLE, FusedOp, operand_modes, source_dir
from minieager.ops import elementwise as E
from minieager.ops import nn as N

from .builder import Builder, calls, values


@pytest.fixture(autouse=True, scope="module")
def fuse_small_graphs():
    """Fuse the small tensors these tests use (normally only groups of SMALL_SIZE elements and up)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fusion, "MIN_SIZE", 1)
        yield

UNARY = ["negative", "abs", "sign", "square", "sqrt", "rsqrt", "reciprocal", "exp", "log", "log1p", "expm1",
         "sin", "cos", "tanh", "sigmoid", "softplus", "relu"]
BINARY = ["add", "bias_add", "subtract", "multiply", "divide", "floordiv", "mod", "pow", "maximum", "minimum",
          "relu_grad", "tanh_grad", "sigmoid_grad"]
COMPARE = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
LOGIC = ["logical_and", "logical_or", "logical_xor"]


class _Catch:
    """An observer (as a tape is one) that keeps the Ops it sees run."""

    def __init__(self):
        self.ops = []

    def _observe(self, op, inputs, outputs, attrs):
        self.ops.append(op)


def _op(name):
    """The eager Op that ``me.<name>`` runs (comparisons keep theirs inside their function)."""
    catch = _Catch()
    args = [me.constant([[1.0, 2.0]]), me.constant([1.0, 2.0])] if name not in LOGIC + ["logical_not"] else [me.constant([True, False])] * 2
    recording.add_observer(catch)
    try:
        function = getattr(E, name, None) or getattr(N, name)
        function(*args[:1 if name in UNARY + ["logical_not", "isnan", "isfinite", "leaky_relu"] else 2])
    finally:
        recording.remove_observer(catch)
    (found,) = catch.ops
    assert found.name == name
    return found


def op_set_graph(dtype, n, m):
    """Every elementwise op once, summed into one output of shape (n, m).

    Inputs: ``x`` (n, m) read in full, ``y`` a row (m,), ``z`` a column (n, 1) (copied to full
    size), ``s`` a scalar. Their values lie in [0.5, 2], where every op is defined; ``x - 1.25``
    crosses 0 for the ops whose interesting point is there (sign, relu, abs ...).
    """
    b = Builder()
    x, y = b.placeholder("x", (n, m), dtype), b.placeholder("y", (m,), dtype)
    z, s = b.placeholder("z", (n, 1), dtype), b.placeholder("s", (), dtype)
    centred = b.call(_op("subtract"), x, b.constant(1.25, dtype))
    terms = []
    for name in UNARY:
        terms.append(b.call(_op(name), centred if name in ("negative", "abs", "sign", "relu", "expm1", "sin")
                            else x))
    for name in BINARY:
        terms.append(b.call(_op(name), x, y) if name != "pow" else b.call(_op(name), z, s))
    terms.append(b.call(E._leaky_relu, centred, alpha=0.3))
    for name in COMPARE:
        terms.append(b.call(E._where, b.call(_op(name), x, y, out_dtype=me.bool), x, s))
    less = b.call(_op("less"), x, z, out_dtype=me.bool)
    greater = b.call(_op("greater"), y, s, out_dtype=me.bool)
    for name in LOGIC:
        terms.append(b.call(E._where, b.call(_op(name), less, greater), y, z))
    terms.append(b.call(E._where, b.call(_op("logical_not"), less), x, y))
    terms.append(b.call(E._where, b.call(_op("isnan"), x), y, x))
    terms.append(b.call(E._where, b.call(_op("isfinite"), x), x, z))
    terms.append(b.call(E._cast, greater, out_dtype=dtype, dtype=dtype))
    total = terms[0]
    for term in terms[1:]:
        total = b.call(E._add, total, term)
    return b.graph(total)


def test_op_set_is_the_fusible_set():
    covered = set(UNARY + BINARY + COMPARE + LOGIC) | {"leaky_relu", "where", "logical_not", "isnan", "isfinite",
                                                         "cast"}
    assert covered == set(FUSIBLE)


@pytest.mark.parametrize("dtype", [me.float32, me.float64])
@settings(max_examples=12, deadline=None)
@given(n=st.integers(2, 9), m=st.integers(2, 9), data=st.data())   # n, m > 1: one kernel source
def test_fused_op_set_equals_unfused(dtype, n, m, data):
    graph = op_set_graph(dtype, n, m)
    fused, report = elementwise_fusion.with_report(graph)
    (node,) = calls(fused)
    assert isinstance(node.op, FusedOp) and len(node.op.members) == len(calls(graph))
    modes = {source.name: mode for source, mode in zip(node.inputs, node.op.kernel.modes)}
    assert modes == {"x": "full", "y": "row", "z": "full", "s": "scalar", "c1": "scalar"}
    np_dtype = dtype.np_dtype
    arrays = [np.asarray(data.draw(st.lists(st.floats(0.5, 2.0, width=32), min_size=size, max_size=size)),
                         np_dtype).reshape(shape) for shape, size in [((n, m), n * m), ((m,), m), ((n, 1), n), ((), 1)]]
    expected, got = values(graph, *arrays)[0], values(fused, *arrays)[0]
    assert got.dtype == np_dtype and got.shape == (n, m)
    rtol = 2e-5 if dtype == me.float32 else 1e-12
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol)


def tanh_graph(shape_w, dtype=me.float32):
    b = Builder()
    x, w = b.placeholder("x", (4, 5), dtype), b.placeholder("w", shape_w, dtype)
    bias = b.placeholder("b", (5,), dtype)
    h = b.call(E.tanh.op, b.call(E._add, b.call(E._multiply, x, w), bias))
    return b.graph(b.call(E._add, b.call(E._multiply, h, b.constant(0.5, dtype)), x))


def test_fused_kernel_source_is_printable_and_cached_on_disk():
    optimised, reports = optimize(tanh_graph(()))
    (node,) = calls(optimised)
    assert reports[-1].fused == {node.name: ["%1", "%2", "%3", "%5", "%6"]}
    source = node.op.source
    assert "for r in prange(out.shape[0]):" in source            # the bias is read as a row, not copied
    assert "v2 = float32(tanh_contracted(v1))" in source and source.count(" = float32(") == 5   # as the eager loop
    X = np.linspace(-2, 2, 20, dtype=np.float32).reshape(4, 5)
    B = np.arange(5, dtype=np.float32)
    got = values(optimised, X, np.float32(0.7), B)[0]
    np.testing.assert_allclose(got, np.tanh(X * np.float32(0.7) + B) * 0.5 + X, rtol=2e-6)
    path = node.op.kernel.path
    assert os.path.dirname(path) == source_dir() and open(path).read() == source
    again = optimize(tanh_graph(()))[0]     # the same source again: the same file, no new one
    values(again, X, np.float32(0.7), B)
    assert calls(again)[0].op.kernel.path == path


def test_operand_modes():
    assert operand_modes([(4, 5), (), (5,), (1, 5), (4, 1)], (4, 5)) == (["full", "scalar", "row", "row", "full"], 5)
    assert operand_modes([(2, 3, 4), (3, 4), (4,)], (2, 3, 4)) == (["full", "row", "full"], 12)
    assert operand_modes([(1,), (1,)], (1,)) == (["full", "full"], None)


def test_fusion_keeps_values_needed_outside_the_group():
    b = Builder()
    x = b.placeholder("x", (3,))
    t = b.call(E.tanh.op, x)
    y = b.call(E._multiply, t, t)
    z = b.call(E.exp.op, y)
    fused, report = elementwise_fusion.with_report(b.graph(z, t))     # t is an output itself
    assert report.fused == {calls(fused)[-1].name: [y.name, z.name]}
    assert calls(fused)[0].op is E.tanh.op


def test_fused_gradients_equal_unfused():
    """Under a tape the FusedOp's VJP chains its members' rules, broadcasting included."""
    graph = tanh_graph((5,), me.float64)
    fused = elementwise_fusion(graph)
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(s) for s in [(4, 5), (5,), (5,)]]

    def grads(g):
        variables = [me.Variable(a) for a in arrays]
        with me.GradientTape() as tape:
            (out,) = __import__("minieager.graph.ir", fromlist=["run"]).run(g, *variables)
            loss = me.reduce_sum(out * out)
        return [d.numpy() for d in tape.gradient(loss, variables)]
    for got, expected in zip(grads(fused), grads(graph)):
        np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_small_groups_stay_unfused(monkeypatch):
    """Below MIN_SIZE elements the eager ops run in NumPy: a generated kernel would only add a compile."""
    monkeypatch.setattr(fusion, "MIN_SIZE", fusion.SMALL_SIZE)
    assert elementwise_fusion.with_report(tanh_graph(()))[1].fused == {}     # 4 x 5 elements
    b = Builder()
    x = b.placeholder("x", (64, 64))
    y = b.call(E._add, b.call(E.exp.op, x), x)
    assert len(elementwise_fusion.with_report(b.graph(y))[1].fused) == 1


def test_unfused_fallback_runs_the_members_own_kernels():
    """On a device without a code generator a FusedOp runs its members' kernels in turn."""
    (node,) = calls(elementwise_fusion(tanh_graph((5,), me.float64)))
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal((4, 5)), rng.standard_normal(5), rng.standard_normal(5)]
    unfused = node.op._unfused("cpu")(*arrays, np.float64(0.5))
    np.testing.assert_allclose(unfused, np.tanh(arrays[0] * arrays[1] + arrays[2]) * 0.5 + arrays[0], rtol=1e-12)


def test_kernel_source_goes_to_a_temporary_folder_when_the_cache_cannot_be_written(monkeypatch, tmp_path):
    from minieager.graph.passes import fused
    blocked = tmp_path / "a-file"               # a folder inside a file cannot be made (even by root)
    blocked.write_text("")
    monkeypatch.setattr(fused, "source_dir", lambda: str(blocked / "fused"))
    monkeypatch.setattr(fused.tempfile, "gettempdir", lambda: str(tmp_path / "tmp"))
    monkeypatch.setattr(fused, "_loaded", {})
    source = fused.generate_source([fused.Member(E._add, (0, 1), {}, me.float64)], ["full", "scalar"])
    function, path = fused.load(source)
    assert path == str(tmp_path / "tmp" / "minieager-fused" / os.path.basename(path)) and open(path).read() == source
    out = np.empty(3)
    function(np.arange(3.0), np.float64(1.5), out)
    np.testing.assert_array_equal(out, [1.5, 2.5, 3.5])
