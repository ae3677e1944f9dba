"""``me.testing``: tools for checking your own ops and gradients."""
from .autodiff.gradcheck import GradientCheckError, GradientCheckResult, check_gradients  # noqa: F401
