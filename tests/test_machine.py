"""Tests for minieager/machine.py (CPU counting, thread settings, numba's cache folder) and the
me.config facade on top of it (devices)."""
import os
import shutil
import subprocess
import sys
import tempfile

import numba
import numpy as np
import pytest
from threadpoolctl import threadpool_info

from minieager import config, machine
from minieager.kernels.cpu import threads

NO_PROC = "/nonexistent/proc/self/cgroup"  # "this process sits at the cgroup root"


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


# ----------------------------------------------------------------------------- cgroup quotas

@pytest.mark.parametrize("cpu_max, expected", [
    ("150000 100000\n", 1.5),
    ("400000 100000\n", 4.0),
    ("max 100000\n", None),   # no quota
])
def test_cgroup_v2_cpu_max(tmp_path, cpu_max, expected):
    write(tmp_path / "cpu.max", cpu_max)
    assert machine.cgroup_cpu_limit(tmp_path, NO_PROC) == expected


def test_cgroup_v2_smallest_quota_among_ancestors_wins(tmp_path):
    proc = tmp_path / "proc_self_cgroup"
    write(proc, "0::/user.slice/job\n")
    root = tmp_path / "cgroup"
    write(root / "user.slice" / "cpu.max", "100000 100000\n")
    write(root / "user.slice" / "job" / "cpu.max", "max 100000\n")
    assert machine.cgroup_cpu_limit(root, proc) == 1.0
    write(root / "user.slice" / "job" / "cpu.max", "50000 100000\n")
    assert machine.cgroup_cpu_limit(root, proc) == 0.5


def test_cgroup_v1_cfs_quota(tmp_path):
    # As in a Docker container on cgroup v1: /proc says /docker/<id>, but the container's own
    # cgroup is mounted at the controller's root.
    proc = tmp_path / "proc_self_cgroup"
    write(proc, "4:cpu,cpuacct:/docker/abc\n1:name=systemd:/docker/abc\n")
    root = tmp_path / "cgroup"
    write(root / "cpu,cpuacct" / "cpu.cfs_period_us", "100000\n")
    write(root / "cpu,cpuacct" / "cpu.cfs_quota_us", "250000\n")
    assert machine.cgroup_cpu_limit(root, proc) == 2.5
    write(root / "cpu,cpuacct" / "cpu.cfs_quota_us", "-1\n")
    assert machine.cgroup_cpu_limit(root, proc) is None


def test_no_cgroup_files_means_no_limit(tmp_path):
    assert machine.cgroup_cpu_limit(tmp_path, NO_PROC) is None


def test_garbage_cgroup_file_is_ignored(tmp_path):
    write(tmp_path / "cpu.max", "banana 100000\n")
    assert machine.cgroup_cpu_limit(tmp_path, NO_PROC) is None


# ----------------------------------------------------------------------------- usable CPUs

@pytest.mark.parametrize("cpu_max, expected", [
    ("200000 100000", 2),    # quota below the affinity mask
    ("1600000 100000", 8),   # quota above it: the mask wins
    ("50000 100000", 1),     # half a CPU still gets one thread
    ("150000 100000", 2),    # 1.5 CPUs round up
])
def test_available_cpus_is_affinity_capped_by_quota(tmp_path, monkeypatch, cpu_max, expected):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    write(tmp_path / "cpu.max", cpu_max)
    assert machine.available_cpus(tmp_path, NO_PROC) == expected


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity on this OS")
def test_available_cpus_uses_the_real_affinity_mask(tmp_path):
    assert machine.available_cpus(tmp_path, NO_PROC) == len(os.sched_getaffinity(0))


def test_env_var_overrides_the_thread_count(monkeypatch):
    monkeypatch.setenv("MINIEAGER_NUM_THREADS", "3")
    assert machine.default_num_threads() == 3
    monkeypatch.delenv("MINIEAGER_NUM_THREADS")
    assert machine.default_num_threads() == machine.available_cpus()


@pytest.mark.parametrize("bad", ["0", "-2", "two", ""])
def test_bad_env_var_is_an_error(monkeypatch, bad):
    monkeypatch.setenv("MINIEAGER_NUM_THREADS", bad)
    with pytest.raises(ValueError, match="MINIEAGER_NUM_THREADS"):
        machine.default_num_threads()


# ----------------------------------------------------------------------------- thread settings

@pytest.fixture
def restore_threads(monkeypatch):
    numba_before = numba.get_num_threads()
    monkeypatch.setattr(machine, "_num_threads", None)
    monkeypatch.setattr(machine, "_blas_limits", None)
    yield
    if machine._blas_limits is not None:
        machine._blas_limits.restore_original_limits()
    numba.set_num_threads(numba_before)
    threads.forget_thread_count()   # numba's count was changed behind the module's back


def test_set_num_threads_reaches_numba_and_blas(restore_threads):
    np.dot(np.ones((2, 2)), np.ones((2, 2)))  # make sure NumPy's BLAS is loaded
    machine.set_num_threads(1)
    assert machine.get_num_threads() == 1
    assert threads.use_threads_for(threads.PARALLEL_SIZE) == 1
    assert numba.get_num_threads() == 1
    blas = [lib for lib in threadpool_info() if lib["user_api"] == "blas"]
    assert blas and all(lib["num_threads"] == 1 for lib in blas)


def test_set_num_threads_rejects_more_than_numbas_pool(restore_threads):
    pool = numba.config.NUMBA_NUM_THREADS
    machine.set_num_threads(pool)
    assert threads.use_threads_for(threads.PARALLEL_SIZE) == pool
    assert numba.get_num_threads() == pool
    for bad in (0, pool + 1):
        with pytest.raises(ValueError, match="pool size"):
            machine.set_num_threads(bad)
    assert machine.get_num_threads() == pool


def test_small_kernels_run_on_one_thread_and_large_ones_on_all(restore_threads):
    pool = numba.config.NUMBA_NUM_THREADS
    machine.set_num_threads(pool)
    assert threads.use_threads_for(threads.PARALLEL_SIZE - 1) == 1
    assert numba.get_num_threads() == 1
    assert threads.use_threads_for(threads.PARALLEL_SIZE) == pool
    assert numba.get_num_threads() == pool
    assert threads.use_threads_for(10) == 1
    assert numba.get_num_threads() == 1
    assert threads.use_threads_for(10 * threads.PARALLEL_SIZE, splits=1) == 1   # one image, one row


def test_each_python_thread_gets_its_own_count(restore_threads):
    import threading
    pool = numba.config.NUMBA_NUM_THREADS
    machine.set_num_threads(pool)
    threads.use_threads_for(10)          # this thread now runs small loops on one thread
    seen = []

    def worker():                        # a new thread starts at numba's default, the whole pool
        seen.append(numba.get_num_threads())
        threads.use_threads_for(10)
        seen.append(numba.get_num_threads())
    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen == [pool, 1]
    assert threads.use_threads_for(threads.PARALLEL_SIZE) == pool == numba.get_num_threads()


def test_loops_right_after_a_matrix_product_run_on_one_thread(restore_threads, monkeypatch):
    """BLAS threads spin after a product, so for BLAS_SPIN_SECONDS large loops take one thread."""
    from minieager.kernels.registry import get_kernel
    pool = numba.config.NUMBA_NUM_THREADS
    machine.set_num_threads(pool)
    assert threads.use_threads_for(threads.PARALLEL_SIZE) == pool
    get_kernel("matmul", "cpu")(np.ones((4, 4), np.float32), np.ones((4, 4), np.float32))
    assert not threads.blas_spinning()            # OpenBLAS ran it on the calling thread: nothing spins
    get_kernel("matmul", "cpu")(np.ones((128, 128), np.float32), np.ones((128, 128), np.float32))
    assert threads.blas_spinning()
    assert threads.use_threads_for(threads.PARALLEL_SIZE) == 1
    threads.forget_blas_call()
    assert threads.use_threads_for(threads.PARALLEL_SIZE) == pool
    monkeypatch.setattr(threads, "BLAS_SPIN_SECONDS", 0.0)       # spinning over: all threads again
    get_kernel("conv2d", "cpu")(np.ones((1, 3, 3, 1), np.float32), np.ones((2, 2, 1, 1), np.float32),
                                strides=(1, 1), padding="VALID")
    assert not threads.blas_spinning()
    assert threads.use_threads_for(threads.PARALLEL_SIZE) == pool


def test_right_after_a_product_numpy_does_one_ufunc_ops_and_max(monkeypatch):
    """add and reduce_max of a large array go to NumPy's one-thread loops then; the numba loops
    (which would ask use_threads_for for threads) are not entered, and the answers are NumPy's."""
    from minieager.kernels.cpu import broadcast, reduce
    from minieager.kernels.registry import get_kernel

    def no_numba_loop(*args, **kwargs):
        raise AssertionError("the numba loop ran")
    a = np.random.default_rng(0).standard_normal(threads.PARALLEL_SIZE + 5).astype(np.float32)
    get_kernel("matmul", "cpu")(np.ones((128, 128), np.float32), np.ones((128, 128), np.float32))
    monkeypatch.setattr(broadcast, "use_threads_for", no_numba_loop)
    monkeypatch.setattr(reduce, "use_threads_for", no_numba_loop)
    np.testing.assert_array_equal(get_kernel("add", "cpu")(a, a), a + a)
    assert get_kernel("reduce_max", "cpu")(a, (0,), False) == a.max()
    assert get_kernel("reduce_min", "cpu")(a, (0,), False) == a.min()
    threads.forget_blas_call()                                   # long after a product: the loops run
    with pytest.raises(AssertionError, match="the numba loop ran"):
        get_kernel("add", "cpu")(a, a)
    with pytest.raises(AssertionError, match="the numba loop ran"):
        get_kernel("reduce_max", "cpu")(a, (0,), False)


def test_get_num_threads_defaults_to_the_usable_cpus(restore_threads):
    assert machine.get_num_threads() == min(machine.default_num_threads(),
                                           numba.config.NUMBA_NUM_THREADS)


def run_python(code, **env):
    """Run `code` in a fresh interpreter (numba reads its settings once, on import)."""
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith(("NUMBA_", "MINIEAGER_", "OMP_", "OPENBLAS_", "MKL_"))}
    out = subprocess.run([sys.executable, "-c", code], env={**clean, **env},
                         capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_configure_environment_sizes_numbas_pool_before_it_loads():
    # Also catches minieager/__init__.py importing numba before calling configure_environment.
    code = ("import os, minieager.machine as c; c.configure_environment(); import numba; "
            "print(numba.config.NUMBA_NUM_THREADS, os.environ['OPENBLAS_NUM_THREADS'])")
    assert run_python(code, MINIEAGER_NUM_THREADS="1") == ["1", "1"]


def test_importing_machine_loads_nothing_heavy():
    code = ("import importlib.util, sys; "
            f"spec = importlib.util.spec_from_file_location('cfg', {machine.__file__!r}); "
            "spec.loader.exec_module(importlib.util.module_from_spec(spec)); "
            "print(*sorted({'numba', 'numpy', 'threadpoolctl'} & set(sys.modules)) or ['none'])")
    assert run_python(code) == ["none"]


# ----------------------------------------------------------------------------- numba cache

@pytest.fixture
def cache_env(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "minieager" / "numba"


def test_cache_dir_moves_out_of_a_read_only_package():
    # As on Binder, where the user cannot write the installed package folder. Root may write
    # anywhere (its CAP_DAC_OVERRIDE capability), so when the tests run as root the check runs in
    # a child process without that capability (util-linux's setpriv), where mode 555 holds.
    base = tempfile.mkdtemp()
    try:
        os.chmod(base, 0o755)
        package = os.path.join(base, "site-packages", "minieager")
        os.makedirs(package)
        os.chmod(package, 0o555)
        code = "from minieager import machine; print(machine.numba_cache_dir(%r))" % package
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(base, "xdg"))
        env.pop("NUMBA_CACHE_DIR", None)
        unprivileged = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"] if os.geteuid() == 0 else []
        out = subprocess.run(unprivileged + [sys.executable, "-c", code], capture_output=True, text=True,
                             env=env, check=True)
        assert out.stdout.strip() == os.path.join(base, "xdg", "minieager", "numba")
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_cache_dir_stays_default_for_a_writable_package(tmp_path, cache_env):
    assert machine.numba_cache_dir(tmp_path) is None


def test_unwritable_package_uses_home_cache_without_xdg(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    # A folder that does not exist is unwritable even for root.
    assert machine.numba_cache_dir(tmp_path / "missing") == str(
        tmp_path / ".cache" / "minieager" / "numba")


def test_explicit_numba_cache_dir_wins(tmp_path, cache_env, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    assert machine.numba_cache_dir(tmp_path / "missing") is None


def test_configure_environment_sets_the_cache_dir(tmp_path, cache_env, monkeypatch):
    for name in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        monkeypatch.delenv(name, raising=False)  # restored after the test
    monkeypatch.setattr(machine, "__file__", str(tmp_path / "missing" / "machine.py"))
    machine.configure_environment()
    assert os.environ["NUMBA_CACHE_DIR"] == str(cache_env)
    assert os.environ["OPENBLAS_NUM_THREADS"] == str(machine.default_num_threads())


# ----------------------------------------------------------------------------- devices

def test_list_physical_devices_has_the_cpu():
    devices = config.list_physical_devices()
    assert devices[0] == config.PhysicalDevice("/physical_device:CPU:0", "CPU")
    assert config.list_physical_devices("CPU") == devices[:1]
    assert config.list_physical_devices("cpu") == devices[:1]


def test_gpus_listed_match_num_gpus():
    gpus = config.list_physical_devices("GPU")
    assert len(gpus) == config.num_gpus()
    assert [d.name for d in gpus] == [f"/physical_device:GPU:{i}" for i in range(len(gpus))]
    assert len(config.list_physical_devices()) == 1 + len(gpus)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="mallopt is glibc's")
def test_freed_large_buffers_are_reused_without_page_faults():
    # A fresh process that frees and re-allocates a few large buffers of different sizes, as a
    # training step does (one is above glibc's largest mmap threshold, 32 MiB). By default glibc
    # returns them to the OS and every step touches fresh pages (~230,000 faults over these 20
    # steps); after importing minieager it reuses them.
    code = (
        "import resource, numpy as np, minieager\n"
        "def step():\n"
        "    a = np.ones(1 << 20, np.float32)\n"
        "    b = np.ones(3 << 20, np.float32)\n"
        "    del a\n"
        "    c = np.ones(2 << 20, np.float32)\n"
        "    d = np.ones(10 << 20, np.float32)\n"
        "step()\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt\n"
        "for _ in range(20):\n"
        "    step()\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)\n")
    faults = int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    one_buffer = (4 << 20) // 4096    # the pages of the smallest buffer
    assert faults < one_buffer, f"{faults} page faults in 20 steps that re-allocate the same buffers"
