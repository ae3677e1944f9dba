"""``me.compat``: TensorFlow 1 spellings that still mean something in eager execution."""
from . import v1  # noqa: F401
