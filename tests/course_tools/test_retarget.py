"""python -m course retarget URL: the launch links of the site and the Colab cells follow in one command."""
import shutil
import tomllib
from pathlib import Path

import nbformat
import pytest

from course import __main__ as cli
from course import retarget as rt
from course.site import colab

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def copy(tmp_path):
    """pyproject.toml and three lesson notebooks, as the repository has them."""
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "notebooks").mkdir()
    for src in sorted((REPO / "notebooks").glob("0[0-2]_*.ipynb")):
        shutil.copy(src, tmp_path / "notebooks" / src.name)
    return tmp_path


def _repository(root):
    with (root / "pyproject.toml").open("rb") as f:
        return tomllib.load(f)["project"]["urls"]["Repository"]


def test_one_command_rewrites_the_repository_and_every_colab_cell(copy, capsys):
    before = {p.name: nbformat.read(p, as_version=4) for p in (copy / "notebooks").glob("*.ipynb")}
    assert all(nb.cells[0].get("id") == colab.CELL_ID for nb in before.values())
    assert rt.main("https://github.com/prof-x/ml-course-2027.git/", root=copy) == 0
    out = capsys.readouterr().out
    assert out.startswith("retarget: the launch links now point at https://github.com/prof-x/ml-course-2027;")
    assert "pyproject.toml" in out and "notebooks/00_tape_debugger.ipynb" in out
    assert _repository(copy) == "https://github.com/prof-x/ml-course-2027"
    for path in (copy / "notebooks").glob("*.ipynb"):
        nb = nbformat.read(path, as_version=4)
        assert nb.cells[0].source == colab.install_line("https://github.com/prof-x/ml-course-2027")
        assert "git+https://github.com/prof-x/ml-course-2027'" in nb.cells[0].source
        assert nb.cells[1:] == before[path.name].cells[1:], f"{path.name}: only the Colab cell may change"
    # The rest of pyproject.toml is as it was.
    old, new = (REPO / "pyproject.toml").read_text(), (copy / "pyproject.toml").read_text()
    assert [l for l in old.splitlines() if not l.startswith("Repository")] == \
           [l for l in new.splitlines() if not l.startswith("Repository")]


def test_a_second_run_changes_nothing(copy, capsys):
    rt.retarget("https://github.com/prof-x/course", root=copy)
    snapshot = {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()}
    assert rt.retarget("https://github.com/prof-x/course", root=copy) == []
    assert rt.main("https://github.com/prof-x/course", root=copy) == 0
    assert capsys.readouterr().out == "retarget: everything already points at https://github.com/prof-x/course.\n"
    assert snapshot == {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()}


@pytest.mark.parametrize("url", ["github.com/a/b", "https://gitlab.com/a/b", "https://github.com/a",
                                 "https://github.com/a/b/tree/main", "https://github.com/-a/b"])
def test_an_address_that_is_not_a_github_repository_is_refused_and_nothing_changes(copy, url, capsys):
    snapshot = {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()}
    assert rt.main(url, root=copy) == 2
    assert capsys.readouterr().out == (f"retarget: {url!r} is not a GitHub repository address; give it as "
                                       f"https://github.com/OWNER/NAME (the launch buttons use Binder and Colab, "
                                       f"which open GitHub repositories).\n")
    assert snapshot == {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()}


def test_a_pyproject_without_the_section_gets_it():
    text = '[project]\nname = "x"\n\n[tool.other]\na = 1\n'
    new = rt.set_repository(text, "https://github.com/a/b")
    assert tomllib.loads(new)["project"]["urls"]["Repository"] == "https://github.com/a/b"
    assert tomllib.loads(new)["tool"]["other"] == {"a": 1}
    with_section = '[project.urls]\nHomepage = "h"\n\n[tool.x]\n'
    assert tomllib.loads(rt.set_repository(with_section, "https://github.com/a/b"))["project"]["urls"] == {
        "Repository": "https://github.com/a/b", "Homepage": "h"}


def test_the_cli_has_the_command(capsys):
    assert cli.main(["retarget", "not-a-url"]) == 2
    assert "is not a GitHub repository address" in capsys.readouterr().out
