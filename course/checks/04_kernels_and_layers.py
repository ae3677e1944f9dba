"""Lesson 04's visible checks: a numba kernel registered for an op, a Dense layer by hand, and training
it on the digits (format: course/spec.py).

The judges compute every reference here, in the grader: softsign in NumPy, the Dense formula from the
variables the learner's layer made, one training step of the same two-layer model on minieager's own
tape, and the test accuracy from the predicted labels against the test labels the grader loads itself.
"""
import numpy as np

import minieager as me
from course.expect import expect, expect_close, expect_equal
from course.spec import check


def softsign(x):
    x = np.asarray(x, dtype=np.float64)
    return x / (1 + np.abs(x))


# numba_kernel ----------------------------------------------------------------------------------------

def kernel_cases(rng, shapes_and_dtypes):
    return [{"x": np.asarray(rng.normal(size=shape) * 3, dtype=dtype), "dtype": dtype}
            for shape, dtype in shapes_and_dtypes]


def probe_kernel(ns, x, dtype):
    kernel = learner(ns, "softsign_kernel")
    x = np.asarray(x, dtype=dtype)
    before = x.copy()
    got = kernel(x)
    return {"type": type(got).__name__, "value": got if isinstance(got, np.ndarray) else None,
            "unchanged": bool(np.array_equal(x, before))}


def judge_kernel(got, x, dtype):
    shape = tuple(np.shape(x))
    expect(got["type"] == "ndarray", f"softsign_kernel should return a NumPy array, got {got['type']}.")
    expect_equal(got["value"].dtype.name, np.dtype(dtype).name, f"the dtype softsign_kernel returns for a "
                                                                f"{np.dtype(dtype).name} input of shape {shape}")
    expect_close(got["value"], softsign(x), f"softsign_kernel(x) for x of shape {shape}", rtol=1e-5)
    expect(got["unchanged"], "softsign_kernel changed its input: a kernel must return a new array.")


@check("numba_kernel", points=1)
class SoftsignLoopIsCompiledByNumba:
    """softsign_loop is compiled by numba (@njit) and writes softsign(x) into out."""
    cases = [{"x": np.linspace(-3, 3, 7)}]

    def probe(ns, x):
        loop = learner(ns, "softsign_loop")
        out = np.zeros_like(x)
        loop(x, out)
        return {"compiled": hasattr(loop, "py_func"), "out": out}

    def judge(got, x):
        expect(got["compiled"], "softsign_loop should be compiled by numba: put @njit above it.")
        expect_close(got["out"], softsign(x), "softsign_loop(x, out) for x = linspace(-3, 3, 7): what it wrote into out")


@check("numba_kernel", points=3)
class SoftsignKernelShapesAndDtypes:
    """softsign_kernel's values, shape and dtype for a scalar, empty and 1-3-d inputs in float32 and float64."""
    probe_helpers = (probe_kernel,)

    def cases(rng):
        return kernel_cases(rng, [((), "float64"), ((5,), "float32"), ((3, 4), "float64"), ((2, 3, 2), "float32"),
                                  ((0, 3), "float32")])

    def probe(ns, x, dtype):
        return probe_kernel(ns, x, dtype)

    def judge(got, x, dtype):
        judge_kernel(got, x, dtype)


@check("numba_kernel", points=1)
class SoftsignKernelNonContiguous:
    """A transposed (not C-contiguous) input."""

    def cases(rng):
        return [{"x": rng.normal(size=(3, 4)) * 3}]

    def probe(ns, x):
        return learner(ns, "softsign_kernel")(np.asarray(x).T)

    def judge(got, x):
        expect_close(got, softsign(np.asarray(x).T), "softsign_kernel(x) for a transposed (non-contiguous) x of "
                                                     "shape (4, 3)")


@check("numba_kernel", points=2)
class MySoftsignRunsYourKernel:
    """my_softsign runs your kernel (registered for it), and the tape differentiates it."""

    def cases(rng):
        return [{"x": rng.normal(size=(2, 2)) * 2}]

    def probe(ns, x):
        from minieager.extend import get_kernel
        kernel = learner(ns, "softsign_kernel")
        op = learner(ns, "my_softsign")
        x = me.constant(np.asarray(x, dtype=np.float32))
        with me.GradientTape() as tape:
            tape.watch(x)
            y = op(x)
        grad = tape.gradient(y, x)
        return {"registered": get_kernel("my_softsign", "cpu") is kernel, "y": y,
                "grad": None if grad is None else grad}

    def judge(got, x):
        expect(got["registered"], "softsign_kernel is not the kernel registered for 'my_softsign': keep the "
                                  "@register_kernel(\"my_softsign\", \"cpu\") line above it and run the cell again.")
        x32 = np.asarray(x, dtype=np.float32)
        where = f"x = {np.round(x32, 3).tolist()}"
        expect_close(got["y"], softsign(x32), f"my_softsign(x) for {where}")
        expect(got["grad"] is not None, "the tape's gradient of my_softsign(x) came back as None.")
        expect_close(got["grad"], 1 / (1 + np.abs(x32.astype(np.float64))) ** 2,
                     f"the tape's gradient of my_softsign(x) for {where}")


# dense_layer -----------------------------------------------------------------------------------------

ACTIVATIONS = {None: lambda z: z, "relu": lambda z: np.maximum(z, 0), "tanh": np.tanh}


def probe_dense_build(ns, units, features, batch):
    layer = learner(ns, "MyDense")(units)
    before = len(layer.trainable_variables)
    layer(me.ones((batch, features)))
    return {"before": before, "shapes": sorted(list(v.shape) for v in layer.trainable_variables)}


def judge_dense_build(got, units, features, batch):
    expect_equal(got["before"], 0, "the number of variables before the first call")
    expect_equal([tuple(s) for s in got["shapes"]], sorted([(units,), (features, units)]),
                 f"the shapes of MyDense({units})'s variables after a call on ({batch}, {features}) inputs")


def probe_dense_formula(ns, units, activation, x, bias):
    fn = {None: None, "relu": me.nn.relu, "tanh": me.tanh}[activation]
    layer = learner(ns, "MyDense")(units, activation=fn)
    x = me.constant(np.asarray(x, dtype=np.float32))
    layer(x)
    kernel = next(v for v in layer.trainable_variables if len(v.shape) == 2)
    b = next(v for v in layer.trainable_variables if len(v.shape) == 1)
    b.assign(np.asarray(bias, dtype=b.dtype.as_numpy_dtype))
    return {"kernel": kernel.numpy(), "y": layer(x)}


def judge_dense_formula(got, units, activation, x, bias):
    expected = ACTIVATIONS[activation](np.asarray(x, np.float32) @ np.asarray(got["kernel"], np.float32) + bias)
    expect_close(got["y"], expected, f"MyDense({units}, activation={activation}) on a {np.shape(x)} input, with "
                                     f"bias {np.round(bias, 3).tolist()}", rtol=1e-5, atol=1e-5)


def probe_dense_gradients(ns, units, x):
    layer = learner(ns, "MyDense")(units)
    x = me.constant(np.asarray(x, dtype=np.float32))
    with me.GradientTape() as tape:
        loss = me.reduce_sum(layer(x))
    grads = tape.gradient(loss, layer.trainable_variables)
    return [None if g is None else g for g in grads]


def judge_dense_gradients(got, units, x):
    expect(all(g is not None for g in got), "a gradient came back as None: call() must use the variables that "
                                            "build() created (self.kernel and self.bias).")
    by_rank = {np.ndim(g): g for g in got}
    x = np.asarray(x, np.float64)
    where = f"x of shape {x.shape}" if x.size > 6 else f"x = {x.tolist()}"
    expect_close(by_rank.get(2), np.repeat(x.sum(axis=0)[:, None], units, axis=1),
                 f"d sum(layer(x)) / d kernel for MyDense({units}) and {where}", rtol=1e-5)
    expect_close(by_rank.get(1), np.full(units, float(x.shape[0])), f"d sum(layer(x)) / d bias for {where}")


@check("dense_layer", points=1)
class DenseBuildsOnTheFirstCall:
    """No variables before the first call; a kernel (in, units) and a bias (units,) after it."""
    probe_helpers = (probe_dense_build,)
    cases = [{"units": 3, "features": 5, "batch": 2}]

    def probe(ns, units, features, batch):
        return probe_dense_build(ns, units, features, batch)

    def judge(got, units, features, batch):
        judge_dense_build(got, units, features, batch)


@check("dense_layer", points=2)
class DenseComputesTheFormula:
    """activation(x @ kernel + bias), without an activation and with relu."""
    probe_helpers = (probe_dense_formula,)

    def cases(rng):
        return [{"units": 4, "activation": a, "x": rng.normal(size=(3, 2)).astype(np.float32),
                 "bias": [0.5, -0.5, 1.0, -1.0]} for a in (None, "relu")]

    def probe(ns, units, activation, x, bias):
        return probe_dense_formula(ns, units, activation, x, bias)

    def judge(got, units, activation, x, bias):
        judge_dense_formula(got, units, activation, x, bias)


@check("dense_layer", points=1)
class DenseGradientsReachBothVariables:
    """The tape's gradients of sum(layer(x)) for the kernel and the bias."""
    probe_helpers = (probe_dense_gradients,)
    cases = [{"units": 2, "x": [[1.0, 2.0, 3.0]]}]

    def probe(ns, units, x):
        return probe_dense_gradients(ns, units, x)

    def judge(got, units, x):
        judge_dense_gradients(got, units, x)


# train_digits ----------------------------------------------------------------------------------------

def probe_prepare(ns, images, labels):
    x, y = learner(ns, "prepare")(images, labels)
    return {"x": x, "y": y}


def judge_prepare(got, images, labels):
    n = len(images)
    x, y = np.asarray(got["x"]), np.asarray(got["y"])
    expect_equal((tuple(x.shape), x.dtype.name), ((n, 64), "float32"), "the shape and dtype of prepare's images")
    expect_equal((tuple(y.shape), y.dtype.name), ((n,), "int32"), "the shape and dtype of prepare's labels")
    expect_close(x, images.reshape(n, 64) / 16.0, f"prepare's images (pixel / 16) for {n} images")
    expect_equal(y.tolist(), labels.astype(int).tolist(), "prepare's labels")


def prepare_cases(rng, n):
    return [{"images": rng.integers(0, 17, size=(n, 8, 8)).astype(np.uint8),
             "labels": rng.integers(0, 10, size=n).astype(np.uint8)}]


def probe_model(ns, batch):
    MyDense, make_model = learner(ns, "MyDense"), learner(ns, "make_model")
    model = make_model()
    out = model(me.zeros((batch, 64)))
    return {"out_shape": list(out.shape), "layers": [type(layer).__name__ for layer in model.layers],
            "mine": [isinstance(layer, MyDense) for layer in model.layers],
            "shapes": sorted(list(v.shape) for v in model.trainable_variables)}


def judge_model(got, batch):
    expect_equal(tuple(got["out_shape"]), (batch, 10), f"the output shape of make_model() on a ({batch}, 64) batch")
    expect(len(got["mine"]) == 2 and all(got["mine"]),
           f"make_model() should hold two MyDense layers, got {got['layers']}.")
    expect_equal([tuple(s) for s in got["shapes"]], [(10,), (32,), (32, 10), (64, 32)],
                 "the shapes of make_model()'s variables")


@check("train_digits", points=1)
class PrepareGivesFlatScaledImages:
    """prepare's images are (n, 64) float32 scaled to [0, 1], its labels (n,) int32."""
    probe_helpers = (probe_prepare,)
    cases = [{"images": np.arange(2 * 64, dtype=np.uint8).reshape(2, 8, 8) % 17, "labels": np.array([3, 7], np.uint8)}]

    def probe(ns, images, labels):
        return probe_prepare(ns, images, labels)

    def judge(got, images, labels):
        judge_prepare(got, images, labels)


@check("train_digits", points=1)
class MakeModelUsesYourDenseLayers:
    """make_model() is two MyDense layers, 64 -> 32 -> 10."""
    probe_helpers = (probe_model,)
    cases = [{"batch": 5}]

    def probe(ns, batch):
        return probe_model(ns, batch)

    def judge(got, batch):
        judge_model(got, batch)


@check("train_digits", points=3)
class TrainStepLearnsTheDigits:
    """Eight epochs of your train_step with Adam(0.01): the loss falls and the test accuracy reaches 0.90."""

    def cases(rng):
        return [{"seed": int(rng.integers(0, 2 ** 16)), "epochs": 8}]

    def probe(ns, seed, epochs):
        prepare, make_model, train_step = (learner(ns, n) for n in ("prepare", "make_model", "train_step"))
        me.random.set_seed(seed)
        (train_images, train_labels), (test_images, test_labels) = me.datasets.digits.load_data()
        x_train, y_train = prepare(train_images, train_labels)
        x_test, _ = prepare(test_images, test_labels)
        model, optimizer = make_model(), me.optimizers.Adam(learning_rate=0.01)
        rng = np.random.default_rng(seed)
        losses = []
        for epoch in range(epochs):
            order = rng.permutation(len(train_labels)).astype(np.int32)
            for start in range(0, len(order), 128):
                idx = me.constant(order[start:start + 128])
                loss = train_step(model, optimizer, me.gather(x_train, idx), me.gather(y_train, idx))
                value = np.asarray(loss.numpy() if hasattr(loss, "numpy") else loss) if loss is not None else None
                if value is None or value.ndim != 0 or value.dtype.kind not in "iuf":
                    return {"bad_loss": repr(loss)[:200]}
                losses.append(float(value))
        return {"bad_loss": None, "losses": losses, "predicted": me.argmax(model(x_test), axis=1)}

    def judge(got, seed, epochs):
        expect(got["bad_loss"] is None, f"train_step should return the loss, one number; got {got['bad_loss']}.")
        losses = np.asarray(got["losses"], dtype=np.float64)
        expect(np.isfinite(losses).all() and losses[-10:].mean() < 0.5 * losses[:10].mean(),
               f"the loss did not fall: the first ten steps averaged {losses[:10].mean():.3f}, the last ten "
               f"{losses[-10:].mean():.3f}. Does train_step apply the gradients?")
        _, (_, test_labels) = me.datasets.digits.load_data()
        predicted = np.asarray(got["predicted"])
        expect_equal(predicted.shape, test_labels.shape, "the shape of the predicted test labels")
        accuracy = float(np.mean(predicted == test_labels))
        expect(accuracy >= 0.9, f"test accuracy after {epochs} epochs of Adam(0.01): expected at least 0.90, got "
                                f"{accuracy:.2f}.")
