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


def plot_model(model, to_file="model.png", show_shapes=False, rankdir="TB", show_layer_names=True, **kwargs):
    """Draw ``model``'s layers top to bottom (``me.widgets.plot_model``), as Keras' ``plot_model``; writes
    ``to_file`` as PNG (``.png``) or SVG (``.svg``) unless it is None, and returns the drawing (shown in a notebook).

    Keras' other options (``show_dtype``, ``expand_nested``, ``dpi`` ...) only change the picture's look and are
    not supported: passing one is an error, so nothing is silently ignored."""
    if kwargs:
        raise TypeError(f"plot_model: minieager's drawing does not support {', '.join(sorted(kwargs))}; it takes "
                        f"to_file, show_shapes and rankdir ('TB' or 'LR').")
    if not show_layer_names:
        raise TypeError("plot_model: the drawing always names its layers (show_layer_names=False is not supported).")
    from ..widgets.plot_model import plot_model as draw      # here: the widgets import Jupyter packages
    drawing = draw(model, direction=rankdir, show_shapes=show_shapes)
    if to_file is not None:
        if str(to_file).endswith(".png"):
            from ..debugger.png import to_png
            with open(to_file, "wb") as f:
                f.write(to_png(drawing.svg))
        elif str(to_file).endswith(".svg"):
            drawing.save(to_file)
        else:
            raise ValueError(f"plot_model: to_file must end in .png or .svg, got {to_file!r}.")
    return drawing


def get_file(*args, **kwargs):
    """Keras downloads a file here; minieager works offline, so it says what to do instead."""
    raise RuntimeError("me.keras.utils.get_file: minieager does not download files. Download the file by hand, "
                       "put it next to the notebook and open it by its path; the offline datasets are "
                       "me.keras.datasets.mnist and me.keras.datasets.digits.")


def __getattr__(name):
    from .._hints import missing
    raise missing(__name__, name)   # a TF name minieager lacks: say what to use instead
