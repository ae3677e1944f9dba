"""``me.keras.utils``: small helpers for preparing data."""
import numpy as np

from ..engine import dtypes
from ..errors import InvalidArgumentError


def to_categorical(y, num_classes=None, dtype="float32"):
    """Integer class ids -> one-hot rows, as a NumPy array of shape ``y.shape + (num_classes,)``.

    As Keras: a trailing axis of size 1 (a column of labels) is dropped first, and ``num_classes``
    defaults to the largest id + 1.
    """
    y = np.asarray(y)
    if y.dtype.kind == "f":
        if not np.all(np.mod(y, 1) == 0):
            raise InvalidArgumentError("to_categorical: y must hold integer class ids, got fractional values.")
        y = y.astype(np.int64)
    elif y.dtype.kind not in "iu":
        raise InvalidArgumentError(f"to_categorical: y must hold integer class ids, got dtype {y.dtype}.")
    if y.ndim > 1 and y.shape[-1] == 1:
        y = y.reshape(y.shape[:-1])
    if num_classes is None:
        num_classes = int(y.max()) + 1 if y.size else 0
    if y.size and (y.min() < 0 or y.max() >= num_classes):
        raise InvalidArgumentError(
            f"to_categorical: class ids must be in [0, {num_classes}), got values {y.min()}..{y.max()}.")
    out = np.zeros(y.shape + (int(num_classes),), dtypes.as_dtype(dtype).np_dtype)
    np.put_along_axis(out, y[..., None], 1, axis=-1)
    return out
