"""``me.summary.plot``: draw the scalars of a log folder with matplotlib, for a quick look without TensorBoard."""
import os


def _runs(logdir):
    """{run name: folder} for ``logdir`` and each subfolder holding event files ("." is logdir itself)."""
    runs = {}
    for folder, _, files in sorted(os.walk(logdir)):
        if any(f.startswith("events.out.tfevents") for f in files):
            runs[os.path.relpath(folder, logdir)] = folder
    return runs


def read_scalars(logdir):
    """``{tag: {run: (steps, values)}}`` for every scalar in ``logdir``, read with TensorBoard's own reader."""
    try:
        from tensorboard.backend.event_processing import event_accumulator
    except ImportError:
        raise ImportError("me.summary.plot reads event files with TensorBoard's reader: pip install tensorboard") \
            from None
    scalars = {}
    for run, folder in _runs(logdir).items():
        events = event_accumulator.EventAccumulator(folder, size_guidance={event_accumulator.SCALARS: 0})
        events.Reload()
        for tag in events.Tags()["scalars"]:
            points = events.Scalars(tag)
            scalars.setdefault(tag, {})[run] = ([p.step for p in points], [p.value for p in points])
    return scalars


def plot(logdir, tags=None):
    """One panel per scalar tag (all of them, or ``tags``), one line per run; returns the matplotlib Figure."""
    import matplotlib.pyplot as plt
    scalars = read_scalars(logdir)
    missing = [t for t in (tags or []) if t not in scalars]
    if missing or not scalars:
        raise ValueError(f"No scalars {missing or ''} in {logdir}; it has {sorted(scalars) or 'none'}.")
    tags = list(tags or sorted(scalars))
    figure, axes = plt.subplots(len(tags), 1, squeeze=False, figsize=(6, 2.5 * len(tags)), layout="constrained")
    for ax, tag in zip(axes[:, 0], tags):
        for run, (steps, values) in sorted(scalars[tag].items()):
            ax.plot(steps, values, marker=".", label=None if run == "." else run)
        ax.set_title(tag)
        ax.set_xlabel("step")
        if len(scalars[tag]) > 1:
            ax.legend()
    plt.close(figure)     # a notebook then shows the figure once, as the cell's result, not twice
    return figure
