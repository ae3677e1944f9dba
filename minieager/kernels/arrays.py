"""Which memory a kernel's array lives in: the host's (a NumPy array) or a GPU's (a numba device array).

The kernels of both devices and the engine's copies between them ask this one question, so it sits
at the bottom of the kernels, importing nothing of minieager.
"""
import numpy as np


def is_host_array(array):
    """Whether ``array`` lives in host memory (a NumPy array or scalar), not on a GPU."""
    return isinstance(array, (np.ndarray, np.generic))
