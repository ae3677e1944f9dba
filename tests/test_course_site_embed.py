"""course/site/embed.py on the real notebooks: saved widget outputs made static for the site."""
import json
from pathlib import Path

import pytest

from course.site import conf
from course.site import embed as embed_module

REPO = Path(__file__).resolve().parent.parent



@pytest.fixture(scope="module")
def embed():
    return embed_module


def load(name):
    return json.loads((REPO / "notebooks" / f"{name}.ipynb").read_text())


def outputs(nb):
    return [o for cell in nb["cells"] for o in cell.get("outputs", [])]


def test_debuggers_become_frames_on_their_standalone_pages(embed, tmp_path):
    nb = load("00_tape_debugger")
    states = embed.widget_states(nb)
    debuggers = [o["data"][embed.VIEW]["model_id"] for o in outputs(nb)
                 if embed.VIEW in o.get("data", {}) and "trace" in states[o["data"][embed.VIEW]["model_id"]]]
    assert debuggers, "notebook 00 saved no debugger state"

    page_dir = tmp_path / "notebooks"
    written = embed.embed_widgets(nb, tmp_path / "frames", page_dir, "nb00")
    assert sorted(p.name for p in written) == sorted({f"nb00-{m}.html" for m in debuggers})   # once each
    assert "widgets" not in nb["metadata"]
    assert not any(embed.VIEW in o.get("data", {}) for o in outputs(nb))
    for model_id in set(debuggers):
        page = (tmp_path / "frames" / f"nb00-{model_id}.html").read_text()
        assert json.dumps(states[model_id]["trace"]["nodes"][0]["id"]) in page
        assert "meDebuggerFrame" in page and "https://" not in page
    frames = [o["data"]["text/html"] for o in outputs(nb) if "me-debugger-frame" in o.get("data", {}).get("text/html", "")]
    assert len(frames) == len(debuggers)
    assert f'src="../frames/nb00-{debuggers[0]}.html"' in frames[0]


def test_pass_viewers_become_frames_on_their_standalone_pages(embed, tmp_path):
    nb = load("09_graphs")
    states = embed.widget_states(nb)
    viewers = [o["data"][embed.VIEW]["model_id"] for o in outputs(nb)
               if embed.VIEW in o.get("data", {}) and "passes" in states[o["data"][embed.VIEW]["model_id"]]]
    assert len(viewers) == 1, "notebook 09 saved no PassStepper state"
    written = embed.embed_widgets(nb, tmp_path / "frames", tmp_path / "notebooks", "nb09")
    assert [p.name for p in written] == [f"nb09-{viewers[0]}.html"]
    page = written[0].read_text()
    first = states[viewers[0]]["passes"][0]
    assert json.dumps(first["title"]) in page and "mountPasses(" in page and "https://" not in page
    # Code links are published as a trace's are: no absolute path of the machine that ran it.
    shown = json.loads(page[page.index('id="me-trace">') + len('id="me-trace">'):page.index("</script>")])
    files = {n["code"]["file"] for p in shown["passes"] for t in (p["before"], p["after"]) for n in t["nodes"] if n.get("code")}
    assert files == {"notebook cell"}
    frame = next(o["data"]["text/html"] for o in outputs(nb) if "me-debugger-frame" in o.get("data", {}).get("text/html", ""))
    assert 'title="optimisation passes"' in frame and "image/png" in next(
        o["data"] for o in outputs(nb) if "me-debugger-frame" in o.get("data", {}).get("text/html", ""))


def test_progress_bars_show_their_saved_state(embed, tmp_path):
    nb = load("05_train_a_model")
    states = embed.widget_states(nb)
    bars = [states[o["data"][embed.VIEW]["model_id"]] for o in outputs(nb) if embed.VIEW in o.get("data", {})]
    assert bars and all(bar["_model_name"] == "HBoxModel" for bar in bars)
    progress = [states[ref.removeprefix("IPY_MODEL_")] for bar in bars for ref in bar["children"]
                if states[ref.removeprefix("IPY_MODEL_")]["_model_name"].endswith("ProgressModel")]

    embed.embed_widgets(nb, tmp_path, tmp_path, "nb05")
    shown = [o["data"]["text/html"] for o in outputs(nb) if "me-progress" in o.get("data", {}).get("text/html", "")]
    assert len(shown) == len(bars)
    for html, p in zip(shown, progress):
        assert f'<progress value="{p["value"]}" max="{p["max"]}">' in html


def test_a_widget_without_state_keeps_a_text_fallback(embed, tmp_path):
    nb = {"metadata": {}, "cells": [{"cell_type": "code", "outputs": [
        {"output_type": "display_data", "data": {embed.VIEW: {"model_id": "gone"}}}]}]}
    embed.embed_widgets(nb, tmp_path, tmp_path, "x")
    assert nb["cells"][0]["outputs"][0]["data"] == {
        "text/plain": "[an interactive widget: run the notebook to see it]"}


def test_exercise_pages_offer_binder_but_not_colab():

    def launch_buttons(pagename):
        group = {"type": "group", "label": "launch-buttons",
                 "buttons": [{"type": "link", "text": "Binder"}, {"type": "link", "text": "Colab"}]}
        context = {"header_buttons": [{"type": "link", "text": "repository"}, group]}
        conf.drop_colab_on_exercises(None, pagename, "page.html", context, None)
        return [b["text"] for b in group["buttons"]]

    assert launch_buttons("course/exercises/03_vjp") == ["Binder"]
    assert launch_buttons("notebooks/03_computing_gradients") == ["Binder", "Colab"]
