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


# ---- ported from TF's python/eager/polymorphic_function/gradients_test.py (FunctionGradientsTest) -----------
# Each test is named after the TF test it mirrors, rewritten against me. (implicit_grad -> me.implicit_gradients,
# gradients_impl.gradients -> me.gradients, ops.Graph -> me.compat.v1.Graph).
COS_DERIVATIVES = [me.cos, lambda x: -me.sin(x), lambda x: -me.cos(x), me.sin, me.cos]


def test_graph_mode_with_gradients():                      # testGraphModeWithGradients
    v = me.Variable(1.0, name="v")

    @me.function
    def step():
        return me.implicit_gradients(lambda: v * v)()[0][0]
    assert float(step()) == 2.0


def test_graph_gradient_variable():                        # testGraphGradientVariable
    tf = me.compat.v1
    with tf.Graph().as_default() as graph:
        v = me.Variable(1.0)
        node = me.function(lambda: 2.0 * v)()
        (grad,) = me.gradients(node, v)
        with tf.Session(graph=graph):
            v.initializer.run()
            assert float(grad.eval()) == 2.0
        assert grad.shape == v.shape


@pytest.mark.parametrize("order", range(5))
def test_symbolic_higher_order(order):                     # testSymbolicHigherOrder
    @me.function
    def f(x, order):
        y = me.function(lambda: me.cos(x))()
        for _ in range(order):
            (y,) = me.gradients(y, [x])
        return y
    np.testing.assert_allclose(f(me.constant(1.0), order).numpy(), COS_DERIVATIVES[order](me.constant(1.0)).numpy(),
                               rtol=1e-6)


@pytest.mark.parametrize("persistent", [True, False])
def test_symbolic_higher_order_under_tape(persistent):     # testSymbolicHigherOrderUnderTape
    @me.function
    def f(x, order):
        with me.GradientTape(persistent=persistent) as tape:
            tape.watch(x)
            y = me.function(lambda: me.cos(x))()
        tape_dy = tape.gradient(y, x)
        # (TF names both loop targets `_`; autograph here then fails with UnboundLocalError when order == 0:
        # reported. Distinct names keep the test about gradients.)
        for i in range(order):
            (y,) = me.gradients(y, [x])
        y1 = y
        if order > 0:
            y1 = tape_dy
            for j in range(order - 1):
                (y1,) = me.gradients(y1, [x])
        return y, y1
    for order, expected in enumerate(COS_DERIVATIVES):
        want = expected(me.constant(1.0)).numpy()
        np.testing.assert_allclose([t.numpy() for t in f(me.constant(1.0), order)], [want, want], rtol=1e-6)


def test_iterated_gradients_nested():                      # testIteratedGradientsNested
    def grad(f):
        def grad_function(primal):
            with me.GradientTape() as tape:
                tape.watch(primal)
                out = f(primal)
            return tape.gradient(out, primal)
        return grad_function
    f = me.function(lambda x: me.cos(x))
    traced = me.function(f)
    one = me.constant(1.0)
    for expected in COS_DERIVATIVES:
        for fn in (f, traced, me.function(f)):
            np.testing.assert_allclose(fn(one).numpy(), expected(one).numpy(), rtol=1e-6)
        f, traced = grad(f), me.function(grad(traced))


def test_iterated_gradients_nested_with_variable():        # testIteratedGradientsNestedWithVariable
    def grad(f):
        def grad_function():
            with me.GradientTape() as tape:
                out = f()
            (g,) = tape.gradient(out, tape.watched_variables())
            return g
        return grad_function
    v = me.Variable(2.0)
    f = me.function(lambda: me.cos(v))
    two = me.constant(2.0)
    for expected in COS_DERIVATIVES:
        np.testing.assert_allclose(f().numpy(), expected(two).numpy(), rtol=1e-6)
        np.testing.assert_allclose(me.function(f)().numpy(), expected(two).numpy(), rtol=1e-6)
        f = grad(f)


def test_iterated_gradients_persistent():                  # testIteratedGradientsPersistent
    f = me.function(lambda z: me.cos(z))
    with me.GradientTape(persistent=True) as tape:
        start = me.constant(1.0)
        tape.watch(start)
        x = f(start)
        for expected in COS_DERIVATIVES:
            np.testing.assert_allclose(x.numpy(), expected(start).numpy(), rtol=1e-6)
            x = tape.gradient(x, start)


def test_higher_order_with_variable():                     # testHigherOrderWithVariable
    v = me.Variable(1.0)
    f = me.function(lambda: me.cos(v))
    with me.GradientTape(persistent=True) as tape:
        x = f()
        for expected in COS_DERIVATIVES:
            np.testing.assert_allclose(x.numpy(), expected(me.constant(1.0)).numpy(), rtol=1e-6)
            (x,) = tape.gradient(x, tape.watched_variables())


def test_gradients_chained():                              # testGradientsChained
    f = me.function(lambda z: me.cos(z))
    x = me.constant(1.0)
    with me.GradientTape() as t:
        t.watch(x)
        y = f(x)
    with me.GradientTape() as tt:
        doutputs = me.constant(2.0)
        tt.watch(doutputs)
        g = t.gradient(y, x, doutputs)
    np.testing.assert_allclose(g.numpy(), -2.0 * np.sin(1.0), rtol=1e-6)
    np.testing.assert_allclose(tt.gradient(g, doutputs).numpy(), -np.sin(1.0), rtol=1e-6)


def test_graph_function_with_gradients():                  # testGraphFunctionWithGradients
    v = me.Variable(1.0, name="v")
    step = me.function(lambda: me.implicit_gradients(lambda: v * v)()[0][0]).get_concrete_function()
    assert step.output_dtypes == me.float32
    assert step.output_shapes == me.TensorShape([])
    assert float(step()) == 2.0


def test_defun_cond_gradient():                            # testDefunCondGradient
    f = me.function(lambda x: me.cond(x > 0.5, lambda: 2 * x, lambda: 3 * x))
    x = me.constant(1.0)
    with me.GradientTape() as t:
        t.watch(x)
        y = f(x)
    assert float(t.gradient(y, x)) == 2.0


def test_graph_loop_gradient():                            # testGraphLoopGradient
    f = me.function(lambda x: me.while_loop(lambda _, i: i < 2, lambda x, i: (2 * x, i + 1), [x, 0])[0])
    x = me.constant(1.0)
    with me.GradientTape() as t:
        t.watch(x)
        y = f(x)
    assert float(t.gradient(y, x)) == 4.0


def test_graph_loop_gradient_inside_session():             # testGraphLoopGradientInsideSession
    # (TF's placeholder has shape=None and a shape invariant; minieager's loop variables keep their shape.)
    tf = me.compat.v1
    with tf.Graph().as_default():
        n = me.constant(2.0)
        x = tf.placeholder(me.float32, shape=[])
        loop = me.function(lambda: me.while_loop(lambda n: n < 10, lambda n: n * x, [n]))()
        dx = me.gradients(loop, [x])[0]
        with tf.Session():
            assert float(dx.eval(feed_dict={x: 2.0})) == 24.0


def test_defun_differentiable():                           # testDefunDifferentiable / ...CanBeDifferentiatedTwice
    v = me.Variable(1.0)
    f = me.function(lambda: v * v)
    assert float(me.implicit_gradients(f)()[0][0]) == 2.0
    assert float(me.implicit_gradients(f)()[0][0]) == 2.0


def test_defun_call_backprop():                            # testDefunCallBackprop
    f = me.function(lambda x: me.add(x, x))
    g = me.function(lambda x: me.gradients_function(f, [0])(x)[0])
    assert float(g(me.constant(2.0))) == 2.0


def test_gradient_through_a_traced_matmul():               # testGradient
    matmul = me.function(me.matmul)
    (grad,) = me.gradients_function(lambda x: matmul(x, x, transpose_a=True), [0])(
        me.constant([[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_array_equal(grad.numpy(), [[6, 6], [14, 14]])


def test_gradient_in_function():                           # testGradientInFunction
    f = me.function(lambda x: me.gradients_function(lambda y: y * y, [0])(x)[0])
    assert float(f(me.constant(1.0))) == 2.0


def test_differentiable_function_none_outputs():           # testDifferentiableFunctionNoneOutputs
    my_function = me.function(lambda x: (x, None))
    assert float(me.gradients_function(lambda x: my_function(x)[0], [0])(me.constant(0.0))[0]) == 1.0
    foo = me.function(lambda a: (None, a * a))
    x = me.constant(5.0)
    with me.GradientTape() as tape:
        tape.watch(x)
        none, r = foo(x)
    assert none is None and float(r) == 25.0 and float(tape.gradient(r, x)) == 10.0
