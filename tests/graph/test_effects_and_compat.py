"""py_function / numpy_function nodes, and me.compat.v1 Session / placeholder / py_func."""
import numpy as np
import pytest

import minieager as me
from minieager.errors import InvalidArgumentError


def test_py_function_runs_python_every_call(capsys):
    calls = []

    def double(x):
        calls.append(me.executing_eagerly())
        return x * 2.0

    @me.function
    def f(x):
        y = me.py_function(double, [x], me.TensorSpec([2], me.float32))
        return y + 1.0                 # a known shape lets later ops use the result
    for _ in range(3):
        np.testing.assert_allclose(f(me.constant([1.0, 2.0])).numpy(), [3.0, 5.0])
    assert calls == [True, True, True]          # eager inside, every call, never while tracing
    node = [n for n in f.get_concrete_function(me.constant([1.0, 2.0])).graph.nodes if n.kind == "call"][0]
    assert node.op.name == "py_function" and node.effect


def test_py_function_with_a_dtype_only_has_an_unknown_shape():
    @me.function
    def f(x):
        return me.numpy_function(lambda a: np.sort(a), [x], me.float32)
    np.testing.assert_allclose(f(me.constant([3.0, 1.0, 2.0])).numpy(), [1.0, 2.0, 3.0])
    assert "float32[...]" in str(f.get_concrete_function(me.constant([3.0, 1.0, 2.0])).graph)   # not even the rank


def test_py_function_result_without_a_shape_works_in_elementwise_ops():
    # As in TF: the result of py_function(f, [x], tf.float32) has an unknown shape, and x * 3.0 of it works.
    @me.function
    def g(x):
        return me.py_function(lambda a: a * 2.0, [x], me.float32) * 3.0 + me.ones([2])
    np.testing.assert_allclose(g(me.constant([1.0, 2.0])).numpy(), [7.0, 13.0])

    @me.function
    def h(x):       # a reduction over a given axis of a result of unknown rank: as TF, when the graph runs
        return me.reduce_sum(me.numpy_function(lambda a: a, [x], me.float32), axis=0)
    np.testing.assert_allclose(h(me.ones([2, 3])).numpy(), [2.0, 2.0, 2.0])
    with pytest.raises(InvalidArgumentError, match="reduce_sum"):     # axis 0 of a scalar: the eager error
        h(me.constant(1.0))


def test_py_function_checks_what_it_returns():
    f = me.function(lambda x: me.py_function(lambda a: a, [x], me.TensorSpec([3], me.float32)))
    with pytest.raises(InvalidArgumentError, match="returned shape \\(2,\\), Tout declares \\(3,\\)"):
        f(me.ones(2))


def test_eager_py_function_and_print():
    np.testing.assert_allclose(me.py_function(lambda a: a + 1.0, [me.ones(2)], me.float32).numpy(), [2.0, 2.0])


def test_guide_eager_in_a_graph_environment(capsys):
    tf = me

    def my_py_func(x):
        x = tf.matmul(x, x)  # You can use tf ops
        print(x)  # but it's eager!
        return x

    with tf.compat.v1.Session() as sess:
        x = tf.compat.v1.placeholder(dtype=tf.float32)
        assert not me.executing_eagerly()
        pf = tf.compat.v1.py_func(my_py_func, [x], tf.float32)
        result = sess.run(pf, feed_dict={x: [[2.0]]})  # [[4.0]]
    assert me.executing_eagerly()
    np.testing.assert_array_equal(result, [[4.0]])
    assert capsys.readouterr().out == "me.Tensor([[4.]], shape=(1, 1), dtype=float32)\n"


def test_seed_placeholder_matmul_session(capsys):
    tf = me
    x = tf.compat.v1.placeholder(tf.float32, shape=[1, 1])
    m = tf.matmul(x, x)
    with tf.compat.v1.Session() as sess:
        print(sess.run(m, feed_dict={x: [[2.]]}))
    assert capsys.readouterr().out == "[[4.]]\n"


def test_session_errors():
    x = me.compat.v1.placeholder(me.float32, shape=[2])
    y = x * 3.0
    with me.compat.v1.Session() as sess:
        with pytest.raises(InvalidArgumentError, match="must feed a value for placeholder 'Placeholder'"):
            sess.run(y)
        with pytest.raises(InvalidArgumentError, match="has shape \\(2,\\), but the value fed has shape \\(3,\\)"):
            sess.run(y, feed_dict={x: [1.0, 2.0, 3.0]})
        np.testing.assert_allclose(sess.run([y, y * 2.0], feed_dict={x: [1.0, 2.0]})[1], [6.0, 12.0])
    with pytest.raises(InvalidArgumentError, match="which is over"):
        y + 1.0


def test_explicit_graph_as_default():
    g = me.compat.v1.Graph()
    with g.as_default():
        a = me.compat.v1.placeholder(me.float64, shape=[], name="a")
        b = a * a
    assert me.executing_eagerly()
    with me.compat.v1.Session(graph=g) as sess:
        assert sess.run(b, feed_dict={a: 3.0}) == 9.0


def test_random_ops_draw_anew_on_every_call_and_follow_the_seed():
    @me.function
    def noise(x):
        return x + me.random.normal([3], seed=5)
    me.random.set_seed(1)
    graph_draws = [noise(me.zeros(3)).numpy() for _ in range(2)]
    me.random.set_seed(1)
    eager_draws = [(me.zeros(3) + me.random.normal([3], seed=5)).numpy() for _ in range(2)]
    assert not np.array_equal(graph_draws[0], graph_draws[1])
    np.testing.assert_array_equal(graph_draws, eager_draws)
    node = [n for n in noise.get_concrete_function(me.zeros(3)).graph.nodes if n.kind == "call"][0]
    assert node.op.name == "random_normal" and node.effect


def test_dropout_in_a_traced_step_masks_differently_each_call():
    layer = me.layers.Dropout(0.5)
    f = me.function(lambda x: layer(x, training=True))
    masks = [f(me.ones(1000)).numpy() != 0 for _ in range(2)]
    assert 300 < masks[0].sum() < 700 and not np.array_equal(masks[0], masks[1])


# ---- TF 1 graphs: get_variable, variable_scope, initializers, eval/run, gradients -----------------------
def test_tf1_graph_with_get_variable_initializer_and_gradients():
    # TF 2.21 (tf.compat.v1 in a tf.Graph): grads [6, 12] and 5.0, y.eval({x: [1, 1]}) == 6.0 (w = 3),
    # init.run() and w.initializer.run() return None, names w:0 and layer1/a:0.
    tf = me.compat.v1
    with tf.Graph().as_default() as graph:
        x = tf.placeholder(me.float32, [2])
        w = tf.get_variable("w", shape=[], initializer=tf.constant_initializer(3.0))
        y = me.reduce_sum(w * x * x)
        grads = me.gradients(y, [x, w])
        init = tf.global_variables_initializer()
        assert isinstance(init, tf.Operation) and isinstance(w.initializer, tf.Operation)
        assert [n.op.name for n in init.nodes] == ["assign_variable"]       # an IR node, as me.function's
        with tf.Session(graph=graph) as sess:
            assert sess.run(init) is None
            gx, gw = sess.run(grads, {x: [1.0, 2.0]})
            np.testing.assert_array_equal(gx, [6.0, 12.0])
            assert float(gw) == 5.0
            assert float(y.eval({x: [1.0, 1.0]})) == 6.0
            w.assign(7.0)          # (recorded into the graph, not run: the value changes only when it runs)
            assert init.run() is None and w.initializer.run() is None
            assert float(y.eval({x: [1.0, 0.0]})) == 3.0
        assert w.name == "w:0" and tf.trainable_variables() == [w]


def test_running_an_initializer_resets_the_variable():
    tf = me.compat.v1
    with tf.Graph().as_default() as graph:
        v = tf.get_variable("v", shape=[2], initializer=tf.ones_initializer())
        bump = tf.assign_add(v, [2.0, 3.0])       # TF 1's tf.assign_add: a tensor that updates v when run
        read = me.identity(v)
        with tf.Session(graph=graph) as sess:
            sess.run(v.initializer)
            np.testing.assert_array_equal(sess.run(bump), [3.0, 4.0])
            np.testing.assert_array_equal(sess.run(bump), [5.0, 7.0])
            np.testing.assert_array_equal(sess.run(read), [5.0, 7.0])
            sess.run(v.initializer)
            np.testing.assert_array_equal(sess.run(read), [1.0, 1.0])


def test_reading_a_variable_before_its_initializer_ran_raises_tf1s_failed_precondition():
    # TF 2.21, compat.v1 with ref variables: FailedPreconditionError "Attempting to use uninitialized value w"
    # from sess.run(y) and sess.run(v) before the initializer ran, also in a second Session (variables are
    # initialized per session); assigning a variable initializes it.
    tf = me.compat.v1
    with tf.Graph().as_default() as graph:
        x = tf.placeholder(me.float32, [None, 2])
        v = tf.get_variable("v", [2], initializer=tf.ones_initializer())
        w = tf.Variable([1.0, 1.0], name="w")
        y = x * v * w
        bump = tf.assign_add(v, [1.0, 1.0])
        with tf.Session(graph=graph) as sess:
            with pytest.raises(me.errors.FailedPreconditionError, match=r"^Attempting to use uninitialized value v "
                                                                       r"\(graph node v, a read of v:0"):
                sess.run(y, {x: [[1.0, 2.0]]})
            with pytest.raises(me.errors.FailedPreconditionError, match="uninitialized value v"):
                sess.run(bump)                     # assign_add reads first
            with pytest.raises(me.errors.FailedPreconditionError, match="uninitialized value v"):
                sess.run(v)
            sess.run(v.initializer)
            with pytest.raises(me.errors.FailedPreconditionError, match=r"uninitialized value w .*"
                                                                       r"sess.run\(w.initializer\)"):
                sess.run(y, {x: [[1.0, 2.0]]})
            sess.run(tf.assign(w, [3.0, 3.0]))     # an assignment initializes too
            np.testing.assert_array_equal(sess.run(y, {x: [[1.0, 2.0]]}), [[3.0, 6.0]])
        with tf.Session(graph=graph) as again:
            with pytest.raises(me.errors.FailedPreconditionError, match="uninitialized value v"):
                again.run(v)
            again.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(again.run(y, {x: [[1.0, 2.0]]}), [[1.0, 2.0]])


def test_variable_scope_and_reuse_as_tf1():
    # TF 2.21's messages for each misuse of get_variable.
    tf = me.compat.v1
    with tf.Graph().as_default():
        with tf.variable_scope("layer1"):
            a = tf.get_variable("a", shape=[2], initializer=tf.zeros_initializer())
            assert a.name == "layer1/a:0"
            with pytest.raises(ValueError, match="Variable layer1/a already exists, disallowed"):
                tf.get_variable("a", shape=[2])
        with tf.variable_scope("layer1", reuse=True):
            assert tf.get_variable("a", shape=[2]) is a
            with pytest.raises(ValueError, match="Variable layer1/zz does not exist"):
                tf.get_variable("zz", shape=[2])
        with tf.variable_scope("layer1", reuse=tf.AUTO_REUSE):
            assert tf.get_variable("a", shape=[2]) is a
            with pytest.raises(ValueError, match=r"specified shape \(3,\) and found shape \(2,\)"):
                tf.get_variable("a", shape=[3])
        with pytest.raises(ValueError, match="did not get an initializer, so its `shape` argument must be specified"):
            tf.get_variable("q")
        d = tf.get_variable("d", shape=[20, 30])         # glorot uniform: |d| <= sqrt(6 / 50)
        assert d.shape == (20, 30) and np.abs(d.numpy()).max() <= np.sqrt(6 / 50)
        assert [v.name for v in tf.global_variables()] == ["layer1/a:0", "d:0"]


def test_eval_and_run_need_a_default_session():
    tf = me.compat.v1
    with tf.Graph().as_default():
        y = tf.placeholder(me.float32, [1]) * 2.0
        with pytest.raises(ValueError, match="no default session is registered"):
            y.eval()


def test_a_tf1_graph_prints_and_draws_as_a_function_graph():
    tf = me.compat.v1
    with tf.Graph().as_default() as graph:
        x = tf.placeholder(me.float32, [2])
        w = tf.get_variable("w", shape=[], initializer=tf.constant_initializer(3.0))
        y = me.reduce_sum(w * x)
        listing = str(graph.as_ir(y))
        assert listing.splitlines()[0] == "def graph(Placeholder: float32[2]):"
        assert "variable 'w:0'" in listing and "reduce_sum" in listing and "assign_variable" not in listing
        assert "assign_variable" in str(graph)          # the whole graph: the initializer too
        assert graph.draw(y)._repr_svg_().startswith("<svg")
