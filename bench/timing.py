"""Timing helpers shared by the benchmarks and by the PyTorch reference process.

This module imports neither minieager nor PyTorch, so ``torch_reference.py`` can use it in a
process where minieager's environment settings never happened.
"""
import statistics
import timeit


def timeit_median(fn, repeat=7, number=10):
    """Median seconds per call of fn() over `repeat` runs of `number` calls each.

    fn() is called once first so that numba compilation (or loading from its cache) and any
    first-call allocation are not timed.
    """
    fn()
    return statistics.median(timeit.repeat(fn, repeat=repeat, number=number)) / number


def timeit_medians(fns, repeat=7, number=10, rounds=2):
    """``timeit_median`` for several functions compared in one table, taken in alternating rounds.

    Each round times each function in one block (``repeat`` runs of ``number`` calls, back to back,
    so its thread pools settle as in a real loop; timing the functions call by call in turn made
    PyTorch's threads fight ours and PyTorch look several times slower than it is). Of the
    ``rounds`` block medians, the lower one is reported: a burst of load from elsewhere on the
    machine must then spoil every round of a function to count. None in ``fns`` (PyTorch not
    installed) gives None.
    """
    present = [fn for fn in fns if fn is not None]
    best = {}
    for _ in range(rounds):
        for fn in present:
            median = timeit_median(fn, repeat, number)
            best[id(fn)] = min(best.get(id(fn), median), median)
    return [None if fn is None else best[id(fn)] for fn in fns]
