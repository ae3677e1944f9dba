"""me.summary: real TensorBoard event files, read back with TensorBoard's own readers."""
import sys

import numpy as np
import pytest
from tensorboard.backend.event_processing import event_accumulator, plugin_event_accumulator

import minieager as me
from minieager.summary import writer as writer_module


@pytest.fixture(autouse=True)
def clean_state(fresh_state, monkeypatch):
    """No default writer; and tests/conftest.py's fresh_state: no global step before or after."""
    monkeypatch.setattr(writer_module, "_default", None)


def events(logdir):
    acc = event_accumulator.EventAccumulator(str(logdir), size_guidance={event_accumulator.SCALARS: 0})
    acc.Reload()
    return acc


def scalars(logdir, tag):
    return [(e.step, e.value) for e in events(logdir).Scalars(tag)]


def test_scalar_writes_an_event_file_tensorboard_reads(tmp_path):
    writer = me.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        for step in range(3):
            assert me.summary.scalar("loss", me.constant(1.0 / (step + 1)), step=step)
    assert [p.name.startswith("events.out.tfevents") for p in tmp_path.iterdir()] == [True]
    assert scalars(tmp_path, "loss") == [(0, 1.0), (1, 0.5), (2, pytest.approx(1 / 3))]


def test_the_step_defaults_to_the_global_step(tmp_path):
    step = me.train.get_or_create_global_step()
    with me.summary.create_file_writer(str(tmp_path)).as_default():
        step.assign_add(5)
        me.summary.scalar("x", 2.0)
    assert scalars(tmp_path, "x") == [(5, 2.0)]


def test_the_guides_every_n_global_steps_loop(tmp_path):
    global_step = me.train.get_or_create_global_step()
    writer = me.summary.create_file_writer(str(tmp_path))
    writer.set_as_default()
    for _ in range(10):
        global_step.assign_add(1)
        with me.summary.record_summaries_every_n_global_steps(3):
            me.summary.scalar("global_step", global_step)
    me.summary.flush()
    assert scalars(tmp_path, "global_step") == [(3, 3.0), (6, 6.0), (9, 9.0)]


def test_record_if_conditions(tmp_path):
    with me.summary.create_file_writer(str(tmp_path)).as_default():
        with me.summary.record_if(False):
            assert not me.summary.scalar("a", 1.0, step=0)
            with me.summary.always_record_summaries():       # the innermost condition decides
                assert me.summary.scalar("a", 2.0, step=1)
        with me.summary.never_record_summaries():
            assert not me.summary.scalar("a", 3.0, step=2)
        flag = {"on": False}
        with me.summary.record_if(lambda: flag["on"]):         # asked at each summary
            me.summary.scalar("a", 4.0, step=3)
            flag["on"] = True
            me.summary.scalar("a", 5.0, step=4)
        assert me.summary.scalar("a", 6.0, step=5)             # outside any condition: recorded
    assert scalars(tmp_path, "a") == [(1, 2.0), (4, 5.0), (5, 6.0)]


def test_without_a_writer_nothing_is_written():
    assert me.summary.scalar("loss", 1.0, step=0) is False


def test_as_default_nests_and_overrides_set_as_default(tmp_path):
    outer, inner = (me.summary.create_file_writer(str(tmp_path / name)) for name in ("outer", "inner"))
    outer.set_as_default()
    with inner.as_default():
        me.summary.scalar("x", 1.0, step=0)
    me.summary.scalar("x", 2.0, step=0)
    outer.flush()
    assert scalars(tmp_path / "inner", "x") == [(0, 1.0)] and scalars(tmp_path / "outer", "x") == [(0, 2.0)]


def test_histogram_image_and_text(tmp_path):
    with me.summary.create_file_writer(str(tmp_path)).as_default():
        me.summary.histogram("weights", me.random.normal([1000]), step=1)
        me.summary.image("digits", np.random.default_rng(0).random((2, 8, 8, 1)), step=1)
        me.summary.text("note", "hello **TensorBoard**", step=2)
    acc = events(tmp_path)
    histogram = acc.Histograms("weights")[0]
    assert histogram.step == 1 and histogram.histogram_value.num == 1000
    picture = acc.Images("digits")[0]
    assert (picture.width, picture.height) == (16, 8) and picture.encoded_image_string[:4] == b"\x89PNG"
    plugins = plugin_event_accumulator.EventAccumulator(str(tmp_path))
    plugins.Reload()
    assert plugins.PluginTagToContent("text") == {"note/text_summary": b""}
    assert plugins.Tensors("note/text_summary")[0].tensor_proto.string_val == [b"hello **TensorBoard**"]


def test_bad_summary_data_is_an_error():
    with pytest.raises(me.errors.InvalidArgumentError, match="single number"):
        me.summary.scalar("loss", [1.0, 2.0], step=0)
    with pytest.raises(me.errors.InvalidArgumentError, match="height, width, channels"):
        me.summary.image("img", np.zeros((8, 8)), step=0)
    with pytest.raises(me.errors.InvalidArgumentError, match="str"):
        me.summary.text("t", 3, step=0)


def test_plot_draws_each_scalar_tag(tmp_path):
    with me.summary.create_file_writer(str(tmp_path)).as_default():
        for step in range(5):
            me.summary.scalar("loss", 1.0 / (step + 1), step=step)
            me.summary.scalar("accuracy", step / 5, step=step)
    figure = me.summary.plot(str(tmp_path))
    assert [ax.get_title() for ax in figure.axes] == ["accuracy", "loss"]
    assert list(figure.axes[1].lines[0].get_xdata()) == [0, 1, 2, 3, 4]
    assert [ax.get_title() for ax in me.summary.plot(str(tmp_path), tags=["loss"]).axes] == ["loss"]
    with pytest.raises(ValueError, match="accuracy.*loss"):
        me.summary.plot(str(tmp_path), tags=["nope"])


def test_minieager_imports_without_tensorboardx(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "tensorboardX", None)     # as if it were not installed
    with pytest.raises(ImportError, match="pip install tensorboardX"):
        me.summary.create_file_writer(str(tmp_path))
