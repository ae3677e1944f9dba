"""``me.datasets``: small, well-known datasets as NumPy arrays, as ``tf.keras.datasets``.

``digits`` ships with scikit-learn and works offline; ``mnist`` is downloaded once and cached.
"""
from . import digits, mnist  # noqa: F401
from ._download import DownloadError  # noqa: F401
