"""``me.keras.callbacks``: hooks ``fit`` calls at the start and end of training, each epoch and each batch.

As in Keras, a callback sees the model (``self.model``) and the epoch's ``logs`` ({"loss": ...,
"val_loss": ...}), and may stop training by setting ``self.model.stop_training = True``.
"""
import os
import warnings

import numpy as np

from ..errors import InvalidArgumentError


class Callback:
    """Base class: override the hooks you need (each does nothing here)."""

    def __init__(self):
        self.model = None

    def set_model(self, model):
        self.model = model

    def on_train_begin(self, logs=None): ...
    def on_train_end(self, logs=None): ...
    def on_epoch_begin(self, epoch, logs=None): ...
    def on_epoch_end(self, epoch, logs=None): ...
    def on_train_batch_begin(self, batch, logs=None): ...
    def on_train_batch_end(self, batch, logs=None): ...


def _monitored(callback, logs):
    """The value of ``callback.monitor`` in ``logs``, or None with a warning naming what there is (as Keras)."""
    value = (logs or {}).get(callback.monitor)
    if value is None:
        warnings.warn(f"{type(callback).__name__}: the metric {callback.monitor!r} is not in the logs (available: "
                      f"{', '.join(logs or {})}). Pass validation_data to fit for val_ metrics.", stacklevel=3)
    return value


def _mode(mode, monitor):
    """'min' or 'max': which way ``monitor`` improves ('auto': 'max' for accuracies, as Keras)."""
    if mode not in ("auto", "min", "max"):
        raise InvalidArgumentError(f"mode must be 'auto', 'min' or 'max', got {mode!r}.")
    if mode == "auto":
        mode = "max" if "acc" in monitor or monitor.endswith("auc") else "min"
    return mode


class EarlyStopping(Callback):
    """Stop training when ``monitor`` has not improved by more than ``min_delta`` for ``patience`` epochs."""

    def __init__(self, monitor="val_loss", min_delta=0.0, patience=0, verbose=0, mode="auto", baseline=None,
                 restore_best_weights=False, start_from_epoch=0):
        super().__init__()
        self.monitor, self.patience, self.verbose = monitor, int(patience), verbose
        self.mode = _mode(mode, monitor)
        self.min_delta = abs(float(min_delta)) * (1 if self.mode == "max" else -1)
        self.baseline, self.restore_best_weights, self.start_from_epoch = baseline, restore_best_weights, start_from_epoch
        self.stopped_epoch, self.best_epoch, self.wait = 0, 0, 0

    def _improves(self, value, reference):
        return value - self.min_delta > reference if self.mode == "max" else value - self.min_delta < reference

    def on_train_begin(self, logs=None):
        self.wait, self.stopped_epoch, self.best_epoch, self.best_weights = 0, 0, 0, None
        self.best = np.inf if self.mode == "min" else -np.inf

    def on_epoch_end(self, epoch, logs=None):
        value = _monitored(self, logs)
        if value is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = [v.numpy() for v in self.model.variables]
        self.wait += 1
        if self._improves(value, self.best):
            self.best, self.best_epoch = value, epoch
            if self.restore_best_weights:
                self.best_weights = [v.numpy() for v in self.model.variables]
            if self.baseline is None or self._improves(value, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True
            if self.restore_best_weights and self.best_weights is not None:
                for variable, value in zip(self.model.variables, self.best_weights):
                    variable.assign(value)

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping (best {self.monitor} at epoch {self.best_epoch + 1}).")


class ModelCheckpoint(Callback):
    """Save the model after each epoch (or only when ``monitor`` improves, ``save_best_only``), as Keras 3.

    ``filepath`` may name the epoch and logs: ``"ckpt/model-{epoch:02d}-{val_loss:.2f}.keras"``. The whole model
    (``model.save``, read back with ``me.keras.models.load_model``) goes to a path ending in ``.keras``; with
    ``save_weights_only=True`` the weights go to a ``.weights.h5`` file (needs h5py) or, for any other name, a
    minieager checkpoint (``model.load_weights`` reads both back).
    """

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False, save_weights_only=False,
                 mode="auto", save_freq="epoch", initial_value_threshold=None):
        super().__init__()
        filepath = os.fspath(filepath)
        if not save_weights_only and not filepath.endswith(".keras"):
            raise InvalidArgumentError(
                f"ModelCheckpoint: the filepath must end in .keras to save the whole model, as Keras 3 requires "
                f"(got {filepath!r}). Or pass save_weights_only=True to save the weights only.")
        if save_weights_only and filepath.endswith(".keras"):
            raise InvalidArgumentError(
                f"ModelCheckpoint: save_weights_only=True writes weights, not a .keras model file (got {filepath!r}); "
                f"name it e.g. 'ckpt.weights.h5', or drop save_weights_only to save the whole model.")
        if save_weights_only and filepath.endswith(".h5"):
            from .saving import _h5py
            _h5py("ModelCheckpoint", filepath)     # no h5py: say so now, not after the first epoch
        if save_freq != "epoch":
            raise InvalidArgumentError("ModelCheckpoint: only save_freq='epoch' is supported.")
        self.filepath, self.monitor, self.verbose, self.save_best_only = filepath, monitor, verbose, save_best_only
        self.save_weights_only = save_weights_only
        self.mode = _mode(mode, monitor)
        self.best = initial_value_threshold

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self.save_best_only:
            value = _monitored(self, logs)
            if value is None:
                return
            if self.best is not None and not (value > self.best if self.mode == "max" else value < self.best):
                return
            self.best = value
        path = self.filepath.format(epoch=epoch + 1, **logs)
        if self.save_weights_only:
            self.model.save_weights(path)
        else:
            self.model.save(path)
        if self.verbose > 0:
            what = "the model's weights" if self.save_weights_only else "the model"
            print(f"Epoch {epoch + 1}: saved {what} to {path}")


class LearningRateScheduler(Callback):
    """Set the optimizer's learning rate to ``schedule(epoch, lr)`` at the start of each epoch."""

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch, logs=None):
        optimizer = self.model.optimizer
        rate = self.schedule(epoch, float(optimizer.learning_rate))
        if not isinstance(rate, (float, int, np.floating, np.integer)) and not hasattr(rate, "numpy"):
            raise InvalidArgumentError(f"LearningRateScheduler: the schedule must return a number, got {rate!r}.")
        optimizer.learning_rate = float(rate)
        if self.verbose > 0:
            print(f"Epoch {epoch + 1}: LearningRateScheduler setting learning rate to {float(rate)}.")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["learning_rate"] = float(self.model.optimizer.learning_rate)


class TensorBoard(Callback):
    """Write each epoch's logs as TensorBoard scalars: ``log_dir/train`` and ``log_dir/validation``,
    named "epoch_loss", "epoch_accuracy" ... with the epoch as the step, as Keras does."""

    def __init__(self, log_dir="logs", **kwargs):
        super().__init__()
        self.log_dir = os.fspath(log_dir)
        self._writers = {}

    def _writer(self, which):
        from ..summary import create_file_writer     # tensorboardX is imported when a writer is made
        if which not in self._writers:
            self._writers[which] = create_file_writer(os.path.join(self.log_dir, which))
        return self._writers[which]

    def on_epoch_end(self, epoch, logs=None):
        from ..summary import scalar
        for key, value in (logs or {}).items():
            which, name = ("validation", key[4:]) if key.startswith("val_") else ("train", key)
            with self._writer(which).as_default():
                scalar(f"epoch_{name}", value, step=epoch)

    def on_train_end(self, logs=None):
        for writer in self._writers.values():
            writer.close()
        self._writers = {}
