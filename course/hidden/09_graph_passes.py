"""Lesson 09's hidden checks: only the grader runs them, on inputs drawn fresh for every submission, and on
case functions the visible checks do not show."""
import numpy as np

import minieager as me

from course.spec import check, visible_module

lesson = visible_module("09_graph_passes")


def hidden_functions(state):
    """{case: (function, number of arguments)}: patterns the visible checks do not use."""
    def three_products(x, w):
        return x * w + x * w * 2.0 + me.sigmoid(x * w)

    def nested_repeats(x, w):
        return me.exp(me.tanh(x + w)) - me.exp(me.tanh(x + w))

    def reads_between_assigns(x):
        a = state * 3.0
        state.assign(x)
        b = state * 3.0
        state.assign_add(x)
        return a + b + state * 3.0

    def dead_after_a_live_print(x, w):
        me.print("w is", w)
        unused = me.matmul(x, w) * 5.0
        return me.exp(x) + me.exp(x)

    def dead_chain_over_a_draw(x):
        noise = me.random.normal((3, 3))
        wasted = me.tanh(noise * 2.0) + x
        return x - 1.0

    return {"x * w in three expressions": (three_products, 2),
            "exp(tanh(x + w)) written twice": (nested_repeats, 2),
            "STATE * 3.0 read between two assigns": (reads_between_assigns, 1),
            "a print of w and a dead matmul": (dead_after_a_live_print, 2),
            "a dead chain over a random draw": (dead_chain_over_a_draw, 1)}


HIDDEN_CSE = ["x * w in three expressions", "exp(tanh(x + w)) written twice", "STATE * 3.0 read between two assigns"]
HIDDEN_DCE = ["a print of w and a dead matmul", "a dead chain over a random draw", "x * w in three expressions"]
HELPERS = (lesson.case_functions, lesson.traced, lesson.describe, lesson.probe_pass, hidden_functions)


def _matrix(rng):
    return rng.normal(size=(3, 3)).astype(np.float32)


def _drawn(rng, names):
    return [{"case": c, "x": _matrix(rng), "w": _matrix(rng)} for c in names]


@check("cse_pass", points=3)
class CseOnUnseenGraphs:
    """Graphs the visible checks do not show, on random inputs: counts, results and effects."""
    probe_helpers = HELPERS

    def cases(rng):
        return _drawn(rng, HIDDEN_CSE)

    def probe(ns, case, x, w):
        return probe_pass(ns, "cse", case, x, w, hidden_functions)

    def judge(got, case, x, w):
        lesson.judge_counts(got, "cse", case, x, w, lesson.CSE_KINDS, hidden_functions)
        lesson.judge_results(got, "cse", case, x, w, hidden_functions)
        lesson.judge_effects(got, "cse", case, x, w, "merged or dropped", hidden_functions)


@check("cse_pass", points=2)
class CseResultsOnRandomInputs:
    """The visible cases' results with inputs drawn fresh."""
    probe_helpers = HELPERS

    def cases(rng):
        return _drawn(rng, lesson.CSE_CASES)

    def probe(ns, case, x, w):
        return probe_pass(ns, "cse", case, x, w)

    def judge(got, case, x, w):
        lesson.judge_results(got, "cse", case, x, w)


@check("dce_pass", points=3)
class DceOnUnseenGraphs:
    """Graphs the visible checks do not show, on random inputs: counts, results and effects."""
    probe_helpers = HELPERS

    def cases(rng):
        return _drawn(rng, HIDDEN_DCE)

    def probe(ns, case, x, w):
        return probe_pass(ns, "dce", case, x, w, hidden_functions)

    def judge(got, case, x, w):
        lesson.judge_counts(got, "dce", case, x, w, lesson.DCE_KINDS, hidden_functions)
        lesson.judge_results(got, "dce", case, x, w, hidden_functions)
        lesson.judge_effects(got, "dce", case, x, w, "removed", hidden_functions)


@check("dce_pass", points=2)
class DceResultsOnRandomInputs:
    """The visible cases' results with inputs drawn fresh."""
    probe_helpers = HELPERS

    def cases(rng):
        return _drawn(rng, lesson.DCE_CASES)

    def probe(ns, case, x, w):
        return probe_pass(ns, "dce", case, x, w)

    def judge(got, case, x, w):
        lesson.judge_results(got, "dce", case, x, w)


@check("autograph_loop", points=2)
class YearsForRandomRates:
    """Random starts, targets (some below the start) and rates."""
    probe_helpers = (lesson.probe_years,)

    def cases(rng):
        out = []
        for _ in range(4):
            start = float(np.round(rng.uniform(1.0, 100.0), 2))
            out.append({"start": start, "target": float(np.round(start * rng.uniform(0.5, 20.0), 2)),
                        "rate": float(np.round(rng.uniform(0.01, 0.5), 3))})
        return out

    def probe(ns, start, target, rate):
        return probe_years(ns, start, target, rate)

    def judge(got, start, target, rate):
        lesson.judge_years(got, start, target, rate)


def _normalizer_case(rng):
    return [{"mean": [float(v) for v in np.round(rng.normal(size=3), 3)],
             "std": [float(v) for v in np.round(rng.uniform(0.2, 3.0, 3), 3)],
             "x": [float(v) for v in np.round(rng.normal(size=3) * 2, 3)]}]


@check("saved_module", points=2)
class NormalizerRandomStatistics:
    """A Normalizer of random mean and std, eagerly and loaded in a new Python process."""
    probe_helpers = (lesson.probe_normalizer,)

    def cases(rng):
        return _normalizer_case(rng)

    def probe(ns, mean, std, x):
        return probe_normalizer(ns, mean, std, x)

    def judge(got, mean, std, x):
        lesson.judge_eager(got, mean, std, x)
        lesson.judge_loaded(got, mean, std, x)
