"""The thread count follows the neighbours: kernels/cpu/free_cpus.py and its use in threads.py.

Most tests feed FreeCPUs a /proc/stat written here and a clock they move by hand, so the answer
is known exactly; one test starts real busy loops and reads the real /proc/stat.
"""
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from minieager import machine
from minieager.kernels.cpu import broadcast, free_cpus, threads
from minieager.kernels.cpu.free_cpus import FreeCPUs, idle_seconds

TICK = os.sysconf("SC_CLK_TCK")


def write_stat(path, idle_ticks, iowait_ticks=(0, 0)):
    """A /proc/stat with the machine's total line and one line per CPU (user nice system idle iowait ...)."""
    lines = [f"cpu  999 0 999 {sum(idle_ticks)} {sum(iowait_ticks)} 0 0 0 0 0"]
    lines += [f"cpu{i} 500 7 300 {idle} {wait} 1 2 3 0 0" for i, (idle, wait) in enumerate(zip(idle_ticks, iowait_ticks))]
    lines += ["intr 12345 0 0", "ctxt 777", "procs_running 3"]
    path.write_text("\n".join(lines) + "\n")


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


@pytest.fixture
def watched(tmp_path):
    """(FreeCPUs on a fake two-CPU /proc/stat, its clock, its own-CPU-time counter, the stat file)."""
    stat = tmp_path / "stat"
    write_stat(stat, (1000, 1000))
    clock, own = Clock(), Clock()
    own.now = 5.0
    free = FreeCPUs(stat_path=str(stat), clock=clock, own_cpu_time=own)
    free.cpus = [0, 1]
    return free, clock, own, stat


def test_idle_seconds_adds_idle_and_iowait_of_the_given_cpus_only(tmp_path):
    stat = tmp_path / "stat"
    write_stat(stat, (300, 700, 50), (10, 20, 5))
    assert idle_seconds([0, 2], str(stat)) == pytest.approx((300 + 10 + 50 + 5) / TICK)
    assert idle_seconds([1], str(stat)) == pytest.approx(720 / TICK)
    assert idle_seconds([0], str(tmp_path / "missing")) is None


def test_nothing_is_known_before_one_window_has_passed(watched):
    free, clock, own, stat = watched
    assert free.update() is None
    assert free.usable_threads(2) == 2          # unknown: the configured count


@pytest.mark.parametrize("idle_cpu_seconds, own_cpu_seconds, threads_used", [
    (2.0, 0.0, 2),    # nobody is running: both CPUs idle
    (0.0, 2.0, 2),    # we used both ourselves
    (1.0, 1.0, 2),    # we used one, the other was idle
    (0.0, 1.0, 1),    # one busy neighbour, we had the other CPU
    (0.0, 1.33, 1),   # one busy neighbour while we ran two threads: three threads share two CPUs
    (0.0, 0.0, 1),    # neighbours held both CPUs: never fewer than one thread
    (0.8, 0.9, 1),    # 1.7 CPUs: below the rounding line
    (0.9, 0.9, 2),    # 1.8 CPUs: above it
])
def test_free_cpus_are_idle_time_plus_own_time_over_the_window(watched, idle_cpu_seconds, own_cpu_seconds,
                                                               threads_used):
    free, clock, own, stat = watched
    free.update()
    clock.now += 1.0
    own.now += own_cpu_seconds
    write_stat(stat, (1000 + round(idle_cpu_seconds * TICK), 1000))
    assert free.update() == pytest.approx(idle_cpu_seconds + own_cpu_seconds, abs=1.5 / TICK)
    assert free.usable_threads(2) == threads_used
    assert free.usable_threads(1) == 1


def test_the_counters_are_read_at_most_once_per_window(watched):
    free, clock, own, stat = watched
    free.update()
    clock.now += free_cpus.SAMPLE_SECONDS
    write_stat(stat, (1000, 1000))                   # a window with no idle time and no own time
    assert free.usable_threads(2) == 1
    write_stat(stat, (1000 + 100 * TICK, 1000))      # plenty idle now, but the window is not over
    clock.now += free_cpus.SAMPLE_SECONDS * 0.6
    assert free.usable_threads(2) == 1
    clock.now += free_cpus.SAMPLE_SECONDS * 0.6      # now it is: the next window was all idle
    assert free.usable_threads(2) == 2


def test_without_proc_stat_every_cpu_counts_as_free(tmp_path):
    free = FreeCPUs(stat_path=str(tmp_path / "no-such-file"))
    assert free.usable_threads(8) == 8
    assert FreeCPUs(stat_path=None).usable_threads(3) == 3


@pytest.mark.skipif(not os.path.exists("/proc/stat") or not hasattr(os, "sched_getaffinity"),
                    reason="reads Linux's /proc/stat")
def test_real_busy_loops_on_every_cpu_leave_one_thread():
    """Busy loops on every CPU this process may use: a real reading finds (almost) nothing free."""
    cpus = sorted(os.sched_getaffinity(0))
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in cpus]
    try:
        time.sleep(0.5)                                 # let them start and take the CPUs
        free = FreeCPUs()
        free.update()
        time.sleep(free_cpus.SAMPLE_SECONDS * 3)
        assert free.update() < len(cpus) - 0.5
        assert free.usable_threads(len(cpus)) <= max(1, len(cpus) - 1)
    finally:
        for p in loops:
            p.kill()
            p.wait()


# ---- threads.py asks it ---------------------------------------------------------------------------
class OneFree:
    """Stands for a FreeCPUs whose last window found one CPU free."""

    def usable_threads(self, wanted):
        return 1


@pytest.fixture
def one_cpu_free(monkeypatch):
    monkeypatch.setattr(threads, "_free_cpus", OneFree())
    monkeypatch.setattr(machine, "_num_threads", 2)
    yield
    threads.forget_thread_count()


def test_large_loops_take_one_thread_when_neighbours_hold_the_other_cpus(one_cpu_free):
    assert threads.parallel_threads() == 1
    assert threads.use_threads_for(threads.PARALLEL_SIZE) == 1


def test_then_results_keep_their_bits(one_cpu_free, monkeypatch):
    """One thread or two, the same loop computes each element the same way (NumPy's tanh rounds
    differently, so the loop must not hand the work to NumPy when a neighbour comes)."""
    from minieager.kernels.registry import get_kernel
    a = np.random.default_rng(0).standard_normal(threads.PARALLEL_SIZE + 5).astype(np.float32)
    on_one = get_kernel("tanh", "cpu")(a), get_kernel("add", "cpu")(a, a)
    monkeypatch.setattr(threads, "_free_cpus", FreeCPUs(stat_path=None))
    assert threads.parallel_threads() == 2
    on_two = get_kernel("tanh", "cpu")(a), get_kernel("add", "cpu")(a, a)
    for x, y in zip(on_one, on_two):
        np.testing.assert_array_equal(x, y)


def test_the_blas_gets_the_same_count_before_a_product(one_cpu_free, monkeypatch):
    from threadpoolctl import threadpool_info
    from minieager.kernels.registry import get_kernel
    monkeypatch.setattr(machine, "_blas_count", None)
    before = {lib["filepath"]: lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}
    try:
        out = get_kernel("matmul", "cpu")(np.eye(3, dtype=np.float32), np.ones((3, 2), np.float32))
        np.testing.assert_array_equal(out, np.ones((3, 2), np.float32))
        assert [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"] == [1] * len(before)
    finally:   # give the BLAS its count back (monkeypatch restores what set_blas_threads remembers)
        for lib in machine._blas_libraries or []:
            lib.set_num_threads(before[lib.filepath])


def test_with_op_determinism_the_blas_keeps_its_count(one_cpu_free, monkeypatch):
    """A product's last bits depend on its BLAS thread count, so determinism (as TF's
    enable_op_determinism) keeps the configured count while the loops still follow the neighbours."""
    import minieager as me
    monkeypatch.setattr(machine, "_op_determinism", False)
    monkeypatch.setattr(machine, "_blas_count", None)
    seen = []
    monkeypatch.setattr(machine, "set_blas_threads", seen.append)
    threads.blas_threads()
    me.config.experimental.enable_op_determinism()
    assert me.config.experimental.op_determinism_enabled()
    threads.blas_threads()
    assert seen == [1, 2]
    assert threads.use_threads_for(threads.PARALLEL_SIZE) == 1


def test_the_environment_variable_turns_determinism_on_at_import():
    code = "import minieager as me; print(me.config.experimental.op_determinism_enabled())"
    for value, expected in (("1", "True"), ("0", "False")):
        env = dict(os.environ, MINIEAGER_DETERMINISTIC_OPS=value)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert out.stdout.strip() == expected
