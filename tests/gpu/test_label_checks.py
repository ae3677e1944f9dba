"""Labels outside [0, classes) are refused on the GPU too, eagerly and in a me.function graph (as TF's
SparseSoftmaxCrossEntropyWithLogits), and the optimizers update scalar variables there (issue 28)."""
import pytest

import minieager as me


@pytest.mark.parametrize("traced", [False, True])
def test_a_label_out_of_range_is_refused_on_the_gpu(traced):
    def loss(labels, logits):
        return me.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)
    loss = me.function(loss) if traced else loss
    with me.device("/gpu:0"):
        logits = me.constant([[1.0, 2.0, 3.0]])
        with pytest.raises(me.errors.InvalidArgumentError, match=r"label value of 7 .*range of \[0, 3\)"):
            loss(me.constant([7]), logits)
        good = loss(me.constant([2]), logits)
    assert float(good[0]) == pytest.approx(float(me.nn.sparse_softmax_cross_entropy_with_logits(
        me.constant([2]), me.constant([[1.0, 2.0, 3.0]]))[0]), rel=1e-6)


@pytest.mark.parametrize("optimizer", [me.optimizers.Adam, me.optimizers.RMSprop, me.optimizers.Adagrad])
def test_optimizers_update_a_scalar_variable_on_the_gpu(optimizer):
    results = []
    for device in ("/cpu:0", "/gpu:0"):
        with me.device(device):
            w = me.Variable(2.0)
        opt = optimizer(0.1)
        for _ in range(2):
            with me.GradientTape() as tape:
                loss = w * w
            opt.apply_gradients([(tape.gradient(loss, w), w)])
        results.append(float(w.numpy()))
    assert results[1] == pytest.approx(results[0], rel=1e-6)
