"""Lesson 06: state kept in variables, updated in place, saved and restored by a checkpoint."""
import numpy as np
import pytest

import minieager as me
from course.expect import expect, expect_close, learner


def _made(ns):
    RunningMean = learner(ns, "RunningMean")
    mean = RunningMean()
    for name in ("total", "count"):
        expect(isinstance(getattr(mean, name, None), me.Variable),
               f"RunningMean().{name} should be a me.Variable created in __init__, got "
               f"{type(getattr(mean, name, None)).__name__}.")
    return mean


@pytest.mark.running_mean
def test_running_mean_starts_at_zero(ns):
    expect_close(_made(ns).result(), 0.0, "RunningMean().result() before any update")


@pytest.mark.running_mean
def test_running_mean_averages_every_value_seen(ns):
    mean = _made(ns)
    batches = [np.array([1.0, 2.0, 3.0], np.float32), np.array([[10.0], [20.0]], np.float32), np.float32(-4.0)]
    seen = []
    for batch in batches:
        mean.update(me.constant(batch))
        seen.extend(np.ravel(batch))
        expect_close(mean.result(), np.mean(seen), f"the mean after updates with {len(seen)} values", rtol=1e-6)


@pytest.mark.running_mean
def test_running_mean_updates_its_variables_in_place(ns):
    mean = _made(ns)
    total, count = mean.total, mean.count
    mean.update(me.constant([2.0, 4.0]))
    expect(mean.total is total and mean.count is count,
           "update() replaced self.total or self.count with a new object: use assign_add to change the "
           "variable in place.")
    expect_close(total, 6.0, "self.total after update([2, 4])")
    expect_close(count, 2.0, "self.count after update([2, 4])")


@pytest.mark.running_mean
def test_running_mean_survives_a_checkpoint_round_trip(ns, tmp_path):
    mean = _made(ns)
    mean.update(me.constant([1.0, 2.0, 3.0]))
    checkpoint = me.train.Checkpoint(total=mean.total, count=mean.count)
    path = checkpoint.save(str(tmp_path / "ckpt"))
    mean.update(me.constant([100.0]))
    checkpoint.restore(path)
    expect_close(mean.result(), 2.0, "the mean after saving at [1, 2, 3], adding 100 and restoring the checkpoint")
