"""``python -m course retarget URL``: point every launch link of the course at another repository.

The repository's address is set in one place, ``pyproject.toml``'s ``[project.urls] Repository``: the
course site's Binder, Colab and repository buttons read it when the site is built. The one copy that
lives inside files is the Colab install cell at the top of each lesson notebook (``notebooks/*.ipynb``,
``course/site/colab.py``), which installs minieager from that address. This command rewrites both, so
that a fork (an instructor's copy for a term, a GitHub Classroom template) launches itself; commit the
files it lists. Saved outputs are untouched: the Colab cell prints nothing outside Colab.
"""
import re
from pathlib import Path

import nbformat

from .site import colab

REPO = Path(__file__).resolve().parent.parent
URL = re.compile(r"^https://github\.com/(?P<owner>[A-Za-z0-9][A-Za-z0-9-]{0,38})/(?P<name>[A-Za-z0-9._-]{1,100}?)"
                 r"(?:\.git)?/?$")
_REPOSITORY_LINE = re.compile(r'^(Repository\s*=\s*)"[^"]*"', re.MULTILINE)


def normalise(url):
    """``https://github.com/OWNER/NAME`` from what a user pastes (a trailing slash or ``.git`` dropped).

    Binder's and Colab's launch links need a GitHub repository, so anything else is refused with a
    message that shows the form expected.
    """
    match = URL.match(url.strip())
    if not match:
        raise ValueError(f"retarget: {url!r} is not a GitHub repository address; give it as "
                         f"https://github.com/OWNER/NAME (the launch buttons use Binder and Colab, which "
                         f"open GitHub repositories).")
    return f"https://github.com/{match['owner']}/{match['name']}"


def set_repository(pyproject_text, url):
    """``pyproject_text`` with its ``[project.urls] Repository`` set to ``url``."""
    urls = pyproject_text.find("[project.urls]")
    if urls < 0:
        return pyproject_text.rstrip("\n") + f'\n\n[project.urls]\nRepository = "{url}"\n'
    end = pyproject_text.find("\n[", urls + 1)
    end = len(pyproject_text) if end < 0 else end
    section = pyproject_text[urls:end]
    if _REPOSITORY_LINE.search(section):
        section = _REPOSITORY_LINE.sub(lambda m: f'{m.group(1)}"{url}"', section, count=1)
    else:
        section = section.replace("[project.urls]", f'[project.urls]\nRepository = "{url}"', 1)
    return pyproject_text[:urls] + section + pyproject_text[end:]


def retarget(url, root=REPO):
    """Point the course at ``url``; returns the repository-relative paths it changed."""
    url = normalise(url)
    changed = []
    pyproject = Path(root) / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    new = set_repository(text, url)
    if new != text:
        pyproject.write_text(new, encoding="utf-8")
        changed.append("pyproject.toml")
    line = colab.install_line(url)
    for path in sorted((Path(root) / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        if any(c.get("id") == colab.CELL_ID for c in nb.cells) and colab.add_install_cell(nb, line):
            nbformat.write(nb, path)
            changed.append(path.relative_to(root).as_posix())
    return changed


def main(url, root=REPO):
    try:
        changed = retarget(url, root)
    except ValueError as err:
        print(err)
        return 2
    target = normalise(url)
    if not changed:
        print(f"retarget: everything already points at {target}.")
        return 0
    print(f"retarget: the launch links now point at {target}; the course site's buttons follow at the next "
          f"`make site`. Changed {len(changed)} files; commit them:")
    for path in changed:
        print(f"  {path}")
    return 0
