"""What to use instead when a TensorFlow name does not exist in minieager.

Each public module ends with ``def __getattr__(name): raise missing(__name__, name)``, which
Python calls only for a name the module does not have. The error is still an AttributeError,
so ``hasattr`` and ``getattr(module, name, default)`` behave as usual; its message says what to
use instead (the table below) or, for a typo, the closest names that do exist.
"""
import difflib
import sys

_PUBLIC = {"minieager": "me", "minieager.nn": "me.nn", "minieager.nn.layers": "me.layers",
           "minieager.keras": "me.keras", "minieager.nn.optimizers": "me.optimizers",
           "minieager.nn.losses": "me.losses", "minieager.nn.metrics": "me.metrics", "minieager.math": "me.math",
           "minieager.linalg": "me.linalg", "minieager.ops.strings": "me.strings", "minieager.data": "me.data",
           "minieager.data.dataset": "me.data.Dataset"}

_RNN = ("minieager has no recurrent layers. Eager execution runs a Python loop as it is, so write the "
        "recurrence over the time steps yourself, e.g. h = me.tanh(me.matmul(x[:, t], W) + me.matmul(h, U) + b) "
        "with W, U, b from add_weight in a me.keras.layers.Layer subclass.")
_LAYER_FN = "Use me.layers.Lambda(lambda x: ...) with the matching op, e.g. {}."
_NO_DTYPE = "minieager's dtypes are bool, uint8, int32, int64, float16, float32 and float64."
_LINALG = ("minieager's linalg has matmul, tensordot, norm, einsum, eye, diag, diag_part, matrix_transpose and solve. "
           "For {} use NumPy on t.numpy() (no gradient), or write it with those ops.")
_OPTIMIZERS = "The optimizers are SGD (with momentum=), Adam, RMSprop and Adagrad; subclass me.optimizers.Optimizer for another."
_LOSSES = ("The losses are MeanSquaredError, MeanAbsoluteError, BinaryCrossentropy, CategoricalCrossentropy and "
           "SparseCategoricalCrossentropy; any function loss(y_true, y_pred) works with compile and fit too.")
_TRACE = ("TensorBoard's graph view needs TF's GraphDef, which minieager does not write. Draw a traced function's "
          "graph in the notebook instead: f.get_concrete_function(x).graph.draw() for f = me.function(...).")
_TF1_GRAPH = ("TF 1's graph API is me.compat.v1 (Session, placeholder, py_func ...): write "
              "`import minieager.compat.v1 as tf`, or tf.compat.v1.Session(); in TF 2 code use me.function.")
_METRICS = "Write it as a subclass of me.metrics.Mean fed per-example values, or compute it after predict."

HINTS = {
    "minieager": {
        "SparseTensor": "minieager has no sparse tensors: use a dense tensor, and me.scatter_nd / me.gather_nd to "
                        "write and read its non-zero entries.",
        "sparse": "minieager has no sparse tensors: use a dense tensor with me.scatter_nd / me.gather_nd.",
        "RaggedTensor": "minieager has no ragged tensors: pad the rows to one length with me.pad and keep a mask.",
        "ragged": "minieager has no ragged tensors: pad the rows to one length with me.pad and keep a mask.",
        "distribute": "minieager runs on one device; there are no distribution strategies.",
        "estimator": "Estimators are gone in TF 2 too: use model.fit or a GradientTape training loop.",
        "image": "There are no image ops: prepare images with NumPy before making tensors (me.datasets has MNIST).",
        "vectorized_map": "Use me.map_fn(fn, elems) (a Python loop over the examples), or write the op for a whole "
                          "batch.",
        "top_k": "TF 2 has it as tf.math.top_k (and tf.nn.top_k): use me.math.top_k(x, k).",
        "Session": _TF1_GRAPH, "placeholder": _TF1_GRAPH, "global_variables_initializer": _TF1_GRAPH,
        "get_default_graph": _TF1_GRAPH, "reset_default_graph": _TF1_GRAPH, "py_func": _TF1_GRAPH,
        "bfloat16": _NO_DTYPE, "complex64": _NO_DTYPE, "complex128": _NO_DTYPE, "int8": _NO_DTYPE,
        "int16": _NO_DTYPE, "uint16": _NO_DTYPE, "uint32": _NO_DTYPE, "uint64": _NO_DTYPE,
    },
    "minieager.nn": {
        "LSTM": _RNN, "GRU": _RNN, "RNN": _RNN, "SimpleRNN": _RNN, "rnn_cell": _RNN, "dynamic_rnn": _RNN,
        "conv1d": "Only conv2d: reshape a sequence to (batch, 1, length, channels) and use a (1, k) filter.",
        "conv3d": "Only conv2d exists.",
    },
    "minieager.nn.layers": {
        "LSTM": _RNN, "GRU": _RNN, "RNN": _RNN, "SimpleRNN": _RNN, "Bidirectional": _RNN, "TimeDistributed": _RNN,
        "Conv1D": "Only Conv2D: reshape a sequence to (batch, 1, length, channels) and use kernel_size=(1, k).",
        "Conv3D": "Only Conv2D exists.", "Conv2DTranspose": "Only Conv2D exists (no transposed convolution).",
        "MultiHeadAttention": "Write attention with me.einsum and me.nn.softmax in a Layer subclass: "
                              "softmax(einsum('bqd,bkd->bqk', q, k) / sqrt(d)) then einsum('bqk,bkd->bqd', ...).",
        "Attention": "Write attention with me.einsum and me.nn.softmax in a Layer subclass.",
        "GlobalMaxPooling2D": _LAYER_FN.format("me.layers.Lambda(lambda x: me.reduce_max(x, axis=[1, 2]))"),
        "Normalization": "Standardize with NumPy before training: (x - x.mean(0)) / x.std(0).",
    },
    "minieager.keras": {
        "preprocessing": "Prepare data with NumPy and me.data.Dataset (batch, shuffle, map).",
        "regularizers": "Add the penalty to the loss yourself: loss + 1e-4 * sum(me.reduce_sum(w ** 2) for w in "
                        "model.trainable_variables).",
    },
    "minieager.summary": {name: _TRACE for name in ("trace_on", "trace_export", "trace_off", "graph")},
    "minieager.nn.optimizers": {name: _OPTIMIZERS for name in (
        "Adadelta", "Adamax", "Nadam", "AdamW", "Ftrl", "Lion", "schedules", "legacy")},
    "minieager.nn.losses": {name: _LOSSES for name in (
        "Huber", "KLDivergence", "Hinge", "LogCosh", "Poisson", "CosineSimilarity", "huber", "hinge")},
    "minieager.nn.metrics": {name: _METRICS for name in (
        "MeanAbsoluteError", "MeanSquaredError", "RootMeanSquaredError", "TopKCategoricalAccuracy")},
    "minieager.linalg": {name: _LINALG.format(name) for name in (
        "inv", "det", "slogdet", "cholesky", "eigh", "eig", "svd", "qr", "lstsq", "trace", "pinv")},
}
HINTS["minieager.linalg"]["trace"] = "Use me.reduce_sum(me.linalg.diag_part(m), axis=-1)."


# Attributes of a Keras Layer or Model that minieager's lack: what to use instead.
ATTRIBUTE_HINTS = {
    "train_on_batch": "Write the step with a GradientTape: with me.GradientTape() as tape: loss = loss_fn(y, model(x, "
                      "training=True)); then optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), "
                      "model.trainable_variables)).",
    "test_on_batch": "Use model.evaluate(x, y) on the batch.",
    "predict_on_batch": "Call the model: model(x, training=False), or model.predict(x).",
    "fit_generator": "fit takes generators and datasets itself in TF 2: model.fit(dataset).",
    "evaluate_generator": "evaluate takes datasets itself in TF 2: model.evaluate(dataset).",
    "predict_generator": "predict takes datasets itself in TF 2: model.predict(dataset).",
    "to_json": "Use model.get_config() (a dict) or model.save('model.keras'), read back with me.keras.models.load_model.",
    "to_yaml": "Use model.get_config() (a dict) or model.save('model.keras').",
    "metrics_names": "fit's History (history.history) and evaluate(..., return_dict=True) name every metric.",
    "add_loss": "Add the extra term to the loss in your own training step (a GradientTape loop).",
    "losses": "Add regularization terms to the loss in your own training step (a GradientTape loop).",
    "inbound_nodes": "minieager does not keep a layer graph beyond a functional model's own (model.layers).",
}


def missing_attribute(obj, name):
    """The AttributeError for ``obj.name`` on a layer or model: what to use instead, or the nearest names."""
    cls = type(obj).__name__
    message = f"'{cls}' object has no attribute '{name}'."
    hint = ATTRIBUTE_HINTS.get(name)
    if hint is None and not name.startswith("_"):
        close = difflib.get_close_matches(name, [n for n in dir(type(obj)) if not n.startswith("_")], n=3, cutoff=0.75)
        if close:
            hint = "Did you mean " + " or ".join(f"{n}" for n in close) + "?"
    return AttributeError(f"{message} {hint}" if hint else message)


# The me.keras modules re-export these, and share their hints.
_SAME_HINTS = {"minieager.keras.layers": "minieager.nn.layers", "minieager.keras.optimizers": "minieager.nn.optimizers",
               "minieager.keras.losses": "minieager.nn.losses", "minieager.keras.metrics": "minieager.nn.metrics"}


def missing(module_name, name):
    """The AttributeError for ``module_name.name``: what to use instead, or the nearest names."""
    public = _PUBLIC.get(module_name, module_name.replace("minieager", "me", 1))
    message = f"module '{public}' has no attribute '{name}'."
    hint = HINTS.get(_SAME_HINTS.get(module_name, module_name), {}).get(name)
    if hint is None and not name.startswith("_"):
        module = sys.modules.get(module_name)
        names = [n for n in dir(module) if not n.startswith("_")] if module is not None else []
        close = difflib.get_close_matches(name, names, n=3, cutoff=0.75)
        if close:
            hint = "Did you mean " + " or ".join(f"{public}.{n}" for n in close) + "?"
    return AttributeError(f"{message} {hint}" if hint else message)


def missing_member(public, cls, name, hints=None):
    """The AttributeError for ``obj.name`` on an instance of ``cls`` (``public``, e.g. "me.data.Dataset"): a
    hint from ``hints``, or the nearest names the class has, as ``missing`` does for modules."""
    message = f"'{public}' object has no attribute '{name}'."
    hint = (hints or {}).get(name)
    if hint is None and not name.startswith("_"):
        close = difflib.get_close_matches(name, [n for n in dir(cls) if not n.startswith("_")], n=3, cutoff=0.75)
        if close:
            hint = "Did you mean " + " or ".join(f".{n}" for n in close) + "?"
    return AttributeError(f"{message} {hint}" if hint else message)
