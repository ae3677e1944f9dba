"""The repository's address, read from the one place it is set: pyproject.toml's [project.urls].

The site's launch buttons, its repository button and course/colab.py's install line all use it.
"""
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def repository_url():
    """``https://github.com/OWNER/NAME`` (no trailing slash)."""
    with PYPROJECT.open("rb") as f:
        urls = tomllib.load(f)["project"].get("urls", {})
    if "Repository" not in urls:
        raise KeyError(f"{PYPROJECT} sets no Repository under [project.urls]; the course's launch "
                       "buttons and Colab install line need it: add Repository = \"https://github.com/OWNER/NAME\"")
    return urls["Repository"].rstrip("/")


def branch():
    """The branch the launch buttons open (the notebooks as published)."""
    return "main"
