"""Lesson 04's hidden checks: only the grader runs them."""
import numpy as np

import minieager as me
from course.expect import expect, expect_close
from course.spec import check, visible_module

lesson = visible_module("04_kernels_and_layers")


@check("numba_kernel", points=2)
class SoftsignKernelRandomShapes:
    """Inputs of rank 1-4, random sizes and scale, in both float dtypes, drawn fresh for every submission."""
    probe_helpers = (lesson.probe_kernel,)

    def cases(rng):
        shapes = [tuple(int(n) for n in rng.integers(1, 5, size=rank)) for rank in (1, 2, 3, 4)]
        cases = lesson.kernel_cases(rng, [(s, d) for s, d in zip(shapes, ("float32", "float64", "float32", "float64"))])
        for case in cases:
            case["x"] = case["x"] * np.asarray(rng.uniform(1, 100), dtype=case["x"].dtype)
        return cases

    def probe(ns, x, dtype):
        return probe_kernel(ns, x, dtype)

    def judge(got, x, dtype):
        lesson.judge_kernel(got, x, dtype)


@check("dense_layer", points=1)
class DenseBuildsForRandomSizes:
    """Units, features and batch drawn fresh."""
    probe_helpers = (lesson.probe_dense_build,)

    def cases(rng):
        return [{"units": int(rng.integers(1, 9)), "features": int(rng.integers(1, 9)), "batch": int(rng.integers(1, 5))}]

    def probe(ns, units, features, batch):
        return probe_dense_build(ns, units, features, batch)

    def judge(got, units, features, batch):
        lesson.judge_dense_build(got, units, features, batch)


@check("dense_layer", points=2)
class DenseFormulaRandomSizes:
    """Random sizes and bias, with no activation, relu and tanh."""
    probe_helpers = (lesson.probe_dense_formula,)

    def cases(rng):
        cases = []
        for activation in (None, "relu", "tanh"):
            units, features, batch = (int(n) for n in rng.integers(1, 7, size=3))
            cases.append({"units": units, "activation": activation,
                          "x": rng.normal(size=(batch, features)).astype(np.float32),
                          "bias": [float(b) for b in rng.normal(size=units)]})
        return cases

    def probe(ns, units, activation, x, bias):
        return probe_dense_formula(ns, units, activation, x, bias)

    def judge(got, units, activation, x, bias):
        lesson.judge_dense_formula(got, units, activation, x, bias)


@check("dense_layer", points=1)
class DenseGradientsRandomBatch:
    """The gradients of sum(layer(x)) for a random batch."""
    probe_helpers = (lesson.probe_dense_gradients,)

    def cases(rng):
        return [{"units": int(rng.integers(1, 6)), "x": rng.normal(size=tuple(int(n) for n in rng.integers(1, 6, 2)))}]

    def probe(ns, units, x):
        return probe_dense_gradients(ns, units, x)

    def judge(got, units, x):
        lesson.judge_dense_gradients(got, units, x)


@check("train_digits", points=1)
class PrepareRandomImages:
    """prepare on a random number of random images."""
    probe_helpers = (lesson.probe_prepare,)

    def cases(rng):
        return lesson.prepare_cases(rng, int(rng.integers(1, 20)))

    def probe(ns, images, labels):
        return probe_prepare(ns, images, labels)

    def judge(got, images, labels):
        lesson.judge_prepare(got, images, labels)


@check("train_digits", points=2)
class OneTrainStepIsAnSgdStep:
    """One train_step with SGD(0.1) from the grader's weights, against the same step on minieager's tape."""

    def cases(rng):
        n = int(rng.integers(2, 17))
        shapes = [(64, 32), (32,), (32, 10), (10,)]
        return [{"weights": [rng.normal(size=s).astype(np.float32) * 0.3 for s in shapes],
                 "x": rng.uniform(0, 1, size=(n, 64)).astype(np.float32),
                 "y": rng.integers(0, 10, size=n).astype(np.int32)}]

    def probe(ns, weights, x, y):
        model = learner(ns, "make_model")()
        model(me.zeros((1, 64)))
        variables = list(model.trainable_variables)
        for v in variables:                 # the grader's weights, each to the variable of its shape
            v.assign(next(w for w in weights if list(np.shape(w)) == list(v.shape)))
        loss = learner(ns, "train_step")(model, me.optimizers.SGD(0.1), me.constant(x), me.constant(y))
        return {"loss": loss, "after": {str(list(v.shape)): v for v in variables}}

    def judge(got, weights, x, y):
        variables = [me.Variable(w) for w in weights]
        w1, b1, w2, b2 = variables
        with me.GradientTape() as tape:
            logits = me.matmul(me.nn.relu(me.matmul(me.constant(x), w1) + b1), w2) + b2
            loss = me.reduce_mean(me.nn.sparse_softmax_cross_entropy_with_logits(labels=me.constant(y), logits=logits))
        grads = tape.gradient(loss, variables)
        expect_close(got["loss"], loss, f"the loss train_step returned for a batch of {len(y)} at the grader's weights")
        for w, g in zip(weights, grads):
            key = str(list(w.shape))
            expect(key in got["after"], f"make_model() has no variable of shape {tuple(w.shape)}.")
            expect_close(got["after"][key], w - 0.1 * g.numpy(), f"the {tuple(w.shape)} variable after one train_step "
                                                                 f"with SGD(0.1)", rtol=1e-4, atol=1e-5)
