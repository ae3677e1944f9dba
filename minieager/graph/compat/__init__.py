"""``me.compat.v1``: TensorFlow 1's graph-building names (Session, placeholder, py_func), so that
code written for TF 1 graphs, like the guide's "Use eager execution in a graph environment", runs."""
from . import v1  # noqa: F401
