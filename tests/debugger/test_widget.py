"""The TapeDebugger widget's Python side: live updates, text/plain, errors, static copies."""
import base64
import io
import shutil
import subprocess
import zipfile
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import minieager as me
from minieager.debugger import TraceError, assets

pytest.importorskip("anywidget")

REPO = Path(__file__).resolve().parents[2]


def test_import_minieager_does_not_import_jupyter():
    code = ("import sys, minieager as me; assert 'anywidget' not in sys.modules and 'ipywidgets' not in sys.modules; "
            "me.widgets.TapeDebugger; assert 'anywidget' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_package_ships_the_front_end_sources(tmp_path):
    """minieager/widgets/static/ links to widgets/ (one source of truth); a built wheel holds the real files."""
    for name in assets.FILES:
        assert (assets.STATIC / name).resolve() == (REPO / "widgets" / name).resolve()
    # Built from a copy of what the wheel is made of: setuptools writes build/ and minieager.egg-info/
    # into the folder it builds, where other pytest workers' processes read the package's metadata.
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    for name in ("minieager", "course", "widgets"):        # widgets/: the static/ links point there
        shutil.copytree(REPO / name, source / name, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "node_modules"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "-w", str(tmp_path), str(source)], check=True, capture_output=True)
    wheel = zipfile.ZipFile(next(tmp_path.glob("minieager-*.whl")))
    for name in assets.FILES:
        assert wheel.read(f"minieager/widgets/static/{name}") == (REPO / "widgets" / name).read_bytes()


def test_live_recording_and_text_plain():
    x = me.Variable([1.0, 2.0, 3.0], name="x")
    with me.GradientTape() as tape:
        dbg = me.widgets.TapeDebugger(tape)
        assert repr(dbg) == "TapeDebugger(ops=0, steps=0, step=0)"
        assert "image/png" in dbg._repr_mimebundle_()[0]     # the empty picture draws too
        y = x * x
        z = y + x
        assert dbg.trace.num_ops == 2          # seen while the tape is still open
    dbg.backprop(z, [x])
    dbg.step = 1                                # the first step, as the widget's "step 1 / 2"
    data, _ = dbg._repr_mimebundle_()
    assert data["text/plain"] == "TapeDebugger(ops=2, steps=2, step=1)"
    # No text/html: an untrusted notebook would show it sanitised into a text dump. A PNG it keeps.
    assert "text/html" not in data
    png = base64.b64decode(data["image/png"])
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert "application/vnd.jupyter.widget-view+json" in data
    np.testing.assert_allclose(dbg.trace.to_dict()["gradients"][0]["value"]["data"], [3, 5, 7])
    assert tape.gradient(z, x).numpy().tolist() == [3, 5, 7]     # backprop did not use the tape up


def test_tape_debugger_method():
    with me.GradientTape() as tape:
        dbg = tape.debugger()
    assert isinstance(dbg, me.widgets.TapeDebugger)


def test_bad_input_is_raised_and_shown():
    x = me.Variable([1.0], name="x")
    with me.GradientTape() as tape:
        dbg = me.widgets.TapeDebugger(tape)
        y = x * 2.0
    with pytest.raises(TraceError, match="not on this tape"):
        dbg.backprop(x * 3.0, [x])
    assert "not on this tape" in dbg.trace.error
    assert dbg.trace.num_ops == 1                # the graph is still drawn under the message
    tape.gradient(y, x)
    with pytest.raises(TraceError, match="persistent=True"):
        dbg.backprop(y, [x])


def test_a_long_tape_records_quickly():
    x = me.Variable([0.5], name="x")

    def run(attach):
        with me.GradientTape() as tape:
            dbg = me.widgets.TapeDebugger(tape) if attach else None
            start, y = time.perf_counter(), x
            for _ in range(1000):
                y = y * 1.0001
            return time.perf_counter() - start, dbg

    plain, _ = run(False)
    watched, dbg = run(True)
    assert watched < plain + 2.0, f"recording 1000 ops took {watched:.2f}s with a debugger, {plain:.2f}s without"
    assert dbg.trace.num_ops == 1000 and dbg.trace.to_dict()["truncated"]


def test_plot_model_duck_typed():
    class Dense:
        def __init__(self, name, units):
            self.name, self.output_shape = name, (None, units)

    class Sequential:
        name, layers = "mlp", [Dense("dense", 16), Dense("dense_1", 3)]

    svg = me.widgets.plot_model(Sequential())._repr_svg_()
    assert "dense (Dense)" in svg and "output (None, 3)" in svg and "mlp (Sequential)" in svg


def test_picture_is_the_svg_drawn_as_png():
    """The PNG is the static SVG rasterised: its size follows the SVG's, its colours are the widget's."""
    from PIL import Image

    from minieager.debugger.svg import palette
    x = me.Variable([1.0, 2.0], name="x")
    with me.GradientTape() as tape:
        dbg = me.widgets.TapeDebugger(tape)
        y = me.reduce_sum(x * x)
    dbg.backprop(y, [x])
    svg = dbg.to_svg(builtin_layout=True)
    width, height = (float(v) for v in svg.split('viewBox="')[1].split('"')[0].split()[2:])
    image = Image.open(io.BytesIO(dbg.to_png())).convert("RGB")
    assert abs(image.width - width) <= 1 and abs(image.height - height) <= 1
    colours = {c for _, c in image.getcolors(maxcolors=1 << 20)}
    variable_fill = tuple(int(palette()["variable-fill"][i:i + 2], 16) for i in (1, 3, 5))
    assert variable_fill in colours        # the Variable's box is drawn in its colour


def test_a_long_chain_is_drawn_in_rows_in_the_picture():
    x = me.Variable(1.0, name="x")
    with me.GradientTape() as tape:
        dbg = me.widgets.TapeDebugger(tape)
        y = x
        for _ in range(20):
            y = y * 1.01
    from PIL import Image
    image = Image.open(io.BytesIO(dbg.to_png()))
    assert image.width <= 1100 + 2 * 28 + 1 and image.height > 3 * 64   # wrapped, still every node


def test_a_big_graph_is_pictured_with_its_layers_folded():
    """As in the widget: more than 40 nodes in named layers -> one box per layer, weights inside."""
    me.random.set_seed(0)
    model = me.keras.Sequential([me.keras.layers.Dense(4, activation="relu") for _ in range(6)])
    x = me.ones((2, 3))
    with me.GradientTape() as tape:
        dbg = tape.debugger()
        y = me.reduce_sum(model(x))
    dbg.backprop(y, model.trainable_variables)
    data = dbg.trace.to_dict()
    assert len(data["nodes"]) > 40 and len(data["clusters"]) == 6
    svg = dbg.to_svg(builtin_layout=True)
    for c in data["clusters"]:
        assert f'data-node-id="cluster:{c["id"]}"' in svg
    kernels = [n["id"] for n in data["nodes"] if n["kind"] == "variable"]
    assert not any(f'data-node-id="{k}"' in svg for k in kernels)       # folded into their layer


def test_check_gradient_agrees_and_catches_a_wrong_custom_gradient():
    a = me.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], name="a")
    b = me.Variable([10.0, 20.0, 30.0], name="b")
    with me.GradientTape() as tape:
        dbg = tape.debugger()
        y = me.reduce_sum(me.tanh((a + b) * 0.01) * a)
    dbg.backprop(y, [a, b])
    result = dbg.check_gradient(b)
    assert result["ok"] and result["all_elements"] and result["positions"] == [[0], [1], [2]]
    # d/db sum(tanh(0.01 (a + b)) * a) = sum over rows of 0.01 * a * (1 - tanh^2)
    t = np.tanh(0.01 * (np.array([[1, 2, 3], [4, 5, 6]]) + np.array([10, 20, 30])))
    expected = (0.01 * np.array([[1, 2, 3], [4, 5, 6]]) * (1 - t ** 2)).sum(axis=0)
    np.testing.assert_allclose(result["numeric"], expected, rtol=1e-6)
    np.testing.assert_allclose(result["stepped"], expected, rtol=1e-5)
    assert dbg.checks == {dbg.trace.to_dict()["sources"][1]: result}     # what the inspector shows
    with pytest.raises(TraceError, match="not a source node"):
        dbg.check_gradient("t99")

    @me.custom_gradient
    def wrong_square(v):
        return v * v, lambda dy: dy * v          # should be 2 v
    x = me.Variable([1.0, -2.0], name="x")
    with me.GradientTape() as tape:
        dbg = tape.debugger()
        z = me.reduce_sum(wrong_square(x))
    dbg.backprop(z, [x])
    bad = dbg.check_gradient(x)
    assert not bad["ok"]
    np.testing.assert_allclose(bad["stepped"], [1.0, -2.0])
    np.testing.assert_allclose(bad["numeric"], [2.0, -4.0], rtol=1e-6)


def test_code_links_come_from_an_attached_debugger_only():
    x = me.Variable([1.0, 2.0], name="x")
    with me.GradientTape() as tape:
        dbg = tape.debugger()
        y = me.reduce_sum(x * x)  # marker: code link
    dbg.backprop(y, [x])
    ops = [n for n in dbg.trace.to_dict()["nodes"] if n["kind"] == "op"]
    assert {n["code"]["text"] for n in ops} == {"y = me.reduce_sum(x * x)"}     # comments are dropped
    assert all(n["code"]["file"].endswith("test_widget.py") for n in ops)
    multiply = next(n for n in ops if n["op"] == "multiply")
    assert multiply["vjp"]["text"].startswith('_multiply = Op("multiply"')
    assert multiply["kernel"]["file"].startswith("minieager/kernels/cpu/")
    with me.GradientTape() as plain:          # no debugger: nothing is captured
        y = me.reduce_sum(x * x)
    assert all(n["code"] is None for n in me.debugger.trace(plain, y, [x]).to_dict()["nodes"] if n["kind"] == "op")


def test_check_gradient_still_works_after_tape_gradient_used_the_tape_up():
    # Notebook 00 after Run All: a later cell calls tape.gradient on the (non-persistent) tape,
    # which frees its records; the check replays the records the debugger kept at backprop.
    w = me.Variable([0.5, -1.5], name="w")
    with me.GradientTape() as tape:
        dbg = tape.debugger()
        y = me.reduce_sum(me.tanh(w * 2.0))
    dbg.backprop(y, [w])
    np.testing.assert_allclose(tape.gradient(y, w).numpy(), 2 * (1 - np.tanh([1.0, -3.0]) ** 2), rtol=1e-5)
    with pytest.raises(TraceError, match="already computed its gradients"):
        me.debugger.trace(tape, y, [w])
    result = dbg.check_gradient(w)
    assert result["ok"]
    np.testing.assert_allclose(result["numeric"], 2 * (1 - np.tanh([1.0, -3.0]) ** 2), rtol=1e-6)
    dbg._on_page_message(None, {"check_gradient": dbg.trace.to_dict()["sources"][0]}, [])
    assert dbg.checks[dbg.trace.to_dict()["sources"][0]]["ok"]


def test_an_op_without_rule_text_steps_with_its_gradient_and_a_code_rule():
    from minieager.extend import Op, register_kernel

    @register_kernel("test_dbg_my_sigmoid", "cpu")
    def _kernel(x):
        return 1 / (1 + np.exp(-x))
    my_sigmoid = Op("test_dbg_my_sigmoid", inputs=("x",), vjp=lambda dy, x, out: (dy * out * (1.0 - out),))
    x = me.Variable([0.0, 1.0], name="x")
    with me.GradientTape() as tape:
        dbg = tape.debugger()
        y = me.reduce_sum(my_sigmoid(x))
    dbg.backprop(y, [x])
    data = dbg.trace.to_dict()
    step = next(s for s in data["steps"] if s["op_name"] == "test_dbg_my_sigmoid")
    assert step["rule"] == ["d(test_dbg_my_sigmoid(x))/dx = (code)"]
    s = 1 / (1 + np.exp(-np.array([0.0, 1.0])))
    np.testing.assert_allclose(step["grads_out"][0]["value"]["data"], s * (1 - s), rtol=1e-6)
    op = next(n for n in data["nodes"] if n.get("op") == "test_dbg_my_sigmoid")
    assert op["vjp"]["text"].startswith('my_sigmoid = Op("test_dbg_my_sigmoid"')   # the link's target


def test_two_variables_of_one_name_get_labels_that_tell_them_apart():
    a, b = me.Variable([1.0], name="w"), me.Variable([2.0], name="w")
    with me.GradientTape() as tape:
        y = me.reduce_sum(a * b)
    data = me.debugger.trace(tape, y, [a, b]).to_dict()
    labels = [n["label"] for n in data["nodes"] if n["kind"] == "variable"]
    assert labels == ["w:0", "w:0 (2)"]
    assert [g["name"] for g in data["gradients"]] == labels
