"""``me.data``: input pipelines (``me.data.Dataset``), as ``tf.data``. The datasets themselves are in ``me.datasets``."""
import types as _types

from .dataset import INFINITE as INFINITE_CARDINALITY, UNKNOWN as UNKNOWN_CARDINALITY  # noqa: F401
from .dataset import Dataset, TextLineDataset  # noqa: F401

AUTOTUNE = -1    # TF's tf.data.AUTOTUNE: accepted wherever a parallelism or buffer size goes (it changes nothing)

# tf.data.experimental names that tutorials still use.
experimental = _types.SimpleNamespace(
    AUTOTUNE=AUTOTUNE, INFINITE_CARDINALITY=INFINITE_CARDINALITY, UNKNOWN_CARDINALITY=UNKNOWN_CARDINALITY,
    cardinality=lambda dataset: dataset.cardinality())


def __getattr__(name):
    from .._hints import missing
    raise missing(__name__, name)
