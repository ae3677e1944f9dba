"""How many BLAS threads a matrix product gets, from how long the last ones of its kind took.

Why: ``free_cpus.py`` sees neighbours in ``/proc/stat``, but not everything that slows two threads
down. On this project's 2-vCPU VM there were minutes when the guide CNN's training step took
15 ms on two threads and 6.3 ms on one, while ``/proc/stat`` showed both CPUs idle and a (1000,
1000) product alone still ran twice as fast on two (the cause is outside the VM: another virtual
machine on the same host cores, say). Only the timings themselves show such minutes.

How: a training loop runs the same few products again and again (each layer's forward and
gradient products, with the same shapes every step). So for each *kind* of product (the kernel's
name and its operands' shapes) ``ThreadChoice`` keeps the latest time on many threads and on one,
and ``threads_for`` picks the faster: one thread only when it was more than ``MARGIN`` faster than
the better of the last two many-thread calls, so that one hiccup does not send a kind to one
thread (on a quiet machine many threads are up to twice as fast). Once per
``RETRY_SECONDS`` for each kind, the other count runs once, so that a change (the slow minutes
end, a neighbour leaves) shows within a second. On a quiet machine that is one slower call per
kind per second: in the CNN step (6 ms, each kind recurs ~170 times a second) about 0.5%.

Small products are timed too: OpenBLAS splits a (256, 256) @ (256, 10) product over its threads,
and when the big products had gone to one thread, each small one had to wake the sleeping second
thread (with a neighbour on its core, an MLP step then took 6.8 ms, against 4.5 ms with no timings
and 2.5 ms on one thread). Only products OpenBLAS always runs on one thread (matmul.py's
``_ONE_THREAD_WORK``) are not timed: there is nothing to choose. The record is forgotten when it holds more than ``MAX_KINDS`` kinds
(shapes that keep changing).
"""
import time

MARGIN = 1.1          # one thread only when its time * MARGIN is below many threads' time
RETRY_SECONDS = 1.0   # how often each kind tries the count it is not using
MAX_KINDS = 256


class ThreadChoice:
    """Per kind of product: the latest seconds on one thread and on many; which count to run next.

    ``enabled=False`` always answers the count it is offered (tests use it, so that a kernel's path
    does not depend on timings). ``clock`` is ``time.perf_counter`` unless a test gives another.
    """

    def __init__(self, enabled=True, clock=time.perf_counter):
        self.enabled = enabled
        self._clock = clock
        self._kinds = {}   # kind -> {"one": seconds, "many": (seconds, seconds), "using": 1 or n, "tried": time}

    def threads_for(self, kind, n):
        """The BLAS thread count for the next product of ``kind``: ``n`` (the free CPUs) or 1."""
        if not self.enabled or kind is None or n <= 1:
            return n
        record = self._kinds.get(kind)
        if record is None:
            if len(self._kinds) >= MAX_KINDS:
                self._kinds.clear()
            self._kinds[kind] = {"one": None, "many": (), "using": n, "tried": self._clock()}
            return n
        one, many = record["one"], record["many"]
        using = 1 if one is not None and many and one * MARGIN < min(many) else n
        record["using"] = using
        if self._clock() - record["tried"] >= RETRY_SECONDS:   # time the other count once
            record["tried"] = self._clock()
            return n if using == 1 else 1
        return using

    def took(self, kind, threads, seconds):
        """Note that a product of ``kind`` ran on ``threads`` threads in ``seconds``."""
        record = self._kinds.get(kind)
        if record is None:
            return
        if threads == 1:
            record["one"] = seconds
        else:
            record["many"] = record["many"][-1:] + (seconds,)   # the last two

    def using(self, kind):
        """The count ``kind`` runs on between its retries (None if it never ran): for tests and docs."""
        record = self._kinds.get(kind)
        return None if record is None else record["using"]


def kind_of(name, *shapes):
    """The kind of a product for ``ThreadChoice``: its kernel's name and its operands' shapes."""
    return (name,) + shapes
