"""Kernels by device. Importing this registers the CPU kernels; nothing is compiled until first use."""
from .cpu import layout  # noqa: F401
try:
    from .cpu import elementwise, matmul, nn, reduce  # noqa: F401
except ImportError:   # the numba kernels are still being written
    pass
