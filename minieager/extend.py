"""The public door for extending minieager: new ops, their kernels and gradients, and graphs.

    from minieager.extend import Op, register_kernel

    @register_kernel("my_sigmoid", "cpu")
    def my_sigmoid_kernel(x):                    # NumPy arrays in, a new NumPy array out
        return 1 / (1 + np.exp(-x))

    my_sigmoid = Op("my_sigmoid", inputs=("x",), formula="sigmoid(x)", grads=("dy * out * (1 - out)",),
                    vjp=lambda dy, x, out: (dy * out * (1 - out),),
                    shape_rule=lambda x: x)     # the output's dtype and shape: x's (see AbstractArray)
    y = my_sigmoid(me.constant([0.0, 1.0]))      # runs, records on tapes, traces in me.function

Notebooks, course exercises and docs import from here, not from the modules behind these names,
so that moving code inside minieager never rewrites a lesson (HIPS autograd's ``extend.py`` is the
model). What each name is:

    Op, EffectOp        a primitive op (kernel name, formula, gradient rule, shape rule) and one with a
                        side effect
    AbstractArray       what a shape rule receives and returns: a dtype and a shape (None: unknown)
    defvjp              give an existing Op its gradient rule later
    register_kernel     add a kernel for an op name and device ("cpu", "gpu"); get_kernel finds one
    Tensor, wrap        the tensor class, and a new tensor around a freshly computed array
    unbroadcast         sum a gradient back down to its input's shape (the tape already does this
                        for every VJP's result; a VJP that sums itself may call it)
    Graph, Node, run    graph mode's IR (what ``me.function`` records) and its interpreter;
    Interpreter         the interpreter as a class to subclass, node by node
    freeze              an op attribute as a hashable key, for passes that compare nodes (CSE)
"""
from .engine.abstract import AbstractArray
from .engine.op import EffectOp, Op
from .engine.tensor import Tensor, wrap
from .graph.ir import Graph, Interpreter, Node, run
from .graph.passes.cse import freeze
from .kernels.registry import get_kernel, register_kernel
from .ops.reductions import unbroadcast

__all__ = ["AbstractArray", "EffectOp", "Graph", "Interpreter", "Node", "Op", "Tensor", "defvjp", "freeze", "get_kernel",
           "register_kernel", "run", "unbroadcast", "wrap"]


def defvjp(op, vjp, *grads):
    """Give ``op`` its gradient rule: ``vjp(dy, *inputs, out, **attrs)`` returns one gradient per
    input (None where an input gets none), written with minieager ops so that it can itself be
    differentiated; ``grads`` says the rule in words, one per input, for ``tape.records`` and the
    tape debugger (``"dy * out * (1 - out)"``). Returns ``op``.
    """
    if not isinstance(op, Op):
        raise TypeError(f"defvjp: op must be a minieager Op, got {type(op).__name__}.")
    if not callable(vjp):
        raise TypeError(f"defvjp: vjp must be a function (dy, *inputs, out, **attrs) -> gradients, got "
                        f"{type(vjp).__name__}.")
    if grads and len(grads) != len(op.inputs):
        raise ValueError(f"defvjp: op '{op.name}' has {len(op.inputs)} inputs {op.inputs}, but {len(grads)} "
                         f"gradient texts were given.")
    op.vjp = vjp
    if grads:
        op.grads = tuple(grads)
    return op
