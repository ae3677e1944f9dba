"""``me.data``: input pipelines (``me.data.Dataset``), as ``tf.data``. The datasets themselves are in ``me.datasets``."""
from .dataset import Dataset  # noqa: F401
