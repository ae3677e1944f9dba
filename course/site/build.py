"""Build the course site: ``python -m course.site.build [OUT]`` (``make site``; OUT defaults to build/site).

Sphinx reads a staged copy of the sources (build/site-src), laid out as in the repository, so
that every page's path is its file's path there and the launch buttons open the right notebook:

- course/site/index.md, the landing page;
- course/README.md (the instructor's guide) and docs/*.md, which it links to;
- notebooks/*.ipynb and, once they exist, course/exercises/* (README.md and notebooks),
  with their stored outputs (never executed), their widget outputs made static (embed.py) and
  without the Colab install cell (the notebooks keep it for the Colab button).

The site needs no network to build or to view: MathJax comes from the jupyter-server-mathjax
package and the theme's assets are its own.
"""
import json
import shutil
import sys
from pathlib import Path

import jupyter_server_mathjax

from course.site.colab import CELL_ID
from course.site.embed import embed_widgets

SITE = Path(__file__).resolve().parent
REPO = SITE.parent.parent
STAGE = REPO / "build" / "site-src"
MATHJAX = Path(jupyter_server_mathjax.__file__).parent / "static"   # MathJax 2, served locally

# Repository-relative globs of the pages, in the order the site lists them.
PAGES = ["course/README.md", "docs/*.md", "notebooks/*.ipynb",
         "course/exercises/README.md", "course/exercises/*.ipynb"]


def without_colab_cell(nb):
    """``nb`` (notebook JSON) without the Colab install cell: on a web page it would sit above the
    lesson's title and mean nothing; the notebook itself keeps it, for the Colab button."""
    nb["cells"] = [cell for cell in nb.get("cells", []) if cell.get("id") != CELL_ID]
    return nb


def stage_notebook(src, dst):
    """Copy a notebook, without its Colab cell and with its debugger outputs made into standalone pages
    under _static."""
    nb = without_colab_cell(json.loads(src.read_text(encoding="utf-8")))
    stem = dst.relative_to(STAGE).with_suffix("").as_posix().replace("/", "-")
    embed_widgets(nb, STAGE / "_static" / "debuggers", dst.parent, stem)
    dst.write_text(json.dumps(nb, indent=1, ensure_ascii=False), encoding="utf-8")


def stage():
    """Lay out build/site-src afresh; returns the repository-relative paths staged."""
    shutil.rmtree(STAGE, ignore_errors=True)
    STAGE.mkdir(parents=True)
    shutil.copy(SITE / "index.md", STAGE / "index.md")
    shutil.copytree(MATHJAX, STAGE / "_static" / "mathjax")
    staged = []
    for pattern in PAGES:
        for src in sorted(REPO.glob(pattern)):
            rel = src.relative_to(REPO)
            dst = STAGE / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            if src.suffix == ".ipynb":
                stage_notebook(src, dst)
            else:
                shutil.copy(src, dst)
            staged.append(rel.as_posix())
    return staged


def build(out):
    from sphinx.cmd.build import build_main

    staged = stage()
    print(f"site: {len(staged)} pages staged in {STAGE.relative_to(REPO)}")
    # -c: the configuration stays in course/site; -q: warnings and errors only; -d: Sphinx's pickled
    # doctrees (which hold this machine's absolute paths) beside the staged sources, not in the site.
    return build_main(["-b", "html", "-q", "-c", str(SITE), "-d", str(STAGE.parent / "site-doctrees"),
                       str(STAGE), str(out)])


if __name__ == "__main__":
    sys.exit(build(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "build" / "site"))
