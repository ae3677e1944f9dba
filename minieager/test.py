"""``me.test``: TensorFlow's gradient checker, ``compute_gradient`` and ``max_error``, and the GPU questions
TF's ``tf.test`` answers (``is_gpu_available``, ``gpu_device_name``, ``is_built_with_cuda``).

``me.testing.check_gradients`` is minieager's own, friendlier check (one call, a clear failure).
"""
from .autodiff.gradcheck import compute_gradient, max_error  # noqa: F401
from .machine import num_gpus as _num_gpus


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    """Whether a GPU can be used (TF 1's spelling; TF 2 prefers ``me.config.list_physical_devices("GPU")``)."""
    return _num_gpus() > 0


def gpu_device_name():
    """``"/device:GPU:0"`` when a GPU can be used, else ``""``, as TF's."""
    return "/device:GPU:0" if _num_gpus() > 0 else ""


def is_built_with_cuda():
    """Whether the CUDA backend (numba's CUDA target) is installed: it is optional (the ``cuda`` extra)."""
    import importlib.util
    return importlib.util.find_spec("numba") is not None and importlib.util.find_spec("numba.cuda") is not None


def __getattr__(name):
    from ._hints import missing
    raise missing(__name__, name)
