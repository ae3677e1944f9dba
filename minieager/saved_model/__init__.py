"""``me.saved_model``: save an object's traced functions and variables to a folder, load them back
without its class (graph/saved_model.py has the format), and ``python -m minieager.saved_model show PATH``."""
from ..graph.saved_model import (  # noqa: F401
    FORMAT, VERSION, Loaded, RestoredFunction, SavedModelError, SignatureFunction, load, save, show)

__all__ = ["save", "load", "show", "SavedModelError"]
