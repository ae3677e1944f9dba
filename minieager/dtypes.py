"""``me.dtypes``: the dtypes under TF's ``tf.dtypes`` names (``me.dtypes.int32``, ``me.dtypes.as_dtype``).
The same objects as ``me.int32`` ...; defined in ``minieager/engine/dtypes.py``."""
from .engine.dtypes import (  # noqa: F401
    DType, as_dtype, bool_ as bool, float16, float32, float64, int32, int64, string, uint8)
from .ops.elementwise import cast  # noqa: F401

half, double = float16, float64     # TF's other names for them


def __getattr__(name):
    from ._hints import missing
    raise missing(__name__, name)
