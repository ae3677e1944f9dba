"""The summary ops: ``scalar``, ``histogram``, ``image``, ``text``.

Each writes to the current writer when summaries are being recorded, and returns whether it wrote.
``step`` defaults to the global step (``me.train.get_or_create_global_step()``).
"""
import numpy as np

from ..errors import InvalidArgumentError
from ..nn.optimizers import get_or_create_global_step
from .record import should_record_summaries
from .writer import current_writer, tensorboardx


def _write(step, make_summary):
    """Write ``make_summary(tensorboardX.summary)`` to the current writer if recording; whether it did."""
    writer = current_writer()
    if writer is None or not should_record_summaries():
        return False
    _, tbx_summary, _ = tensorboardx()
    writer.write(make_summary(tbx_summary), get_or_create_global_step() if step is None else step)
    return True


def scalar(name, data, step=None, description=None):
    """Record one number: ``me.summary.scalar("loss", loss)``."""
    value = np.asarray(data)
    if value.size != 1:
        raise InvalidArgumentError(f"summary.scalar {name!r}: data must be a single number, got shape {value.shape}.")
    return _write(step, lambda s: s.scalar(name, float(value.reshape(()))))


def histogram(name, data, step=None, buckets=None, description=None):
    """Record the distribution of ``data``'s values in ``buckets`` equal-width buckets (30 by default, as TF)."""
    values = np.asarray(data, dtype=np.float64).ravel()
    return _write(step, lambda s: s.histogram(name, values, bins=30 if buckets is None else int(buckets)))


def image(name, data, step=None, max_outputs=3, description=None):
    """Record images: ``data`` has shape (k, height, width, channels), channels 1, 3 or 4; floats in [0, 1] or uint8.

    The first ``max_outputs`` images are written side by side as one picture.
    """
    images = np.asarray(data)
    if images.ndim != 4 or images.shape[-1] not in (1, 3, 4):
        raise InvalidArgumentError(f"summary.image {name!r}: data must have shape (k, height, width, channels) "
                                   f"with 1, 3 or 4 channels, got shape {images.shape}.")
    if images.dtype != np.uint8:
        images = np.clip(images.astype(np.float32), 0.0, 1.0)
    return _write(step, lambda s: s.image(name, images[:max_outputs], dataformats="NHWC"))


def text(name, data, step=None, description=None):
    """Record a string (TensorBoard shows it as Markdown)."""
    if not isinstance(data, str):
        raise InvalidArgumentError(f"summary.text {name!r}: data must be a str, got {type(data).__name__}.")
    return _write(step, lambda s: s.text(name, data))
