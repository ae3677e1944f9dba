"""The optimizers' update rules, as kernels: one per rule, named as TensorFlow names them.

An optimizer (``minieager/nn/optimizers.py``) computes the step's scalars (the learning rate,
Adam's bias correction) and hands the arrays to the kernel of its variable's device, so a
variable on the GPU is updated there (``kernels/cuda/optimizers.py``), without a trip to the host.

Each kernel takes the variable's array ``w``, the gradient ``g`` and the slots' arrays, and
returns new arrays: a variable's old array may still be held by a snapshot or a tape, so it is
never written over. The arithmetic is NumPy written to allocate only those new arrays (``out=``
reuses a scratch array for the intermediate steps).
"""
import numpy as np

from ..registry import register_kernel


@register_kernel("apply_gradient_descent")
def apply_gradient_descent(w, g, lr):
    """``w - lr * g``."""
    new_w = np.multiply(g, -lr)
    new_w += w
    return new_w


@register_kernel("apply_momentum")
def apply_momentum(w, g, velocity, lr, momentum, nesterov):
    """``velocity = momentum * velocity - lr * g``; ``w + velocity`` (nesterov: ``w + momentum * velocity - lr * g``)."""
    step = np.multiply(g, -lr)                        # -lr * g
    new_velocity = np.multiply(velocity, momentum)
    new_velocity += step
    if nesterov:
        step += new_velocity * momentum
    else:
        step = new_velocity.copy()
    step += w
    return step, new_velocity


@register_kernel("apply_adam")
def apply_adam(w, g, m, v, lr_t, beta_1, beta_2, epsilon):
    """``m, v`` average ``g`` and ``g^2``; ``w - lr_t * m / (sqrt(v) + epsilon)`` (``lr_t`` is bias-corrected)."""
    new_m = np.multiply(m, beta_1)
    scratch = np.multiply(g, 1 - beta_1)
    new_m += scratch
    new_v = np.multiply(v, beta_2)
    np.multiply(g, g, out=scratch)
    scratch *= 1 - beta_2
    new_v += scratch
    np.sqrt(new_v, out=scratch)
    scratch += epsilon
    np.divide(new_m, scratch, out=scratch)
    scratch *= -lr_t
    scratch += w
    return scratch, new_m, new_v


def _rmsprop_step(g, ms, lr, rho, epsilon):
    """(the step ``lr * g / (sqrt(ms') + epsilon)``, the new mean square ``ms' = rho * ms + (1 - rho) * g^2``)."""
    new_ms = np.multiply(ms, rho)
    scratch = np.multiply(g, g)
    scratch *= 1 - rho
    new_ms += scratch
    np.sqrt(new_ms, out=scratch)
    scratch += epsilon
    np.divide(g, scratch, out=scratch)
    scratch *= lr
    return scratch, new_ms


@register_kernel("apply_rmsprop")
def apply_rmsprop(w, g, ms, lr, rho, epsilon):
    """``w - lr * g / (sqrt(ms') + epsilon)``, with ``ms' = rho * ms + (1 - rho) * g^2``."""
    step, new_ms = _rmsprop_step(g, ms, lr, rho, epsilon)
    return w - step, new_ms


@register_kernel("apply_rmsprop_momentum")
def apply_rmsprop_momentum(w, g, ms, velocity, lr, rho, momentum, epsilon):
    """RMSprop's step through a velocity: ``velocity' = momentum * velocity + step``; ``w - velocity'``."""
    step, new_ms = _rmsprop_step(g, ms, lr, rho, epsilon)
    new_velocity = np.multiply(velocity, momentum)
    new_velocity += step
    return w - new_velocity, new_ms, new_velocity


@register_kernel("apply_adagrad")
def apply_adagrad(w, g, accumulator, lr, epsilon):
    """``accumulator' = accumulator + g^2``; ``w - lr * g / (sqrt(accumulator') + epsilon)``."""
    new_accumulator = np.multiply(g, g)
    new_accumulator += accumulator
    scratch = np.sqrt(new_accumulator)
    scratch += epsilon
    np.divide(g, scratch, out=scratch)
    scratch *= -lr
    scratch += w
    return scratch, new_accumulator
