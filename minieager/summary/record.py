"""When summaries are recorded: ``record_if(condition)`` and the TF 1 spellings the guide uses.

Outside any of these blocks summaries are recorded (as in TF 2). The innermost block decides;
a callable condition is asked at each summary, so it can depend on the current global step.
"""
import contextlib

from ..nn.optimizers import get_or_create_global_step

_conditions = []    # innermost last


@contextlib.contextmanager
def record_if(condition):
    """Record summaries in this block only when ``condition`` (a bool, or a function returning one) holds."""
    _conditions.append(condition)
    try:
        yield
    finally:
        _conditions.pop()


def should_record_summaries():
    if not _conditions:
        return True
    condition = _conditions[-1]
    return bool(condition() if callable(condition) else condition)


def always_record_summaries():
    return record_if(True)


def never_record_summaries():
    return record_if(False)


def record_summaries_every_n_global_steps(n, global_step=None):
    """Record only when the global step (or ``global_step``) is a multiple of ``n``."""
    def step_is_multiple():
        return int(global_step if global_step is not None else get_or_create_global_step()) % n == 0
    return record_if(step_is_multiple)
