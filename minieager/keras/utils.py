"""``me.keras.utils``: helpers for preparing data, and the serialization registry (as ``keras.utils``)."""
from ..nn.utils import to_categorical  # noqa: F401
from ..ops import random as _random
from .saving import get_custom_objects, register_keras_serializable  # noqa: F401


def set_random_seed(seed):
    """Seed Python's ``random``, NumPy's global generator and ``me.random`` at once, as Keras does."""
    import random

    import numpy as np
    random.seed(seed)
    np.random.seed(seed)
    _random.set_seed(seed)


def get_file(*args, **kwargs):
    """Keras downloads a file here; minieager works offline, so it says what to do instead."""
    raise RuntimeError("me.keras.utils.get_file: minieager does not download files. Download the file by hand, "
                       "put it next to the notebook and open it by its path; the offline datasets are "
                       "me.keras.datasets.mnist and me.keras.datasets.digits.")


def __getattr__(name):
    from .._hints import missing
    raise missing(__name__, name)   # a TF name minieager lacks: say what to use instead
