"""``me.linalg``: linear algebra under TensorFlow's ``tf.linalg`` names."""
from .ops.linalg import matmul, norm, tensordot  # noqa: F401
from .ops.creation import eye  # noqa: F401
from .ops.shape import transpose as matrix_transpose  # noqa: F401
from .ops.linalg import diag, diag_part, einsum, solve  # noqa: F401
from .ops.normalization import l2_normalize  # noqa: F401


def __getattr__(name):
    from ._hints import missing
    raise missing(__name__, name)   # a TF name minieager lacks: say what to use instead
