"""The course site (course/site/, `make site`) in headless Chromium, served by a local http.server.

The site is built once for this module into a temporary folder, exactly as `make site` builds it.
The page must work with no network: every request it makes is recorded and must stay on 127.0.0.1.
It lives here to share this folder's browser fixtures (one Chromium per session).
"""
import functools
import http.server
import re
import threading
from urllib.parse import urlparse

import pytest

from course.site.build import build
from course.site.links import repository_url

NOTEBOOK = "notebooks/00_tape_debugger"

pytestmark = pytest.mark.browser



@pytest.fixture(scope="module")
def built_site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    assert build(out) == 0, "the site did not build: see Sphinx's messages above"
    return out


@pytest.fixture(scope="module")
def site_url(built_site):
    """The built site served by a plain file server on 127.0.0.1 (an ephemeral port)."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(built_site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    thread.join()


def test_the_lesson_page_debugger_steps_offline(page, site_url, artifacts):
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(f"{site_url}/{NOTEBOOK}.html", wait_until="networkidle")

    page.locator("iframe.me-debugger-frame").first.scroll_into_view_if_needed()   # frames load lazily
    frame = page.frame_locator("iframe.me-debugger-frame").first
    frame.locator(".me-tape-debugger").wait_for()
    label = frame.locator("[data-role=step-label]")
    card = frame.locator(".me-card").first
    before = (label.inner_text().strip(), card.inner_text())
    steps = int(re.fullmatch(r"step 0 / (\d+)", before[0]).group(1))
    assert steps >= 1, f"the saved debugger has no backward step to show: {before[0]!r}"

    frame.locator("[data-role=step-button]").click()
    assert label.inner_text().strip() == f"step 1 / {steps}"
    after = card.inner_text()
    assert after != before[1], f"the card did not change after a step: {after!r}"
    assert f"backward step 1 of {steps}" in after.lower()   # the kicker is upper-cased by CSS
    page.screenshot(path=str(artifacts / "course-site-00.png"), full_page=False)

    # The frame is fitted to the debugger's page (the page posts its height to ours).
    fitted = page.locator("iframe.me-debugger-frame").first.evaluate(
        "f => [f.getBoundingClientRect().height, f.contentDocument.documentElement.scrollHeight]")
    assert fitted[0] >= fitted[1], f"the frame ({fitted[0]} px) cuts its debugger ({fitted[1]} px)"

    # The markdown's $...$ is typeset by the site's own MathJax.
    page.locator(".MathJax").first.wait_for()

    page.wait_for_load_state("networkidle")
    outside = [u for u in requests if urlparse(u).scheme not in ("data", "blob", "about")
               and urlparse(u).hostname != "127.0.0.1"]
    assert not outside, f"the page made requests off this machine: {outside}"
    assert any("/_static/debuggers/" in u for u in requests), "the debugger frame was never loaded"


def test_launch_buttons_open_this_notebook_from_the_repository(page, site_url):
    repo = repository_url()
    owner_name = urlparse(repo).path.strip("/")
    page.goto(f"{site_url}/{NOTEBOOK}.html")
    hrefs = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
    assert f"https://mybinder.org/v2/gh/{owner_name}/main?urlpath=lab/tree/{NOTEBOOK}.ipynb" in hrefs
    assert f"https://colab.research.google.com/github/{owner_name}/blob/main/{NOTEBOOK}.ipynb" in hrefs
