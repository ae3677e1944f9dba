"""The learner-notebook generator, and the committed notebooks it made (both versions)."""
import re

import pytest

from course import spec, notebooks
from course.catalog import EXERCISES, LESSONS, exercises_of
from course.generate import DEFAULT_STUB, MarkerError, learner_version, strip_solutions


def test_a_solution_inside_a_function_becomes_a_raise():
    source = "def f(x):\n    ### BEGIN SOLUTION\n    return x + 1\n    ### END SOLUTION\n\nprint(2)"
    assert strip_solutions(source) == f"def f(x):\n    {DEFAULT_STUB}\n\nprint(2)"


def test_a_stub_block_replaces_the_solution_and_is_uncommented():
    source = ("### BEGIN SOLUTION\nanswer = 42\n### END SOLUTION\n### BEGIN STUB\n# answer = ...\n"
              "#     # indented comment\n### END STUB\nprint(answer)")
    assert strip_solutions(source) == "answer = ...\n    # indented comment\nprint(answer)"


def test_stub_lines_keep_the_solutions_indentation():
    source = "d = {\n    ### BEGIN SOLUTION\n    'a': 1,\n    ### END SOLUTION\n    ### BEGIN STUB\n    # 'a': ...,\n    ### END STUB\n}"
    assert strip_solutions(source) == "d = {\n    'a': ...,\n}"


def test_a_top_level_solution_without_a_stub_is_refused():
    with pytest.raises(MarkerError, match="a top-level solution needs a '### BEGIN STUB' block"):
        strip_solutions("### BEGIN SOLUTION\nx = 1\n### END SOLUTION", "nb cell 3")


@pytest.mark.parametrize("source, message", [
    ("def f():\n    ### BEGIN SOLUTION\n    return 1\n", "has no matching '### END SOLUTION'"),
    ("x = 1\n### END SOLUTION", "'### END SOLUTION' without a '### BEGIN SOLUTION' before it"),
    ("### BEGIN SOLUTION\nx = 1\n### END SOLUTION\n### BEGIN STUB\nx = ...\n### END STUB",
     "stub lines must be comments"),
])
def test_unbalanced_or_malformed_markers_are_refused(source, message):
    with pytest.raises(MarkerError, match=re.escape(message)):
        strip_solutions(source, "nb cell 1")


def test_every_lesson_has_a_solution_a_learner_version_and_tests():
    for lesson in LESSONS:
        assert (notebooks.SOLUTIONS / f"{lesson}.ipynb").exists(), lesson
        assert (notebooks.EXERCISES / f"{lesson}.ipynb").exists(), lesson
        assert (notebooks.HERE / "checks" / f"{lesson}.py").exists(), lesson    # its declared checks
    for exercise in EXERCISES:
        assert spec.checks_of(exercise.name, exercise.lesson), f"{exercise.name} has no checks"
    assert len(EXERCISES) >= 12


@pytest.mark.parametrize("lesson", list(LESSONS))
def test_committed_learner_version_is_generated_from_the_solution(lesson):
    """The two versions never drift: `python -m course make` rewrites the learner version from the solution."""
    solution = notebooks.read(notebooks.SOLUTIONS / f"{lesson}.ipynb")
    committed = notebooks.read(notebooks.EXERCISES / f"{lesson}.ipynb")
    generated = learner_version(solution, lesson)
    assert [(c.cell_type, c.source) for c in committed.cells] == [(c.cell_type, c.source) for c in generated.cells], \
        f"course/exercises/{lesson}.ipynb is out of date: run `make course`"
    assert "### BEGIN SOLUTION" not in "".join(c.source for c in committed.cells)


def _outputs(nb):
    texts, errors = [], []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.output_type == "error":
                errors.append(f"{out.ename}: {out.evalue}")
            texts.append(out.get("text", ""))
    return "".join(texts), errors


@pytest.mark.parametrize("lesson", list(LESSONS))
def test_stored_outputs_show_solutions_passing_and_learner_versions_not_done(lesson):
    solution_text, solution_errors = _outputs(notebooks.read(notebooks.SOLUTIONS / f"{lesson}.ipynb"))
    learner_text, learner_errors = _outputs(notebooks.read(notebooks.EXERCISES / f"{lesson}.ipynb"))
    assert solution_errors == [] and learner_errors == []
    for exercise in exercises_of(lesson):
        assert f"✔ {exercise.name}: all" in solution_text, exercise.name
        assert f"… {exercise.name}: not done yet." in learner_text, exercise.name
