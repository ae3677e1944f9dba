"""TF names tutorials and the TF 1.x guide use (issue 28): ``tfe = me.contrib.eager``,
``import minieager.compat.v1 as tf``, ``me.dtypes``, ``me.linspace`` of ints, ``me.debugging.assert_*``,
``me.TensorArray``. Expected values are TensorFlow 2.21's for the same code."""
import importlib

import numpy as np
import pytest

import minieager as me
from minieager.errors import InvalidArgumentError, OutOfRangeError


# ---- tfe = me.contrib.eager ------------------------------------------------------------------------
def test_contrib_eager_is_an_importable_module_with_the_guides_tfe_names():
    tfe = importlib.import_module("minieager.contrib.eager")
    assert me.contrib.eager is tfe
    for name in ("Variable", "GradientTape", "gradients_function", "value_and_gradients_function",
                 "implicit_gradients", "implicit_value_and_gradients", "num_gpus", "py_func", "Iterator",
                 "metrics", "Checkpoint", "defun", "executing_eagerly", "enable_eager_execution", "Network"):
        assert hasattr(tfe, name), name
    assert tfe.Variable is me.Variable and tfe.GradientTape is me.GradientTape
    assert me.contrib.summary is me.summary
    with pytest.raises(AttributeError, match="module 'me.contrib.eager' has no attribute 'nope'"):
        tfe.nope


def test_the_guides_tfe_examples_run():
    tfe = me.contrib.eager
    w = tfe.Variable([[1.0]])                     # the guide: [tf.Tensor([[2.]], ...)]
    with tfe.GradientTape() as tape:
        loss = w * w
    assert tape.gradient(loss, [w])[0].numpy().tolist() == [[2.0]]
    m = tfe.metrics.Mean("loss")                  # the guide: 2.5, then 5.5, float64
    m(0)
    m(5)
    assert m.result().numpy() == 2.5 and m.result().dtype == me.float64
    m([8, 9])
    assert m.result().numpy() == 5.5
    x, y = tfe.Iterator(me.data.Dataset.from_tensor_slices(([1.0, 2.0], [3, 4]))).next()
    assert (x.numpy(), y.numpy()) == (1.0, 3)
    grad = tfe.gradients_function(lambda v: v * v)
    assert grad(3.0)[0].numpy() == 6.0


def test_tfe_py_func_in_a_compat_v1_session():
    tf = importlib.import_module("minieager.compat.v1")
    tfe = me.contrib.eager
    with tf.Session() as sess:
        x = tf.placeholder(dtype=tf.float32)
        pf = tfe.py_func(lambda t: tf.matmul(t, t), [x], tf.float32)
        np.testing.assert_array_equal(sess.run(pf, feed_dict={x: [[2.0]]}), [[4.0]])   # the guide: [[4.0]]


def test_tfe_network_tracks_its_layers():
    class MNISTModel(me.contrib.eager.Network):
        def __init__(self):
            super().__init__()
            self.layer1 = self.track_layer(me.layers.Dense(units=10))
            self.layer2 = self.track_layer(me.layers.Dense(units=10))

        def call(self, inputs):
            return self.layer2(self.layer1(inputs))

    model = MNISTModel()
    assert model(me.zeros((2, 784))).shape == (2, 10)
    assert len(model.trainable_variables) == 4


# ---- import minieager.compat.v1 as tf ---------------------------------------------------------------
def test_compat_v1_is_a_module_with_tf1_and_every_minieager_name():
    tf = importlib.import_module("minieager.compat.v1")
    assert me.compat.v1 is tf
    assert tf.constant is me.constant and tf.float32 is me.float32
    assert tf.Session is importlib.import_module("minieager.graph.compat.v1").Session
    assert "placeholder" in dir(tf) and "matmul" in dir(tf)
    with pytest.raises(AttributeError, match="module 'me.compat.v1' has no attribute 'nope'"):
        tf.nope


# ---- me.dtypes, linspace ---------------------------------------------------------------------------
def test_dtypes_module_has_tfs_names():
    assert me.dtypes.int32 is me.int32 and me.dtypes.float32 is me.float32 and me.dtypes.bool is me.bool
    assert me.dtypes.as_dtype("float64") is me.float64
    assert me.dtypes.double is me.float64 and me.dtypes.half is me.float16
    assert me.dtypes.cast(me.constant(1.7), me.int32).numpy() == 1


def test_linspace_of_ints_is_float64_as_tf():
    t = me.linspace(-2, 2, 201)        # TF: float64
    assert t.dtype == me.float64 and t.shape == (201,)
    np.testing.assert_allclose(t.numpy(), np.linspace(-2, 2, 201))
    assert me.linspace(-2.0, 2, 5).dtype == me.float32       # a Python float end: float32, as TF
    assert me.linspace(me.constant(0.0, me.float64), 1, 3).dtype == me.float64
    with pytest.raises(InvalidArgumentError, match="linspace: start and stop must be number scalars"):
        me.linspace([0.0, 1.0], 2.0, 3)


# ---- me.debugging.assert_equal ----------------------------------------------------------------------
def test_assert_equal_passes_returns_none_and_broadcasts():
    assert me.debugging.assert_equal(me.constant([1, 2]), me.constant([1, 2])) is None
    assert me.debugging.assert_equal(me.constant([1, 1]), 1) is None       # TF: a Python value broadcasts


def test_assert_equal_failure_names_the_condition_and_values():
    with pytest.raises(InvalidArgumentError, match=r"(?s)^msg\nassert_equal: condition x == y did not hold.*\[\[1\]\]"):
        me.debugging.assert_equal(me.constant([1, 2]), me.constant([1, 3]), message="msg")
    with pytest.raises(InvalidArgumentError, match=r"assert_equal: shapes \(2,\) and \(3,\) are incompatible"):
        me.debugging.assert_equal(me.constant([1, 2]), me.constant([1, 2, 3]))
    with pytest.raises(InvalidArgumentError, match="assert_equal: x is float32 but y is int32"):
        me.debugging.assert_equal(me.constant([1.0]), me.constant([1]))
    with pytest.raises(InvalidArgumentError, match="assert_less: condition x < y"):
        me.debugging.assert_less(me.constant([1, 5]), 3)


def test_assert_inside_function_checks_every_call():
    @me.function
    def f(x):
        me.debugging.assert_less(x, 3)
        return x + 1

    np.testing.assert_array_equal(f(me.constant([1, 2])).numpy(), [2, 3])
    with pytest.raises(InvalidArgumentError, match="assert_less: condition x < y did not hold"):
        f(me.constant([1, 5]))      # the same trace, a new value: checked when the graph runs


# ---- me.TensorArray ---------------------------------------------------------------------------------
def test_tensor_array_write_read_stack_as_tf():
    ta = me.TensorArray(me.float32, size=3)
    ta = ta.write(0, 1.0)
    ta = ta.write(1, 2.0)
    assert ta.size().numpy() == 3
    assert ta.read(2).numpy() == 0.0                  # TF: an unwritten element reads as zeros
    np.testing.assert_array_equal(ta.stack().numpy(), [1.0, 2.0, 0.0])
    d = me.TensorArray(me.float32, size=0, dynamic_size=True)
    for i in range(4):
        d = d.write(i, float(i))
    np.testing.assert_array_equal(d.stack().numpy(), [0.0, 1.0, 2.0, 3.0])
    np.testing.assert_array_equal(d.gather([1, 3]).numpy(), [1.0, 3.0])
    u = me.TensorArray(me.float32, size=2).unstack([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(u.concat().numpy(), [1.0, 2.0, 3.0, 4.0])
    assert me.TensorArray(me.float32, size=0, element_shape=[2]).stack().shape == (0, 2)


def test_tensor_array_errors_as_tf():
    ta = me.TensorArray(me.float32, size=2)
    with pytest.raises(OutOfRangeError, match="index 3 is beyond the array's size 2.*dynamic_size=True"):
        ta.write(3, 1.0)
    with pytest.raises(OutOfRangeError, match="negative indices"):
        ta.write(-1, 1.0)
    with pytest.raises(InvalidArgumentError, match="dtype is float32 but the value is int32"):
        ta.write(0, me.constant(1))
    ta = ta.write(0, 1.0)
    with pytest.raises(InvalidArgumentError, match=r"the value has shape \(2,\), but the elements have shape \(\)"):
        ta.write(1, [1.0, 2.0])
    # TF's tf.function: a read does not clear its element (TF's eager arrays clear it; minieager's eager
    # arrays do as its traced ones, tests/graph/test_tensor_array.py).
    assert ta.read(0).numpy() == ta.read(0).numpy() == 1.0


def test_tensor_array_gradients_flow_to_what_was_written():
    x = me.Variable(2.0)
    with me.GradientTape() as tape:
        ta = me.TensorArray(me.float32, size=2)
        ta = ta.write(0, x * x).write(1, 3.0 * x)
        y = me.reduce_sum(ta.stack())
    assert tape.gradient(y, x).numpy() == 7.0           # TF: 2x + 3 = 7


def test_tensor_array_in_function_with_python_loop_and_tensor_indices():
    @me.function
    def squares(n):
        ta = me.TensorArray(me.int32, size=0, dynamic_size=True)
        for i in range(4):
            ta = ta.write(i, n * i)
        return ta.stack()

    np.testing.assert_array_equal(squares(me.constant(3)).numpy(), [0, 3, 6, 9])

    @me.function
    def at(n):      # TF 2.21: [0, 1] (a tensor index; graph loops: tests/graph/test_tensor_array.py)
        return me.TensorArray(me.int32, size=0, dynamic_size=True).write(n, n).stack()

    np.testing.assert_array_equal(at(me.constant(1)).numpy(), [0, 1])


def test_tf_test_gpu_questions_and_the_tf1_graph_hint():
    assert me.test.is_gpu_available() == (me.num_gpus() > 0)
    assert me.test.gpu_device_name() == ("/device:GPU:0" if me.num_gpus() else "")
    assert isinstance(me.test.is_built_with_cuda(), bool)
    with pytest.raises(AttributeError, match=r"no attribute 'Session'. TF 1's graph API is me.compat.v1"):
        me.Session
