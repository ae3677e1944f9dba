"""``me.nn``: neural-network functions (activations, softmax, cross-entropies, normalisation, bias_add, conv2d,
pooling, dropout).

The Keras-style pieces live in submodules: ``layers``, ``models``, ``optimizers``, ``losses``,
``metrics``, ``initializers`` (exported at the top level as ``me.layers``, ``me.Model``, ...).
"""
from ..ops.activations import elu, gelu, relu6, selu, silu, swish  # noqa: F401
from ..ops.elementwise import leaky_relu, relu, sigmoid, softplus, tanh  # noqa: F401
from ..ops.nn import (  # noqa: F401
    avg_pool2d, bias_add, conv2d, dropout, l2_loss, log_softmax, max_pool2d, sigmoid_cross_entropy_with_logits,
    softmax, softmax_cross_entropy_with_logits, sparse_softmax_cross_entropy_with_logits)
from ..ops.normalization import batch_normalization, l2_normalize, moments  # noqa: F401

from ..ops.indexing import embedding_lookup  # noqa: F401,E402
from ..ops.sorting import top_k  # noqa: F401,E402

max_pool, avg_pool = max_pool2d, avg_pool2d


def __getattr__(name):
    from .._hints import missing
    raise missing(__name__, name)   # a TF name minieager lacks: say what to use instead
