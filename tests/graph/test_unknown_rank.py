"""Tensors of unknown rank while tracing (``input_signature=[me.TensorSpec(None)]``) beyond elementwise ops:
reshape and whole-tensor reductions work and differentiate as TF's do; what needs the rank says so."""
import numpy as np
import pytest

import minieager as me
from minieager.errors import InvalidArgumentError

ANY_RANK = [me.TensorSpec(None, me.float32)]
X = me.constant([[1.0, 2.0], [3.0, 5.0]])


@pytest.mark.parametrize("name, fn, tf_shape", [
    # TF 2.21 with TensorSpec(None): the same values; static output shapes (), (), (None,), (2, 2), ().
    ("reduce_sum", lambda x: me.reduce_sum(x), ()),
    ("reduce_max", lambda x: me.reduce_max(x), ()),
    ("reshape -1", lambda x: me.reshape(x, [-1]), (None,)),
    ("reshape to a shape", lambda x: me.reshape(x, [2, 2]), (2, 2)),
    ("reduce_mean", lambda x: me.reduce_mean(x), ()),
])
def test_reshape_and_whole_reductions_take_an_unknown_rank(name, fn, tf_shape):
    f = me.function(fn, input_signature=ANY_RANK)
    assert tuple(f.get_concrete_function().output_shapes) == tf_shape
    for x in (X, me.constant([1.0, 2.0, 3.0, 4.0]), me.constant(np.arange(8.0, dtype=np.float32).reshape(2, 2, 2))):
        if name == "reshape to a shape" and x.shape.num_elements() != 4:
            continue
        np.testing.assert_array_equal(f(x).numpy(), fn(x).numpy())
    assert f.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("fn", [
    lambda x: me.reduce_sum(x * x),
    lambda x: me.reduce_mean(x * x),
    lambda x: me.reduce_max(x),
    lambda x: me.reduce_sum(me.reshape(x, [-1]) * me.constant([1.0, 2.0, 3.0, 4.0])),
])
def test_gradients_over_an_unknown_rank_equal_eager(fn):
    @me.function(input_signature=ANY_RANK)
    def grad(x):
        with me.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        return tape.gradient(y, x)
    for x in (X, me.constant([1.0, -2.0, 3.0, 0.5])):
        with me.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        np.testing.assert_allclose(grad(x).numpy(), tape.gradient(y, x).numpy(), rtol=1e-6)


def test_integer_mean_of_an_unknown_empty_tensor_is_zero_as_tf():
    # TF 2.21: tf.reduce_mean of an empty int32 tensor traced with TensorSpec(None) gives 0 (the int mean of [1, 2, 4]:
    # 2). The count is known only when the graph runs, and an empty one divides as 1.
    f = me.function(lambda x: me.reduce_mean(x), input_signature=[me.TensorSpec(None, me.int32)])
    assert int(f(me.zeros([0], me.int32))) == 0
    assert int(f(me.constant([1, 2, 4]))) == 2 and int(f(me.constant([[-1, -2]]))) == -1


def test_reshape_to_a_size_the_tensor_does_not_have_names_the_node_and_the_shapes():
    # TF 2.21: InvalidArgumentError "Input to reshape is a tensor with 4 values, but the requested shape has 3"
    # when the graph runs; here eager's message, with the graph node.
    f = me.function(lambda x: me.reshape(x, [3]), input_signature=ANY_RANK)
    with pytest.raises(InvalidArgumentError, match=r"^reshape: cannot reshape a tensor of shape \(2, 2\) \(4 elements\) "
                                                   r"into \(3,\)\..*\(in graph node %0 = reshape"):
        f(X)


@pytest.mark.parametrize("name, fn, what", [
    ("reduce_sum", lambda x: me.reduce_sum(x, axis=0), "its input"),
    ("reduce_mean", lambda x: me.reduce_mean(x, keepdims=True), "its input"),
    ("matmul", lambda x: me.matmul(x, x), "a"),
])
def test_what_needs_the_rank_says_so(name, fn, what):
    # TF 2.21 computes these with an unknown rank (static shape <unknown>); minieager's rules need the rank.
    with pytest.raises(InvalidArgumentError, match=rf"^{name}: {what} has no known rank while the graph is built"):
        me.function(fn, input_signature=ANY_RANK)(X)
