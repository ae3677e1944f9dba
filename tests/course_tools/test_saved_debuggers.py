"""The debuggers saved in the course's notebooks step, and neither they nor the pages made from them
give an answer away (exercise 07's planted bug) or show a folder of the machine that ran them."""
import json
import os
import re
from pathlib import Path

import pytest

from course import bugs, notebooks
from course.site import embed

REPO = notebooks.HERE.parent
COURSE_NOTEBOOKS = sorted(notebooks.SOLUTIONS.glob("*.ipynb")) + sorted(notebooks.EXERCISES.glob("*.ipynb"))
# An absolute POSIX path of a build machine: /home/..., /work/..., /tmp/..., /Users/... inside a string.
ABSOLUTE = re.compile(r'"(/(?:home|work|tmp|Users|root|opt|srv|var)/[^"]*)"')


def _traces(nb):
    return [state["trace"] for state in embed.widget_states(nb).values() if "trace" in state]


def _load(path):
    return json.loads(path.read_text(encoding="utf-8"))


# Learner versions whose debugger steps through the learner's own code: with the stub, nothing to step yet.
STEPS_COME_WITH_THE_ANSWER = {"exercises/10_gradients_by_hand.ipynb"}


@pytest.mark.parametrize("path", COURSE_NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_saved_debuggers_have_backward_steps_and_no_comments(path):
    traces = _traces(_load(path))
    for trace in traces:
        if f"{path.parent.name}/{path.name}" not in STEPS_COME_WITH_THE_ANSWER:
            assert trace["steps"], f"{path.name}: a debugger was saved before backprop() armed it (step 0 / 0)"
        for node in trace["nodes"]:
            for link in (node.get("code"), node.get("vjp")):
                if link:
                    assert "#" not in link["text"], f"{path.name}: a comment in a saved trace: {link['text']!r}"
                    assert not link["file"].startswith("/"), link["file"]


@pytest.mark.parametrize("path", COURSE_NOTEBOOKS + sorted((REPO / "notebooks").glob("*.ipynb")),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_notebook_shows_a_folder_of_the_machine_that_ran_it(path):
    text = path.read_text(encoding="utf-8")
    assert str(REPO) not in text and os.path.expanduser("~") + "/" not in text
    assert ABSOLUTE.findall(text) == []


def test_the_learner_notebook_and_its_page_do_not_give_the_bug_away(tmp_path):
    path = notebooks.EXERCISES / "07_advanced_autodiff.ipynb"
    nb = _load(path)
    assert "planted bug:" not in path.read_text(encoding="utf-8")
    assert "buggy_op = ..." in "".join("".join(c["source"]) for c in nb["cells"])
    pages = embed.embed_widgets(nb, tmp_path / "frames", tmp_path, "07")
    assert len(pages) == 1
    page = pages[0].read_text(encoding="utf-8")
    assert "planted bug" not in page and str(REPO) not in page
    assert '"steps": [' in page or '"steps":[' in page


def test_the_bugs_module_does_not_name_the_buggy_op():
    names = {name: value for name, value in vars(bugs).items() if isinstance(value, str)}
    assert not any(value in bugs.OPS for value in names.values()), names
    assert sum(bugs.is_buggy(name) for name in bugs.OPS) == 1
    definitions = Path(bugs.__file__).read_text().split("course_softplus = ")[1].split("OPS = ")[0]
    assert "#" not in definitions, "a comment next to the ops' definitions (the debugger shows them)"


def test_a_trace_saved_with_comments_and_paths_is_published_without_them(tmp_path):
    """A notebook saved by an older minieager (or elsewhere) is cleaned when the site is built."""
    nb = _load(notebooks.SOLUTIONS / "07_advanced_autodiff.ipynb")
    state = next(m["state"] for m in nb["metadata"]["widgets"][embed.STATE]["state"].values()
                 if "trace" in m.get("state", {}))
    op = next(n for n in state["trace"]["nodes"] if n["kind"] == "op" and n.get("vjp"))
    op["vjp"]["text"] += "            # the planted bug: -x"
    op["vjp"]["file"] = "/home/someone/minieager/course/bugs.py"
    op["code"] = {"file": "/home/someone/work.py", "line": 3, "text": "y = f(x)  # secret"}
    pages = embed.embed_widgets(nb, tmp_path / "frames", tmp_path, "07")
    page = pages[0].read_text(encoding="utf-8")
    assert "planted bug" not in page and "/home/someone" not in page and "secret" not in page
    assert "bugs.py" in page and "y = f(x)" in page
    assert op["vjp"]["text"].endswith("# the planted bug: -x")      # the notebook's own copy is left alone
