"""``me.widgets``: the Jupyter side of the tape debugger (the only module importing Jupyter packages).

    dbg = me.widgets.TapeDebugger(tape)      # or tape.debugger()
    me.widgets.name(h, "h1")                 # label a tensor in the drawings
    me.widgets.plot_model(model)             # a model's layers, Keras style

``import minieager`` does not import this module; ``me.widgets`` does, on first use.
"""
from ..debugger.names import name
from .plot_model import plot_model
from .tape_debugger import TapeDebugger

__all__ = ["TapeDebugger", "name", "plot_model"]
