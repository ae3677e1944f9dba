"""tf.function's semantics that TensorFlow's own tests rely on, each checked against TF 2.21's behaviour
(named in the test): variable creation, init_scope, ConcreteFunction's signature properties,
py_function/numpy_function, leaked tensors, Assert."""
import numpy as np
import pytest

import minieager as me
from minieager.errors import InaccessibleTensorError, InvalidArgumentError


# ---- variables ---------------------------------------------------------------------------------------
def test_a_function_creating_a_variable_on_every_call_raises_tf_value_error():
    # TF 2.21: ValueError "tf.function only supports singleton tf.Variables created on the first call";
    # the Python function ran twice (the first trace, then the check).
    runs = []

    @me.function
    def make(x):
        runs.append(1)
        return me.Variable(1.0) * x
    with pytest.raises(ValueError, match="only supports variables created once, on the first call"):
        make(me.constant(1.0))
    assert len(runs) == 2


def test_a_variable_created_on_the_first_call_only_is_allowed():
    # TF 2.21 (def_function_test's "create on first call" pattern): works, the Python body runs twice on the
    # first call and once more for a new signature, which creates nothing.
    class Scale:
        def __init__(self):
            self.v, self.runs = None, 0

        @me.function
        def __call__(self, x):
            self.runs += 1
            if self.v is None:
                self.v = me.Variable(2.0)
            return self.v * x
    s = Scale()
    assert float(s(me.constant(1.0))) == 2.0 and s.runs == 2
    np.testing.assert_array_equal(s(me.constant([1.0, 2.0])).numpy(), [2.0, 4.0])
    assert s.runs == 3
    s.v.assign(3.0)
    assert float(s(me.constant(1.0))) == 3.0 and s.runs == 3     # the same variable, no new trace


def test_init_scope_runs_eagerly_inside_a_trace():
    # TF 2.21: inside tf.init_scope, tf.executing_eagerly() is True and values are computed at trace time.
    @me.function
    def f(x):
        with me.init_scope():
            eager = me.executing_eagerly()
            c = me.constant(2.0) * 3
            value = float(c)               # a real value, readable while tracing
        return x * c, eager, value
    y, eager, value = f(me.constant(1.0))
    assert (float(y), bool(eager), float(value)) == (6.0, True, 6.0)
    assert not any(n.op.name == "multiply" and n.inputs[0].kind == "constant" and n.inputs[1].kind == "constant"
                   for n in f.get_concrete_function(me.constant(1.0)).graph.nodes if n.kind == "call")


def test_init_scope_pauses_tapes():
    x = me.constant(2.0)
    with me.GradientTape() as tape:
        tape.watch(x)
        with me.init_scope():
            y = x * x
    assert tape.gradient(y, x) is None


def test_concrete_function_variables_are_the_captured_ones():
    # TF 2.21: ConcreteFunction.variables = both captured variables, trainable_variables the trainable one.
    w, u = me.Variable(1.0), me.Variable(2.0, trainable=False)
    concrete = me.function(lambda x: w * x + u).get_concrete_function(me.constant(1.0))
    assert concrete.variables == (w, u) or set(map(id, concrete.variables)) == {id(w), id(u)}
    assert len(concrete.variables) == 2
    assert concrete.trainable_variables == (w,)


def test_concrete_function_signature_properties_as_tf():
    # TF 2.21, for f(x, y=2, *, z=None) returning {"a": x * 2, "b": (x, cast(x, int32))}:
    #   structured_input_signature ((TensorSpec(shape=(None, 3), dtype=tf.float32, name='x'), 2), {'z': None})
    #   output_shapes {'a': TensorShape([None, 3]), 'b': (TensorShape([None, 3]), TensorShape([None, 3]))}
    #   output_dtypes {'a': tf.float32, 'b': (tf.float32, tf.int32)}
    @me.function
    def f(x, y=2, *, z=None):
        return {"a": x * 2, "b": (x, me.cast(x, me.int32))}
    spec = me.TensorSpec([4, 3], me.float32, name="x")
    c = f.get_concrete_function(spec)
    assert c.structured_input_signature == ((spec, 2), {"z": None})
    assert c.output_shapes == {"a": (4, 3), "b": ((4, 3), (4, 3))}
    assert isinstance(c.output_shapes["a"], me.TensorShape)
    assert c.output_dtypes == {"a": me.float32, "b": (me.float32, me.int32)}
    outs = c.structured_outputs
    assert set(outs) == {"a", "b"} and isinstance(outs["b"], tuple)
    assert outs["a"].shape == (4, 3) and outs["b"][1].dtype == me.int32


def test_pretty_printed_concrete_signatures_as_tf():
    @me.function
    def f(x, y=2, *, z=None):
        return {"a": x * 2, "b": (x, me.cast(x, me.int32))}
    f(me.constant([1.0]))
    # TF 2.21 prints exactly these lines (with tf. for me.) for this call:
    assert f.pretty_printed_concrete_signatures() == "\n".join([
        "Input Parameters:",
        "  x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(1,), dtype=me.float32, name=None)",
        "  y (POSITIONAL_OR_KEYWORD): Literal[2]",
        "  z (KEYWORD_ONLY): Literal[None]",
        "Output Type:",
        "  Dict[['a', TensorSpec(shape=(1,), dtype=me.float32, name=None)], ['b', Tuple[TensorSpec(shape=(1,), "
        "dtype=me.float32, name=None), TensorSpec(shape=(1,), dtype=me.int32, name=None)]]]",
        "Captures:",
        "  None"])


# ---- py_function and numpy_function ---------------------------------------------------------------------
@pytest.mark.parametrize("traced", [False, True])
def test_py_function_tout_list_gives_a_list_and_a_dtype_a_tensor(traced):
    # TF 2.21: Tout=[tf.float32] -> [<tf.Tensor 2.0>]; Tout=tf.float32 -> <tf.Tensor 2.0>.
    def both(x):
        return (me.py_function(lambda x: x * 2, [x], Tout=[me.float32]),
                me.py_function(lambda x: x * 2, [x], Tout=me.float32))
    as_list, as_tensor = (me.function(both) if traced else both)(me.constant(1.0))
    assert isinstance(as_list, list) and len(as_list) == 1 and float(as_list[0]) == 2.0
    assert isinstance(as_tensor, me.Tensor) and float(as_tensor) == 2.0


def test_py_function_as_a_decorator():
    # TF 2.21: @tf.py_function(Tout=tf.float32) def dec(x): return x * 3; dec(1.0) -> 3.0
    @me.py_function(Tout=me.float32)
    def triple(x):
        return x * 3
    assert float(triple(me.constant(1.0))) == 3.0
    assert float(me.function(lambda x: triple(x))(me.constant(2.0))) == 6.0


@pytest.mark.parametrize("traced", [False, True])
def test_numpy_function_checks_the_returned_dtype(traced):
    # TF 2.21 in tf.function: InvalidArgumentError "0-th value returned by pyfunc_3 is double, but expects float"
    # (no silent cast). minieager raises it eagerly too.
    def f(x):
        return me.numpy_function(lambda a: a.astype(np.float64) * 2, [x], Tout=me.float32)
    with pytest.raises(InvalidArgumentError, match="value 0 returned by <lambda> is float64, but Tout declares "
                                                   "float32"):
        (me.function(f) if traced else f)(me.constant(1.0))
    ok = me.numpy_function(lambda a: a * 2, [me.constant(1.0)], Tout=me.float32)
    assert float(ok) == 2.0 and ok.dtype == me.float32
    assert float(me.py_function(lambda a: 5, [me.constant(1.0)], Tout=me.float32)) == 5.0   # Python numbers convert


# ---- tensors that leave their trace ---------------------------------------------------------------------
def test_numpy_of_a_leaked_tensor_is_an_attribute_error():
    # TF 2.21: AttributeError "'SymbolicTensor' object has no attribute 'numpy'".
    leaked = []
    me.function(lambda x: leaked.append(x * 2) or x)(me.constant(1.0))
    with pytest.raises(AttributeError, match="belongs to the trace of '<lambda>', which is over"):
        leaked[0].numpy()
    with pytest.raises(InaccessibleTensorError):
        leaked[0].numpy()
    assert leaked[0].shape == ()       # its shape and dtype stay known, as TF's
    assert leaked[0].dtype == me.float32


def test_a_leaked_tensor_used_in_another_function_raises_inaccessible_tensor_error():
    # TF 2.21: "<tf.Tensor 'mul:0'> is out of scope and cannot be used here" when used in another function's
    # branch; minieager raises InaccessibleTensorError (a ValueError, as tf.errors.InaccessibleTensorError).
    leaked = []
    me.function(lambda x: leaked.append(x * 2) or x)(me.constant(1.0))
    f = me.function(lambda p: me.cond(p, lambda: leaked[0], lambda: leaked[0]))
    with pytest.raises(InaccessibleTensorError, match="cannot be used in"):
        f(me.constant(True))
    assert issubclass(InaccessibleTensorError, ValueError)


# ---- Assert ----------------------------------------------------------------------------------------
def test_debugging_assert_eagerly_and_in_a_graph():
    # TF 2.21: eagerly, Assert(False, ...) raises InvalidArgumentError at once and Assert(True, ...) returns None;
    # in tf.function it raises "assertion failed: [x must be positive] [-1]" every time the graph runs.
    assert me.debugging.Assert(me.constant(True), ["bad"]) is None
    with pytest.raises(InvalidArgumentError, match=r"assertion failed: \[bad\] \[3\]"):
        me.debugging.Assert(me.constant(False), ["bad", me.constant(3)])
    f = me.function(lambda x: (me.debugging.Assert(x > 0, ["x must be positive", x]), x * 2.0)[1])
    assert float(f(me.constant(1.0))) == 2.0
    with pytest.raises(InvalidArgumentError, match=r"assertion failed: \[x must be positive\] \[-1.0\]"):
        f(me.constant(-1.0))
    assert float(f(me.constant(3.0))) == 6.0
    with pytest.raises(InvalidArgumentError, match=r"condition must be a scalar bool tensor, got bool\[2\]"):
        me.debugging.Assert(me.constant([True, False]), ["v"])
