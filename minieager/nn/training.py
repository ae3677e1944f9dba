"""Keras-style ``compile`` / ``fit`` / ``evaluate`` / ``predict`` and the History that fit returns.

fit's inner step is the guide's custom loop, nothing more:

    with me.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))

Inputs are NumPy arrays / tensors (with y), batched and shuffled here, or any iterable of
(x, y) batches such as a ``me.data.Dataset``. The progress bar is ``tqdm.auto``: a widget in
Jupyter, text in a terminal.
"""
import numpy as np

from ..autodiff.tape import GradientTape
from ..errors import InvalidArgumentError
from ..engine.tensor import Tensor
from ..ops.creation import convert_to_tensor
from ..ops.reductions import reduce_mean
from . import losses, metrics as metrics_lib, optimizers


class History:
    """What fit recorded: ``history.history["loss"]`` is the list of per-epoch mean losses, and so on."""

    def __init__(self):
        self.history = {}
        self.epoch = []

    def _append(self, epoch, logs):
        self.epoch.append(epoch)
        for key, value in logs.items():
            self.history.setdefault(key, []).append(value)

    def plot(self, keys=None):
        """A matplotlib Figure: one panel per quantity ("loss", "accuracy"), its val_ version beside it."""
        from matplotlib.figure import Figure    # imported here: matplotlib is a notebook extra
        keys = keys or [k for k in self.history if not k.startswith("val_")]
        fig = Figure(figsize=(5 * len(keys), 3.5))
        for i, key in enumerate(keys):
            ax = fig.add_subplot(1, len(keys), i + 1)
            epochs = [e + 1 for e in self.epoch]
            ax.plot(epochs, self.history[key], marker="o", label=key)
            if f"val_{key}" in self.history:
                ax.plot(epochs, self.history[f"val_{key}"], marker="o", label=f"val_{key}")
            ax.set_xlabel("epoch")
            ax.set_title(key)
            ax.legend()
        fig.tight_layout()
        return fig

    def __repr__(self):
        return f"<History epochs={len(self.epoch)} keys={list(self.history)}>"


# ---- compile ------------------------------------------------------------------------------------
def _resolve_metric(identifier, y_true, y_pred):
    """The metric ``identifier`` names, for labels and predictions shaped like these (Keras 3's rule).

    "accuracy" means the accuracy that fits the shapes: one output unit -> BinaryAccuracy (threshold 0.5);
    integer labels with one axis fewer (or a last axis of 1) -> SparseCategoricalAccuracy; one-hot labels
    -> CategoricalAccuracy.
    """
    if isinstance(identifier, str) and identifier.lower() in ("accuracy", "acc"):
        t_shape, p_shape = tuple(np.shape(y_true)), tuple(y_pred.shape)
        binary = len(p_shape) > 0 and p_shape[-1] == 1
        sparse = len(t_shape) < len(p_shape) or (len(t_shape) > 0 and t_shape[-1] == 1 and p_shape[-1] > 1)
        cls = (metrics_lib.BinaryAccuracy if binary else
               metrics_lib.SparseCategoricalAccuracy if sparse else metrics_lib.CategoricalAccuracy)
        return cls(name=identifier)
    if callable(identifier) and not isinstance(identifier, metrics_lib.Metric):
        return metrics_lib.MeanMetricWrapper(identifier)
    return metrics_lib.get(identifier)


def compile_parts(optimizer, loss, metrics):
    if loss is None:
        raise InvalidArgumentError("compile: a loss is required, e.g. loss='mse' or "
                                   "loss=me.losses.SparseCategoricalCrossentropy(from_logits=True).")
    if isinstance(metrics, (str, metrics_lib.Metric)) or callable(metrics):
        metrics = [metrics]
    for m in metrics or ():     # a misspelt name fails here, not after the first batch
        if not (isinstance(m, str) and m.lower() in ("accuracy", "acc")) and not callable(m):
            metrics_lib.get(m)
    return optimizers.get(optimizer), dict(loss=losses.get(loss), metric_ids=list(metrics or ()), metrics=None)


def _metrics_for(parts, y_true, y_pred):
    """The compiled metrics, made on the first batch (when the shapes that resolve "accuracy" are known)."""
    if parts["metrics"] is None:
        parts["metrics"] = [_resolve_metric(m, y_true, y_pred) for m in parts["metric_ids"]]
    return parts["metrics"]


def _compiled(model, what):
    if model._compiled is None:
        raise InvalidArgumentError(f"{what}: call model.compile(optimizer, loss, metrics) first.")
    return model._compiled


# ---- batches ------------------------------------------------------------------------------------
def _is_dataset(x):
    return not isinstance(x, (np.ndarray, Tensor, list, tuple)) and hasattr(x, "__iter__")


def _batches(what, x, y, batch_size, shuffle=False, rng=None, need_y=True):
    """(number of batches or None, an iterator of (x, y) batches) for arrays or a dataset."""
    if _is_dataset(x):
        if y is not None:
            raise InvalidArgumentError(f"{what}: x is a dataset of (x, y) batches, so y must not be given too.")
        try:
            count = len(x)
        except TypeError:
            count = None
        return count, iter(x)
    if x is None:
        raise InvalidArgumentError(f"{what}: x is missing.")
    if y is None and need_y:
        raise InvalidArgumentError(
            f"{what}: y (the labels) is missing. Pass fit(x, y, ...) with arrays, or fit(dataset) with a "
            f"dataset that yields (x, y) batches.")
    xs = np.asarray(x)
    ys = None if y is None else np.asarray(y)
    if ys is not None and len(xs) != len(ys):
        raise InvalidArgumentError(f"{what}: x has {len(xs)} examples but y has {len(ys)}; they must match.")
    order = rng.permutation(len(xs)) if shuffle else np.arange(len(xs))
    starts = range(0, len(xs), batch_size)

    def generate():
        for start in starts:
            idx = order[start:start + batch_size]
            yield convert_to_tensor(xs[idx]), None if ys is None else convert_to_tensor(ys[idx])
    return len(starts), generate()


def _progress(total, verbose, desc):
    if verbose != 1:
        return None
    from tqdm.auto import tqdm
    return tqdm(total=total, desc=desc, unit="batch", leave=True)


def _split_batch(batch):
    if not isinstance(batch, (tuple, list)) or len(batch) != 2:
        raise InvalidArgumentError(
            f"fit/evaluate: each dataset element must be an (x, y) pair, got {type(batch).__name__} "
            f"of length {len(batch) if hasattr(batch, '__len__') else '?'}.")
    return batch


def _batch_loss(loss_fn, y, predictions):
    """The batch's loss, a scalar: a loss function giving one value per example (keras.losses.MSE) is averaged,
    as Keras' "sum_over_batch_size" reduction does, so its gradient is that of the mean, not the sum."""
    loss = convert_to_tensor(loss_fn(y, predictions))
    return loss if loss.ndim == 0 else reduce_mean(loss)


# ---- fit / evaluate / predict ----------------------------------------------------------------------
def _logs(loss_mean, metric_list, prefix=""):
    logs = {f"{prefix}loss": float(loss_mean.result())}
    for m in metric_list:
        logs[f"{prefix}{m.name}"] = float(m.result())
    return logs


def _callback_list(model, callbacks):
    callbacks = list(callbacks or ())
    for c in callbacks:
        if not hasattr(c, "on_epoch_end") or not hasattr(c, "set_model"):
            raise InvalidArgumentError(
                f"fit: callbacks must be me.keras.callbacks.Callback objects, got {type(c).__name__}.")
        c.set_model(model)
    return callbacks


def _split_off_validation(x, y, validation_split):
    """(x, y) for training and the last ``validation_split`` of them for validation, before any shuffling (as Keras)."""
    if not 0 < validation_split < 1:
        raise InvalidArgumentError(f"fit: validation_split must be a fraction between 0 and 1, got {validation_split}.")
    if _is_dataset(x):
        raise InvalidArgumentError(
            "fit: validation_split works on arrays only (as Keras); with a dataset, pass validation_data=another "
            "dataset (e.g. from ds.take(n) and ds.skip(n)).")
    xs, ys = np.asarray(x), None if y is None else np.asarray(y)
    split_at = int(np.floor(len(xs) * (1.0 - validation_split)))
    if split_at == 0 or split_at == len(xs):
        raise InvalidArgumentError(
            f"fit: validation_split={validation_split} of {len(xs)} examples leaves an empty training or validation "
            f"set; use more examples or another fraction.")
    return (xs[:split_at], None if ys is None else ys[:split_at]), (xs[split_at:], None if ys is None else ys[split_at:])


def fit(model, x, y, batch_size, epochs, verbose, validation_data, shuffle, seed, callbacks=None,
        validation_split=0.0):
    parts = _compiled(model, "fit")
    if validation_split and validation_data is None:       # validation_data wins when both are given, as Keras
        (x, y), validation_data = _split_off_validation(x, y, validation_split)
    loss_fn, optimizer = parts["loss"], model.optimizer
    metric_list = parts["metrics"] or []
    rng = np.random.default_rng(seed)
    history = History()
    loss_mean = metrics_lib.Mean("loss")
    callbacks = _callback_list(model, callbacks)
    model.__dict__["stop_training"] = False        # a callback sets it to end training after this epoch
    for c in callbacks:
        c.on_train_begin()
    for epoch in range(epochs):
        for c in callbacks:
            c.on_epoch_begin(epoch)
        loss_mean.reset_state()
        for m in parts["metrics"] or ():
            m.reset_state()
        total, batches = _batches("fit", x, y, batch_size, shuffle, rng)
        bar = _progress(total, verbose, f"Epoch {epoch + 1}/{epochs}")
        for step, batch in enumerate(batches):
            for c in callbacks:
                c.on_train_batch_begin(step)
            xb, yb = _split_batch(batch)
            with GradientTape() as tape:
                predictions = model(xb, training=True)
                loss = _batch_loss(loss_fn, yb, predictions)
            variables = model.trainable_variables
            optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
            loss_mean.update_state(loss, sample_weight=len(predictions))
            metric_list = _metrics_for(parts, yb, predictions)
            for m in metric_list:
                m.update_state(yb, predictions)
            for c in callbacks:
                c.on_train_batch_end(step, {"loss": float(loss._value)})
            if bar is not None:
                bar.update(1)
                bar.set_postfix(_logs(loss_mean, metric_list), refresh=False)
        logs = _logs(loss_mean, metric_list)
        if validation_data is not None:
            val = evaluate(model, *_validation_pair(validation_data), batch_size, 0, as_dict=True)
            logs.update({f"val_{k}": v for k, v in val.items()})
        if bar is not None:
            bar.set_postfix(logs, refresh=True)
            bar.close()
        elif verbose == 2:
            print(f"Epoch {epoch + 1}/{epochs}: " + ", ".join(f"{k}={v:.4f}" for k, v in logs.items()))
        for c in callbacks:
            c.on_epoch_end(epoch, logs)
        history._append(epoch, logs)
        if model.stop_training:
            break
    for c in callbacks:
        c.on_train_end()
    return history


def _validation_pair(data):
    if _is_dataset(data):
        return data, None
    if isinstance(data, (tuple, list)) and len(data) == 2:
        return data
    raise InvalidArgumentError("fit: validation_data must be an (x, y) pair or a dataset of (x, y) batches.")


def evaluate(model, x, y, batch_size, verbose, as_dict=False):
    parts = _compiled(model, "evaluate")
    loss_mean = metrics_lib.Mean("loss")
    metric_list = None
    total, batches = _batches("evaluate", x, y, batch_size)
    bar = _progress(total, verbose, "evaluate")
    for batch in batches:
        xb, yb = _split_batch(batch)
        predictions = model(xb, training=False)
        loss_mean.update_state(_batch_loss(parts["loss"], yb, predictions), sample_weight=len(predictions))
        if metric_list is None:      # fresh copies of the compiled metrics: fit's running state stays intact
            metric_list = [m._fresh() for m in _metrics_for(parts, yb, predictions)]
        for m in metric_list:
            m.update_state(yb, predictions)
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    logs = _logs(loss_mean, metric_list or [])
    if as_dict:
        return logs
    return logs["loss"] if not metric_list else list(logs.values())


def predict(model, x, batch_size, verbose):
    total, batches = _batches("predict", x, None, batch_size, need_y=False)
    bar = _progress(total, verbose, "predict")
    outputs = []
    for batch in batches:
        xb = batch[0] if isinstance(batch, (tuple, list)) else batch
        outputs.append(model(xb, training=False).numpy())
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    return np.concatenate(outputs, axis=0)
