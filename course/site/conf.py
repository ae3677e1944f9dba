"""Sphinx configuration of the course site (built by course/site/build.py; `make site`)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))   # Sphinx runs this file, not the package
from course.site.links import branch, repository_url  # noqa: E402

project = "minieager: a course on eager execution and autodiff"
author = "the minieager authors"
copyright = "the minieager authors, Apache-2.0"

extensions = ["myst_nb", "sphinx.ext.mathjax"]
root_doc = "index"
exclude_patterns = ["_build", "**.ipynb_checkpoints"]

# Notebooks are shown as saved: never executed here (their outputs are checked by nbval in CI).
nb_execution_mode = "off"
# No widget manager from a CDN: build.py has already made the saved widgets static (embed.py).
nb_ipywidgets_js = {}
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3
# Links to source files outside the site (minieager/..., Makefile) stay plain links to nowhere
# useful offline; they are reported by Sphinx as missing cross-references, which are not errors.
# docs/trace-format.md shows JSON with "{...}" elisions, which Pygments cannot lex strictly.
suppress_warnings = ["myst.xref_missing", "misc.highlighting_failure"]

# Our script, then what build.py staged: the debugger pages and MathJax 2 (no CDN).
html_static_path = ["_static", str(Path(__file__).resolve().parents[2] / "build" / "site-src" / "_static")]
mathjax_path = "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full"
# jupyter-server-mathjax ships MathJax 2 with the STIX-Web fonts only; myst would write a MathJax 3
# configuration, so ours replaces it: typeset the math spans Sphinx writes (class "math") even
# inside the notebook sections myst-nb marks as ignored (their raw "$" signs stay text). Its
# placeholder font's source, url('about:blank'), is a cross-origin error in Chromium: local() is
# the same empty font without a request.
myst_update_mathjax = False
mathjax2_config = {
    "tex2jax": {"inlineMath": [["\\(", "\\)"]], "displayMath": [["\\[", "\\]"]],
                "processClass": "math", "ignoreClass": "tex2jax_ignore|mathjax_ignore"},
    "HTML-CSS": {"availableFonts": [], "webFont": "STIX-Web", "imageFont": None, "preferredFont": None,
                 "styles": {"@font-face": {"font-family": "MathJax_Blank", "src": "local('MathJax_Blank')"}}},
}
html_js_files = ["me-debugger-frame.js"]
html_favicon = "_static/favicon.svg"   # else browsers ask the file server for /favicon.ico

html_theme = "sphinx_book_theme"
# The theme's light/dark switch starts from the reader's system setting (the debugger does too).
html_context = {"default_mode": "auto"}
html_title = "minieager course"
html_theme_options = {
    "repository_url": repository_url(),
    "repository_branch": branch(),
    "path_to_docs": "",          # the staged sources are laid out as the repository
    "use_repository_button": True,
    "use_download_button": True,
    "launch_buttons": {
        "binderhub_url": "https://mybinder.org",
        "colab_url": "https://colab.research.google.com",
        "notebook_interface": "jupyterlab",
    },
}

# Colab installs minieager alone (course/site/colab.py); the exercises also need the course's
# checks from the repository, so their pages offer Binder only.
NO_COLAB = "course/exercises/"


def drop_colab_on_exercises(app, pagename, templatename, context, doctree):
    if not pagename.startswith(NO_COLAB):
        return
    for group in context.get("header_buttons", []):
        if group.get("label") == "launch-buttons":
            group["buttons"] = [b for b in group["buttons"] if b.get("text") != "Colab"]


def setup(app):
    # After the theme's launch buttons (priority 501) and before they are drawn.
    app.connect("html-page-context", drop_colab_on_exercises, priority=502)
