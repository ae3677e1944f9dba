"""check(): friendly results for a pass, a wrong answer, an unfinished stub and code that raises."""
import re

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
    assert "raised IndexError: tuple index out of range" in out
    assert "(2, 3)" in out or "a=[2, 3]" in out          # the input that made it raise
    assert "Traceback" not in out and "site-packages" not in out


def test_part_done_part_wrong_counts_both(capsys):
    predictions = {"me.constant([1, 2]) / 2": ((2,), "int32")}
    check("dtype_predictions", {"predictions": predictions})
    out = capsys.readouterr().out
    assert out.startswith("✘ dtype_predictions: 1 of 8 checks did not pass (7 more not done yet).")
    assert "your prediction ((2,), 'int32') for `me.constant([1, 2]) / 2`: the dtype is not what minieager " \
           "gives (the shape is right)." in out
    assert "float64" not in out      # a prediction exercise never shows the answer



PREDICTED = [     # the expressions of dtype_predictions, as the exercise lists them
    "me.constant([[1, 2]]) + me.constant([[1], [2]])",
    "me.constant([1.0, 2.0]) * 3",
    "me.constant(np.zeros((2, 1))) + 1.5",
    "me.constant([1, 2]) / 2",
    "me.reduce_sum(me.ones((3, 4)), axis=0)",
    "me.constant([[1.0], [2.0]]) * me.constant([10.0, 20.0, 30.0])",
    "me.constant([1, 2, 3]) < 2",
    "me.ones((2, 3)) + me.ones((3, 2))",
]


def _actual(expression):
    import numpy as np
    try:
        t = eval(expression, {"me": minieager, "np": np})
    except Exception:
        return "error"
    return (tuple(t.shape), t.dtype.name)


def test_a_prediction_exercise_never_prints_the_expected_answers(capsys):
    """Every prediction wrong in every way: no message holds a right answer (shape or dtype)."""
    EXPRESSIONS = PREDICTED
    wrong = {e: ((9, 9), "complex64") if _actual(e) == "error" else "error" for e in EXPRESSIONS}
    result = checker.run_checks("dtype_predictions", {"predictions": wrong})
    assert result.status == "failed" and len(result.cases) == len(EXPRESSIONS)
    messages = " ".join(c.message for c in result.cases) + result.summary(failures=99)
    for expression in EXPRESSIONS:
        messages = messages.replace(expression, "<expression>")
    assert "<expression>" in messages and "error" not in messages.replace("predicted an error", "")
    for expression in EXPRESSIONS:
        actual = _actual(expression)
        if actual != "error":
            assert repr(actual) not in messages and f"'{actual[1]}'" not in messages, expression
            assert str(actual[0]) not in messages, expression


def test_hints_go_from_a_nudge_to_the_formula_over_repeated_failed_tries(capsys, monkeypatch):
    from course.catalog import BY_NAME, TRIES_PER_HINT
    monkeypatch.setattr(checker, "failed_tries", {})
    hints = BY_NAME["sigmoid_vjp"].hints
    assert len(hints) == 3 and "s * (1 - s)" in hints[-1] and all("(1 - s)" not in h for h in hints[:-1])
    shown = []
    for _ in range(3 * TRIES_PER_HINT):
        check("sigmoid_vjp", {"sigmoid_vjp": lambda dy, x, out: dy, "my_sigmoid": None})
        out = capsys.readouterr().out
        shown.append(next(line for line in out.splitlines() if line.startswith("  Hint: ")).removeprefix("  Hint: "))
    assert shown == [h for h in hints for _ in range(TRIES_PER_HINT)]
    assert checker.failed_tries == {"sigmoid_vjp": 3 * TRIES_PER_HINT}


@pytest.mark.parametrize("exercise", ["sigmoid_vjp", "softmax_xent_vjp", "momentum", "adam", "gpu_saxpy"])
def test_the_first_hint_is_a_nudge_not_the_formula(exercise):
    from course.catalog import BY_NAME
    ex = BY_NAME[exercise]
    assert len(ex.hints) >= 2 and ex.hint == ex.hint_for(1) == ex.hints[0]
    for formula_piece in ("s * (1 - s)", "softmax(logits_i) - labels_i", "momentum * velocity - learning_rate",
                          "(1-b1)*g", "out[i] = a * x[i] + y[i]"):
        assert formula_piece not in ex.hint


def test_a_constraint_the_exercise_states_is_checked(capsys):
    import numpy as np
    namespace = {"np": np}
    exec("def broadcast_shape(a, b):\n    return tuple(np.broadcast_shapes(a, b))", namespace)
    check("broadcast_shape", namespace)
    out = capsys.readouterr().out
    assert out.startswith("✘ broadcast_shape: 1 of ")
    assert "broadcast_shape: your code uses `np` (NumPy); the exercise asks you to write it without NumPy" in out


def test_an_error_in_the_learners_code_names_the_input_that_raised_it(capsys):
    namespace = {}
    exec(compile("def broadcast_shape(a, b):\n"
                 "    for m, n in zip(a[::-1], b[::-1]):\n"
                 "        if m != n:\n"
                 "            raise ValueError(f'{m} vs {n}')\n"
                 "    return a\n", "<cell 2>", "exec"), namespace)
    check("broadcast_shape", namespace)
    out = capsys.readouterr().out
    assert "broadcast_shape((4, 1), (1, 5)) raised ValueError" in out
    assert "Traceback" not in out


def test_a_wrong_error_message_for_shapes_that_clash_is_reported(capsys):
    namespace = {}
    exec("def broadcast_shape(a, b):\n"
         "    out = []\n"
         "    for k in range(1, max(len(a), len(b)) + 1):\n"
         "        m, n = (a[-k] if k <= len(a) else 1), (b[-k] if k <= len(b) else 1)\n"
         "        if m != n and 1 not in (m, n):\n"
         "            raise ValueError('no')\n"
         "        out.append(n if m == 1 else m)\n"
         "    return tuple(reversed(out))\n", namespace)
    check("broadcast_shape", namespace)
    out = capsys.readouterr().out
    assert "broadcast_shape((2, 3), (2,)) raised ValueError('no'): right, these shapes do not broadcast, but " \
           "the message should name the two sizes that clash." in out


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
    assert "raised InvalidArgumentError: reshape" in out
    assert re.search(r"\bx ?= ?(array\()?-?0\.\d+", out), "the input x is shown"
    assert "(in `sigmoid_vjp`, line 2)" in out
