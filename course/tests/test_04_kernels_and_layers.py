"""Lesson 04: a numba kernel registered for an op, and a Dense layer written by hand."""
import numpy as np
import pytest

import minieager as me
from minieager.extend import get_kernel
from course.expect import expect, expect_close, expect_equal, learner


def _softsign(x):
    return x / (1 + np.abs(x))


# numba_kernel --------------------------------------------------------------------------------------

@pytest.mark.numba_kernel
def test_softsign_loop_is_compiled_by_numba(ns):
    loop = learner(ns, "softsign_loop")
    expect(hasattr(loop, "py_func"), "softsign_loop should be compiled by numba: put @njit above it.")
    x = np.linspace(-3, 3, 7)
    out = np.zeros_like(x)
    loop(x, out)
    expect_close(out, _softsign(x), "softsign_loop(x, out) for x = linspace(-3, 3, 7): what it wrote into out")


@pytest.mark.numba_kernel
@pytest.mark.parametrize("shape, dtype", [((), np.float64), ((5,), np.float32), ((3, 4), np.float64),
                                          ((2, 3, 2), np.float32), ((0, 3), np.float32)])
def test_softsign_kernel_values_shapes_and_dtypes(ns, shape, dtype):
    kernel = learner(ns, "softsign_kernel")
    x = np.random.default_rng(5).normal(size=shape).astype(dtype) * 3
    before = x.copy()
    got = kernel(x)
    expect(isinstance(got, np.ndarray), f"softsign_kernel should return a NumPy array, got {type(got).__name__}.")
    expect_equal(got.dtype, x.dtype, f"the dtype softsign_kernel returns for a {np.dtype(dtype).name} input")
    expect_close(got, _softsign(x), f"softsign_kernel(x) for x of shape {shape}", rtol=1e-5)
    expect(np.array_equal(x, before), "softsign_kernel changed its input: a kernel must return a new array.")


@pytest.mark.numba_kernel
def test_softsign_kernel_on_a_non_contiguous_input(ns):
    kernel = learner(ns, "softsign_kernel")
    x = np.arange(12.0).reshape(3, 4).T - 5      # a transposed view: not C-contiguous
    expect_close(kernel(x), _softsign(x), "softsign_kernel(x) for a transposed (non-contiguous) x of shape (4, 3)")


@pytest.mark.numba_kernel
def test_my_softsign_op_runs_your_kernel(ns):
    kernel = learner(ns, "softsign_kernel")
    op = learner(ns, "my_softsign")
    expect(get_kernel("my_softsign", "cpu") is kernel,
           "softsign_kernel is not the kernel registered for 'my_softsign': keep the "
           "@register_kernel(\"my_softsign\", \"cpu\") line above it and run the cell again.")
    x = me.constant([[-2.0, 0.5], [3.0, -0.25]])
    with me.GradientTape() as tape:
        tape.watch(x)
        y = op(x)
    expect_close(y, _softsign(x.numpy()), "my_softsign(x) for x = [[-2, 0.5], [3, -0.25]]")
    expect_close(tape.gradient(y, x), 1 / (1 + np.abs(x.numpy())) ** 2, "the tape's gradient of my_softsign(x)")


# dense_layer ---------------------------------------------------------------------------------------

@pytest.mark.dense_layer
def test_dense_layer_builds_its_variables_on_the_first_call(ns):
    MyDense = learner(ns, "MyDense")
    layer = MyDense(3)
    expect_equal(len(layer.trainable_variables), 0, "the number of variables before the first call")
    layer(me.ones((2, 5)))
    shapes = sorted(tuple(v.shape) for v in layer.trainable_variables)
    expect_equal(shapes, [(3,), (5, 3)], "the shapes of MyDense(3)'s variables after a call on (2, 5) inputs")


@pytest.mark.dense_layer
@pytest.mark.parametrize("activation", [None, "relu"])
def test_dense_layer_computes_the_formula(ns, activation):
    MyDense = learner(ns, "MyDense")
    layer = MyDense(4, activation=me.nn.relu if activation else None)
    x = me.constant(np.random.default_rng(6).normal(size=(3, 2)).astype(np.float32))
    y = layer(x)
    kernel = next(v for v in layer.trainable_variables if len(v.shape) == 2).numpy()
    bias = next(v for v in layer.trainable_variables if len(v.shape) == 1)
    bias.assign(np.array([0.5, -0.5, 1.0, -1.0], dtype=bias.dtype.as_numpy_dtype))
    y = layer(x)
    expected = x.numpy() @ kernel + bias.numpy()
    if activation:
        expected = np.maximum(expected, 0)
    expect_close(y, expected, f"MyDense(4, activation={activation}) on a (3, 2) input, with bias [0.5, -0.5, 1, -1]",
                 rtol=1e-5)


@pytest.mark.dense_layer
def test_dense_layer_gradients_reach_both_variables(ns):
    MyDense = learner(ns, "MyDense")
    layer = MyDense(2)
    x = me.constant([[1.0, 2.0, 3.0]])
    with me.GradientTape() as tape:
        loss = me.reduce_sum(layer(x))
    grads = tape.gradient(loss, layer.trainable_variables)
    expect(all(g is not None for g in grads), "a gradient came back as None: call() must use the variables "
                                              "that build() created (self.kernel and self.bias).")
    by_rank = {len(g.shape): g for g in grads}
    expect_close(by_rank[2], np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]), "d sum(layer(x)) / d kernel for x = [[1, 2, 3]]")
    expect_close(by_rank[1], np.array([1.0, 1.0]), "d sum(layer(x)) / d bias")


# train_digits -----------------------------------------------------------------------------------

@pytest.mark.train_digits
def test_prepare_gives_flat_scaled_float32_images(ns):
    prepare = learner(ns, "prepare")
    images = np.arange(2 * 64, dtype=np.uint8).reshape(2, 8, 8) % 17
    labels = np.array([3, 7], dtype=np.uint8)
    x, y = prepare(images, labels)
    expect_equal((tuple(x.shape), x.dtype.name), ((2, 64), "float32"), "the shape and dtype of prepare's images")
    expect_equal((tuple(y.shape), y.dtype.name), ((2,), "int32"), "the shape and dtype of prepare's labels")
    expect_close(x, images.reshape(2, 64) / 16.0, "prepare's images (pixel / 16)")


@pytest.mark.train_digits
def test_make_model_uses_your_dense_layers(ns):
    MyDense, make_model = learner(ns, "MyDense"), learner(ns, "make_model")
    model = make_model()
    out = model(me.zeros((5, 64)))
    expect_equal(tuple(out.shape), (5, 10), "the output shape of make_model() on a (5, 64) batch")
    expect(all(isinstance(layer, MyDense) for layer in model.layers) and len(model.layers) == 2,
           f"make_model() should hold two MyDense layers, got {[type(layer).__name__ for layer in model.layers]}.")
    expect_equal(sorted(tuple(v.shape) for v in model.trainable_variables), [(10,), (32,), (32, 10), (64, 32)],
                 "the shapes of make_model()'s variables")


@pytest.mark.train_digits
def test_train_step_learns_the_digits(ns):
    prepare, make_model, train_step = (learner(ns, n) for n in ("prepare", "make_model", "train_step"))
    (train_images, train_labels), (test_images, test_labels) = me.datasets.digits.load_data()
    x_train, y_train = prepare(train_images, train_labels)
    x_test, y_test = prepare(test_images, test_labels)
    model, optimizer = make_model(), me.optimizers.Adam(learning_rate=0.01)
    rng = np.random.default_rng(0)
    losses = []
    for epoch in range(8):
        order = rng.permutation(len(train_labels)).astype(np.int32)
        for start in range(0, len(order), 128):
            idx = me.constant(order[start:start + 128])
            loss = train_step(model, optimizer, me.gather(x_train, idx), me.gather(y_train, idx))
            expect(loss is not None and np.ndim(np.asarray(loss.numpy() if hasattr(loss, "numpy") else loss)) == 0,
                   f"train_step should return the loss, one number; got {loss!r}.")
            losses.append(float(loss.numpy() if hasattr(loss, "numpy") else loss))
    expect(np.mean(losses[-10:]) < 0.5 * np.mean(losses[:10]),
           f"the loss did not fall: the first ten steps averaged {np.mean(losses[:10]):.3f}, the last ten "
           f"{np.mean(losses[-10:]):.3f}. Does train_step apply the gradients?")
    accuracy = float(np.mean(me.argmax(model(x_test), axis=1).numpy() == y_test.numpy()))
    expect(accuracy >= 0.9, f"test accuracy after 8 epochs of Adam(0.01): expected at least 0.90, got {accuracy:.2f}.")
