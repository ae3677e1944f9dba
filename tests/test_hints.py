"""Guessing a TensorFlow name minieager lacks gets a hint (issue 20): still an AttributeError, as Python
expects, with what to use instead or the nearest existing names."""
import pytest

import minieager as me


@pytest.mark.parametrize("expression, hint", [
    ("me.nn.LSTM", "no recurrent layers.*Python loop"),
    ("me.keras.layers.LSTM", "no recurrent layers"),
    ("me.layers.GRU", "no recurrent layers"),
    ("me.layers.MultiHeadAttention", "me.einsum and me.nn.softmax"),
    ("me.nn.conv1d", r"Only conv2d: reshape a sequence"),
    ("me.layers.GlobalMaxPooling2D", r"me.layers.Lambda\(lambda x: me.reduce_max"),
    ("me.linalg.inv", "NumPy on t.numpy"),
    ("me.linalg.trace", r"reduce_sum\(me.linalg.diag_part"),
    ("me.optimizers.AdamW", "SGD .*Adam, RMSprop and Adagrad"),
    ("me.losses.Huber", "any function loss"),
    ("me.SparseTensor", "no sparse tensors.*scatter_nd"),
    ("me.bfloat16", "dtypes are bool, uint8"),
    ("me.top_k", r"tf.math.top_k.*me.math.top_k\(x, k\)"),
    ("me.vectorized_map", r"me.map_fn\(fn, elems\)"),
    ("me.summary.trace_on", r"graph.draw\(\)"),
])
def test_a_missing_tf_name_says_what_to_use_instead(expression, hint):
    with pytest.raises(AttributeError, match=f"has no attribute '{expression.rsplit('.', 1)[1]}'. .*{hint}"):
        eval(expression)


@pytest.mark.parametrize("expression, suggestion", [
    ("me.redcue_sum", "me.reduce_sum"), ("me.layers.Dens", "me.layers.Dense"), ("me.nn.sofmax", "me.nn.softmax"),
])
def test_a_typo_gets_the_nearest_names(expression, suggestion):
    with pytest.raises(AttributeError, match=f"Did you mean {suggestion}"):
        eval(expression)


def test_hasattr_and_getattr_defaults_still_work():
    assert not hasattr(me.nn, "LSTM")
    assert getattr(me.layers, "GRU", "default") == "default"
    with pytest.raises(AttributeError, match=r"^module 'me' has no attribute 'no_such_thing_at_all'\.$"):
        me.no_such_thing_at_all


def test_keras_layers_input_is_keras_input():
    assert me.keras.layers.Input is me.keras.Input
