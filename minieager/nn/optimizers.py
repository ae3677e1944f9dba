"""``me.optimizers``: SGD, Adam, RMSprop, Adagrad (and the TF 1 ``me.train.*Optimizer`` spellings).

    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))

An update is bookkeeping, not part of the model: it must never be recorded on a tape. So an
optimizer computes the step's scalars (the learning rate, Adam's bias correction) and runs its
update rule as a kernel on the arrays themselves, the kernel of the variable's device
(``kernels/cpu/optimizers.py``, ``kernels/cuda/optimizers.py``): a GPU variable is updated on the
GPU. The kernel returns new arrays, which the variable and its slots then hold. Per-variable state
("slots": momentum, Adam's m and v, ...) lives in non-trainable Variables, so a Checkpoint saves it
with the optimizer.
"""
import math
import warnings

import numpy as np

from ..autodiff.tape import GradientTape
from ..autodiff.variable import Variable
from ..engine.device import device, to_device
from ..engine.recording import tracer
from ..errors import InvalidArgumentError
from ..graph.effects import trace_apply_gradients
from ..kernels.registry import get_kernel
from ._config import Configurable
from ..ops.creation import convert_to_tensor

_global_step = None
_update_kernels = {}   # (rule, device) -> kernel: one dict lookup per variable and step


def get_or_create_global_step():
    """The global step: one int64, non-trainable Variable shared by the whole program, created at 0."""
    global _global_step
    if _global_step is None:
        _global_step = Variable(np.int64(0), trainable=False, name="global_step")
    return _global_step


def get_global_step():
    """The global step, or None if nothing has created it yet."""
    return _global_step


def reset_global_step():
    """Forget the global step (the next get_or_create_global_step() starts a new one at 0)."""
    global _global_step
    _global_step = None


def _store(variable, array):
    """Give ``variable`` the freshly computed ``array`` as its new value.

    The updates compute ``array`` from the variable's own value and a gradient that
    ``apply_gradients`` checked, so only a slip in an update rule could change its dtype or shape:
    that is checked here too, cheaply, instead of going through ``assign``'s conversions.
    """
    if array.dtype != variable._value.dtype or array.shape != variable._value.shape:
        raise AssertionError(f"optimizer update of '{variable.name}' gave {array.dtype} {array.shape}, "
                             f"not {variable._value.dtype} {variable._value.shape}")
    variable._set(to_device(array, variable._device))


class Optimizer(Configurable):
    """Base class. Subclasses name their slots in ``slot_names`` and implement ``_update``."""

    slot_names = ()

    def __init__(self, learning_rate, name):
        self.learning_rate = float(learning_rate)
        self.name = name
        self.iterations = Variable(np.int64(0), trainable=False, name=f"{name}/iter")
        self._slots = {}           # variable id -> {slot name: slot Variable}
        self._slot_list = []       # (variable, slot name, slot Variable), in creation order

    def get_config(self):
        """The constructor's arguments, with the learning rate as it is now (a scheduler may have changed it)."""
        return {**super().get_config(), "learning_rate": self.learning_rate}

    # ---- slots --------------------------------------------------------------------------
    def _slots_for(self, var):
        slots = self._slots.get(var._id)
        if slots is None:
            slots = self._slots[var._id] = {}
            base = var.name.rsplit(":", 1)[0]
            for slot_name in self.slot_names:
                with device(var._device):     # a slot lives beside its variable
                    slot = Variable(self._slot_initial_value(var, slot_name), trainable=False,
                                    name=f"{base}/{self.name}/{slot_name}")
                slots[slot_name] = slot
                self._slot_list.append((var, slot_name, slot))
        return slots

    def _slot_initial_value(self, var, slot_name):
        return np.zeros(var.shape, var.dtype.np_dtype)

    def build(self, var_list):
        """Create the slots of ``var_list`` now (they are otherwise made by the first update)."""
        for var in var_list:
            self._slots_for(var)

    def get_slot(self, var, name):
        """The slot Variable ``name`` (e.g. "m") kept for ``var``."""
        try:
            return self._slots[var._id][name]
        except KeyError:
            raise InvalidArgumentError(
                f"{type(self).__name__} has no slot {name!r} for variable '{var.name}'. Its slots are "
                f"{list(self.slot_names)}, made on the first update of each variable.") from None

    def get_slot_names(self):
        return list(self.slot_names)

    def variables(self):
        """The optimizer's own state: ``iterations``, then every slot Variable in creation order."""
        return [self.iterations] + [slot for _, _, slot in self._slot_list]

    def _slot_variables(self):
        """(primary variable, slot name, slot Variable) triples, for checkpoints to key slots by their variable."""
        return list(self._slot_list)

    def _checkpoint_dependencies(self):
        return [("iter", self.iterations)] + [
            (f"slot/{i}/{slot_name}", slot) for i, (_, slot_name, slot) in enumerate(self._slot_list)]

    # ---- updates ------------------------------------------------------------------------
    def _checked_pairs(self, grads_and_vars, stacklevel):
        """The (gradient, variable) pairs to apply: None gradients left out with a warning, the rest
        checked against their variable's shape and dtype (eager and traced updates alike)."""
        pairs = []
        for grad, var in grads_and_vars:
            if grad is None:
                warnings.warn(f"{type(self).__name__}.apply_gradients: the gradient for variable '{var.name}' "
                              f"is None (the loss does not depend on it), so it is not updated.",
                              stacklevel=stacklevel)
                continue
            grad = convert_to_tensor(grad)
            if grad._value.shape != var._value.shape or grad._dtype is not var._dtype:
                raise InvalidArgumentError(
                    f"{type(self).__name__}.apply_gradients: the gradient for variable '{var.name}' has shape "
                    f"{tuple(grad.shape)} and dtype {grad.dtype.name}, but the variable has shape "
                    f"{tuple(var.shape)} and dtype {var.dtype.name}.")
            pairs.append((grad, var))
        if not pairs:
            raise InvalidArgumentError(
                f"{type(self).__name__}.apply_gradients: no gradients were given for any variable (all were "
                f"None). Check that the loss is computed from the variables inside the GradientTape.")
        return pairs

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Apply one update per (gradient, variable); None gradients are skipped with a warning."""
        tracing = tracer()
        if tracing is not None:   # inside me.function: one effect node that runs this method (graph/effects.py)
            return trace_apply_gradients(tracing, self, grads_and_vars, global_step)
        pairs = self._checked_pairs(grads_and_vars, stacklevel=3)
        step = int(self.iterations) + 1
        for grad, var in pairs:
            g = grad._value if grad._device == var._device else to_device(grad._value, var._device)
            self._update(var, g, self._slots_for(var), step)
            if getattr(var, "constraint", None) is not None:     # as Keras: project after the update
                var.assign(var.constraint(var._snapshot()))
        _store(self.iterations, np.array(step, np.int64))
        if global_step is not None:
            global_step.assign_add(1)
        return self.iterations

    @staticmethod
    def _apply(rule, var, grad, *slots_and_scalars):
        """Run the update kernel ``rule`` ("apply_adam" ...) on ``var``'s device; returns its new arrays."""
        kernel = _update_kernels.get((rule, var._device))
        if kernel is None:
            kernel = _update_kernels[(rule, var._device)] = get_kernel(rule, var._device)
        if isinstance(var._value, np.ndarray) and var._value.ndim == 0:
            # NumPy returns a 0-d result as a scalar, which a kernel's ``out=`` cannot take: update shape (1,)
            args = [a.reshape(1) if isinstance(a, np.ndarray) else a for a in (var._value, grad, *slots_and_scalars)]
            results = kernel(*args)
            return results.reshape(()) if isinstance(results, np.ndarray) else tuple(r.reshape(()) for r in results)
        return kernel(var._value, grad, *slots_and_scalars)

    def minimize(self, loss, var_list=None, global_step=None, name=None):
        """Compute ``loss()`` under a tape and apply its gradients; returns the loss value.

        With no ``var_list``, the trainable variables the loss read are updated.
        """
        if not callable(loss):
            raise TypeError(
                f"{type(self).__name__}.minimize: loss must be a function returning the loss (in eager "
                f"execution the loss has to be recomputed under a tape), got a {type(loss).__name__}.")
        with GradientTape() as tape:
            value = loss()
        if var_list is None:
            var_list = [v for v in tape.watched_variables() if v.trainable]
        var_list = list(var_list)
        grads = tape.gradient(value, var_list)
        self.apply_gradients(zip(grads, var_list), global_step=global_step)
        return value

    def _update(self, var, grad, slots, step):
        """Assign ``var`` its new value from the gradient array ``grad``, on its device (and update ``slots``)."""
        raise NotImplementedError

    def __repr__(self):
        return f"<{type(self).__name__} learning_rate={self.learning_rate} iterations={int(self.iterations)}>"


class SGD(Optimizer):
    """``w -= lr * g``; with momentum, ``v = momentum * v - lr * g; w += v`` (nesterov: ``w += momentum * v - lr * g``)."""

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD"):
        self.momentum, self.nesterov = float(momentum), bool(nesterov)
        if self.momentum:
            self.slot_names = ("momentum",)
        super().__init__(learning_rate, name)

    def _update(self, var, grad, slots, step):
        if not self.momentum:
            _store(var, self._apply("apply_gradient_descent", var, grad, self.learning_rate))
            return
        velocity = slots["momentum"]
        new_w, new_velocity = self._apply("apply_momentum", var, grad, velocity._value, self.learning_rate,
                                          self.momentum, self.nesterov)
        _store(velocity, new_velocity)
        _store(var, new_w)


class Adam(Optimizer):
    """Adam with bias correction: ``m, v`` average g and g^2; ``w -= lr_t * m / (sqrt(v) + epsilon)``,
    ``lr_t = lr * sqrt(1 - beta_2^t) / (1 - beta_1^t)``."""

    slot_names = ("m", "v")

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, name="Adam"):
        super().__init__(learning_rate, name)
        self.beta_1, self.beta_2, self.epsilon = float(beta_1), float(beta_2), float(epsilon)

    def _update(self, var, grad, slots, step):
        b1, b2 = self.beta_1, self.beta_2
        lr_t = self.learning_rate * math.sqrt(1 - b2 ** step) / (1 - b1 ** step)
        new_w, new_m, new_v = self._apply("apply_adam", var, grad, slots["m"]._value, slots["v"]._value,
                                          lr_t, b1, b2, self.epsilon)
        _store(slots["m"], new_m)
        _store(slots["v"], new_v)
        _store(var, new_w)


class RMSprop(Optimizer):
    """``ms = rho * ms + (1 - rho) * g^2; w -= lr * g / (sqrt(ms) + epsilon)`` (with momentum: through a velocity)."""

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, name="RMSprop"):
        self.rho, self.momentum, self.epsilon = float(rho), float(momentum), float(epsilon)
        self.slot_names = ("rms", "momentum") if self.momentum else ("rms",)
        super().__init__(learning_rate, name)

    def _update(self, var, grad, slots, step):
        if self.momentum:
            new_w, new_ms, new_velocity = self._apply(
                "apply_rmsprop_momentum", var, grad, slots["rms"]._value, slots["momentum"]._value,
                self.learning_rate, self.rho, self.momentum, self.epsilon)
            _store(slots["momentum"], new_velocity)
        else:
            new_w, new_ms = self._apply("apply_rmsprop", var, grad, slots["rms"]._value,
                                        self.learning_rate, self.rho, self.epsilon)
        _store(slots["rms"], new_ms)
        _store(var, new_w)


class Adagrad(Optimizer):
    """``acc += g^2; w -= lr * g / (sqrt(acc) + epsilon)``; acc starts at ``initial_accumulator_value``."""

    slot_names = ("accumulator",)

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7, name="Adagrad"):
        super().__init__(learning_rate, name)
        self.initial_accumulator_value, self.epsilon = float(initial_accumulator_value), float(epsilon)

    def _slot_initial_value(self, var, slot_name):
        return np.full(var.shape, self.initial_accumulator_value, var.dtype.np_dtype)

    def _update(self, var, grad, slots, step):
        new_w, new_accumulator = self._apply("apply_adagrad", var, grad, slots["accumulator"]._value,
                                             self.learning_rate, self.epsilon)
        _store(slots["accumulator"], new_accumulator)
        _store(var, new_w)


# ---- the TF 1 spellings the guide uses (me.train.*): the same optimizers, TF 1 argument names ----
class GradientDescentOptimizer(SGD):
    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(learning_rate, name=name)


class MomentumOptimizer(SGD):
    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum", use_nesterov=False):
        super().__init__(learning_rate, momentum, use_nesterov, name=name)


class AdamOptimizer(Adam):
    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False, name="Adam"):
        super().__init__(learning_rate, beta1, beta2, epsilon, name=name)


class RMSPropOptimizer(RMSprop):
    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False, name="RMSProp"):
        super().__init__(learning_rate, decay, momentum, epsilon, name=name)


class AdagradOptimizer(Adagrad):
    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False, name="Adagrad"):
        super().__init__(learning_rate, initial_accumulator_value, name=name)


_BY_NAME = {"sgd": SGD, "adam": Adam, "rmsprop": RMSprop, "adagrad": Adagrad}


def get(identifier):
    """An optimizer from a name ("adam", "sgd", "rmsprop", "adagrad", with default settings) or itself."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, str) and identifier.lower() in _BY_NAME:
        return _BY_NAME[identifier.lower()]()
    raise InvalidArgumentError(
        f"Unknown optimizer {identifier!r}: pass an optimizer object or one of {', '.join(sorted(_BY_NAME))}.")


def __getattr__(name):
    from .._hints import missing
    raise missing(__name__, name)   # a TF name minieager lacks: say what to use instead
