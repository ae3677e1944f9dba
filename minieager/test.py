"""``me.test``: TensorFlow's gradient checker, ``compute_gradient`` and ``max_error``.

``me.testing.check_gradients`` is minieager's own, friendlier check (one call, a clear failure).
"""
from .autodiff.gradcheck import compute_gradient, max_error  # noqa: F401
