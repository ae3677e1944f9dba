"""loops/interleave.py: LLVM's interleave count is raised only while minieager's elementwise and
fused loops compile, and put back after, so a user's own numba code compiles as without minieager."""
import types

import llvmlite.binding as llvm
import numpy as np
import pytest

import minieager as me
from minieager.kernels.cpu import loops
from minieager.kernels.cpu.loops import interleave


def function_in(module, **module_globals):
    """A stand-in for a Python function defined in ``module`` (numba's ``py_func``)."""
    return types.SimpleNamespace(__module__=module, __globals__=module_globals)


def event_for(module, **module_globals):
    """A stand-in for numba's compile event of a function defined in ``module``."""
    dispatcher = types.SimpleNamespace(py_func=function_in(module, **module_globals))
    return types.SimpleNamespace(data={"dispatcher": dispatcher})


@pytest.fixture
def options(monkeypatch):
    """The LLVM options the listener sets, recorded instead of set."""
    seen = []
    monkeypatch.setattr(llvm, "set_option", lambda name, option: seen.append(option))
    return seen


def test_the_flat_loops_are_the_ones_interleaved():
    """Elementwise loops and fused kernels with one flat loop; not a fused kernel that loops over
    short rows (a bias row of 16: two vectors of 16 per iteration would leave it to the scalar
    remainder), nor reductions, convolutions or a user's code."""
    from minieager.graph.passes.fused import _loaded
    flat = me.function(lambda x: me.tanh(x * 0.5) + x)
    flat(me.constant(np.ones(1 << 20, np.float32)))
    rows = me.function(lambda x, b: me.tanh(x * 0.5 + b))
    rows(me.constant(np.ones((1 << 16, 16), np.float32)), me.constant(np.ones(16, np.float32)))
    kernels = {function.py_func.__globals__["ONE_FLAT_LOOP"]: function.py_func for function, _ in _loaded.values()}
    assert interleave._interleaved(kernels[True]) and not interleave._interleaved(kernels[False])
    assert interleave._interleaved(loops.elementwise.tanh.py_func)
    assert not interleave._interleaved(loops.reduce.reduce_sum.py_func)
    assert not interleave._interleaved(loops.conv.backprop_input.py_func)
    assert not interleave._interleaved(function_in("__main__")) and not interleave._interleaved(None)


def test_set_for_an_elementwise_loop_and_its_inner_compilations_then_put_back(options):
    listener = interleave.Interleave()
    listener.on_start(event_for("minieager.kernels.cpu.loops.elementwise"))
    assert options == [f"-force-vector-interleave={interleave.INTERLEAVE}"]
    listener.on_start(event_for("minieager.kernels.formulas"))     # the formula it inlines, compiled inside it
    listener.on_end(None)
    assert len(options) == 1                                        # still compiling the loop
    listener.on_end(None)
    assert options[-1] == "-force-vector-interleave=0" and not listener.active


def test_a_users_numba_function_is_left_alone(options):
    listener = interleave.Interleave()
    listener.on_start(event_for("__main__"))
    listener.on_start(event_for("minieager.kernels.cpu.loops.elementwise"))   # called from the user's function
    listener.on_end(None)
    listener.on_end(None)
    assert options == []
