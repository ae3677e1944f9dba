"""CPU kernels: numba loops. Importing registers them; numba compiles each on its first call."""
from . import elementwise, layout, matmul, nn, reduce  # noqa: F401  (registers the kernels)
