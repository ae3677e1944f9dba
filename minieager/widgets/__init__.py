"""``me.widgets``: the Jupyter side of the tape debugger (the only module importing Jupyter packages).

    dbg = me.widgets.TapeDebugger(tape)      # or tape.debugger()
    me.widgets.name(h, "h1")                 # label a tensor in the drawings
    me.widgets.plot_model(model)             # a model's layers, Keras style
    me.widgets.PassStepper(concrete)         # a me.function's optimisation passes, step by step

``import minieager`` does not import this module; ``me.widgets`` does, on first use.
"""
from ..debugger.names import name
from .pass_stepper import PassStepper
from .plot_model import plot_model
from .tape_debugger import TapeDebugger

__all__ = ["PassStepper", "TapeDebugger", "name", "plot_model"]
