"""Summary writers: each writes one TensorBoard event file in its log folder.

The records are encoded and framed by tensorboardX (a maintained writer of TensorBoard's format),
imported when the first writer is created. Each summary is written at once, in the calling thread,
so ``flush()`` really puts everything written so far on disk.
"""
import contextlib
import os
import time

_stack = []          # writers made current by ``with writer.as_default():``, innermost last
_default = None      # the writer set by ``writer.set_as_default()``


def tensorboardx():
    """The tensorboardX modules minieager uses, or an ImportError saying how to install them."""
    try:
        from tensorboardX import event_file_writer, summary
        from tensorboardX.proto import event_pb2
    except ImportError:
        raise ImportError("me.summary writes TensorBoard files with tensorboardX: pip install tensorboardX") from None
    return event_file_writer, summary, event_pb2


class SummaryWriter:
    """Writes summaries to a new event file in ``logdir``. Make it current with ``as_default()``.

    Written summaries reach the disk at least every ``flush_millis``, on ``flush()``, and when an
    ``as_default()`` block ends. ``max_queue`` is accepted for TF compatibility (nothing is queued).
    """

    def __init__(self, logdir, max_queue=None, flush_millis=120_000, filename_suffix=""):
        event_file_writer, _, self._event_pb2 = tensorboardx()
        self.logdir = str(logdir)
        os.makedirs(self.logdir, exist_ok=True)
        self._events = event_file_writer.EventsWriter(os.path.join(self.logdir, "events"), filename_suffix)
        self._flush_every_s = flush_millis / 1000
        self._last_flush = time.monotonic()

    def write(self, summary, step):
        """Append a tensorboardX ``Summary`` proto at ``step``."""
        self._events.write_event(self._event_pb2.Event(summary=summary, step=int(step), wall_time=time.time()))
        if time.monotonic() - self._last_flush > self._flush_every_s:
            self.flush()

    @contextlib.contextmanager
    def as_default(self):
        """Within the ``with`` block, summary ops write here."""
        _stack.append(self)
        try:
            yield self
        finally:
            _stack.pop()
            self.flush()

    def set_as_default(self):
        """Make this the writer summary ops use outside any ``as_default()`` block."""
        global _default
        _default = self

    def flush(self):
        """Put everything written so far on disk."""
        self._events.flush()
        self._last_flush = time.monotonic()

    def close(self):
        global _default
        self._events.close()
        if _default is self:
            _default = None

    def __repr__(self):
        return f"<me.summary.SummaryWriter logdir={self.logdir!r}>"


def create_file_writer(logdir, max_queue=None, flush_millis=120_000, filename_suffix="", name=None):
    """A SummaryWriter for ``logdir`` (created if missing)."""
    return SummaryWriter(logdir, max_queue=max_queue, flush_millis=flush_millis, filename_suffix=filename_suffix)


def current_writer():
    """The writer summary ops use now, or None."""
    return _stack[-1] if _stack else _default


def flush(writer=None):
    """Flush ``writer``, or the current writer."""
    writer = writer or current_writer()
    if writer is not None:
        writer.flush()
