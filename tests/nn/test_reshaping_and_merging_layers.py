"""Keras's Reshape, Permute and RepeatVector, and the merge layers (Add, Subtract, Multiply, Average, Maximum,
Minimum, Concatenate and their lower-case functions): values against NumPy, output shapes and summary() in
a Sequential and in a functional Model, training through them, and errors that name the layer and the shapes.
Each test names the Keras behaviour it follows."""
import numpy as np
import pytest

import minieager as me
from minieager.testing import check_gradients

RNG = np.random.default_rng(22)
InvalidArgumentError = me.errors.InvalidArgumentError


def floats(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


# ---- Reshape, Permute, RepeatVector -----------------------------------------------------------------
def test_reshape_permute_and_repeat_vector_values_as_in_keras():
    # Keras: Reshape(target_shape) keeps the batch axis, -1 is inferred; Permute(dims) numbers axes from 1;
    # RepeatVector(n): (batch, features) -> (batch, n, features).
    x = floats(2, 12)
    np.testing.assert_array_equal(me.layers.Reshape((3, 4))(x).numpy(), x.reshape(2, 3, 4))
    np.testing.assert_array_equal(me.layers.Reshape((-1, 2))(x).numpy(), x.reshape(2, 6, 2))
    cube = floats(2, 3, 4, 5)
    np.testing.assert_array_equal(me.layers.Permute((3, 1, 2))(cube).numpy(), np.transpose(cube, (0, 3, 1, 2)))
    np.testing.assert_array_equal(me.layers.RepeatVector(3)(x).numpy(), np.repeat(x[:, None], 3, axis=1))
    ints = me.constant([[1, 2, 3, 4]])                          # no weights, so any dtype passes through
    assert me.layers.Reshape((2, 2))(ints).dtype == me.int32


SEQUENTIAL_SUMMARY = '''\
Model: "sequential"
___________________________________________________________________
 Layer (type)                  Output Shape              Param #
===================================================================
 dense (Dense)                 (None, 12)                60
 reshape (Reshape)             (None, 3, 4)              0
 permute (Permute)             (None, 4, 3)              0
 flatten (Flatten)             (None, 12)                0
 repeat_vector (RepeatVector)  (None, 2, 12)             0
===================================================================
Total params: 60
Trainable params: 60
Non-trainable params: 0
___________________________________________________________________'''


def _sequential():
    return me.Sequential([me.layers.Dense(12, input_shape=(4,)), me.layers.Reshape((3, -1)),
                          me.layers.Permute((2, 1)), me.layers.Flatten(), me.layers.RepeatVector(2)])


def test_in_a_sequential_they_build_at_once_and_summarise(capsys):
    model = _sequential()
    assert model.built
    model.summary()
    assert capsys.readouterr().out.rstrip("\n") == SEQUENTIAL_SUMMARY
    x = floats(5, 4)
    dense = model.layers[0]
    expected = np.transpose((x @ dense.kernel.numpy() + dense.bias.numpy()).reshape(5, 3, 4), (0, 2, 1)).reshape(5, 12)
    np.testing.assert_allclose(model(x).numpy(), np.repeat(expected[:, None], 2, axis=1), rtol=1e-6)


def test_training_through_them_reaches_the_weights_before():
    model = _sequential()
    x = floats(6, 4)
    target = np.repeat((x @ floats(4, 12))[:, None], 2, axis=1)    # reachable: a linear map of x, repeated
    optimizer = me.optimizers.SGD(0.05)
    losses = []
    for _ in range(20):
        with me.GradientTape() as tape:
            loss = me.reduce_mean(me.square(model(x) - target))
        grads = tape.gradient(loss, model.trainable_variables)
        assert all(g is not None and np.any(g.numpy() != 0) for g in grads)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        losses.append(float(loss))
    assert losses[-1] < 0.8 * losses[0]


def test_reshaping_layers_gradients_match_finite_differences():
    reshape, permute, repeat = (me.layers.Reshape((2, -1), dtype="float64"), me.layers.Permute((2, 1), dtype="float64"),
                                me.layers.RepeatVector(3, dtype="float64"))
    check_gradients(lambda t: repeat(me.reshape(permute(reshape(t)), (2, -1))), RNG.standard_normal((2, 6)))


def test_compute_output_shape_keeps_unknown_sizes_unknown():
    # Keras: an unknown size in the input leaves the inferred -1 unknown.
    assert me.layers.Reshape((-1, 2)).compute_output_shape((None, None, 4)) == (None, None, 2)
    assert me.layers.Reshape((-1, 2)).compute_output_shape((None, 3, 4)) == (None, 6, 2)
    assert me.layers.Permute((2, 1)).compute_output_shape((None, 3, None)) == (None, None, 3)
    assert me.layers.RepeatVector(4).compute_output_shape((8, 3)) == (8, 4, 3)
    inputs = me.keras.Input(shape=(6,))
    assert me.layers.Reshape((3, -1))(inputs).shape == (None, 3, 2)


def test_reshaping_layer_errors_name_the_layer_and_the_shapes():
    with pytest.raises(InvalidArgumentError, match=r'Layer "reshape" \(Reshape\) cannot reshape inputs of shape '
                                                   r"\(None, 6\) into target_shape \(4,\): an example has 6 values, "
                                                   r"the target shape 4"):
        me.layers.Reshape((4,))(floats(2, 6))
    with pytest.raises(InvalidArgumentError, match=r"an example's 6 values are not a multiple of 4"):
        me.Sequential([me.layers.Reshape((-1, 4), input_shape=(6,))])
    with pytest.raises(InvalidArgumentError, match=r"Reshape: target_shape may have one -1 \(inferred\), got \[-1, -1"):
        me.layers.Reshape((-1, -1))
    with pytest.raises(InvalidArgumentError, match=r"Permute: dims must number each axis of an example once, counting "
                                                   r"from 1 .*got \[0, 1\]"):
        me.layers.Permute((0, 1))
    with pytest.raises(InvalidArgumentError, match=r'Layer "permute_1" \(Permute\) expects inputs of rank 3.*got shape '
                                                   r"\(2, 3\)"):
        me.layers.Permute((2, 1))(floats(2, 3))
    with pytest.raises(InvalidArgumentError, match=r'Layer "repeat_vector" \(RepeatVector\) expects inputs of rank 2'):
        me.Sequential([me.layers.RepeatVector(2, input_shape=(3, 1))])
    with pytest.raises(InvalidArgumentError, match="RepeatVector: n must be non-negative, got -1"):
        me.layers.RepeatVector(-1)


# ---- merge layers -------------------------------------------------------------------------------------
MERGES = {"Add": lambda xs: sum(xs), "Subtract": lambda xs: xs[0] - xs[1], "Multiply": lambda xs: np.prod(xs, axis=0),
          "Average": lambda xs: np.mean(xs, axis=0), "Maximum": lambda xs: np.max(xs, axis=0),
          "Minimum": lambda xs: np.min(xs, axis=0)}


@pytest.mark.parametrize("name", sorted(MERGES))
def test_elementwise_merges_match_numpy_as_in_keras(name):
    # Keras: Add()([a, b, c]) == a + b + c ...; Subtract takes exactly two inputs.
    xs = [floats(4, 3) for _ in range(2 if name == "Subtract" else 3)]
    layer = getattr(me.layers, name)()
    np.testing.assert_allclose(layer(xs).numpy(), MERGES[name](np.stack(xs)), rtol=1e-6)
    function = getattr(me.layers, name.lower())          # keras.layers.add(inputs) == Add()(inputs)
    np.testing.assert_allclose(function(xs).numpy(), layer(xs).numpy())
    assert layer.name == name.lower() and layer.count_params() == 0


def test_merges_broadcast_sizes_of_one_and_convert_arrays():
    # Keras: a size of 1 broadcasts in elementwise merges (not on the batch axis).
    a, b = floats(4, 3), floats(4, 1)
    np.testing.assert_allclose(me.layers.Add()([a, b]).numpy(), a + b)
    assert me.layers.Add().compute_output_shape([(None, 1, 3), (None, 5, 1)]) == (None, 5, 3)
    assert me.layers.Maximum()([a.tolist(), a]).dtype == me.float32        # a nested list is one input


@pytest.mark.parametrize("axis", [-1, 1, 2])
def test_concatenate_joins_along_an_axis_as_in_keras(axis):
    a, b = floats(2, 3, 4), floats(2, 3, 4)
    np.testing.assert_array_equal(me.layers.Concatenate(axis=axis)([a, b]).numpy(), np.concatenate([a, b], axis))
    np.testing.assert_array_equal(me.layers.concatenate([a, b, a], axis=axis).numpy(), np.concatenate([a, b, a], axis))
    assert me.layers.Concatenate().compute_output_shape([(None, 2), (None, 5)]) == (None, 7)


FUNCTIONAL_SUMMARY = '''\
Model: "model"
_________________________________________________________________
 Layer (type)                Output Shape              Param #
=================================================================
 dense (Dense)               (None, 8)                 40
 dense_1 (Dense)             (None, 8)                 24
 add (Add)                   (None, 8)                 0
 concatenate (Concatenate)   (None, 16)                0
 dense_2 (Dense)             (None, 1)                 17
=================================================================
Total params: 81
Trainable params: 81
Non-trainable params: 0
_________________________________________________________________'''


def test_a_two_branch_functional_model_with_merges(capsys):
    # Keras: merge layers called on lists of symbolic tensors join the branches of a functional model.
    a, b = me.keras.Input(shape=(4,)), me.keras.Input(shape=(2,))
    left, right = me.layers.Dense(8)(a), me.layers.Dense(8)(b)
    added = me.layers.Add()([left, right])
    assert added.shape == (None, 8)
    joined = me.layers.concatenate([added, left])
    model = me.Model([a, b], me.layers.Dense(1)(joined))
    model.summary()
    assert capsys.readouterr().out.rstrip("\n") == FUNCTIONAL_SUMMARY
    xa, xb = floats(3, 4), floats(2 * 3, 1).reshape(3, 2)
    dense, dense_1, _, _, head = model.layers
    hl = xa @ dense.kernel.numpy() + dense.bias.numpy()
    hr = xb @ dense_1.kernel.numpy() + dense_1.bias.numpy()
    expected = np.concatenate([hl + hr, hl], axis=1) @ head.kernel.numpy() + head.bias.numpy()
    np.testing.assert_allclose(model([xa, xb]).numpy(), expected, rtol=1e-5)


def test_a_functional_model_with_merged_branches_trains_with_fit():
    inputs = me.keras.Input(shape=(4,))
    relu, tanh = me.layers.Dense(6, activation="relu")(inputs), me.layers.Dense(6, activation="tanh")(inputs)
    merged = me.layers.Concatenate()([me.layers.Multiply()([relu, tanh]), me.layers.Average()([relu, tanh])])
    model = me.Model(inputs, me.layers.Dense(1)(merged))
    x = floats(32, 4)
    y = x @ np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32)
    model.compile(optimizer=me.optimizers.Adam(0.05), loss="mse")
    history = model.fit(x, y, epochs=20, batch_size=8, verbose=0, seed=0)
    assert history.history["loss"][-1] < 0.5 * history.history["loss"][0]
    with me.GradientTape() as tape:
        loss = me.reduce_mean(me.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    assert len(grads) == 6 and all(np.any(g.numpy() != 0) for g in grads)   # both branches get gradients


@pytest.mark.parametrize("name", sorted(MERGES) + ["Concatenate"])
def test_merge_gradients_match_finite_differences(name):
    layer = getattr(me.layers, name)(dtype="float64")
    xs = [RNG.standard_normal((2, 3)) for _ in range(2)]
    xs[1] += np.where(xs[1] > xs[0], 0.1, -0.1)          # no ties for Maximum and Minimum
    check_gradients(lambda a, b: layer([a * b, b]), *xs)


def test_merge_layer_errors_name_the_layer_and_the_shapes():
    a, b = me.keras.Input(shape=(3,)), me.keras.Input(shape=(4,))
    with pytest.raises(InvalidArgumentError, match=r'Layer "add" \(Add\) must be called on a list of tensors, e\.g\. '
                                                   r"me\.layers\.Add\(\)\(\[a, b\]\); got one KerasTensor of shape "
                                                   r"\(None, 3\)"):
        me.layers.Add()(a)
    with pytest.raises(InvalidArgumentError, match=r'Layer "multiply" \(Multiply\) cannot merge inputs of shapes '
                                                   r"\(None, 3\), \(None, 4\): their sizes on axis 1 differ \(3, 4\); "
                                                   r"each size must match, or be 1 to broadcast"):
        me.layers.Multiply()([a, b])
    with pytest.raises(InvalidArgumentError, match=r'Layer "average" \(Average\) cannot merge inputs of shapes '
                                                   r"\(2, 3\), \(5, 3\): their batch sizes differ \(2, 5\)"):
        me.layers.Average()([floats(2, 3), floats(5, 3)])
    with pytest.raises(InvalidArgumentError, match=r'Layer "subtract" \(Subtract\) must be called on a list of exactly '
                                                   r"2 tensors, got 3"):
        me.layers.subtract([a, a, a])
    with pytest.raises(InvalidArgumentError, match=r'Layer "maximum" \(Maximum\) must be called on a list of at least '
                                                   r"1 tensor, got 0"):
        me.layers.Maximum()([])
    with pytest.raises(InvalidArgumentError, match=r'Layer "minimum" \(Minimum\) got inputs of different ranks: '
                                                   r"\(None, 3\), \(None, 3, 1\)\. Reshape one of them first"):
        me.layers.Minimum()([a, me.keras.Input(shape=(3, 1))])
    with pytest.raises(InvalidArgumentError, match=r'Layer "concatenate" \(Concatenate\) cannot join inputs of shapes '
                                                   r"\(None, 2, 3\), \(None, 4, 3\) along axis -1: every other axis "
                                                   r"must match, but axis 1 has sizes 2, 4"):
        me.layers.Concatenate()([me.keras.Input(shape=(2, 3)), me.keras.Input(shape=(4, 3))])
    with pytest.raises(InvalidArgumentError, match=r'Layer "concatenate_1" \(Concatenate\): axis 2 is out of range '
                                                   r"for a tensor of rank 2"):
        me.layers.Concatenate(axis=2)([a, b])
    with pytest.raises(InvalidArgumentError, match=r'Layer "add_1" \(Add\) must be called on a list of tensors.*got '
                                                   r"one input of shape \(None, 3\)"):
        me.Sequential([me.layers.Dense(3, input_shape=(2,)), me.layers.Add()])
