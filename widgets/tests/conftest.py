"""Shared fixtures for the tape debugger's browser tests.

The standalone HTML is built here from widgets/standalone.html.template exactly as the Python
`dbg.save_html(path)` is expected to build it (see widgets/README.md), so both use the same
placeholders.
"""
import importlib.util
import json
import re
import shutil
import time
from pathlib import Path

import pytest

WIDGETS = Path(__file__).resolve().parent.parent
REPO = WIDGETS.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
PLACEHOLDER = re.compile(r"/\*__(CSS|JS|TRACE)__\*/")


def load_fixture(name):
    return json.loads((FIXTURES / f"{name}.json").read_text())


def trace_json_for_html(trace):
    """JSON that is safe inside <script>: no "</script>" or "<!--" can end the block early."""
    return json.dumps(trace, allow_nan=False).replace("<", "\\u003c")


def build_standalone_html(trace):
    """Fill the template's placeholders in one pass (inlined code can never be substituted again)."""
    parts = {
        "CSS": (WIDGETS / "tape_debugger.css").read_text(),
        "JS": (WIDGETS / "tape_debugger.js").read_text(),
        "TRACE": trace_json_for_html(trace),
    }
    template = (WIDGETS / "standalone.html.template").read_text()
    return PLACEHOLDER.sub(lambda m: parts[m.group(1)], template)


# Tests get these through fixtures, not `from conftest import ...`: `make test` collects tests/ and
# widgets/tests in one session, and another folder's conftest module may be the one of that name.
@pytest.fixture(scope="session")
def trace_fixture():
    """trace_fixture(name) -> a fresh copy of widgets/tests/fixtures/<name>.json."""
    return load_fixture


@pytest.fixture(scope="session")
def html_builder():
    """html_builder(trace) -> the standalone page's HTML, as `dbg.save_html` should write it."""
    return build_standalone_html


@pytest.fixture
def standalone(tmp_path):
    """standalone(trace_or_fixture_name) -> file:// URL of a self-contained page showing it."""
    def build(trace, name="debugger"):
        if isinstance(trace, str):
            name, trace = trace, load_fixture(trace)
        path = tmp_path / f"{name}.html"
        path.write_text(build_standalone_html(trace))
        return path.as_uri()
    return build


@pytest.fixture(scope="session")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip("needs Debian's chromium: apt-get install -y chromium")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 860}, device_scale_factor=1)
    pg = context.new_page()
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    pg.js_errors = errors
    yield pg
    context.close()
    assert not errors, f"errors in the page: {errors}"


@pytest.fixture(scope="session")
def artifacts():
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture
def snap(artifacts):
    """snap(locator, name): save a picture of `locator` as test-artifacts/NAME (see save_screenshot)."""
    return lambda locator, name: save_screenshot(locator, artifacts / name)


def save_screenshot(locator, path, tries=3):
    """Save a picture of `locator` for test-artifacts/; a picture is evidence, not a check.

    Playwright gives up when the element moves or is re-attached while it waits for it to be
    still (a notebook re-laying out its cells); the element is looked up again and shot again.
    """
    for attempt in range(tries):
        try:
            locator.scroll_into_view_if_needed()
            return locator.screenshot(path=str(path), animations="disabled")
        except Exception:  # playwright's Error; its module is imported lazily by the tests
            if attempt == tries - 1:
                raise
            time.sleep(0.5)


# The JupyterLab fixtures live in lab_fixtures.py; this folder is no package (tests/ and
# widgets/tests/ are collected in one session), so load the file by path under a private name.
_spec = importlib.util.spec_from_file_location("_minieager_lab_fixtures", Path(__file__).with_name("lab_fixtures.py"))
_lab = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_lab)
lab_root = _lab.lab_root
lab_server = _lab.lab_server
lab_notebook = _lab.lab_notebook
notebook7_server = _lab.notebook7_server
notebook7_notebook = _lab.notebook7_notebook
