"""The cells of TensorFlow's guides ``guide/intro_to_graphs`` and ``guide/function`` (tensorflow/docs,
site/en/guide) that use AutoGraph, run with only ``import tensorflow as tf`` changed to minieager.
Each test is one cell (paraphrased only where noted), with what TF prints for it asserted.

Every cell of the two guides that uses AutoGraph is here (the guides have no SavedModel cell).
"""
import re
import timeit

import numpy as np
import pytest

import minieager as tf


def test_intro_to_graphs_cell_19_simple_relu(capsys):
    def simple_relu(x):
        if tf.greater(x, 0):
            return x
        else:
            return 0

    tf_simple_relu = tf.function(simple_relu)

    print("First branch, with graph:", tf_simple_relu(tf.constant(1)).numpy())
    print("Second branch, with graph:", tf_simple_relu(tf.constant(-1)).numpy())
    assert capsys.readouterr().out == "First branch, with graph: 1\nSecond branch, with graph: 0\n"

    # cell 21: the graph-generating output of AutoGraph
    code = tf.autograph.to_code(simple_relu)
    print(code)
    assert "def simple_relu(x):" in code and "ag.if_stmt(tf.greater(x, 0), if_true_" in code


def test_function_cell_35_for_over_tf_range(capsys):
    def train_one_step():
        pass

    @tf.function
    def train(num_steps):
        print("Tracing with num_steps = ", num_steps)
        tf.print("Executing with num_steps = ", num_steps)
        for _ in tf.range(num_steps):
            train_one_step()

    train(num_steps=10)
    train(num_steps=20)
    train(num_steps=tf.constant(10))
    train(num_steps=tf.constant(20))
    out = capsys.readouterr().out.splitlines()
    assert out[:4] == ["Tracing with num_steps =  10", "Executing with num_steps =  10",
                       "Tracing with num_steps =  20", "Executing with num_steps =  20"]
    assert out[4].startswith("Tracing with num_steps =  ") and "symbolic" in out[4]     # traced once
    assert out[5:] == ["Executing with num_steps =  10", "Executing with num_steps =  20"]


def test_function_cells_59_and_61_while_loop_and_its_code(capsys):
    @tf.function
    def f(x):
        while tf.reduce_sum(x) > 1:
            tf.print(x)
            x = tf.tanh(x)
        return x

    result = f(tf.random.uniform([5]))
    assert tf.reduce_sum(result).numpy() <= 1
    printed = capsys.readouterr().out.splitlines()
    assert all(line.startswith("[") for line in printed)       # one line per iteration that ran
    code = tf.autograph.to_code(f.python_function)
    assert "ag.while_stmt(loop_test_" in code and "loop variables: x" in code


def test_function_cell_63_fizzbuzz(capsys):
    @tf.function
    def fizzbuzz(n):
        for i in tf.range(1, n + 1):
            print('Tracing for loop')
            if i % 15 == 0:
                print('Tracing fizzbuzz branch')
                tf.print('fizzbuzz')
            elif i % 3 == 0:
                print('Tracing fizz branch')
                tf.print('fizz')
            elif i % 5 == 0:
                print('Tracing buzz branch')
                tf.print('buzz')
            else:
                print('Tracing default branch')
                tf.print(i)

    fizzbuzz(tf.constant(5))
    fizzbuzz(tf.constant(20))
    out = capsys.readouterr().out.splitlines()
    assert out[:5] == ["Tracing for loop", "Tracing fizzbuzz branch", "Tracing fizz branch",
                       "Tracing buzz branch", "Tracing default branch"]          # each traced once
    expected = [("fizzbuzz" if i % 15 == 0 else "fizz" if i % 3 == 0 else "buzz" if i % 5 == 0 else str(i))
                for n in (5, 20) for i in range(1, n + 1)]
    assert out[5:] == expected


def test_intro_to_graphs_cells_55_to_57_a_python_range_loop_is_unrolled(capsys):
    # Paraphrased: timeit's number=10 instead of 1000 (the timings are only printed).
    x = tf.random.uniform(shape=[10, 10], minval=-1, maxval=2, dtype=tf.dtypes.int32)

    def power(x, y):
        result = tf.eye(10, dtype=tf.dtypes.int32)
        for _ in range(y):
            result = tf.matmul(x, result)
        return result

    print("Eager execution:", timeit.timeit(lambda: power(x, 100), number=10), "seconds")
    power_as_graph = tf.function(power)
    print("Graph execution:", timeit.timeit(lambda: power_as_graph(x, 100), number=10), "seconds")
    out = capsys.readouterr().out
    assert re.fullmatch(r"Eager execution: [0-9.e-]+ seconds\nGraph execution: [0-9.e-]+ seconds\n", out), out
    # TF 2.21: x is int32 with values in {-1, 0, 1}; range(100) is unrolled into 100 matmuls in one graph.
    assert x.dtype == tf.int32 and set(x.numpy().ravel().tolist()) <= {-1, 0, 1}
    np.testing.assert_array_equal(power_as_graph(x, 100).numpy(), power(x, 100).numpy())
    graph = power_as_graph.get_concrete_function(x, 100).graph
    assert sum(1 for n in graph.nodes if n.kind == "call" and n.op.name == "matmul") == 100


def test_function_cell_70_a_tensor_array_accumulates_in_a_graph_loop(capsys):
    # Paraphrased: the input is kept (and drawn with a seed) to check the result; TF prints the tensor.
    batch_size = 2
    seq_len = 3
    feature_size = 4

    def rnn_step(inp, state):
        return inp + state

    @tf.function
    def dynamic_rnn(rnn_step, input_data, initial_state):
        # [batch, time, features] -> [time, batch, features]
        input_data = tf.transpose(input_data, [1, 0, 2])
        max_seq_len = input_data.shape[0]

        states = tf.TensorArray(tf.float32, size=max_seq_len)
        state = initial_state
        for i in tf.range(max_seq_len):
            state = rnn_step(input_data[i], state)
            states = states.write(i, state)
        return tf.transpose(states.stack(), [1, 0, 2])

    tf.random.set_seed(70)
    input_data = tf.random.uniform([batch_size, seq_len, feature_size])
    result = dynamic_rnn(rnn_step, input_data, tf.zeros([batch_size, feature_size]))
    print(result)
    # TF 2.21 prints tf.Tensor([[[...]]], shape=(2, 3, 4), dtype=float32): each state the running sum
    assert capsys.readouterr().out.endswith("shape=(2, 3, 4), dtype=float32)\n")
    np.testing.assert_allclose(result.numpy(), np.cumsum(input_data.numpy(), axis=1), rtol=1e-6)
    graph = dynamic_rnn.get_concrete_function(rnn_step, input_data, tf.zeros([batch_size, feature_size])).graph
    assert len({n.op for n in graph.nodes if n.kind == "call" and n.op.name == "while"}) == 1     # one graph loop


def test_function_cell_67_python_lists_unroll(capsys):
    # Paraphrased: TF counts graph_def nodes (len(g.as_graph_def().node)); minieager's Graph lists them
    # in g.nodes. The tf.data.Dataset half of the cell is left out.
    def measure_graph_size(f, *args):
        g = f.get_concrete_function(*args).graph
        print("{}({}) contains {} nodes in its graph".format(f.__name__, ', '.join(map(str, args)), len(g.nodes)))
        return len(g.nodes)

    @tf.function
    def train(dataset):
        loss = tf.constant(0)
        for x, y in dataset:
            loss += tf.abs(y - x)   # Some dummy computation.
        return loss

    small_data = [(1, 1)] * 3
    big_data = [(1, 1)] * 10
    assert measure_graph_size(train, small_data) < measure_graph_size(train, big_data)   # unrolled


@pytest.mark.filterwarnings("ignore:me.function .recursive_fn. has been traced")   # TF warns here too
def test_function_cells_99_and_101_recursion(capsys):
    @tf.function
    def recursive_fn(n):
        if n > 0:
            return recursive_fn(n - 1)
        else:
            return 1

    with pytest.raises(RecursionError):
        recursive_fn(tf.constant(5))  # Bad - maximum recursion error.

    @tf.function
    def recursive_fn(n):
        if n > 0:
            print('tracing')
            return recursive_fn(n - 1)
        else:
            return 1

    assert recursive_fn(5).numpy() == 1  # Warning - multiple tracings
    assert capsys.readouterr().out == "tracing\n" * 5


def test_function_cells_83_and_85_python_side_effects_and_init_scope(capsys):
    class Model(tf.Module):
        def __init__(self):
            self.v = tf.Variable(0)
            self.counter = 0

        @tf.function
        def __call__(self):
            if self.counter == 0:
                # A python side-effect
                self.counter += 1
                self.v.assign_add(1)

            return self.v

    m = Model()
    for n in range(3):
        print(m().numpy())  # prints 1, 2, 3

    class Model(tf.Module):   # noqa: F811 (cell 85 redefines it, as the guide does)
        def __init__(self):
            self.v = tf.Variable(0)
            self.counter = 0

        @tf.function
        def __call__(self):
            if self.counter == 0:
                # Lifts ops out of function-building graphs
                with tf.init_scope():
                    self.counter += 1
                    self.v.assign_add(1)

            return self.v

    m = Model()
    for n in range(3):
        print(m().numpy())  # prints 1, 1, 1
    assert capsys.readouterr().out == "1\n2\n3\n1\n1\n1\n"


def test_function_cell_122_a_variable_created_on_the_first_trace_only(capsys):
    class Count(tf.Module):
        def __init__(self):
            self.count = None

        @tf.function
        def __call__(self):
            if self.count is None:
                self.count = tf.Variable(0)
            return self.count.assign_add(1)

    c = Count()
    print(c())
    print(c())
    assert capsys.readouterr().out == ("me.Tensor(1, shape=(), dtype=int32)\n"
                                       "me.Tensor(2, shape=(), dtype=int32)\n")
