"""Copy the widget's front-end into the package: python widgets/sync_static.py

widgets/ is the canonical front-end; minieager/widgets/static/ holds the copies that a wheel
and an editable install ship. tests/debugger/test_static_assets.py fails when they drift.
"""
import shutil
from pathlib import Path

WIDGETS = Path(__file__).resolve().parent
STATIC = WIDGETS.parent / "minieager" / "widgets" / "static"
FILES = ("tape_debugger.js", "tape_debugger.css", "standalone.html.template")

if __name__ == "__main__":
    STATIC.mkdir(parents=True, exist_ok=True)
    for name in FILES:
        shutil.copyfile(WIDGETS / name, STATIC / name)
        print(f"copied widgets/{name} -> {STATIC.relative_to(WIDGETS.parent)}/{name}")
