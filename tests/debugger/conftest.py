"""Small known expressions for the tape debugger's tests, each on a persistent tape."""
import numpy as np
import pytest

import minieager as me
from minieager.debugger import layout


def record(fn, *values, persistent=True):
    """Watch constants made from ``values`` (named x0, x1, ...) and record ``fn(*tensors)``."""
    xs = [me.debugger.name(me.constant(np.asarray(v, dtype=np.float32)), f"x{i}") for i, v in enumerate(values)]
    with me.GradientTape(persistent=persistent) as tape:
        tape.watch(xs)
        y = fn(*xs)
    return tape, y, xs


@pytest.fixture
def no_dot(monkeypatch):
    """Behave as if Graphviz were not installed."""
    monkeypatch.setattr(layout, "find_dot", lambda: None)
