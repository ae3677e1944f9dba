"""Lesson 06's visible checks: a running mean whose state lives in variables (format: course/spec.py).

The probes feed the learner's RunningMean the grader's batches and report what it held after each;
the judges compute the means here, in NumPy.
"""
import numpy as np

from course.expect import expect, expect_close
from course.spec import check


def probe_made(ns):
    """A fresh RunningMean, and what its total and count are (both must be me.Variables made in __init__)."""
    mean = learner(ns, "RunningMean")()
    kinds = {name: type(getattr(mean, name, None)).__name__ for name in ("total", "count")}
    made = {name: isinstance(getattr(mean, name, None), me.Variable) for name in ("total", "count")}
    return mean, {"kinds": kinds, "made": made}


def judge_made(got):
    for name in ("total", "count"):
        expect(got["made"][name], f"RunningMean().{name} should be a me.Variable created in __init__, got "
                                  f"{got['kinds'][name]}.")


def probe_batches(ns, batches):
    mean, made = probe_made(ns)
    if not all(made["made"].values()):
        return made
    results = []
    for batch in batches:
        mean.update(me.constant(np.asarray(batch, np.float32)))
        results.append(mean.result())
    return {**made, "results": results}


def judge_batches(got, batches):
    judge_made(got)
    seen = []
    for batch, result in zip(batches, got["results"]):
        seen.extend(np.ravel(batch))
        expect_close(result, np.mean(np.asarray(seen, np.float64)),
                     f"the mean after updates with {len(seen)} values (the last batch of shape {np.shape(batch)})",
                     rtol=1e-5, atol=1e-4)


@check("running_mean", points=1)
class RunningMeanStartsAtZero:
    """result() before any update is 0."""
    cases = [{}]
    probe_helpers = (probe_made,)

    def probe(ns):
        mean, made = probe_made(ns)
        return {**made, "result": mean.result() if all(made["made"].values()) else None}

    def judge(got):
        judge_made(got)
        expect_close(got["result"], 0.0, "RunningMean().result() before any update")


@check("running_mean", points=2)
class RunningMeanAveragesEveryValueSeen:
    """Batches of any shape (a vector, a matrix, a scalar): the mean of every value seen so far."""
    probe_helpers = (probe_made, probe_batches)
    cases = [{"batches": [np.array([1.0, 2.0, 3.0], np.float32), np.array([[10.0], [20.0]], np.float32),
                          np.array(-4.0, np.float32)]}]

    def probe(ns, batches):
        return probe_batches(ns, batches)

    def judge(got, batches):
        judge_batches(got, batches)


@check("running_mean", points=1)
class RunningMeanUpdatesInPlace:
    """update() changes total and count in place (assign_add), never replaces them."""
    probe_helpers = (probe_made,)
    cases = [{"values": [2.0, 4.0]}]

    def probe(ns, values):
        mean, made = probe_made(ns)
        if not all(made["made"].values()):
            return made
        total, count = mean.total, mean.count
        mean.update(me.constant(values))
        return {**made, "same": mean.total is total and mean.count is count, "total": total, "count": count}

    def judge(got, values):
        judge_made(got)
        expect(got["same"], "update() replaced self.total or self.count with a new object: use assign_add to "
                            "change the variable in place.")
        expect_close(got["total"], sum(values), f"self.total after update({values})")
        expect_close(got["count"], float(len(values)), f"self.count after update({values})")


@check("running_mean", points=1)
class RunningMeanSurvivesACheckpoint:
    """Saved by me.train.Checkpoint, updated again, restored: the mean is back to the saved one."""
    probe_helpers = (probe_made,)
    cases = [{"before": [1.0, 2.0, 3.0], "after": [100.0]}]

    def probe(ns, before, after):
        import tempfile
        mean, made = probe_made(ns)
        if not all(made["made"].values()):
            return made
        mean.update(me.constant(before))
        checkpoint = me.train.Checkpoint(total=mean.total, count=mean.count)
        with tempfile.TemporaryDirectory() as folder:
            path = checkpoint.save(folder + "/ckpt")
            mean.update(me.constant(after))
            checkpoint.restore(path)
            return {**made, "result": mean.result()}

    def judge(got, before, after):
        judge_made(got)
        expect_close(got["result"], np.mean(before), f"the mean after saving at {before}, adding {after} and "
                                                      f"restoring the checkpoint")
