"""Neural-network ops: softmax, cross-entropy, l2_loss, conv2d and pooling (NHWC, as in TensorFlow).

conv2d's backward pass is two more ops (``conv2d_backprop_input`` and
``conv2d_backprop_filter``), each with its own VJP, so second derivatives work through them.
"""
import numpy as np

from ..engine import recording
from ..engine.abstract import AbstractArray, same
from ..engine.device import to_host
from ..engine.op import Op
from ..errors import InvalidArgumentError, UnimplementedError
from . import _args, elementwise as ew
from ._axes import normalize_axis
from ._operands import check_float, check_not_bool, operands
from .creation import convert_to_tensor
from .indexing import one_hot
from .random import uniform
from .reductions import reduce_sum
from .shape import expand_dims

# ---- softmax ----------------------------------------------------------------------------------
_softmax = Op("softmax", ("x",), "softmax(x)", ("s * (dy - sum(dy * s))",),
              vjp=lambda dy, x, out, axis: (ew.multiply(out, ew.subtract(
                  dy, reduce_sum(ew.multiply(dy, out), axis=axis, keepdims=True))),), shape_rule=same)
_log_softmax = Op("log_softmax", ("x",), "log_softmax(x)", ("dy - softmax(x) * sum(dy)",),
                  vjp=lambda dy, x, out, axis: (ew.subtract(
                      dy, ew.multiply(ew.exp(out), reduce_sum(dy, axis=axis, keepdims=True))),), shape_rule=same)


def softmax(logits, axis=-1, name=None):
    x = convert_to_tensor(logits)
    check_float("softmax", x)
    return _softmax(x, axis=normalize_axis(axis, x.ndim, "softmax"))


def log_softmax(logits, axis=-1, name=None):
    x = convert_to_tensor(logits)
    check_float("log_softmax", x)
    return _log_softmax(x, axis=normalize_axis(axis, x.ndim, "log_softmax"))


# ---- cross-entropy: one fused, stable kernel that also returns its own gradient ---------------------
def _tapes_recording():
    return any(getattr(o, "_recording", False) for o in recording.this_thread.observers)


def _xent_vjp(dys, logits, labels, out, mean=False):
    dloss = dys[0]
    if dloss is None:
        return None, None
    if not mean:
        dloss = expand_dims(dloss, -1)     # one per row; the mean's dloss is a scalar
    if _tapes_recording():
        # An outer tape is recording this backward pass: use differentiable ops so it can go on.
        target = labels if labels.dtype.is_floating else _one_hot_like(labels, logits)
        grad = ew.subtract(softmax(logits), target)
        return ew.multiply(dloss, ew.divide(grad, logits.shape[0]) if mean else grad), None
    return ew.multiply(dloss, out[1]), None   # the kernel's (softmax - labels) [/ N], computed in the forward


def _one_hot_like(labels, logits):
    return one_hot(labels, logits.shape[-1], dtype=logits.dtype)


def _xent_rule(logits, labels, mean=False):
    """(the loss: one per row, or the batch mean; the gradient: the logits' shape)."""
    return AbstractArray(() if mean else logits.shape[:1], logits.dtype), logits


def _check_labels(logits, labels, mean=False):
    """A value check: every label is a class of the logits, in [0, classes)."""
    values, classes = to_host(labels), logits.shape[1]
    if values.size and (values.min() < 0 or values.max() >= classes):
        bad = values[(values < 0) | (values >= classes)].flat[0]
        raise InvalidArgumentError(
            f"sparse_softmax_cross_entropy_with_logits: received a label value of {bad} which is outside the "
            f"valid range of [0, {classes}). Labels must be class indices for logits with {classes} classes.")


_softmax_xent = Op("softmax_cross_entropy", ("logits", "labels"), "-sum(labels * log_softmax(logits))",
                   ("dy * (softmax(logits) - labels)", None), vjp=_xent_vjp, num_outputs=2, shape_rule=_xent_rule)
_sparse_softmax_xent = Op("sparse_softmax_cross_entropy", ("logits", "labels"), "-log_softmax(logits)[label]",
                          ("dy * (softmax(logits) - one_hot(label))", None), vjp=_xent_vjp, num_outputs=2,
                          shape_rule=_xent_rule, check=_check_labels)
# The batch means that me.losses returns: the same kernels called with mean=True, one op instead of
# three (cross-entropy, reduce_sum, divide) forward and one instead of five backward.
_softmax_xent_mean = Op("softmax_cross_entropy", ("logits", "labels"),
                        "mean over rows of -sum(labels * log_softmax(logits))",
                        ("dy * (softmax(logits) - labels) / batch", None), vjp=_xent_vjp, num_outputs=2,
                        shape_rule=_xent_rule)
_sparse_softmax_xent_mean = Op("sparse_softmax_cross_entropy", ("logits", "labels"),
                               "mean over rows of -log_softmax(logits)[label]",
                               ("dy * (softmax(logits) - one_hot(label)) / batch", None), vjp=_xent_vjp,
                               num_outputs=2, shape_rule=_xent_rule, check=_check_labels)


def _xent_operands(labels, logits):
    logits, labels = operands("softmax_cross_entropy_with_logits", logits, labels)
    check_float("softmax_cross_entropy_with_logits", logits)
    if logits.ndim != 2 or labels.shape != logits.shape:
        raise InvalidArgumentError(
            f"softmax_cross_entropy_with_logits: logits must be (batch, classes) and labels the same shape; "
            f"got logits {tuple(logits.shape)} and labels {tuple(labels.shape)}.")
    _check_classes("softmax_cross_entropy_with_logits", logits._value.shape)
    return logits, labels


def _check_classes(op_name, logits_shape):
    if logits_shape[0] and not logits_shape[1]:
        raise InvalidArgumentError(
            f"{op_name}: logits {logits_shape} have no classes; a softmax needs at least one per row.")


def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """Per-example cross-entropy between label distributions and unnormalised logits (N, C)."""
    return _softmax_xent(*_xent_operands(labels, logits))[0]


def mean_softmax_cross_entropy(labels, logits):
    """The batch mean of ``softmax_cross_entropy_with_logits``, as one op (``me.losses`` uses it)."""
    return _softmax_xent_mean(*_xent_operands(labels, logits), mean=True)[0]


def _sparse_xent_operands(labels, logits):
    logits, labels = convert_to_tensor(logits), convert_to_tensor(labels)
    check_float("sparse_softmax_cross_entropy_with_logits", logits)
    if not labels.dtype.is_integer:
        raise InvalidArgumentError(
            f"sparse_softmax_cross_entropy_with_logits: labels must be integer class ids, got {labels.dtype.name}. "
            f"For one-hot or probability labels use softmax_cross_entropy_with_logits.")
    logits_shape, labels_shape = logits._value.shape, labels._value.shape
    if len(logits_shape) != 2 or labels_shape != logits_shape[:1]:
        raise InvalidArgumentError(
            f"sparse_softmax_cross_entropy_with_logits: logits must be (batch, classes) and labels (batch,); "
            f"got logits {logits_shape} and labels {labels_shape}.")
    _check_classes("sparse_softmax_cross_entropy_with_logits", logits_shape)
    return logits, labels     # the labels' values are checked with the kernel (_check_labels), on every run


def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    """Per-example cross-entropy with integer class labels (N,) and logits (N, C)."""
    return _sparse_softmax_xent(*_sparse_xent_operands(labels, logits))[0]


def mean_sparse_softmax_cross_entropy(labels, logits):
    """The batch mean of ``sparse_softmax_cross_entropy_with_logits``, as one op (``me.losses`` uses it)."""
    return _sparse_softmax_xent_mean(*_sparse_xent_operands(labels, logits), mean=True)[0]


# ---- sigmoid cross-entropy and l2_loss: compositions --------------------------------------------
def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Per-element cross-entropy of labels z (0/1 or probabilities) against logits x, in TF's form
    max(x, 0) - x z + log(1 + exp(-|x|)), which overflows for no x."""
    if labels is None or logits is None:
        raise InvalidArgumentError(
            "sigmoid_cross_entropy_with_logits: both labels and logits must be given, e.g. "
            "me.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x).")
    x, z = operands("sigmoid_cross_entropy_with_logits", logits, labels)
    check_float("sigmoid_cross_entropy_with_logits", x)
    if x._value.shape != z._value.shape:
        raise InvalidArgumentError(
            f"sigmoid_cross_entropy_with_logits: logits and labels must have the same shape, got logits "
            f"{tuple(x.shape)} and labels {tuple(z.shape)}.")
    # max(x, 0) and -|x| as TF writes them, two wheres on x >= 0: at x == 0 their gradients then add
    # up to sigmoid(0) - z, where relu's and abs's (0 at 0) would give -z.
    positive = ew.greater_equal(x, 0.0)
    relu_x = ew.where(positive, x, ew.zeros_like(x))
    minus_abs_x = ew.where(positive, ew.negative(x), x)
    return ew.add(ew.subtract(relu_x, ew.multiply(x, z)), ew.log1p(ew.exp(minus_abs_x)))


def l2_loss(t, name=None):
    """sum(t^2) / 2, a scalar: the weight-decay penalty of a weight tensor."""
    t = convert_to_tensor(t)
    check_float("l2_loss", t)
    return ew.multiply(reduce_sum(ew.square(t)), 0.5)


# ---- bias -----------------------------------------------------------------------------------------
# The bias gradient sums dy over every axis but the last: one number per channel.
_bias_add = Op("bias_add", ("value", "bias"), "value + bias", ("dy", "sum of dy over all axes but the last"),
               vjp=lambda dy, value, bias, out: (dy, reduce_sum(dy, axis=tuple(range(dy.ndim - 1)))), shape_rule=same)


def bias_add(value, bias, data_format="NHWC", name=None):
    """``value + bias`` for a 1-D ``bias`` along the last (channel) axis: how Dense and Conv2D add theirs.

    The same numbers as ``value + bias``, recorded as one op with its own kernel, which adds a row of
    channels to each position in one pass (a broadcast add over 16 channels is many short loops).
    """
    value, bias = operands("bias_add", value, bias)
    check_not_bool("bias_add", value)
    if data_format not in ("NHWC", "NWC", "NC", None):
        raise InvalidArgumentError(f"bias_add: only channels-last data formats are supported, got {data_format!r}.")
    value_shape, bias_shape = value._value.shape, bias._value.shape
    if len(value_shape) < 2 or len(bias_shape) != 1 or bias_shape[0] != value_shape[-1]:
        raise InvalidArgumentError(
            f"bias_add: value must be at least 2-D and bias 1-D with one entry per channel (value's last axis); "
            f"got value {value_shape} and bias {bias_shape}.")
    return _bias_add(value, bias)


# ---- convolution ----------------------------------------------------------------------------------
def _conv_vjp(dy, x, w, out, strides, padding, needs):
    # The input gradient of a first layer (x is the data) is never needed: skip it (selective=True).
    need_x, need_w = needs
    dx = _conv2d_backprop_input(dy, w, input_shape=tuple(x.shape), strides=strides, padding=padding) if need_x else None
    dw = _conv2d_backprop_filter(x, dy, filter_shape=tuple(w.shape), strides=strides, padding=padding) if need_w else None
    return dx, dw


def _window_out(size, k, stride, padding):
    """Output length along one spatial axis: VALID windows fit inside, SAME ones cover every input."""
    if size is None:
        return None
    return (size - k) // stride + 1 if padding == "VALID" else -(-size // stride)


def _conv_rule(x, w, strides, padding):
    """x (N, H, W, C), w (KH, KW, C, F) -> (N, OH, OW, F)."""
    return AbstractArray((x.shape[0], _window_out(x.shape[1], w.shape[0], strides[0], padding),
                          _window_out(x.shape[2], w.shape[1], strides[1], padding), w.shape[3]), x.dtype)


_conv2d = Op("conv2d", ("x", "w"), "conv2d(x, w)",
             ("conv2d_backprop_input(dy, w)", "conv2d_backprop_filter(x, dy)"), vjp=_conv_vjp, selective=True,
             shape_rule=_conv_rule)


# conv2d, bias_add and (optionally) relu as one op, which only graph mode's convolution-epilogue pass
# makes (``graph/passes/conv_fusion.py``; TF's remapper makes ``_FusedConv2D`` the same way). Its
# kernel adds the bias and applies relu to each chunk of the convolution's output while that chunk
# is still in the cache, instead of two more passes over the whole output. Eager code keeps the three
# ops, so its tape records what the user wrote.
def _fused_conv_vjp(dy, x, w, bias, out, strides, padding, activation, needs):
    if activation == "relu":
        dy = ew.relu_grad(dy, out)
    dx, dw = _conv_vjp(dy, x, w, None, strides, padding, needs[:2])
    return dx, dw, reduce_sum(dy, axis=tuple(range(dy.ndim - 1))) if needs[2] else None


fused_conv2d = Op("fused_conv2d", ("x", "w", "bias"), "activation(conv2d(x, w) + bias)",
                  ("conv2d_backprop_input(g, w)", "conv2d_backprop_filter(x, g)", "sum of g over all axes but the last"
                   " (g = dy * (out > 0) for relu, else dy)"),
                  vjp=_fused_conv_vjp, selective=True,
                  shape_rule=lambda x, w, bias, strides, padding, activation: _conv_rule(x, w, strides, padding))

_conv2d_backprop_input = Op(
    "conv2d_backprop_input", ("dy", "w"), "conv2d_backprop_input(dy, w)",
    ("conv2d(g, w)", "conv2d_backprop_filter(g, dy)"),
    vjp=lambda g, dy, w, out, input_shape, strides, padding: (
        _conv2d(g, w, strides=strides, padding=padding),
        _conv2d_backprop_filter(g, dy, filter_shape=tuple(w.shape), strides=strides, padding=padding)),
    shape_rule=lambda dy, w, input_shape, strides, padding: AbstractArray(
        dy.shape[:1] + tuple(input_shape[1:]), dy.dtype))
_conv2d_backprop_filter = Op(
    "conv2d_backprop_filter", ("x", "dy"), "conv2d_backprop_filter(x, dy)",
    ("conv2d_backprop_input(dy, g)", "conv2d(x, g)"),
    vjp=lambda g, x, dy, out, filter_shape, strides, padding: (
        _conv2d_backprop_input(dy, g, input_shape=tuple(x.shape), strides=strides, padding=padding),
        _conv2d(x, g, strides=strides, padding=padding)),
    shape_rule=lambda x, dy, filter_shape, strides, padding: AbstractArray(
        filter_shape, x.dtype))


def conv2d(input, filters, strides=1, padding="VALID", data_format="NHWC", dilations=None, name=None):  # noqa: A002
    """2-D convolution: input (batch, height, width, in_channels), filters (kh, kw, in_channels, out_channels)."""
    x, w = operands("conv2d", input, filters)
    check_float("conv2d", x)
    if data_format != "NHWC":
        raise InvalidArgumentError(f"conv2d: only data_format='NHWC' is supported, got {data_format!r}.")
    if dilations not in (None, 1, [1, 1], (1, 1), [1, 1, 1, 1], (1, 1, 1, 1)):
        raise InvalidArgumentError("conv2d: dilations other than 1 are not supported.")
    if x.ndim != 4 or w.ndim != 4:
        raise InvalidArgumentError(
            f"conv2d: input must be (batch, height, width, channels) and filters (kh, kw, in, out); got "
            f"input {tuple(x.shape)} and filters {tuple(w.shape)}.")
    if x.shape[3] != w.shape[2]:
        raise InvalidArgumentError(
            f"conv2d: the input has {x.shape[3]} channels but the filters expect {w.shape[2]} "
            f"(input {tuple(x.shape)}, filters {tuple(w.shape)}).")
    if w.shape[0] < 1 or w.shape[1] < 1:
        raise InvalidArgumentError(f"conv2d: filters must be at least 1x1, got filters {tuple(w.shape)}.")
    strides = _args.window_pair(strides, "conv2d", "strides")
    padding = _args.padding(padding, "conv2d")
    if padding == "VALID" and (x.shape[1] < w.shape[0] or x.shape[2] < w.shape[1]):
        raise InvalidArgumentError(
            f"conv2d: with padding='VALID' the {w.shape[0]}x{w.shape[1]} filter does not fit in the "
            f"{x.shape[1]}x{x.shape[2]} input. Use padding='SAME' or a smaller filter.")
    return _conv2d(x, w, strides=strides, padding=padding)


# ---- pooling --------------------------------------------------------------------------------------
def _no_second_order(*args, **kwargs):
    raise UnimplementedError("Second derivatives through max_pool2d are not implemented in minieager.")


def _pool_rule(x, ksize, strides, padding):
    """x (N, H, W, C) -> (N, OH, OW, C): a window of ``ksize`` per output position."""
    return AbstractArray((x.shape[0], _window_out(x.shape[1], ksize[0], strides[0], padding),
                          _window_out(x.shape[2], ksize[1], strides[1], padding), x.shape[3]), x.dtype)


_max_pool2d_grad = Op("max_pool2d_grad", ("x", "dy"), "max_pool2d_grad(x, dy)", vjp=_no_second_order,
                      shape_rule=lambda x, dy, ksize, strides, padding: x)
_max_pool2d = Op("max_pool2d", ("x",), "max_pool2d(x)", ("dy to the max of each window",),
                 vjp=lambda dy, x, out, ksize, strides, padding: (
                     _max_pool2d_grad(x, dy, ksize=ksize, strides=strides, padding=padding),), shape_rule=_pool_rule)
_avg_pool2d_grad = Op("avg_pool2d_grad", ("dy",), "avg_pool2d_grad(dy)", ("avg_pool2d(g)",),
                      vjp=lambda g, dy, out, input_shape, ksize, strides, padding: (
                          _avg_pool2d(g, ksize=ksize, strides=strides, padding=padding),),
                      shape_rule=lambda dy, input_shape, ksize, strides, padding: AbstractArray(
    dy.shape[:1] + tuple(input_shape[1:]), dy.dtype))
_avg_pool2d = Op("avg_pool2d", ("x",), "avg_pool2d(x)", ("dy shared equally over each window",),
                 vjp=lambda dy, x, out, ksize, strides, padding: (
                     _avg_pool2d_grad(dy, input_shape=tuple(x.shape), ksize=ksize, strides=strides, padding=padding),),
                 shape_rule=_pool_rule)


def _pool(op, name, input, ksize, strides, padding, data_format):  # noqa: A002
    x = convert_to_tensor(input)
    check_float(name, x)
    if data_format != "NHWC":
        raise InvalidArgumentError(f"{name}: only data_format='NHWC' is supported, got {data_format!r}.")
    if x.ndim != 4:
        raise InvalidArgumentError(f"{name}: input must be (batch, height, width, channels), got {tuple(x.shape)}.")
    ksize = _args.window_pair(ksize, name, "ksize")
    strides = _args.window_pair(ksize if strides is None else strides, name, "strides")
    padding = _args.padding(padding, name)
    if padding == "VALID" and (x.shape[1] < ksize[0] or x.shape[2] < ksize[1]):
        raise InvalidArgumentError(
            f"{name}: with padding='VALID' the {ksize[0]}x{ksize[1]} window does not fit in the "
            f"{x.shape[1]}x{x.shape[2]} input.")
    return op(x, ksize=ksize, strides=strides, padding=padding)


def max_pool2d(input, ksize, strides, padding="VALID", data_format="NHWC", name=None):  # noqa: A002
    return _pool(_max_pool2d, "max_pool2d", input, ksize, strides, padding, data_format)


def avg_pool2d(input, ksize, strides, padding="VALID", data_format="NHWC", name=None):  # noqa: A002
    return _pool(_avg_pool2d, "avg_pool2d", input, ksize, strides, padding, data_format)


# ---- dropout -------------------------------------------------------------------------------------
def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """Zero each element with probability ``rate`` and scale the rest by 1/(1 - rate)."""
    x = convert_to_tensor(x)
    check_float("dropout", x)
    if isinstance(rate, bool) or not isinstance(rate, (int, float, np.integer, np.floating)) or not 0 <= rate < 1:
        raise InvalidArgumentError(f"dropout: rate must be a number in [0, 1), got {rate!r:.80}.")
    if float(rate) == 0:
        return x
    keep = ew.cast(ew.greater_equal(uniform(noise_shape or x.shape, dtype=x.dtype, seed=seed), rate), x.dtype)
    return ew.multiply(x, ew.divide(keep, 1.0 - float(rate)))
