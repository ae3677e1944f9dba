"""Settings for every pytest run in this repository (tests/, widgets/tests/ and the notebooks under nbval)."""
import os

# The notebooks' saved outputs must not depend on whether numba's cache is warm: no compile notice
# (minieager/kernels/cpu/loops/compile_notice.py) in the kernels nbval starts. The notice's own
# tests turn it back on for the kernels they start.
os.environ.setdefault("MINIEAGER_COMPILE_NOTICE", "0")

import pytest  # noqa: E402


def pytest_collection_modifyitems(config, items):
    """Marks and order that hold for the whole repository.

    - Every notebook cell nbval collects is ``slow``: a notebook is only ever run whole, top to
      bottom, and the notebooks take minutes together (``make test-fast`` leaves them out).
    - Under pytest-xdist (``make test``: ``-n 2 --dist loadfile --no-loadscope-reorder``), the files
      that hold a slow test are handed out first, the order within each file kept: a four-minute
      test handed out last would leave the other worker idle at the end.
    """
    for item in items:
        if item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.slow)
    if hasattr(config, "workerinput"):     # an xdist worker (not a pytest it started: they inherit its environment)
        slow_files = {item.path for item in items if item.get_closest_marker("slow") is not None}
        items.sort(key=lambda item: item.path not in slow_files)     # stable: each file's order is kept
