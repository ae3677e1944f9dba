"""The machine minieager runs on: how many CPUs it may use, how many threads its kernels run,
numba's cache folder, how glibc keeps freed memory, and how many GPUs numba can see.

This is the bottom layer: it imports nothing of minieager, so the kernels (threads.py), the
engine (devices) and graph mode (the fused kernels' folder) can all ask it. ``me.config``
(``minieager/config.py``) is the public facade on top. Nothing heavy is imported at import
time: numba and threadpoolctl are imported only inside the functions that need them, because
``configure_environment()`` must run *before* numba is first imported (numba reads
NUMBA_NUM_THREADS and NUMBA_CACHE_DIR once, on import).
"""
import ctypes
import functools
import math
import os
import sys

_THREADS_ENV = "MINIEAGER_NUM_THREADS"
# Set before NumPy loads its BLAS so that its thread pool starts at the right size.
_BLAS_THREAD_ENVS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

_num_threads = None   # set by set_num_threads(); None means "the default"
_blas_limits = None   # the live threadpoolctl limiter; dropping it would restore BLAS's own count
_blas_count = None    # the BLAS's thread count as last set by set_blas_threads (None: not set yet)
_blas_libraries = None  # threadpoolctl's controllers of the loaded BLAS libraries, found once
# Whether the BLAS keeps one thread count (see enable_op_determinism). TF reads TF_DETERMINISTIC_OPS.
_op_determinism = os.environ.get("MINIEAGER_DETERMINISTIC_OPS", "0") not in ("", "0")


# ----------------------------------------------------------------------------- CPUs

def _read_words(path):
    try:
        with open(path) as f:
            return f.read().split()
    except OSError:
        return []


def _ratio(quota, period):
    """quota / period in CPUs, or None for "no quota" ("max", -1) or an unreadable value."""
    try:
        quota, period = int(quota), int(period)
    except ValueError:
        return None
    return quota / period if quota > 0 and period > 0 else None


def _own_cgroup_paths(proc_self_cgroup):
    """This process's cgroup paths from /proc/self/cgroup, keyed by controller list."""
    paths = {}
    try:
        with open(proc_self_cgroup) as f:
            for line in f:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                paths[controllers] = path
    except (OSError, ValueError):
        pass
    return paths


def _self_and_parents(root, relpath):
    """root/relpath, then each parent up to root: a limit on any ancestor also applies."""
    parts = [p for p in relpath.split("/") if p]
    for i in range(len(parts), -1, -1):
        yield os.path.join(root, *parts[:i])


def cgroup_cpu_limit(root="/sys/fs/cgroup", proc_self_cgroup="/proc/self/cgroup"):
    """CPUs granted by the cgroup CPU quota (e.g. 1.5), or None when there is no quota.

    cgroup v2 writes "QUOTA PERIOD" (or "max PERIOD") in cpu.max; cgroup v1 has
    cpu.cfs_quota_us (-1 for none) and cpu.cfs_period_us in the cpu controller's folder.
    Containers usually see their own cgroup at `root`; on a host the process's cgroup is
    looked up in /proc/self/cgroup. The smallest quota among its ancestors wins.
    """
    own = _own_cgroup_paths(proc_self_cgroup)
    limits = []
    for d in _self_and_parents(root, own.get("", "/")):                     # v2
        words = _read_words(os.path.join(d, "cpu.max"))
        if len(words) == 2:
            limits.append(_ratio(*words))
    v1_path = next((p for c, p in own.items() if "cpu" in c.split(",")), "/")
    for mount in ("cpu", "cpu,cpuacct", "cpuacct,cpu"):                     # v1
        for d in _self_and_parents(os.path.join(root, mount), v1_path):
            quota = _read_words(os.path.join(d, "cpu.cfs_quota_us"))
            period = _read_words(os.path.join(d, "cpu.cfs_period_us"))
            if quota and period:
                limits.append(_ratio(quota[0], period[0]))
    limits = [x for x in limits if x is not None]
    return min(limits) if limits else None


def available_cpus(cgroup_root="/sys/fs/cgroup", proc_self_cgroup="/proc/self/cgroup"):
    """CPUs this process may really use: its affinity mask, capped by the cgroup quota.

    os.cpu_count() alone reports the host's cores, which in a Binder or CI container can be
    ten times what the container may use; that many busy threads thrash.
    """
    if hasattr(os, "sched_getaffinity"):
        cpus = len(os.sched_getaffinity(0))
    else:  # macOS and Windows have no affinity call
        cpus = os.cpu_count() or 1
    limit = cgroup_cpu_limit(cgroup_root, proc_self_cgroup)
    if limit is not None:
        cpus = min(cpus, math.ceil(limit))
    return max(1, cpus)


def default_num_threads():
    """MINIEAGER_NUM_THREADS if set, otherwise available_cpus()."""
    value = os.environ.get(_THREADS_ENV)
    if value is None:
        return available_cpus()
    if not value.strip().isdigit() or int(value) < 1:
        raise ValueError(f"{_THREADS_ENV} must be a positive integer, got {value!r}")
    return int(value)


# ----------------------------------------------------------------------------- environment

def numba_cache_dir(package_dir=None):
    """Where numba should cache compiled kernels, or None to keep numba's default.

    numba's default is a __pycache__ folder beside each kernel module. When the package
    folder is read-only (a site-packages install owned by someone else, some Binder images)
    kernels go to ~/.cache/minieager/numba instead. An explicit NUMBA_CACHE_DIR always wins.
    """
    package_dir = package_dir or os.path.dirname(os.path.abspath(__file__))
    if os.environ.get("NUMBA_CACHE_DIR") or os.access(package_dir, os.W_OK):
        return None
    cache_home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache_home, "minieager", "numba")


def configure_environment():
    """Set the environment variables numba and the BLAS read when they load.

    Called first thing by `minieager/__init__.py`, before numba or NumPy is imported. It only
    reads a few small files and sets variables; variables the user already set are kept.
    """
    threads = str(default_num_threads())
    if "numba" not in sys.modules:  # numba sizes its thread pool once, on import
        os.environ.setdefault("NUMBA_NUM_THREADS", threads)
    for name in _BLAS_THREAD_ENVS:
        os.environ.setdefault(name, threads)
    # numba's OpenMP threads busy-wait after each parallel loop, by default long enough to steal
    # the cores NumPy's BLAS needs next: on 2 cores a numba loop followed by a (300, 300) matmul
    # took 14 ms instead of 0.6 ms. A short spin keeps back-to-back launches at ~2 us (against
    # ~40 us with OMP_WAIT_POLICY=passive) and frees the cores soon after. libgomp reads it when
    # numba starts its thread pool.
    os.environ.setdefault("GOMP_SPINCOUNT", "1000")
    # numba-cuda warns "Grid size 1 will likely result in GPU under-utilization" for every launch
    # of fewer than 128 blocks: on a GPU every op on a small tensor did, dozens of times in one short
    # fit. A small tensor gets a small grid by design (kernels/cuda/memory.py: launch).
    os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")
    cache_dir = numba_cache_dir()
    if cache_dir is not None:
        os.environ["NUMBA_CACHE_DIR"] = cache_dir
    keep_freed_memory()


def keep_freed_memory():
    """Ask glibc's malloc to keep freed memory for reuse instead of returning it to the OS at once.

    glibc hands big freed blocks back to the OS (unmapping them, or trimming the heap), so the
    next allocation of the same size starts from fresh pages, each one a page fault when first
    touched, and zeroed by the kernel. A training step frees and re-allocates the same large
    buffers every time: the guide's CNN paid ~1350 page faults per step for its 10 MB patch
    matrices, about a third of its CPU time, and ``tanh(x * w + b) * 0.5 + x`` on 1e7 elements
    (40 MB per result) paid 2,840 faults and ~30 ms of kernel time per call, more than the
    arithmetic. So every block comes from the heap, never from a mmap of its own (glibc can only
    raise its mmap threshold to 32 MiB, so mmap is switched off instead), and up to 256 MiB of
    free heap is kept before trimming. Returns True where it applied (Linux with glibc).
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt   # the C library this process already uses
    except (OSError, AttributeError):         # not glibc (musl, for one, has no mallopt)
        return False
    m_trim_threshold, m_mmap_max = -1, -4     # glibc's <malloc.h> constants
    return bool(mallopt(m_mmap_max, 0)) and bool(mallopt(m_trim_threshold, 256 << 20))


# ----------------------------------------------------------------------------- threads

def _numba_pool_size():
    """How many threads numba's pool has, or will have: it reads NUMBA_NUM_THREADS when imported."""
    if "numba" in sys.modules:
        return sys.modules["numba"].config.NUMBA_NUM_THREADS
    return int(os.environ.get("NUMBA_NUM_THREADS") or default_num_threads())


def get_num_threads():
    """The number of threads minieager's kernels (numba and the BLAS) use."""
    if _num_threads is not None:
        return _num_threads
    return min(default_num_threads(), _numba_pool_size())


def set_num_threads(n):
    """Use `n` threads in numba kernels over large arrays and in the BLAS behind NumPy.

    Kernels over small arrays always run on one thread (see kernels/cpu/threads.py, which sets
    numba's count per call). numba can only use threads its pool was started with: `n` may not
    exceed numba.config.NUMBA_NUM_THREADS (set MINIEAGER_NUM_THREADS before importing minieager
    to change the pool).
    """
    global _num_threads, _blas_limits, _blas_count
    from threadpoolctl import threadpool_limits

    n = int(n)
    pool = _numba_pool_size()
    if not 1 <= n <= pool:
        raise ValueError(f"num_threads must be between 1 and numba's pool size {pool}, got {n}")
    if _blas_limits is not None:
        _blas_limits.restore_original_limits()
    _blas_limits = threadpool_limits(limits=n)
    _blas_count = n
    _num_threads = n


def enable_op_determinism():
    """Make every op give the same bits for the same inputs, however busy the machine is.

    By default the matrix products take as many BLAS threads as the neighbours leave free
    (kernels/cpu/threads.py), and OpenBLAS splits a product's sums differently on one thread and
    on two: (32, 784) @ (784, 128) differs in the last bits. Turned on, the BLAS keeps the
    configured count. The numba loops follow the free CPUs either way: each element is computed
    the same on any thread. As TF's ``tf.config.experimental.enable_op_determinism()``; the
    environment variable ``MINIEAGER_DETERMINISTIC_OPS=1`` turns it on at import, as
    ``TF_DETERMINISTIC_OPS=1`` does in TF.
    """
    global _op_determinism
    _op_determinism = True


def op_determinism_enabled():
    """Whether ``enable_op_determinism()`` (or MINIEAGER_DETERMINISTIC_OPS=1) is in effect."""
    return _op_determinism


def set_blas_threads(n):
    """Let the BLAS behind NumPy use ``n`` threads for its next products (at most the configured
    count; see kernels/cpu/threads.py). Only a change calls the library (~1 us)."""
    global _blas_count, _blas_libraries
    if n == _blas_count:
        return
    if _blas_libraries is None:
        from threadpoolctl import ThreadpoolController
        _blas_libraries = ThreadpoolController().select(user_api="blas").lib_controllers
    for library in _blas_libraries:
        library.set_num_threads(n)
    _blas_count = n


def blas_library_loaded():
    """Call after loading another BLAS library (SciPy's, which numba's ``np.dot`` calls): the next
    ``set_blas_threads`` looks for the libraries again, and sets the count in the new one too."""
    global _blas_count, _blas_libraries
    _blas_count = _blas_libraries = None


# ----------------------------------------------------------------------------- GPUs

def num_gpus():
    """How many GPUs minieager can run ops on: the CUDA GPUs numba can see (one under numba's
    CUDA simulator, ``NUMBA_ENABLE_CUDASIM=1``), 0 without the ``cuda`` extra, a driver or a GPU.

    The first call imports numba.cuda (``import minieager`` never does); the answer is cached.
    """
    return _cuda_gpu_count()


@functools.lru_cache(maxsize=None)
def _cuda_gpu_count():
    """How many CUDA GPUs numba can see (0 without numba.cuda, a driver or a GPU). Cached."""
    try:
        from numba import cuda
        return len(cuda.gpus) if cuda.is_available() else 0
    except Exception:  # a missing or broken CUDA install means "no GPU", never an error
        return 0
