"""The tape's introspection API (tape.records), which the debugger is built on. See docs/architecture.md."""
import minieager as me


def test_records_of_a_small_expression_are_pinned():
    x = me.constant([1.0, 2.0])
    c = me.constant([3.0, 4.0])
    with me.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * c
        z = me.reduce_sum(y, axis=0)
        unwatched = c * c                         # no watched input: not recorded
    records = tape.records
    assert [r.index for r in records] == [0, 1]
    assert [r.op_name for r in records] == ["multiply", "reduce_sum"]

    mul, total = records
    assert mul.attrs == {}
    assert mul.inputs == (x, c) and mul.outputs == (y,)
    assert mul.input_ids == (x.id, c.id) and mul.output_ids == (y.id,)
    assert mul.rule == ["d(a * b)/da = dy * b", "d(a * b)/db = dy * a"]
    assert mul.is_custom is False

    assert total.attrs == {"axis": (0,), "keepdims": False}
    assert total.input_ids == (y.id,) and total.output_ids == (z.id,)
    assert total.rule == ["d(sum(x))/dx = dy broadcast back to x's shape"]
    assert repr(total) == f"<TapeRecord #1 reduce_sum(t{y.id}) -> t{z.id}>"
    assert unwatched.id not in {i for r in records for i in r.output_ids}


def test_tensor_ids_are_stable_counters():
    a, b = me.constant(1.0), me.constant(2.0)
    assert isinstance(a.id, int) and b.id > a.id
    assert (a + b).id > b.id


def test_records_is_a_copy():
    x = me.constant(1.0)
    with me.GradientTape() as tape:
        tape.watch(x)
        x * 2.0
    tape.records.clear()
    assert len(tape.records) == 1


def test_ops_without_a_gradient_are_not_recorded():
    x = me.constant([1.0, -2.0])
    with me.GradientTape() as tape:
        tape.watch(x)
        me.greater(x, 0.0)
        me.argmax(x)
        me.stop_gradient(x)
    assert tape.records == []


def test_a_custom_gradient_function_is_one_record():
    @me.custom_gradient
    def double(x):
        def grad(dy):
            return dy * 2.0
        return x * 2.0, grad

    x = me.constant(3.0)
    with me.GradientTape() as tape:
        tape.watch(x)
        y = double(x)
    custom = [r for r in tape.records if r.is_custom]
    assert len(custom) == 1
    record = custom[0]
    assert record.op_name == "double"
    assert record.input_ids == (x.id,) and record.output_ids == (y.id,)
    assert record.rule == ["d(double(x))/dx = double's grad_fn(dy) (custom gradient)"]
    assert tape.records[-1] is not None and tape.records[-1].op_name == "double"


def test_a_multi_output_record():
    x = me.constant([[1.0, 2.0, 3.0, 4.0]])
    with me.GradientTape() as tape:
        tape.watch(x)
        logits = x * 1.0
        loss = me.nn.softmax_cross_entropy_with_logits(labels=me.constant([[0.0, 0.0, 1.0, 0.0]]), logits=logits)
    xent = tape.records[-1]
    assert xent.op_name == "softmax_cross_entropy"
    assert len(xent.outputs) == 2 and xent.output_ids[0] == loss.id
