"""me.train.Checkpoint and CheckpointManager: round trips, delayed restoration, matching and damaged files."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest

import minieager as me
from minieager.train import _files


pytestmark = pytest.mark.usefixtures("fresh_state")   # tests/conftest.py: no global step before or after


def mlp():
    return me.Sequential([me.layers.Dense(4, activation="relu"), me.layers.Dense(2)])


def train_step(model, optimizer, x):
    with me.GradientTape() as tape:
        loss = me.reduce_mean(me.square(model(x)))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables),
                              global_step=me.train.get_or_create_global_step())


# ---- the guide's examples --------------------------------------------------------------------
def test_the_guides_variable_example(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    x = me.Variable(10.)
    checkpoint = me.train.Checkpoint(x=x)
    x.assign(2.)
    assert checkpoint.save("./ckpt/") == "./ckpt/-1"
    x.assign(11.)
    checkpoint.restore(me.train.latest_checkpoint("./ckpt/")).assert_consumed()
    assert float(x) == 2.0
    assert me.Checkpoint is me.train.Checkpoint


def test_save_numbers_each_save_and_latest_checkpoint_follows(tmp_path):
    v = me.Variable([1.0, 2.0])
    checkpoint = me.train.Checkpoint(v=v)
    prefix = str(tmp_path / "ckpt")
    assert me.train.latest_checkpoint(str(tmp_path)) is None
    assert [checkpoint.save(prefix), checkpoint.save(prefix)] == [prefix + "-1", prefix + "-2"]
    assert me.train.latest_checkpoint(str(tmp_path)) == prefix + "-2"
    assert int(checkpoint.save_counter) == 2
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-1.npz", "ckpt-2.npz"]


def test_write_uses_the_exact_path_and_no_counter(tmp_path):
    checkpoint = me.train.Checkpoint(v=me.Variable(3.0))
    assert checkpoint.write(str(tmp_path / "model")) == str(tmp_path / "model")
    assert os.listdir(tmp_path) == ["model.npz"] and int(checkpoint.save_counter) == 0
    checkpoint.restore(str(tmp_path / "model.npz")).assert_consumed()      # the file name works too


def test_the_file_is_a_plain_npz_with_a_json_index(tmp_path):
    checkpoint = me.train.Checkpoint(w=me.Variable(np.ones((2, 3), np.float32)), n=me.Variable(np.int64(7)))
    path = checkpoint.save(str(tmp_path / "ckpt"))
    with zipfile.ZipFile(path + ".npz") as archive:
        index = json.loads(archive.read("index.json"))
    assert index["variables"]["w"] == {"key": index["variables"]["w"]["key"], "shape": [2, 3], "dtype": "float32"}
    with np.load(path + ".npz", allow_pickle=False) as npz:
        assert int(npz[index["variables"]["n"]["key"]]) == 7
    assert me.train.list_variables(path) == [("n", ()), ("save_counter", ()), ("w", (2, 3))]


def test_model_optimizer_and_global_step_round_trip(tmp_path):
    me.random.set_seed(0)
    x = me.random.normal([8, 3])
    model, optimizer = mlp(), me.train.AdamOptimizer(learning_rate=0.01)
    train_step(model, optimizer, x)
    root = me.train.Checkpoint(optimizer=optimizer, model=model,
                               optimizer_step=me.train.get_or_create_global_step())
    path = root.save(str(tmp_path / "ckpt"))
    saved = [v.numpy() for v in model.variables]
    slots = [optimizer.get_slot(v, "m").numpy() for v in model.trainable_variables]
    train_step(model, optimizer, x)
    assert int(me.train.get_or_create_global_step()) == 2
    root.restore(me.train.latest_checkpoint(str(tmp_path))).assert_consumed()
    assert int(me.train.get_or_create_global_step()) == 1 and int(optimizer.iterations) == 1
    for v, value in zip(model.variables, saved):
        np.testing.assert_array_equal(v.numpy(), value)
    for v, value in zip(model.trainable_variables, slots):
        np.testing.assert_array_equal(optimizer.get_slot(v, "m").numpy(), value)
    names = [name for name, _ in me.train.list_variables(path)]
    assert "model/layer-0/kernel" in names and "optimizer/.slots/model/layer-1/bias/v" in names


def test_delayed_restoration_into_a_model_that_is_not_built_yet(tmp_path):
    x = me.random.normal([4, 3])
    model, optimizer = mlp(), me.optimizers.Adam(0.01)
    train_step(model, optimizer, x)
    path = me.train.Checkpoint(model=model, optimizer=optimizer).save(str(tmp_path / "ckpt"))

    fresh_model, fresh_optimizer = mlp(), me.optimizers.Adam(0.01)
    status = me.train.Checkpoint(model=fresh_model, optimizer=fresh_optimizer).restore(path)
    status.assert_existing_objects_matched()             # nothing that exists yet lacks a value
    with pytest.raises(AssertionError, match="model/layer-0/kernel"):
        status.assert_consumed()                         # but the layers' values are still waiting
    np.testing.assert_allclose(fresh_model(x).numpy(), model(x).numpy())    # building restored them
    status.assert_consumed()                             # and the optimizer's slots for them
    train_step(fresh_model, fresh_optimizer, x)
    train_step(model, optimizer, x)
    for a, b in zip(fresh_model.variables, model.variables):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)


def test_a_shared_layer_is_saved_once(tmp_path):
    dense = me.layers.Dense(2)
    dense(me.zeros([1, 2]))
    path = me.train.Checkpoint(first=dense, again=[dense]).save(str(tmp_path / "ckpt"))
    assert [n for n, _ in me.train.list_variables(path)] == ["first/bias", "first/kernel", "save_counter"]


def test_metrics_are_saved_with_their_state(tmp_path):
    m = me.metrics.Mean()
    m(0), m(5)
    path = me.train.Checkpoint(loss=m).save(str(tmp_path / "ckpt"))
    other = me.metrics.Mean()
    me.train.Checkpoint(loss=other).restore(path).assert_consumed()
    assert float(other.result()) == 2.5


# ---- what does not match ---------------------------------------------------------------------
def test_a_checkpoint_of_another_model_names_what_did_not_match(tmp_path):
    path = me.train.Checkpoint(model=mlp()).save(str(tmp_path / "ckpt"))    # never built: nothing saved but the counter
    model = mlp()
    model(me.zeros([1, 3]))
    status = me.train.Checkpoint(model=model).restore(path)
    with pytest.raises(AssertionError, match=r"no value in the checkpoint:\n  model/layer-0/bias"):
        status.assert_existing_objects_matched()

    x = me.Variable(1.0)
    path = me.train.Checkpoint(x=x, y=me.Variable(2.0)).save(str(tmp_path / "other"))
    with pytest.raises(AssertionError, match=r"no variable took \(yet\):\n  y"):
        me.train.Checkpoint(x=x).restore(path).assert_consumed()


def test_a_shape_or_dtype_mismatch_names_the_file_and_the_variable(tmp_path):
    path = me.train.Checkpoint(w=me.Variable(np.zeros((2, 3), np.float32))).save(str(tmp_path / "ckpt"))
    w = me.Variable(np.ones((3, 3), np.float32))
    with pytest.raises(me.errors.InvalidArgumentError, match=r"ckpt-1\.npz: 'w' was saved with shape \(2, 3\)"):
        me.train.Checkpoint(w=w).restore(path)
    assert float(me.reduce_sum(w)) == 9.0                                   # nothing was changed
    with pytest.raises(me.errors.InvalidArgumentError, match="dtype float32.*dtype int32"):
        me.train.Checkpoint(w=me.Variable(np.zeros((2, 3), np.int32))).restore(path)


def test_restore_from_a_missing_path_is_not_found(tmp_path):
    checkpoint = me.train.Checkpoint(x=me.Variable(1.0))
    with pytest.raises(me.errors.NotFoundError, match="ckpt-7"):
        checkpoint.restore(str(tmp_path / "ckpt-7"))
    with pytest.raises(me.errors.NotFoundError, match="latest_checkpoint"):
        checkpoint.restore(str(tmp_path))
    with pytest.raises(AssertionError, match="No checkpoint"):
        checkpoint.restore(None).assert_consumed()           # restore(latest_checkpoint(empty folder))


def test_only_trackable_objects_can_be_saved():
    with pytest.raises(TypeError, match="step=int"):
        me.train.Checkpoint(step=5)


# ---- damaged files ---------------------------------------------------------------------------
def test_a_truncated_file_is_data_loss_naming_the_file(tmp_path):
    path = me.train.Checkpoint(w=me.Variable(np.ones(1000, np.float32))).save(str(tmp_path / "ckpt"))
    data = open(path + ".npz", "rb").read()
    open(path + ".npz", "wb").write(data[: len(data) // 2])
    with pytest.raises(me.errors.DataLossError, match=r"ckpt-1\.npz is truncated or corrupted"):
        me.train.Checkpoint(w=me.Variable(np.ones(1000, np.float32))).restore(path)


def test_a_corrupted_value_is_data_loss_naming_the_variable(tmp_path):
    path = me.train.Checkpoint(w=me.Variable(np.ones(1000, np.float32))).save(str(tmp_path / "ckpt"))
    data = bytearray(open(path + ".npz", "rb").read())
    data[data.index(b"\x00\x00\x80\x3f") + 40] ^= 0xFF          # flip bits inside the array's bytes
    open(path + ".npz", "wb").write(bytes(data))
    with pytest.raises(me.errors.DataLossError, match=r"ckpt-1\.npz: the value of 'w' is truncated or corrupted"):
        me.train.Checkpoint(w=me.Variable(np.ones(1000, np.float32))).restore(path)


def test_loading_never_unpickles(tmp_path):
    path = tmp_path / "evil.npz"
    index = {"format": "minieager-checkpoint", "version": 1,
             "variables": {"x": {"key": "v0", "shape": [1], "dtype": "object"}}}
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("index.json", json.dumps(index))
        with archive.open("v0.npy", "w") as f:
            np.lib.format.write_array(f, np.array([print], dtype=object), allow_pickle=True)
    with pytest.raises(me.errors.DataLossError, match="pickle"):
        me.train.Checkpoint(x=me.Variable([1.0])).restore(str(path))


def test_a_save_killed_part_way_leaves_the_previous_checkpoint_intact(tmp_path):
    """A real process is killed with SIGKILL after writing part of its second checkpoint."""
    script = textwrap.dedent("""
        import os, signal, sys
        import numpy as np
        import minieager as me
        from minieager.train import _format

        v = me.Variable(np.arange(100000, dtype=np.float32))
        w = me.Variable(np.full(100000, 7.0, np.float32))
        checkpoint = me.train.Checkpoint(v=v, w=w)
        checkpoint.save(sys.argv[1])
        v.assign(np.zeros(100000, np.float32))

        write_member = _format._write_member
        def write_then_die(archive, member, array):
            write_member(archive, member, array)
            archive.fp.flush()
            os.fsync(archive.fp.fileno())            # the partial file really is on disk
            os.kill(os.getpid(), signal.SIGKILL)
        _format._write_member = write_then_die
        checkpoint.save(sys.argv[1])
    """)
    prefix = str(tmp_path / "ckpt")
    result = subprocess.run([sys.executable, "-c", script, prefix], capture_output=True, text=True, timeout=120)
    assert result.returncode == -signal.SIGKILL, result.stderr
    partial = [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]
    assert len(partial) == 1 and os.path.getsize(tmp_path / partial[0]) > 100000    # it died mid-save
    assert not os.path.exists(prefix + "-2.npz")
    assert me.train.latest_checkpoint(str(tmp_path)) == prefix + "-1"
    v, w = me.Variable(np.ones(100000, np.float32)), me.Variable(np.ones(100000, np.float32))
    me.train.Checkpoint(v=v, w=w).restore(me.train.latest_checkpoint(str(tmp_path))).assert_consumed()
    np.testing.assert_array_equal(v.numpy(), np.arange(100000, dtype=np.float32))
    assert float(w[0]) == 7.0


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "file"
    target.write_bytes(b"old")

    def fail_half_way(f):
        f.write(b"new and incomplete")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        _files.atomic_write(str(target), fail_half_way)
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["file"]


# ---- CheckpointManager -----------------------------------------------------------------------
def test_manager_keeps_the_newest_checkpoints(tmp_path):
    v = me.Variable(0.0)
    checkpoint = me.train.Checkpoint(v=v)
    manager = me.train.CheckpointManager(checkpoint, str(tmp_path), max_to_keep=2)
    assert manager.latest_checkpoint is None
    for i in range(4):
        v.assign(float(i))
        manager.save()
    names = [os.path.basename(p) for p in manager.checkpoints]
    assert names == ["ckpt-3", "ckpt-4"] and manager.latest_checkpoint == str(tmp_path / "ckpt-4")
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-3.npz", "ckpt-4.npz"]
    assert me.train.latest_checkpoint(str(tmp_path)) == manager.latest_checkpoint
    checkpoint.restore(manager.checkpoints[0])
    assert float(v) == 2.0


def test_a_new_manager_carries_on_where_the_last_one_stopped(tmp_path):
    checkpoint = me.train.Checkpoint(v=me.Variable(0.0))
    me.train.CheckpointManager(checkpoint, str(tmp_path), max_to_keep=2).save()
    manager = me.train.CheckpointManager(checkpoint, str(tmp_path), max_to_keep=2)
    assert manager.checkpoints == [str(tmp_path / "ckpt-1")]
    manager.save()
    manager.save(checkpoint_number=100)
    assert [os.path.basename(p) for p in manager.checkpoints] == ["ckpt-2", "ckpt-100"]
    with pytest.raises(ValueError):
        me.train.CheckpointManager(checkpoint, str(tmp_path), max_to_keep=0)
