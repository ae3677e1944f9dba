"""Tapes the browser tests open in the debugger, shared by more than one test file."""
import numpy as np

import minieager as me


def long_tape(n=500):
    """2n + 1 ops: n rounds of tanh(0.9 y), then a sum."""
    x = me.Variable(np.linspace(0, 1, 4, dtype=np.float32), name="x")
    with me.GradientTape(persistent=True) as tape:
        y = x
        for _ in range(n):
            y = me.tanh(y * 0.9)
        loss = me.reduce_sum(y)
    return me.debugger.trace(tape, loss, [x])
