"""Pytest fixtures that run a real JupyterLab for end-to-end widget tests.

`lab_server` starts `jupyter lab` from the test's own environment (the `jupyter` beside
`sys.executable`) on a free localhost port, with no token or password and with every config,
data, runtime, settings and workspace directory in a temporary folder, so a developer's own
Jupyter setup can neither break nor be touched by the tests. The installed lab extensions
(anywidget, ipywidgets) stay visible through JUPYTER_PATH.

`lab_notebook` writes a notebook into the server's root, opens it in JupyterLab with Playwright,
runs all cells from the Run menu and waits for a selector inside an output area.

`notebook7_server` and `notebook7_notebook` do the same with Jupyter Notebook 7 (`jupyter notebook`,
built from JupyterLab's components, so the same settings, menus and selectors apply).

conftest.py loads this file by path: its name is also the name of the real `jupyter_server` package.
"""
import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
JUPYTER = BIN / "jupyter"
STARTUP_TIMEOUT_S = 60


def _settings(settings_dir):
    """Start the notebook's kernel without the "Select Kernel" dialog, and pop no news over it.

    Windowing off: JupyterLab may otherwise detach and re-attach cells' DOM as the notebook
    scrolls, which pulls an output out from under a screenshot mid-shot.
    """
    for plugin, values in [
        ("notebook-extension/tracker", {"autoStartDefaultKernel": True, "windowingMode": "none"}),
        ("apputils-extension/notification", {"fetchNews": "false", "checkForUpdates": False}),
    ]:
        path = settings_dir / "@jupyterlab" / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))


@pytest.fixture(scope="session")
def lab_root(tmp_path_factory):
    """The folder JupyterLab serves; tests write their notebooks here."""
    return tmp_path_factory.mktemp("lab-root")


@pytest.fixture(scope="session")
def lab_server(lab_root, tmp_path_factory):
    """Start JupyterLab and yield its base URL, e.g. "http://127.0.0.1:38123/"."""
    yield from _serve("lab", lab_root, tmp_path_factory)


@pytest.fixture(scope="session")
def notebook7_server(lab_root, tmp_path_factory):
    """Start Jupyter Notebook 7 on the same root and yield its base URL."""
    yield from _serve("notebook", lab_root, tmp_path_factory)


def _serve(app, root, tmp_path_factory):
    """Run `jupyter <app>` ("lab", or "notebook" for Notebook 7) privately on root; yield its URL."""
    if not JUPYTER.exists():
        pytest.skip(f"no jupyter beside {sys.executable}")
    app_class = {"lab": "LabApp", "notebook": "JupyterNotebookApp"}[app]
    home = tmp_path_factory.mktemp(f"{app}-home")
    dirs = {name: home / name for name in ("config", "data", "runtime", "settings", "workspaces", "ipython")}
    for d in dirs.values():
        d.mkdir()
    _settings(dirs["settings"])
    env = dict(
        os.environ,
        JUPYTER_CONFIG_DIR=str(dirs["config"]),
        JUPYTER_DATA_DIR=str(dirs["data"]),
        JUPYTER_RUNTIME_DIR=str(dirs["runtime"]),
        # The private data dir above hides nothing: extensions and kernels installed in this
        # environment's share/jupyter are still found through JUPYTER_PATH.
        JUPYTER_PATH=os.pathsep.join(filter(None, [str(Path(sys.prefix) / "share" / "jupyter"), os.environ.get("JUPYTER_PATH")])),
        JUPYTERLAB_SETTINGS_DIR=str(dirs["settings"]),
        JUPYTERLAB_WORKSPACES_DIR=str(dirs["workspaces"]),
        IPYTHONDIR=str(dirs["ipython"]),
        PATH=os.pathsep.join([str(BIN), os.environ.get("PATH", "")]),
    )
    # Port 0: the server takes a free port itself and writes it to jpserver-<pid>.json in its private
    # runtime folder. A port picked here and handed over could be taken in between (other pytest
    # workers start servers and kernels too), and the server answering on it might not be ours.
    log_path = home / f"jupyter-{app}.log"
    cmd = [
        str(JUPYTER), app, "--no-browser", "--ServerApp.ip=127.0.0.1", "--ServerApp.port=0",
        "--ServerApp.token=", "--ServerApp.password=",
        "--ServerApp.open_browser=False", "--ServerApp.disable_check_xsrf=True",
        f"--ServerApp.root_dir={root}", f"--{app_class}.user_settings_dir={dirs['settings']}",
        f"--{app_class}.workspaces_dir={dirs['workspaces']}",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")  # containers and CI machines often run as root
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=root)
    info = dirs["runtime"] / f"jpserver-{proc.pid}.json"   # `jupyter lab` execs the server: same pid
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f"jupyter {app} exited with {proc.returncode}:\n{log_path.read_text()[-3000:]}")
            try:
                url = f"http://127.0.0.1:{json.loads(info.read_text())['port']}/"
                with urllib.request.urlopen(url + "api/status", timeout=2) as response:
                    if response.status == 200:
                        break
            except (OSError, ValueError, KeyError):   # no file yet, half written, or no answer yet
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"jupyter {app} did not answer in {STARTUP_TIMEOUT_S} s:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()  # the server shuts its kernels down on SIGTERM
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _wait_for_idle_kernel(base_url, path, timeout_s):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with urllib.request.urlopen(base_url + "api/sessions", timeout=5) as response:
            if any(s["path"] == path and s["kernel"]["execution_state"] == "idle" for s in json.load(response)):
                return
        time.sleep(0.2)
    pytest.fail(f"the kernel for {path} did not start in {timeout_s:.0f} s")


def _notebook(cells):
    return {
        "cells": [{"cell_type": "code", "execution_count": None, "id": f"cell-{i}", "metadata": {},
                   "outputs": [], "source": source} for i, source in enumerate(cells)],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5,
    }


@pytest.fixture
def lab_notebook(lab_server, lab_root, browser, request):
    """lab_notebook(cells, wait_for, name=None) -> Playwright page, after "Run All Cells".

    `cells` are code cells' sources; `wait_for` is a CSS selector looked for inside the output
    areas (e.g. ".widget-slider"). Each call opens its own browser context.
    """
    # ?reset: no tabs left open by earlier tests
    yield from _notebook_opener(lab_server, lab_root, browser, request, "lab/tree/{name}?reset", "lab")


@pytest.fixture
def notebook7_notebook(notebook7_server, lab_root, browser, request):
    """notebook7_notebook(cells, wait_for, name=None) -> Playwright page, as lab_notebook in Notebook 7."""
    yield from _notebook_opener(notebook7_server, lab_root, browser, request, "notebooks/{name}", "notebook7")


def _notebook_opener(server, root, browser, request, url_path, prefix):
    contexts = []

    def run(cells, wait_for, name=None, timeout_ms=45_000):
        name = name or f"{request.node.name}.ipynb".replace("[", "-").replace("]", "")
        (root / name).write_text(json.dumps(_notebook(cells)))
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        contexts.append(context)
        page = context.new_page()
        page.goto(server + url_path.format(name=name))
        page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=timeout_ms)
        _wait_for_idle_kernel(server, name, timeout_ms / 1000)  # or "Run All" races the kernel's start
        page.click(".lm-MenuBar-item:has-text('Run')")
        page.click(".lm-Menu-item[data-command='runmenu:run-all']")
        try:
            page.wait_for_selector(f".jp-OutputArea-output {wait_for}", timeout=timeout_ms)
        except Exception:
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"{prefix}-{Path(name).stem}.png"))
            outputs = page.eval_on_selector_all(".jp-OutputArea-output", "els => els.map(e => e.innerText)")
            pytest.fail(f"{wait_for!r} never appeared in {name}; outputs: {outputs} (screenshot in test-artifacts/)")
        return page

    yield run
    for context in contexts:
        context.close()
