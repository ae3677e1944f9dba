"""Bad input gets a clear error of the right type, and nothing else breaks afterwards."""
import re

import numpy as np
import pytest

import minieager as me

CPU_0 = "/job:localhost/replica:0/task:0/device:CPU:0"   # tensor.device, as TF names it

errors = me.errors


@pytest.mark.parametrize("error, builtin", [
    (errors.InvalidArgumentError, ValueError), (errors.NotFoundError, LookupError),
    (errors.UnimplementedError, NotImplementedError), (errors.FailedPreconditionError, RuntimeError),
    (errors.InternalError, RuntimeError)])
def test_error_hierarchy(error, builtin):
    assert issubclass(error, errors.MinieagerError) and issubclass(error, builtin)


# ---- incompatible broadcasting names the op and both shapes ---------------------------------------
@pytest.mark.parametrize("op, a_shape, b_shape", [
    (me.add, (2, 3), (4,)), (me.multiply, (3,), (4,)), (me.subtract, (2, 3, 4), (3, 3)),
    (me.maximum, (5,), (2, 4)), (me.equal, (2,), (3,)), (me.logical_and, (2,), (3,))],
    ids=lambda v: getattr(v, "__name__", str(v)))
def test_incompatible_broadcast(op, a_shape, b_shape):
    dtype = me.bool if op is me.logical_and else me.float32
    message = re.escape(f"{op.__name__}: shapes {a_shape} and {b_shape} are incompatible for broadcasting")
    with pytest.raises(errors.InvalidArgumentError, match=message):
        op(me.zeros(a_shape, dtype=dtype), me.zeros(b_shape, dtype=dtype))


def test_incompatible_broadcast_with_operators():
    with pytest.raises(ValueError, match=r"add: shapes \(2,\) and \(3,\)"):
        me.constant([1, 2]) + me.constant([1, 2, 3])
    with pytest.raises(ValueError, match=r"where: shapes \(2,\) and \(3,\) and \(2,\)"):
        me.where(me.constant([True, False]), me.zeros(3), me.zeros(2))


# ---- matmul and reshape ----------------------------------------------------------------------------------
@pytest.mark.parametrize("a_shape, b_shape, kwargs, message", [
    ((2, 3), (4, 5), {}, r"inner dimensions do not match: \(2, 3\) @ \(4, 5\) multiplies 3 columns by 4 rows"),
    ((2, 3), (2, 3), {}, "multiplies 3 columns by 2 rows"),
    ((2, 3), (2, 3), {"transpose_b": True, "transpose_a": True}, r"\(2, 3\)\^T @ \(2, 3\)\^T"),
    ((3,), (3, 2), {}, "rank >= 2"),
    ((2, 2, 3), (3, 3, 4), {}, r"batch dimensions \(2,\) and \(3,\) do not broadcast"),
], ids=["inner", "square-mismatch", "transposed", "vector", "batch"])
def test_matmul_shape_errors(a_shape, b_shape, kwargs, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        me.matmul(me.ones(a_shape), me.ones(b_shape), **kwargs)
    if not kwargs and len(a_shape) == 2 and len(b_shape) == 2:
        with pytest.raises(ValueError, match="matmul"):
            me.ones(a_shape) @ me.ones(b_shape)


def test_reshape_size_mismatch():
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"cannot reshape a tensor of shape \(2, 3\) \(6 elements\) into \(4,\) \(4 elements\)"):
        me.reshape(me.zeros((2, 3)), [4])


# ---- values that are not tensors ------------------------------------------------------------------------
@pytest.mark.parametrize("value", [[[1, 2], [3]], [[1.0], [2.0, 3.0]], [1, [2, 3]]], ids=str)
def test_ragged_lists(value):
    with pytest.raises(errors.InvalidArgumentError, match="ragged nested list.*same length"):
        me.constant(value)


@pytest.mark.parametrize("value, message", [(["hello", 1], "mixes strings with int"), ([None, 1], "cannot make a tensor"),
                                            ({"a": 1}, "cannot make a tensor")], ids=str)
def test_non_numeric_values(value, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        me.constant(value)


def test_unknown_dtype_name():
    with pytest.raises(errors.InvalidArgumentError, match=r"Unknown dtype name 'float31'\. Known dtypes: .*int32"):
        me.constant(1, dtype="float31")


# ---- out-of-range axes and indices ---------------------------------------------------------------------
X = np.zeros((2, 3), np.float32)


@pytest.mark.parametrize("call, op_name, axis", [
    (lambda: me.reduce_sum(X, axis=2), "reduce_sum", 2),
    (lambda: me.reduce_mean(X, axis=-3), "reduce_mean", -3),
    (lambda: me.reduce_max(X, axis=(0, 5)), "reduce_max", 5),
    (lambda: me.argmax(X, axis=2), "argmax", 2),
    (lambda: me.cumsum(X, axis=-3), "cumsum", -3),
    (lambda: me.concat([X, X], axis=2), "concat", 2),
    (lambda: me.stack([X, X], axis=3), "stack", 3),
    (lambda: me.expand_dims(X, 3), "expand_dims", 3),
    (lambda: me.squeeze(X, 2), "squeeze", 2),
    (lambda: me.split(X, 1, axis=2), "split", 2),
    (lambda: me.gather(X, [0], axis=2), "gather", 2),
    (lambda: me.softmax(X, axis=2), "softmax", 2),
    (lambda: me.unstack(X, axis=-3), "unstack", -3),
], ids=lambda v: v if isinstance(v, str) else "")
def test_out_of_range_axes(call, op_name, axis):
    with pytest.raises(errors.InvalidArgumentError,
                       match=rf"{op_name}: axis {axis} is out of range for a tensor of rank \d"):
        call()


def test_non_integer_axis():
    with pytest.raises(errors.InvalidArgumentError, match="axis must be an int"):
        me.reduce_sum(X, axis=1.5)


@pytest.mark.parametrize("index", [2, -3, (0, 3), (slice(None), 5)], ids=str)
def test_out_of_range_indices(index):
    with pytest.raises(errors.InvalidArgumentError, match=r"out of bounds.*\(tensor shape \(2, 3\)\)"):
        me.constant(X)[index]


def test_out_of_range_gather_index():
    with pytest.raises(errors.InvalidArgumentError, match="index -4 is out of range for axis 0 of size 2"):
        me.gather(X, [0, -4])


@pytest.mark.parametrize("shape", [(3,), (72, 64)], ids=str)   # NumPy's path for tiny arrays, and numba's
def test_integer_to_a_negative_integer_power(shape):
    base = me.ones(shape, dtype=me.int32)
    with pytest.raises(errors.InvalidArgumentError, match="integers to negative integer powers.*me.cast"):
        base ** -1
    with pytest.raises(errors.InvalidArgumentError, match="negative integer powers"):
        me.pow(base, me.constant(-2))


# ---- truth value, devices ---------------------------------------------------------------------------------
def test_bool_of_many_elements():
    with pytest.raises(errors.InvalidArgumentError, match=r"bool\(\) needs a tensor with exactly one element, "
                                                          r"but this one has shape \(2, 3\)"):
        bool(me.constant(X))


def test_unknown_device_string():
    with pytest.raises(errors.InvalidArgumentError, match="Unknown device 'npu:0'"):
        with me.device("npu:0"):
            pass


def test_missing_kernel_is_unimplemented():
    from minieager.engine.op import Op
    with pytest.raises(errors.UnimplementedError, match="No cpu kernel is registered for op 'no_such_op'"):
        Op("no_such_op", ("x",))(me.constant(1.0))


def test_everything_still_works_after_errors():
    for bad in (lambda: me.add(me.zeros(2), me.zeros(3)), lambda: me.constant([[1], [2, 3]]),
                lambda: me.reshape(me.zeros(3), [2]), lambda: me.device("tpu").__enter__()):
        with pytest.raises(errors.MinieagerError):
            bad()
    t = me.constant([[1.0, 2.0]]) @ me.constant([[3.0], [4.0]])
    assert t.numpy().tolist() == [[11.0]] and t.device == CPU_0
