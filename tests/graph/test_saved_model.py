"""me.saved_model: functions and variables saved to a folder and loaded back without their class."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import minieager as me
from minieager.graph import saved_model as saved_model_module

ENV = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


class Scaler:
    """A module-like object: a variable, a non-trainable counter, a method with an input_signature
    (with a Python `if` on a tensor, converted by AutoGraph), and a nested layer in a list."""

    def __init__(self):
        self.scale = me.Variable(np.array([2.0, 3.0], np.float32), name="scale")
        self.calls = me.Variable(0, trainable=False, name="calls")
        self.layers = [me.layers.Dense(2, kernel_initializer="ones")]
        self.layers[0](me.zeros([1, 2]))        # builds its kernel and bias

    @me.function(input_signature=[me.TensorSpec([1, 2], me.float32)])
    def __call__(self, x):
        self.calls.assign_add(1)
        y = self.layers[0](x) * self.scale
        if me.reduce_sum(x) > 0:
            y = y + 1.0
        return y

    @me.function(input_signature=[me.TensorSpec([2], me.float32)])
    def halve(self, x):
        return {"half": x / 2.0, "scaled": x * self.scale}


@pytest.fixture
def saved(tmp_path):
    model = Scaler()
    path = str(tmp_path / "scaler")
    me.saved_model.save(model, path)
    return model, path


def test_the_folder_is_data_a_learner_can_read(saved):
    _, path = saved
    assert sorted(os.listdir(path)) == ["constants.npz", "manifest.json", "saved_model.json", "variables.npz"]
    document = json.load(open(os.path.join(path, "saved_model.json")))
    lines = [n["line"] for f in document["functions"].values() for c in f["concrete"] for n in c["graph"]["nodes"]]
    assert any(line and "= cond(" in line for line in lines)
    assert any(line and line.startswith("%") and "= matmul(x, " in line for line in lines)
    assert document["signatures"] == {"serving_default": {"function": "f0", "trace": 0}}
    with np.load(os.path.join(path, "variables.npz"), allow_pickle=False) as v:
        assert sorted(np.asarray(v[k]).tolist() == [2.0, 3.0] for k in v.files).count(True) == 1


def test_loaded_functions_run_the_saved_graphs(saved):
    model, path = saved
    loaded = me.saved_model.load(path)
    assert not isinstance(loaded, Scaler)
    for x in ([[1.0, 2.0]], [[-1.0, -2.0]]):
        np.testing.assert_allclose(loaded(me.constant(x, me.float32)).numpy(),
                                   Scaler()(me.constant(x, me.float32)).numpy())
    out = loaded.halve(me.constant([4.0, 6.0]))
    assert sorted(out) == ["half", "scaled"] and out["scaled"].numpy().tolist() == [8.0, 18.0]
    sig = loaded.signatures["serving_default"]
    result = sig(x=me.constant([[1.0, 1.0]]))
    assert list(result) == ["output_0"] and result["output_0"].shape == (1, 2)
    with pytest.raises(me.errors.InvalidArgumentError, match=r"no saved trace for arguments \(float32\[3\]\)"):
        loaded.halve(me.constant([1.0, 2.0, 3.0]))


def test_loaded_variables_are_restored_and_trainable(saved):
    model, path = saved
    model.scale.assign([5.0, 5.0])            # after the save: not in it
    loaded = me.saved_model.load(path)
    names = sorted(v.name.split("/")[-1] for v in loaded.trainable_variables)
    assert names == ["bias:0", "kernel:0", "scale:0"] and len(loaded.variables) == 4
    assert loaded.scale.numpy().tolist() == [2.0, 3.0] and loaded.calls.numpy() == 0
    loaded(me.constant([[1.0, 1.0]]))
    assert loaded.calls.numpy() == 1            # the saved assign_add ran on the loaded variable
    opt = me.optimizers.SGD(0.1)
    with me.GradientTape() as tape:
        loss = me.reduce_sum(loaded(me.constant([[1.0, 1.0]])))
    grads = tape.gradient(loss, loaded.trainable_variables)
    assert all(g is not None for g in grads)
    opt.apply_gradients(zip(grads, loaded.trainable_variables))
    np.testing.assert_allclose(loaded.scale.numpy(), [2.0 - 0.1 * 2.0, 3.0 - 0.1 * 2.0])


def test_loads_in_a_fresh_process_that_never_saw_the_class(saved):
    _, path = saved
    script = (f"import sys, minieager as me\n"
              f"m = me.saved_model.load({path!r})\n"
              f"print(m(me.constant([[1.0, 2.0]])).numpy().tolist())\n"
              f"print(m.signatures['serving_default'](x=me.constant([[1.0, 2.0]]))['output_0'].numpy().tolist())\n"
              f"print(any('test_saved_model' in name for name in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=ENV, timeout=300)
    assert out.returncode == 0, out.stderr
    expected = Scaler()(me.constant([[1.0, 2.0]])).numpy().tolist()
    assert out.stdout.split("\n")[:3] == [str(expected), str(expected), "False"]


def test_show_prints_signatures_variables_and_graphs(saved):
    _, path = saved
    out = subprocess.run([sys.executable, "-m", "minieager.saved_model", "show", path], capture_output=True,
                         text=True, env=ENV, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "serving_default: (x: float32[1,2])" in out.stdout
    assert "obj.scale" in out.stdout and "(not trainable)" in out.stdout
    assert "= cond(" in out.stdout and "def __call___true(" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "minieager.saved_model", "show", path + "-missing"],
                         capture_output=True, text=True, env=ENV, timeout=300)
    assert bad.returncode == 1 and "is not a saved model: it does not exist" in bad.stderr


def test_bad_folders_say_what_is_wrong(saved, tmp_path):
    _, path = saved
    with pytest.raises(me.saved_model.SavedModelError, match="is not a saved model: it has no manifest.json"):
        me.saved_model.load(str(tmp_path))
    manifest_path = os.path.join(path, "manifest.json")
    manifest = json.load(open(manifest_path))
    with open(os.path.join(path, "variables.npz"), "r+b") as f:
        f.seek(40)
        f.write(b"\x00\x01\x02")
    with pytest.raises(me.saved_model.SavedModelError, match="corrupt: the checksum of variables.npz does not match"):
        me.saved_model.load(path)
    manifest["version"] = 99
    json.dump(manifest, open(manifest_path, "w"))
    with pytest.raises(me.saved_model.SavedModelError, match="format version 99, newer than this minieager reads"):
        me.saved_model.load(path)


def test_a_failed_save_leaves_the_previous_one(saved, monkeypatch, tmp_path):
    model, path = saved
    before = open(os.path.join(path, "variables.npz"), "rb").read()
    model.scale.assign([7.0, 7.0])

    def crash(*args):
        raise OSError("disk full")
    monkeypatch.setattr(saved_model_module.os, "rename", crash)
    with pytest.raises(OSError, match="disk full"):
        me.saved_model.save(model, path)
    monkeypatch.undo()
    assert open(os.path.join(path, "variables.npz"), "rb").read() == before
    assert [n for n in os.listdir(tmp_path) if n.endswith(".tmp")] == []
    me.saved_model.save(model, path)            # and a save over a save replaces it
    assert me.saved_model.load(path).scale.numpy().tolist() == [7.0, 7.0]
    other = tmp_path / "not_a_model"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(me.saved_model.SavedModelError, match="exists and is not a saved model; refusing"):
        me.saved_model.save(model, str(other))


def test_what_cannot_be_saved_is_refused():
    class Calls:
        @me.function(input_signature=[me.TensorSpec([2], me.float32)])
        def __call__(self, x):
            return me.py_function(lambda a: a * 2, [x], me.float32)
    with pytest.raises(me.errors.InvalidArgumentError, match="py_function calls Python"):
        me.saved_model.save(Calls(), "/tmp/never-written")
    assert not os.path.exists("/tmp/never-written")

    class Untraced:
        @me.function
        def __call__(self, x):
            return x
    with pytest.raises(me.errors.InvalidArgumentError, match="found no me.function with a trace"):
        me.saved_model.save(Untraced(), "/tmp/never-written")


def test_traced_functions_without_signature_and_explicit_signatures(tmp_path):
    class Square:
        def __init__(self):
            self.v = me.Variable(3.0)

        @me.function
        def f(self, x):
            return x * x * self.v
    m = Square()
    m.f(me.constant(2.0))
    m.f(me.constant([1.0, 2.0]))
    path = str(tmp_path / "sq")
    me.saved_model.save(m, path, signatures={"square": m.f.get_concrete_function(me.constant(2.0))})
    loaded = me.saved_model.load(path)
    assert loaded.f(me.constant(2.0)).numpy() == 12.0
    assert loaded.f(me.constant([1.0, 2.0])).numpy().tolist() == [3.0, 12.0]
    assert loaded.signatures["square"](x=me.constant(1.0))["output_0"].numpy() == 3.0


def test_a_function_alone_can_be_saved(tmp_path):
    @me.function(input_signature=[me.TensorSpec([2], me.float32)])
    def double(x):
        return x * 2.0
    me.saved_model.save(double, str(tmp_path / "double"))
    loaded = me.saved_model.load(str(tmp_path / "double"))
    assert loaded(me.constant([1.0, 2.0])).numpy().tolist() == [2.0, 4.0]
    assert loaded.signatures == {} and loaded.variables == []


class Affine(me.Module):
    """A me.Module whose call takes any batch: the signature's first dimension is None."""

    def __init__(self):
        super().__init__(name="affine")
        self.w = me.Variable([[1.0], [2.0]], name="w")
        self.b = me.Variable([0.5], name="b")

    @me.function(input_signature=[me.TensorSpec([None, 2], me.float32)])
    def __call__(self, x):
        return me.matmul(x, self.w) + self.b


def test_a_module_saved_with_an_unknown_batch_runs_any_batch_in_a_fresh_process(tmp_path):
    """As TF's SavedModel: a signature with None traces one graph, and the loaded function takes every
    batch size that fits it (here 1 and 3), with the module's variables restored."""
    path = str(tmp_path / "affine")
    me.saved_model.save(Affine(), path)
    script = (f"import minieager as me\nm = me.saved_model.load({path!r})\n"
              "print(m(me.constant([[1.0, 1.0]])).numpy().tolist())\n"
              "print(m(me.constant([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])).numpy().tolist())\n"
              "print(sorted(v.name for v in m.trainable_variables))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=ENV, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["[[3.5]]", "[[1.5], [2.5], [6.5]]", "['b:0', 'w:0']"]


def test_a_loaded_custom_gradient_runs_and_says_it_has_no_grad_fn(tmp_path):
    # The forward ops are saved; grad_fn is Python, which a SavedModel never holds: an outer tape is told so.
    @me.custom_gradient
    def double(x):
        return x * 2.0, lambda dy: dy * 100.0

    class Holder(me.Module):
        @me.function(input_signature=[me.TensorSpec([None], me.float32)])
        def __call__(self, x):
            return double(x)
    me.saved_model.save(Holder(), str(tmp_path / "m"))
    loaded = me.saved_model.load(str(tmp_path / "m"))
    x = me.constant([1.0, 2.0])
    with me.GradientTape() as tape:
        tape.watch(x)
        y = loaded(x)
    assert y.numpy().tolist() == [2.0, 4.0]
    with pytest.raises(me.errors.InvalidArgumentError, match="loaded from a SavedModel, which keeps a "
                                                             "@custom_gradient function's forward ops but not"):
        tape.gradient(y, x)
