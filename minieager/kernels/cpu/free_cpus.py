"""How many CPUs other programs leave free for minieager, measured every fifth of a second.

Why: a kernel split evenly over two threads is only as fast as its slower half. On a shared
machine (Binder, JupyterHub, a CI runner) a neighbour often holds a core, and the thread that
lands on that core gets half of it, so the whole op waits for it. OpenBLAS's matrix products
split the same way, and their threads spin while they wait. Measured on 2 cores with one busy
loop beside us: an MLP training step took 1.3x the time it takes on one thread, and with a
multi-threaded job beside us (load 4-5) 3.3x. One thread, which the busy core cannot hold up, is
then faster. On a quiet machine two threads are up to twice as fast, so the count has to follow
the neighbours.

How: ``/proc/stat`` counts, for each CPU, the time it spent idle since boot. Over the last
``SAMPLE_SECONDS``, the CPUs this process may run on (its affinity mask) were idle for some
time; add the CPU time this process used itself (all its threads, ``time.process_time()``); divide
by the wall time. That is how many CPUs this process could have had: its own use plus what
nobody used. What the neighbours used, and what a hypervisor gave other machines (steal time),
is left out. ``usable_threads(n)`` rounds that to a thread count, at most ``n``.

In a container that may use all of a big host's cores under a CPU quota (Binder, most
JupyterHubs), the host's many idle cores make every window look free, and the count stays the
quota (``machine.available_cpus()``): there the quota, not a neighbour's core, is the limit.

The reading costs ~20 us and happens at most once per ``SAMPLE_SECONDS``, from a kernel about
to run on several threads (small ops never ask). Where ``/proc/stat`` does not exist (macOS,
Windows) every CPU counts as free.
"""
import os
import time

SAMPLE_SECONDS = 0.2
# Round the free CPUs up from this much of a CPU: 1.75 free CPUs -> 2 threads, 1.6 -> 1. A quiet
# 2-core machine measures 1.9-2.0 (interrupts and the odd daemon use the rest); one busy-loop
# neighbour leaves at most 1.33 (three busy threads share two cores fairly).
ROUND_UP_FROM = 0.75

_TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_IDLE_FIELDS = (3, 4)   # "cpuN user nice system idle iowait ...": idle and iowait (waiting for a disk)


def idle_seconds(cpus, stat_path="/proc/stat"):
    """Seconds the given CPUs have spent idle (or waiting for a disk) since boot, or None."""
    try:
        with open(stat_path) as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    names = {f"cpu{c}" for c in cpus}
    ticks = 0
    for line in lines:
        words = line.split()
        if words and words[0] in names:
            ticks += sum(int(words[1 + i]) for i in _IDLE_FIELDS)
    return ticks / _TICKS_PER_SECOND


class FreeCPUs:
    """Watches how many CPUs are free for this process; ask ``usable_threads(n)`` before a parallel op.

    ``stat_path=None`` watches nothing and counts every CPU as free (tests use it, so that which
    path a kernel takes does not depend on what else the machine is doing).
    """

    def __init__(self, stat_path="/proc/stat", clock=time.perf_counter, own_cpu_time=time.process_time):
        self.stat_path = stat_path
        self.clock = clock
        self.own_cpu_time = own_cpu_time
        self.cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
        self.free = None          # CPUs free over the last window; None until one window has passed
        self._last = None         # (wall, idle, own cpu) at the start of the current window

    def _reading(self):
        idle = idle_seconds(self.cpus, self.stat_path) if self.cpus and self.stat_path else None
        return None if idle is None else (self.clock(), idle, self.own_cpu_time())

    def update(self):
        """Read the counters if the window is over; return the free CPUs measured (None: unknown)."""
        now = self.clock()
        if self._last is not None and now - self._last[0] < SAMPLE_SECONDS:
            return self.free
        reading = self._reading()
        if reading is None:
            return None
        if self._last is not None:
            wall = reading[0] - self._last[0]
            idle = reading[1] - self._last[1]
            own = reading[2] - self._last[2]
            self.free = min(len(self.cpus), max(0.0, (idle + own) / wall))
        self._last = reading
        return self.free

    def usable_threads(self, wanted):
        """How many of ``wanted`` threads a parallel op should use now (at least 1)."""
        free = self.update()
        if free is None:
            return wanted
        return max(1, min(wanted, int(free + 1 - ROUND_UP_FROM)))
