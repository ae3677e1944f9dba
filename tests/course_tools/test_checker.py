"""check(): friendly results for a pass, a wrong answer, an unfinished stub and code that raises."""
import pytest

import minieager

from course import check, checker


def _broadcast_shape_solution(a, b):
    result = []
    for k in range(1, max(len(a), len(b)) + 1):
        m, n = (a[-k] if k <= len(a) else 1), (b[-k] if k <= len(b) else 1)
        if m != n and 1 not in (m, n):
            raise ValueError(f"sizes {m} and {n} clash")
        result.append(n if m == 1 else m)
    return tuple(reversed(result))


def test_a_correct_answer_passes(capsys):
    check("broadcast_shape", {"broadcast_shape": _broadcast_shape_solution})
    assert capsys.readouterr().out == "✔ broadcast_shape: all 30 checks passed. Well done!\n"


def test_a_wrong_answer_shows_the_case_expected_got_and_the_hint(capsys):
    check("broadcast_shape", {"broadcast_shape": lambda a, b: a})
    out = capsys.readouterr().out
    assert out.startswith("✘ broadcast_shape: ")
    assert "broadcast_shape((4, 1), (1, 5)): expected (4, 5), got (4, 1)." in out
    assert "Hint: Line the shapes up from the right" in out
    assert "Traceback" not in out


def test_a_stub_is_reported_as_not_done(capsys):
    def broadcast_shape(a, b):
        raise NotImplementedError("write your code here")
    check("broadcast_shape", {"broadcast_shape": broadcast_shape})
    out = capsys.readouterr().out
    assert out.startswith("… broadcast_shape: not done yet. Replace the `raise NotImplementedError` (in `broadcast_shape`")


def test_a_missing_definition_is_not_done():
    result = checker.run_checks("sigmoid_vjp", {})
    assert result.status == "not done"
    assert "`sigmoid_vjp` is not defined yet" in result.summary()


def test_an_exception_in_the_learners_code_is_named_without_a_traceback(capsys):
    check("broadcast_shape", {"broadcast_shape": lambda a, b: a[10]})
    out = capsys.readouterr().out
    assert "your code raised IndexError: tuple index out of range" in out
    assert "Traceback" not in out and "site-packages" not in out


def test_part_done_part_wrong_counts_both(capsys):
    predictions = {"me.constant([1, 2]) / 2": ((2,), "int32")}
    check("dtype_predictions", {"predictions": predictions})
    out = capsys.readouterr().out
    assert out.startswith("✘ dtype_predictions: 1 of 8 checks did not pass (7 more not done yet).")
    assert "your prediction ((2,), 'int32') for `me.constant([1, 2]) / 2`: the dtype is not what minieager " \
           "gives (the shape is right)." in out
    assert "float64" not in out      # a prediction exercise never shows the answer


def test_an_unknown_exercise_lists_the_known_ones(capsys):
    check("sigmoid")
    out = capsys.readouterr().out
    assert out.startswith("check: there is no exercise named 'sigmoid'. The exercises are: adam, autograph_loop, broadcast_shape")
    with pytest.raises(ValueError, match="no exercise named 'sigmoid'"):
        checker.run_checks("sigmoid", {})


def test_using_numpy_where_the_exercise_forbids_it_fails_that_check(capsys):
    import numpy as np
    check("broadcast_shape", {"broadcast_shape": lambda a, b: tuple(np.broadcast_shapes(a, b)), "np": np})
    out = capsys.readouterr().out
    assert out.startswith("✘ broadcast_shape: 1 of 30 checks did not pass.")
    assert "your code uses `np` (NumPy); the exercise asks you to write it without NumPy or minieager." in out


def test_check_defaults_to_the_callers_globals(capsys):
    namespace = {"check": check}
    exec("def broadcast_shape(a, b):\n    return a\ncheck('broadcast_shape')", namespace)
    assert "got (4, 1)" in capsys.readouterr().out


def test_under_the_grader_check_only_says_so(capsys, monkeypatch):
    monkeypatch.setenv(checker.GRADING, "1")
    check("broadcast_shape", {})
    assert capsys.readouterr().out == "broadcast_shape: the grader checks this at the end of the notebook.\n"


def test_an_error_raised_inside_minieager_points_at_the_learners_line(capsys):
    namespace = {"me": minieager}
    exec(compile("def sigmoid_vjp(dy, x, out):\n    return me.reshape(dy, (7, 7))\n",
                 "<cell 1>", "exec"), namespace)
    check("sigmoid_vjp", namespace)
    out = capsys.readouterr().out
    assert "your code raised InvalidArgumentError: reshape" in out
    assert "(in `sigmoid_vjp`, line 2)" in out
