"""The TapeDebugger widget's Python side: live updates, text/plain, errors, static copies."""
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
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "-w", str(tmp_path), str(REPO)], check=True, capture_output=True)
    wheel = zipfile.ZipFile(next(tmp_path.glob("minieager-*.whl")))
    for name in assets.FILES:
        assert wheel.read(f"minieager/widgets/static/{name}") == (REPO / "widgets" / name).read_bytes()


def test_live_recording_and_text_plain():
    x = me.Variable([1.0, 2.0, 3.0], name="x")
    with me.GradientTape() as tape:
        dbg = me.widgets.TapeDebugger(tape)
        assert repr(dbg) == "TapeDebugger(ops=0, steps=0, step=0)"
        y = x * x
        z = y + x
        assert dbg.trace.num_ops == 2          # seen while the tape is still open
    dbg.backprop(z, [x])
    dbg.step = 0
    data, _ = dbg._repr_mimebundle_()
    assert data["text/plain"] == "TapeDebugger(ops=2, steps=2, step=1)"
    assert data["text/html"].startswith("<svg")
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
