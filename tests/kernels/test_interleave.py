"""loops/interleave.py: LLVM's interleave count is raised only while minieager's elementwise and
fused loops compile, and put back after, so a user's own numba code compiles as without minieager."""
import types

import llvmlite.binding as llvm
import numpy as np
import pytest

import minieager as me
from minieager.kernels.cpu import loops
from minieager.kernels.cpu.loops import interleave


def event_for(module):
    """A stand-in for numba's compile event of a function defined in ``module``."""
    py_func = types.SimpleNamespace(__module__=module)
    return types.SimpleNamespace(data={"dispatcher": types.SimpleNamespace(py_func=py_func)})


@pytest.fixture
def options(monkeypatch):
    """The LLVM options the listener sets, recorded instead of set."""
    seen = []
    monkeypatch.setattr(llvm, "set_option", lambda name, option: seen.append(option))
    return seen


def test_the_real_loops_are_the_ones_interleaved():
    fused = me.function(lambda x: me.tanh(x * 0.5) + x)
    fused(me.constant(np.ones(1 << 20, np.float32)))
    from minieager.graph.passes.fused import _loaded
    fused_modules = {function.py_func.__module__ for function, _ in _loaded.values()}
    assert fused_modules and all(interleave._interleaved(m) for m in fused_modules)
    assert interleave._interleaved(loops.elementwise.tanh.py_func.__module__)
    assert not interleave._interleaved(loops.reduce.__name__)       # reductions and convolutions: as LLVM likes
    assert not interleave._interleaved(loops.conv.__name__)
    assert not interleave._interleaved("__main__") and not interleave._interleaved(None)   # a user's code


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
