"""Widgets in a real JupyterLab (offline, headless Chromium): the lab_fixtures.py fixtures work,
ipywidgets and anywidget front-ends load, and the tape debugger's JS runs against a live model.

The last test stands in for the Python widget class (minieager.widgets, written separately) with
an inline AnyWidget that has the same traitlets, so the JS is proven in Lab before that exists.
"""
import json
from pathlib import Path

import pytest

WIDGETS = Path(__file__).resolve().parent.parent

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_ipywidgets_slider_renders(lab_notebook):
    page = lab_notebook(["import ipywidgets\nipywidgets.IntSlider(value=7, description='n')"], ".widget-slider")
    assert page.locator(".jp-OutputArea-output .widget-readout").first.inner_text().strip() == "7"


def test_plain_anywidget_renders(lab_notebook):
    cell = '''
import anywidget, traitlets

class Probe(anywidget.AnyWidget):
    _esm = """
    export default {
      render({ model, el }) {
        const div = document.createElement("div");
        div.className = "me-anywidget-probe";
        div.textContent = "hello " + model.get("name");
        el.appendChild(div);
      }
    };
    """
    name = traitlets.Unicode("from the kernel").tag(sync=True)

Probe()
'''
    page = lab_notebook([cell], ".me-anywidget-probe")
    assert page.inner_text(".me-anywidget-probe") == "hello from the kernel"


def test_tape_debugger_js_with_a_live_model(lab_notebook, trace_fixture, snap):
    trace = trace_fixture("square_plus_x")
    setup = f'''
import json, pathlib
import anywidget, ipywidgets, traitlets

class TapeDebuggerProbe(anywidget.AnyWidget):
    _esm = pathlib.Path({str(WIDGETS / "tape_debugger.js")!r})
    _css = pathlib.Path({str(WIDGETS / "tape_debugger.css")!r})
    trace = traitlets.Dict().tag(sync=True)
    step = traitlets.Int(0).tag(sync=True)     # counted from 1, as the "step k / n" label; 0: not started
    mode = traitlets.Unicode("backward").tag(sync=True)
    selected = traitlets.Unicode("").tag(sync=True)

log = ipywidgets.Output()
w = TapeDebuggerProbe(trace=json.loads({json.dumps(json.dumps(trace))}))
w.observe(lambda change: log.append_stdout(f"kernel sees step={{change.new}}\\n"), "step")
display(w, log)
'''
    page = lab_notebook([setup, "w.step = 2"], ".me-tape-debugger [data-node-id=op0]")
    # Python -> JS: the second cell moved the debugger to the last step, step 2.
    page.wait_for_selector(".me-tape-debugger .is-current[data-node-id=op0]")
    assert page.inner_text(".me-tape-debugger [data-role=step-label]") == "step 2 / 2"
    # JS -> Python: a click in the page reaches the kernel.
    page.click(".me-tape-debugger [data-role=back-button]")
    page.wait_for_selector(".me-tape-debugger .is-current[data-node-id=op1]")
    page.wait_for_selector(".jp-OutputArea-output :text('kernel sees step=1')")
    snap(page.locator(".me-tape-debugger"), "lab-tape-debugger.png")
