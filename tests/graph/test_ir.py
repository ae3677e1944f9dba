"""The graph IR: nodes, the SSA listing, copies, and run() against eager results."""
import numpy as np
import pytest

import minieager as me
from minieager.engine.dtypes import float32, int64
from minieager.graph import Graph, Node, run
from minieager.ops.elementwise import _add, _multiply
from minieager.ops.linalg import _matmul
from minieager.ops.reductions import _reduce_sum
from minieager.ops.shape import _transpose


def small_graph(variable):
    """f(x) = sum((x @ v) * 2 + x @ v) over axis 1, with v a captured variable."""
    x = Node("placeholder", "x", shape=(2, 3), dtype=float32)
    v = Node("variable", "v0", shape=(3, 4), dtype=float32, value=variable)
    c = Node("constant", "c0", shape=(), dtype=float32, value=np.array(2.0, np.float32))
    m = Node("call", "%0", op=_matmul, inputs=(x, v),
             attrs={"transpose_a": False, "transpose_b": False}, shape=(2, 4), dtype=float32)
    d = Node("call", "%1", op=_multiply, inputs=(m, c), shape=(2, 4), dtype=float32)
    s = Node("call", "%2", op=_add, inputs=(d, m), shape=(2, 4), dtype=float32)
    r = Node("call", "%3", op=_reduce_sum, inputs=(s,), attrs={"axis": (1,), "keepdims": False},
             shape=(2,), dtype=float32)
    return Graph([x, v, c, m, d, s, r], [x], [r, m], name="small")


def eager(x, v):
    m = x @ v
    return np.sum(m * 2 + m, axis=1), m


def test_listing_is_stable_ssa():
    v = me.Variable(np.ones((3, 4), np.float32), name="w")
    g = small_graph(v)
    text = str(g)
    assert text == str(small_graph(v))            # nothing in it depends on memory addresses
    assert text.splitlines() == [
        "def small(x: float32[2,3]):",
        f"    v0 : float32[3,4] = variable '{v.name}'",
        "    c0 : float32[]    = constant 2.0",
        "    %0 : float32[2,4] = matmul(x, v0) {transpose_a=False, transpose_b=False}",
        "    %1 : float32[2,4] = multiply(%0, c0)",
        "    %2 : float32[2,4] = add(%1, %0)",
        "    %3 : float32[2]   = reduce_sum(%2) {axis=(1,), keepdims=False}",
        "    return %3, %0",
    ]


def test_run_equals_eager_and_reads_the_variable_when_run():
    rng = np.random.default_rng(0)
    v = me.Variable(rng.standard_normal((3, 4)).astype(np.float32))
    g = small_graph(v)
    x = rng.standard_normal((2, 3)).astype(np.float32)
    out, m = run(g, x)
    np.testing.assert_allclose(out.numpy(), eager(x, v.numpy())[0], rtol=1e-6)
    np.testing.assert_allclose(m.numpy(), eager(x, v.numpy())[1], rtol=1e-6)
    v.assign(v * 3.0)                             # captured by reference: the next run sees it
    out, _ = run(g, me.constant(x))
    np.testing.assert_allclose(out.numpy(), eager(x, v.numpy())[0], rtol=1e-5)
    assert isinstance(out, me.Tensor) and out.dtype == me.float32


def test_run_under_a_tape_records_ops_so_gradients_flow():
    rng = np.random.default_rng(1)
    v = me.Variable(rng.standard_normal((3, 4)))
    x64 = rng.standard_normal((2, 3))
    g = small_graph(v)
    for n in g.nodes:                             # the same graph in float64
        if n.dtype is float32:
            n.dtype = me.float64
    g.nodes[2].value = np.array(2.0)
    x = me.constant(x64)
    with me.GradientTape() as tape:
        tape.watch(x)
        out, _ = run(g, x)
        loss = me.reduce_sum(out * out)
    gx, gv = tape.gradient(loss, [x, v])
    with me.GradientTape() as tape:
        tape.watch(x)
        m = x @ v
        e = me.reduce_sum(m * 2.0 + m, axis=1)
        loss_e = me.reduce_sum(e * e)
    ex, ev = tape.gradient(loss_e, [x, v])
    np.testing.assert_allclose(gx.numpy(), ex.numpy(), rtol=1e-12)
    np.testing.assert_allclose(gv.numpy(), ev.numpy(), rtol=1e-12)


def test_multi_output_calls_run_once_and_pick():
    from minieager.ops.nn import _sparse_softmax_xent
    logits = Node("placeholder", "logits", shape=(2, 3), dtype=me.float64)
    labels = Node("placeholder", "labels", shape=(2,), dtype=int64)
    loss, grad = [Node("call", f"%{i}", op=_sparse_softmax_xent, inputs=(logits, labels), shape=shape,
                       dtype=me.float64, index=i) for i, shape in enumerate([(2,), (2, 3)])]
    g = Graph([logits, labels, loss, grad], [logits, labels], [grad, loss])
    assert str(g).splitlines()[2].endswith("sparse_softmax_cross_entropy(logits, labels)[1]")
    z = np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]])
    y = np.array([1, 2])
    got_grad, got_loss = run(g, z, y)
    want = _sparse_softmax_xent(me.constant(z), me.constant(y))
    np.testing.assert_allclose(got_loss.numpy(), want[0].numpy())
    np.testing.assert_allclose(got_grad.numpy(), want[1].numpy())
    assert len(g._plans["/cpu:0"][1]) == 3         # one call step, two picks


def test_copy_is_deep_and_independent():
    v = me.Variable(np.ones((3, 4), np.float32))
    g = small_graph(v)
    h = g.copy()
    assert str(h) == str(g)
    assert all(a is not b for a, b in zip(g.nodes, h.nodes))
    assert all(a.op is b.op for a, b in zip(g.nodes, h.nodes))       # the same eager Op objects
    h.nodes[4].inputs = (h.nodes[3], h.nodes[3])
    assert g.nodes[4].inputs[1] is g.nodes[2]                         # the original is unchanged
    assert h.nodes[5].inputs[0] is h.nodes[4] and h.outputs[1] is h.nodes[3]


def test_effect_nodes_are_marked_in_the_listing():
    x = Node("placeholder", "x", shape=(2,), dtype=int64)
    t = Node("call", "%0", op=_transpose, inputs=(x,), attrs={"perm": (0,)}, shape=(2,), dtype=int64, effect=True)
    assert str(Graph([x, t], [x], [t])).splitlines()[1].endswith("transpose(x) {perm=(0,)}  !effect")


def test_bad_node_kind_and_input_count():
    with pytest.raises(ValueError, match="Node kind must be one of"):
        Node("op", "y")
    g = small_graph(me.Variable(np.ones((3, 4), np.float32)))
    with pytest.raises(me.errors.InvalidArgumentError, match="takes 1 inputs \\(x\\), got 2"):
        run(g, np.ones((2, 3), np.float32), np.ones(1))
