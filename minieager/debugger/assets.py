"""The front-end files the package ships (copies of the top-level ``widgets/`` folder).

They are read by path, not through ``importlib.resources.files("minieager.widgets")``, which
would import the Jupyter side; this works the same from a wheel and from an editable install.
"""
from pathlib import Path

STATIC = Path(__file__).resolve().parent.parent / "widgets" / "static"
FILES = ("tape_debugger.js", "tape_debugger.css", "standalone.html.template")


def read(name):
    """The text of one shipped front-end file, e.g. ``read("tape_debugger.css")``."""
    return (STATIC / name).read_text(encoding="utf-8")
