"""Kernels by device. Importing this registers the CPU kernels; nothing is compiled until first use."""
from . import cpu  # noqa: F401
