"""Temporary elision: an op writes over an operand only when nothing else can see that operand."""
import functools

import numpy as np
import pytest

import minieager as me
from minieager.engine import temporaries

N = temporaries.MIN_SIZE + 1000   # above the size where reuse starts; not a multiple of a vector

pytestmark = pytest.mark.skipif(not temporaries.SUPPORTED, reason="needs CPython 3.11-3.13 (see temporaries.py)")


@pytest.fixture(params=["numpy", "numba"])
def path(request):
    """Run each test on both kernel paths: at N elements add/multiply/tanh run in NumPy, unless
    the numba loops are switched on from small sizes."""
    if request.param == "numba":
        request.getfixturevalue("numba_loops_from_small_size")
    return request.param


@pytest.fixture
def reused(monkeypatch):
    """The addresses of the arrays that ops were allowed to overwrite, in order."""
    addresses = []
    private_array = temporaries._private_array

    def recording(t):
        array = private_array(t)
        if array is not None:
            addresses.append(_address(array))
        return array
    monkeypatch.setattr(temporaries, "_private_array", recording)
    return addresses


def _address(a):
    a = a._value if isinstance(a, me.Tensor) else a
    return a.__array_interface__["data"][0]


def _data(seed, n=N):
    return np.random.default_rng(seed).standard_normal(n).astype(np.float32)


@pytest.fixture
def xwb():
    return tuple(me.constant(_data(seed)) for seed in range(3))


def test_the_chain_overwrites_its_temporaries_and_computes_the_same(path, xwb, reused):
    x, w, b = xwb
    out = me.tanh(x * w + b) * 0.5 + x
    xn, wn, bn = (t.numpy() for t in xwb)
    np.testing.assert_allclose(out.numpy(), np.tanh(xn * wn + bn) * np.float32(0.5) + xn, rtol=1e-6, atol=1e-6)
    assert len(reused) == 4               # + b, tanh, * 0.5, + x; x * w needs a new array
    assert len(set(reused)) == 1          # all four wrote into the array x * w made
    assert _address(out) == reused[0]


# Each case builds the temporary x * 2 inside the expression itself: passed to a helper as a
# parameter it would have a name there, and would rightly not be reused.
OPERATORS = {
    "+": (lambda x, b: (x * 2) + b, lambda x, b: b + (x * 2), np.add),
    "-": (lambda x, b: (x * 2) - b, lambda x, b: b - (x * 2), np.subtract),
    "*": (lambda x, b: (x * 2) * b, lambda x, b: b * (x * 2), np.multiply),
    "//": (lambda x, b: (x * 2) // b, lambda x, b: b // (x * 2), np.floor_divide),
    "%": (lambda x, b: (x * 2) % b, lambda x, b: b % (x * 2), np.mod),
    "maximum": (lambda x, b: me.maximum(x * 2, b), lambda x, b: me.maximum(b, x * 2), np.maximum),
    "minimum": (lambda x, b: me.minimum(x * 2, b), lambda x, b: me.minimum(b, x * 2), np.minimum),
}


@pytest.mark.parametrize("op", OPERATORS)
def test_every_arithmetic_op_reuses_either_operand(path, op, xwb, reused):
    x, _, b = xwb
    temporary_left, temporary_right, np_fn = OPERATORS[op]
    left = temporary_left(x, b)
    right = temporary_right(x, b)
    np.testing.assert_allclose(left.numpy(), np_fn(x.numpy() * 2, b.numpy()), rtol=1e-6)
    np.testing.assert_allclose(right.numpy(), np_fn(b.numpy(), x.numpy() * 2), rtol=1e-6)
    assert reused == [_address(left), _address(right)]


def test_a_function_reuses_a_temporary_argument(path, xwb, reused):
    x, w, _ = xwb
    out = me.sigmoid(me.multiply(x, w))
    np.testing.assert_allclose(out.numpy(), 1 / (1 + np.exp(-(x.numpy() * w.numpy()))), rtol=1e-6)
    assert reused == [_address(out)]


def test_broadcast_and_scalar_operands_still_allow_reuse_of_the_full_one(path, reused):
    m = me.constant(_data(0).reshape(-1, 8)[: N // 8])
    row = me.constant(_data(1, 8))
    out = (m * 2) + row
    out2 = (m * 2) * 3.0
    np.testing.assert_allclose(out.numpy(), m.numpy() * 2 + row.numpy(), rtol=1e-6)
    np.testing.assert_allclose(out2.numpy(), m.numpy() * 6, rtol=1e-6)
    assert reused == [_address(out), _address(out2)]


# ---- never overwritten ------------------------------------------------------------------------
def _unchanged(tensor, before):
    np.testing.assert_array_equal(tensor.numpy(), before)


def test_a_named_tensor_is_never_overwritten(path, xwb, reused):
    x, w, b = xwb
    y = x * w
    before = y.numpy()
    results = [y + b, b + y, y * 0.5, me.tanh(y), me.add(y, b), me.relu(y),
               y.__add__(b), me.Tensor.__mul__(y, b), me.add(y, y)]
    _unchanged(y, before)
    for r in results:
        assert not np.shares_memory(r.numpy(), y._value)
    assert reused == []


def test_tensors_held_by_containers_closures_and_callers_are_never_overwritten(path, xwb, reused):
    x, w, _ = xwb
    held = [x * w]
    box = {"t": x * w}
    befores = (held[0].numpy(), box["t"].numpy())
    r1 = held[0] + 1.0
    r2 = box["t"] * 2.0
    r3 = list(map(me.tanh, held))[0]
    r4 = functools.partial(me.exp)(held[0])
    _unchanged(held[0], befores[0])
    _unchanged(box["t"], befores[1])
    assert reused == []
    assert len({_address(r) for r in (r1, r2, r3, r4)}) == 4


def test_a_temporary_that_shares_its_array_is_never_overwritten(path, xwb, reused):
    x, w, _ = xwb
    y = x * w
    before = y.numpy()
    viewed = me.reshape(y, [-1, 1]) + 1.0   # the reshape's array is a view of y's
    same = me.identity(y) * 3.0             # identity wraps y's array in a new tensor
    _unchanged(y, before)
    np.testing.assert_allclose(viewed.numpy().ravel(), before + 1, rtol=1e-6)
    np.testing.assert_allclose(same.numpy(), before * 3, rtol=1e-6)
    assert reused == []


def test_arrays_handed_out_to_numpy_are_never_overwritten(path, reused):
    source = _data(5)
    from_numpy = me.constant(source) * 2.0        # constant may keep source's memory
    array = np.asarray(me.constant(source) + 0.0)  # the user holds this tensor's array
    np.testing.assert_array_equal(source, _data(5))
    out = me.constant(array) * 2.0
    np.testing.assert_allclose(array, source, rtol=1e-6)
    np.testing.assert_allclose(out.numpy(), from_numpy.numpy(), rtol=1e-6)


def test_a_variable_is_never_overwritten(path, reused):
    v = me.Variable(_data(6))
    before = v.numpy()
    r1 = me.identity(v) + 1.0
    r2 = v.read_value() * 2.0
    r3 = v + 1.0
    _unchanged(v, before)
    np.testing.assert_allclose(r1.numpy(), before + 1, rtol=1e-6)
    np.testing.assert_allclose(r2.numpy(), before * 2, rtol=1e-6)
    np.testing.assert_allclose(r3.numpy(), before + 1, rtol=1e-6)


def test_under_a_tape_nothing_is_reused_and_gradients_are_right(path, xwb, reused):
    x, w, b = xwb
    with me.GradientTape() as tape:
        tape.watch(x)
        out = me.reduce_sum(me.tanh(x * w + b) * 0.5)
    grad = tape.gradient(out, x)
    xn, wn, bn = (t.numpy() for t in xwb)
    np.testing.assert_allclose(grad.numpy(), 0.5 * (1 - np.tanh(xn * wn + bn) ** 2) * wn, rtol=1e-5, atol=1e-6)
    assert reused == []


def test_a_temporary_of_another_dtype_or_shape_than_the_output_is_not_written_to(path, xwb, reused):
    x, w, _ = xwb
    half = me.cast(x, me.float16)
    column = me.reshape(x, [-1, 1])
    wide = me.constant(np.stack([x.numpy(), w.numpy()], axis=1))
    r1 = (half * 2.0) + 1.0                 # float16 is computed in float32
    r2 = (column * 2.0) + wide              # (N, 1) + (N, 2): the output is larger
    r3 = (x * w) > 0.0                      # a bool output: comparisons never offer operands
    assert len(reused) == 2                 # half * 2.0 and column * 2.0 were offered ...
    # ... and not written to. Each result is compared with the array its own op was offered, which is
    # alive while that op runs; an array freed earlier may hand its address to a later result.
    assert _address(r1) != reused[0] and _address(r2) != reused[1]
    np.testing.assert_allclose(r1.numpy(), half.numpy() * 2 + 1, rtol=1e-3)
    np.testing.assert_allclose(r2.numpy(), column.numpy() * 2 + wide.numpy(), rtol=1e-6)
    np.testing.assert_array_equal(r3.numpy(), x.numpy() * w.numpy() > 0)


def test_small_tensors_are_not_checked(reused):
    x = me.constant(_data(8, temporaries.MIN_SIZE - 1))
    me.tanh(x * 2.0) + 1.0
    assert reused == []


# ---- the switch ---------------------------------------------------------------------------------
def test_reuse_can_be_switched_off(xwb, reused, monkeypatch):
    monkeypatch.setattr(temporaries, "enabled", temporaries.enabled)   # restored afterwards
    x, w, b = xwb
    assert me.config.get_reuse_temporaries() is True
    me.config.set_reuse_temporaries(False)
    out = (x * w) + b
    assert me.config.get_reuse_temporaries() is False
    assert reused == []
    np.testing.assert_allclose(out.numpy(), x.numpy() * w.numpy() + b.numpy(), rtol=1e-6)
    me.config.set_reuse_temporaries(True)
    (x * w) + b
    assert len(reused) == 1


def test_switching_it_on_where_counts_cannot_be_trusted_is_an_error(monkeypatch):
    monkeypatch.setattr(temporaries, "enabled", temporaries.enabled)
    monkeypatch.setattr(temporaries, "SUPPORTED", False)
    with pytest.raises(ValueError, match=r"set_reuse_temporaries: .*CPython 3\.11 to 3\.13"):
        me.config.set_reuse_temporaries(True)
    me.config.set_reuse_temporaries(False)
    assert me.config.get_reuse_temporaries() is False
