"""minieager: a small eager-execution framework for learning how eager execution and autodiff work.

    import minieager as me
    x = me.constant([[2.0]])
    print(me.matmul(x, x))          # me.Tensor([[4.]], shape=(1, 1), dtype=float32)

The public names mirror TensorFlow's eager API (``tf.`` becomes ``me.``). See
docs/architecture.md for how the pieces fit together.
"""
import sys as _sys

from . import machine

machine.configure_environment()   # thread counts and numba's cache folder, before numba is imported

from . import kernels as _kernels  # noqa: E402,F401  (registers the CPU kernels; compiles nothing)
from . import errors  # noqa: E402,F401
from .engine import recording as _recording  # noqa: E402
from .engine.recording import outside_traces as init_scope  # noqa: E402,F401
from .engine.device import device  # noqa: E402,F401
from .engine.dtypes import (  # noqa: E402,F401
    DType, as_dtype, bool_ as bool, float16, float32, float64, int32, int64, string, uint8)
from .engine.tensor import Tensor, TensorShape  # noqa: E402,F401
from .ops import random, strings  # noqa: E402,F401
from .ops.clip import clip_by_global_norm, clip_by_norm, global_norm  # noqa: E402,F401
from .ops.creation import (  # noqa: E402,F401
    constant, eye, fill, is_tensor, linspace, ones, ones_like, range, zeros, zeros_like)
from .ops.elementwise import (  # noqa: E402,F401
    abs, add, add_n, cast, clip_by_value, cos, divide, equal, exp, expm1, floor, floordiv, floormod, greater,
    greater_equal, is_finite, is_nan, isfinite, isnan, leaky_relu, less, less_equal, log, log1p, logical_and,
    logical_not, logical_or, logical_xor, maximum, minimum, mod, multiply, negative, not_equal, pow, reciprocal,
    relu, round, rsqrt, sigmoid, sign, sin, softplus, sqrt, square, squared_difference, subtract, tanh, truediv,
    where)
from .ops.indexing import boolean_mask, gather, newaxis, one_hot  # noqa: E402,F401
from .ops.indexing import IndexedSlices, gather_nd, scatter_nd  # noqa: E402,F401
from .ops.sorting import argsort, sort, unique  # noqa: E402,F401
from .ops.linalg import einsum  # noqa: E402,F401
from .engine.scope import name_scope  # noqa: E402,F401
from .ops.linalg import matmul, norm, tensordot  # noqa: E402,F401
from .ops.nn import avg_pool2d, conv2d, log_softmax, max_pool2d, softmax  # noqa: E402,F401
from .ops.reductions import (  # noqa: E402,F401
    argmax, argmin, cumsum, reduce_all, reduce_any, reduce_logsumexp, reduce_max, reduce_mean, reduce_min,
    reduce_prod, reduce_sum)
from .ops.shape import (  # noqa: E402,F401
    broadcast_to, concat, expand_dims, identity, pad, rank, reshape, shape, size, split, squeeze, stack,
    stop_gradient, tile, transpose, unstack)
from .ops.array import meshgrid, repeat, reverse, roll, sequence_mask, slice  # noqa: E402,F401
from .ops.indexing import tensor_scatter_nd_add, tensor_scatter_nd_update  # noqa: E402,F401
from .ops.map_fn import map_fn  # noqa: E402,F401
from .ops.tensor_array import TensorArray  # noqa: E402,F401
from .ops.reductions import cumprod  # noqa: E402,F401
from .ops.shape import identity_n  # noqa: E402,F401
from .ops.sorting import searchsorted  # noqa: E402,F401
from .autodiff.custom_gradient import custom_gradient  # noqa: E402,F401
from .autodiff.functional import make_vjp  # noqa: E402,F401
from .autodiff.functional import (  # noqa: E402,F401  (the names of TF's eager backprop module)
    gradients_function as grad_function, implicit_gradients as implicit_grad,
    implicit_value_and_gradients as implicit_val_and_grad, value_and_gradients_function as val_and_grad_function)
from .autodiff.functional import (  # noqa: E402,F401
    gradients_function, implicit_gradients, implicit_value_and_gradients, value_and_gradients_function)
from .autodiff.tape import GradientTape, UnconnectedGradients  # noqa: E402,F401
from .autodiff.variable import Variable, read_as_tensor as convert_to_tensor  # noqa: E402,F401
from .module import Module  # noqa: E402,F401
from . import debugger, debugging, linalg, math, nn, testing  # noqa: E402,F401
from . import config, dtypes, io, test  # noqa: E402,F401
from .config import list_physical_devices, num_gpus  # noqa: E402,F401
from .nn import initializers, layers, losses, metrics, optimizers  # noqa: E402,F401
from .nn.models import Model, Sequential  # noqa: E402,F401
from . import keras  # noqa: E402,F401
from . import data, summary, train  # noqa: E402,F401
from .data import datasets  # noqa: E402,F401
from .train import Checkpoint  # noqa: E402,F401
from .engine.spec import TensorSpec  # noqa: E402,F401
from .graph.function import ConcreteFunction, Function, function  # noqa: E402,F401
from .graph.control_flow import cond, while_loop  # noqa: E402,F401
from .graph.effects import numpy_function, print, py_function  # noqa: E402,F401
from .graph import autograph  # noqa: E402,F401
from . import compat, contrib, saved_model  # noqa: E402,F401
from .graph.gradients import gradients  # noqa: E402,F401
from .graph.symbolic import get_static_value  # noqa: E402,F401

half, double = float16, float64     # TF's other names for them

# TF 1 spellings used by the guide.
random_normal, random_uniform = random.normal, random.uniform
set_random_seed = random.set_seed


def executing_eagerly():
    """True, except while ``me.function`` traces a function (or a compat.v1 graph is being built)."""
    return _recording.tracer() is None


def enable_eager_execution(*args, **kwargs):
    """Accepted so the guide's code runs unchanged; eager execution is always on."""


def _tape_debugger(tape, **options):
    """A TapeDebugger widget that draws this tape live (needs Jupyter): ``me.widgets.TapeDebugger(tape)``."""
    from .widgets import TapeDebugger   # on first use: `import minieager` imports no Jupyter package
    return TapeDebugger(tape, **options)


# The widgets sit above every other layer, so the tape's shortcut to them is installed from here.
GradientTape.debugger = _tape_debugger
# `import minieager.compat.v1 as tf` offers every minieager name too (tf.constant): the package hands itself over.
compat.v1._fallback = _sys.modules[__name__]


def __getattr__(name):
    # me.widgets imports Jupyter packages, so it is imported on first use, never by `import minieager`.
    if name == "widgets":
        import importlib
        return importlib.import_module(".widgets", __name__)
    from ._hints import missing
    raise missing(__name__, name)       # what to use instead of a TF name minieager lacks


# NumPy may have been imported (and its BLAS started) before minieager: size every pool now.
config.set_num_threads(config.get_num_threads())

__version__ = "0.1.0"
