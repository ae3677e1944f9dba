"""The optimizers' update rules on the GPU: one fused kernel per rule, one thread per element.

On the CPU an Adam step is a dozen NumPy calls, each one pass over memory. Here it is one pass:
each thread reads its element of the variable, the gradient and the slots once, does all the
arithmetic in registers and writes the new values once. A step of an optimizer is memory-bound
(a few flops per number read), so one pass instead of a dozen is the whole speed-up; this is why
frameworks ship "fused" optimizer kernels (TensorFlow's ``ResourceApplyAdam``, PyTorch's
``fused=True``). The rules are the same as ``kernels/cpu/optimizers.py``, which these are tested
against; as there, the results are new arrays, never the variable's old one written over.

The scalars (learning rate, betas ...) are passed in the variable's dtype, precomputed on the host
the way NumPy would compute them (``1 - beta_1`` in double precision, then rounded), so a float32
update does float32 arithmetic and gives NumPy's numbers. Other dtypes (float16) take the host
round trip.
"""
import math

from numba import cuda

from ..registry import _lookup, register_kernel
from .host import float_kernel
from .memory import empty, flat, launch


@cuda.jit(cache=True)
def gradient_descent_kernel(w, g, lr, new_w):
    for i in range(cuda.grid(1), w.size, cuda.gridsize(1)):     # the grid-stride loop of elementwise.py
        new_w[i] = w[i] - lr * g[i]


@cuda.jit(cache=True)
def momentum_kernel(w, g, velocity, lr, momentum, nesterov, new_w, new_velocity):
    for i in range(cuda.grid(1), w.size, cuda.gridsize(1)):
        step = -lr * g[i]
        v = momentum * velocity[i] + step
        new_velocity[i] = v
        new_w[i] = w[i] + (momentum * v + step if nesterov else v)


@cuda.jit(cache=True)
def adam_kernel(w, g, m, v, lr_t, beta_1, one_minus_beta_1, beta_2, one_minus_beta_2, epsilon,
                new_w, new_m, new_v):
    for i in range(cuda.grid(1), w.size, cuda.gridsize(1)):
        gi = g[i]
        mi = beta_1 * m[i] + one_minus_beta_1 * gi
        vi = beta_2 * v[i] + one_minus_beta_2 * (gi * gi)
        new_m[i] = mi
        new_v[i] = vi
        new_w[i] = w[i] - lr_t * (mi / (math.sqrt(vi) + epsilon))


@cuda.jit(cache=True)
def rmsprop_kernel(w, g, ms, velocity, lr, rho, one_minus_rho, momentum, epsilon,
                   new_w, new_ms, new_velocity):
    """With ``momentum`` 0 the velocity arrays are never touched (RMSprop without momentum has none)."""
    for i in range(cuda.grid(1), w.size, cuda.gridsize(1)):
        gi = g[i]
        msi = rho * ms[i] + one_minus_rho * (gi * gi)
        new_ms[i] = msi
        step = lr * (gi / (math.sqrt(msi) + epsilon))
        if momentum != 0:
            step += momentum * velocity[i]
            new_velocity[i] = step
        new_w[i] = w[i] - step


@cuda.jit(cache=True)
def adagrad_kernel(w, g, accumulator, lr, epsilon, new_w, new_accumulator):
    for i in range(cuda.grid(1), w.size, cuda.gridsize(1)):
        gi = g[i]
        acc = accumulator[i] + gi * gi
        new_accumulator[i] = acc
        new_w[i] = w[i] - lr * (gi / (math.sqrt(acc) + epsilon))


def _run(kernel, arrays, scalars, outputs):
    """Launch ``kernel`` over the flat ``arrays`` (all of the variable's shape), the ``scalars`` in
    their dtype, and ``outputs`` fresh arrays of that shape; returns the outputs."""
    w = arrays[0]
    new = [empty(w.shape, w.dtype) for _ in range(outputs)]
    kernel[launch(w.size)](*[flat(a) for a in arrays], *[w.dtype.type(s) for s in scalars],
                           *[flat(a) for a in new])
    return new[0] if outputs == 1 else tuple(new)


def apply_gradient_descent(w, g, lr):
    return _run(gradient_descent_kernel, (w, g), (lr,), 1)


def apply_momentum(w, g, velocity, lr, momentum, nesterov):
    new_w, new_velocity = empty(w.shape, w.dtype), empty(w.shape, w.dtype)
    kernel_args = (flat(w), flat(g), flat(velocity), w.dtype.type(lr), w.dtype.type(momentum), bool(nesterov),
                   flat(new_w), flat(new_velocity))
    momentum_kernel[launch(w.size)](*kernel_args)
    return new_w, new_velocity


def apply_adam(w, g, m, v, lr_t, beta_1, beta_2, epsilon):
    return _run(adam_kernel, (w, g, m, v), (lr_t, beta_1, 1 - beta_1, beta_2, 1 - beta_2, epsilon), 3)


def apply_rmsprop(w, g, ms, lr, rho, epsilon):
    # No velocity: ``ms`` stands in for both velocity arrays, which the kernel skips when momentum is 0.
    new_w, new_ms = empty(w.shape, w.dtype), empty(w.shape, w.dtype)
    scalars = [w.dtype.type(s) for s in (lr, rho, 1 - rho, 0.0, epsilon)]
    rmsprop_kernel[launch(w.size)](flat(w), flat(g), flat(ms), flat(ms), *scalars, flat(new_w), flat(new_ms),
                                   flat(ms))
    return new_w, new_ms


def apply_rmsprop_momentum(w, g, ms, velocity, lr, rho, momentum, epsilon):
    return _run(rmsprop_kernel, (w, g, ms, velocity), (lr, rho, 1 - rho, momentum, epsilon), 3)


def apply_adagrad(w, g, accumulator, lr, epsilon):
    return _run(adagrad_kernel, (w, g, accumulator), (lr, epsilon), 2)


for _rule in (apply_gradient_descent, apply_momentum, apply_adam, apply_rmsprop, apply_rmsprop_momentum,
              apply_adagrad):
    register_kernel(_rule.__name__, "gpu")(float_kernel(_rule, _lookup(_rule.__name__, "cpu")))
