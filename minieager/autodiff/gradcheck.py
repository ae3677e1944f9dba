"""``me.testing.check_gradients``: compare a tape's gradients with finite differences.

For ``f(*inputs)`` we pick a fixed random cotangent ``v`` (the same shape as the output) and
compare, for each input, the tape's gradient of ``sum(v * f)`` with the central difference

    (sum(v * f(x + eps e_i)) - sum(v * f(x - eps e_i))) / (2 eps)

at every element ``i`` — or, for inputs with more than ``max_elements`` elements, along a few
random directions instead. Everything runs in float64, where differences of 1e-6 are exact
enough to trust.
"""
from dataclasses import dataclass

import numpy as np

from .. import nest
from ..engine import dtypes
from ..ops.creation import constant, convert_to_tensor
from ..ops.elementwise import multiply
from ..ops.reductions import reduce_sum
from .tape import GradientTape, UnconnectedGradients


class GradientCheckError(AssertionError):
    """The tape's gradient and the finite-difference estimate disagree."""


@dataclass
class GradientCheckResult:
    input_index: int
    max_abs_error: float
    max_rel_error: float
    worst_position: tuple     # element index, or ("direction", k) for random directions
    analytic: float
    numeric: float
    ok: bool


def _objective(f, inputs, cotangents):
    out = nest.flatten(f(*inputs))
    return sum(float(np.sum(o.numpy().astype(np.float64) * v)) for o, v in zip(out, cotangents))


def check_gradients(f, *inputs, eps=1e-6, atol=1e-5, rtol=1e-4, max_elements=256, directions=8,
                    seed=0, raise_on_failure=True):
    """Check ``f``'s gradients at ``inputs``; returns one GradientCheckResult per input."""
    rng = np.random.default_rng(seed)
    xs = [constant(np.asarray(x, dtype=np.float64)) for x in inputs]
    with GradientTape(persistent=True) as tape:
        tape.watch(xs)
        outs = nest.flatten(f(*xs))
    cotangents = [rng.standard_normal(o.shape) for o in outs]
    with tape:
        total = None
        for o, v in zip(outs, cotangents):
            term = reduce_sum(multiply(o, constant(v, dtype=o.dtype)))
            total = term if total is None else total + term
    grads = tape.gradient(total, xs)

    results = []
    for k, x in enumerate(xs):
        base = np.array(x.numpy())
        analytic = np.zeros_like(base) if grads[k] is None else grads[k].numpy()

        def at(point):
            args = list(xs)
            args[k] = constant(point, dtype=dtypes.float64)
            return _objective(f, args, cotangents)

        if base.size <= max_elements:
            probes = []
            for i in np.ndindex(base.shape):
                step = np.zeros_like(base)
                step[i] = eps
                probes.append((i, step, analytic[i]))
        else:
            probes = []
            for d in range(directions):
                direction = rng.standard_normal(base.shape)
                probes.append((("direction", d), direction * eps, float(np.sum(analytic * direction))))
        worst = (0.0, 0.0, (), 0.0, 0.0)
        ok = True
        for position, step, a in probes:
            numeric = (at(base + step) - at(base - step)) / (2 * eps)
            err = abs(a - numeric)
            rel = err / max(abs(a), abs(numeric), 1e-12)
            if err > atol + rtol * abs(numeric):
                ok = False
            if err >= worst[0]:
                worst = (err, rel, position, float(a), float(numeric))
        results.append(GradientCheckResult(k, worst[0], worst[1], worst[2], worst[3], worst[4], ok))
    bad = [r for r in results if not r.ok]
    if bad and raise_on_failure:
        lines = [f"input {r.input_index}: at {r.worst_position} the tape says {r.analytic:.8g}, finite "
                 f"differences say {r.numeric:.8g} (abs error {r.max_abs_error:.3g})" for r in bad]
        raise GradientCheckError("Gradient check failed for " + getattr(f, "__name__", "f") + ":\n  "
                                 + "\n  ".join(lines))
    return results


# ---- TF's gradient checker: me.test.compute_gradient and me.test.max_error ----------------------------
def compute_gradient(f, x, delta=None):
    """The (theoretical, numerical) Jacobians of ``y = f(*x)``, as ``tf.test.compute_gradient``.

    ``x`` is a list or tuple of arguments. Returns two tuples with one 2-D NumPy array per argument,
    of shape (y_size, x_size): the tape's Jacobian and central differences with step ``delta``
    (1e-3 by default, as TF), both computed in the arguments' own dtype. Compare them with
    ``max_error``; check in float64, where the differences are exact enough to trust.
    """
    if not isinstance(x, (list, tuple)):
        raise ValueError(f"compute_gradient: x must be a list or tuple of the arguments of f (as TF), got "
                         f"{type(x).__name__}. Write compute_gradient(f, [x]).")
    delta = 1e-3 if delta is None else float(delta)
    xs = [convert_to_tensor(v) for v in x]
    with GradientTape(persistent=True) as tape:
        tape.watch(xs)
        y = f(*xs)
    y_size = y.shape.num_elements()
    theoretical, numerical = [], []
    for k, xk in enumerate(xs):
        x_size = xk.shape.num_elements()
        jac = tape.jacobian(y, xk, unconnected_gradients=UnconnectedGradients.ZERO)
        theoretical.append(jac.numpy().reshape(y_size, x_size))
        base, columns = np.array(xk.numpy()), []        # (an array even for a scalar: it is stepped in place)
        for j in range(x_size):
            outputs = []
            for sign in (1, -1):
                point = base.copy()
                point.flat[j] += sign * delta
                args = list(xs)
                args[k] = constant(point, dtype=xk.dtype)
                outputs.append(f(*args).numpy().reshape(-1))
            columns.append((outputs[0] - outputs[1]) / np.asarray(2 * delta, base.dtype))
        numerical.append(np.stack(columns, axis=1) if columns else np.zeros((y_size, 0), base.dtype))
    return tuple(theoretical), tuple(numerical)


def max_error(grad1, grad2):
    """The largest elementwise gap between two lists of Jacobians (``tf.test.max_error``)."""
    error = 0.0
    for a, b in zip(grad1, grad2):
        if np.size(a) or np.size(b):
            error = max(error, float(np.max(np.abs(np.asarray(a) - np.asarray(b)))))
    return error
