"""How many threads one kernel call runs on: one for small work, all of them for large work.

Every numba loop in this folder is compiled with ``parallel=True``, so numba *could* split each
call over ``me.machine.get_num_threads()`` threads. Whether that pays depends on the size of the
work, because starting the other threads is not free:

* minieager keeps numba's OpenMP threads from spinning after a loop (``GOMP_SPINCOUNT`` in
  ``config.py``) so that they do not steal the cores NumPy's BLAS needs next. Between two ops
  they therefore sleep, and waking a sleeping thread costs 40-150 us on a virtual machine.
* BLAS threads that are still spinning after a matmul compete with the woken numba threads for
  the same cores; on 2 cores, a step of many mid-sized ops then stalls.

Measured on 2 cores, one MLP 784-128-10 train step at batch 32 (ms, numba threads / BLAS threads):
1/1 0.41, 1/2 0.36, 2/1 0.52-0.75, 2/2 0.60-0.96; at batch 256: 1.37, 0.85, 1.34, 1.32.
So loops over fewer than ``PARALLEL_SIZE`` elements run on the calling thread alone, and larger
ones, where half the work is worth far more than a wake-up (a 1e6-element tanh: 240 us on one
thread), on all of them. The BLAS keeps its own threads: it decides per call how to split.

Where the line goes: in a loop that runs one op over and over, two threads win from ~250,000
elements (a relu on 346,112: 23 us against 37), but there the threads never fall asleep. In a
real step the op comes after other work: a relu on 346,112 elements right after a copy took
40 us on one thread and 41 on two; on 1e6 elements, 108 against 122. The guide CNN's activations
(32x26x26x16 = 346,112 elements) therefore run on one thread, and its training step took
0.93x the time of the 262,144 line (measured in pairs: steps alternating between the two
settings, 40 pairs, twice). Going higher, to 1e6 and more, also shortened the guide's matmul loop
(1.05 -> 1.00x NumPy), but made single large ops such as (1000, 1000) adds 1.4-1.6x slower.

Right after a matrix product, even large loops run on one thread: OpenBLAS's worker threads keep
spinning on their cores after each product (for up to 2**28 cycles, its default THREAD_TIMEOUT:
about 0.1 s), waiting for the next one, and a numba thread woken next to them shares a core with
a spinner. So the matmul kernel calls ``blas_called()`` after a product on several BLAS threads, and for
``BLAS_SPIN_SECONDS`` after that ``use_threads_for`` answers 1; where a single NumPy call does the
same work (a ufunc, reduce_max / reduce_min), the kernels hand it to NumPy then, whose one-thread
SIMD loops are faster than ours on one thread. Measured in the guide's matmul loop (a (1000, 1000)
product, then reduce_max and a divide on its result), those two ops took 0.79-0.89 ms on two
threads, 0.58-0.62 on one, and 0.39-0.40 in NumPy. Loops far from any product (a chain of large
elementwise ops) still get every thread.

On a shared machine, "all of them" means all the CPUs the neighbours leave free
(``free_cpus.py``): with one core held by another program, a loop split over two threads waits
for the half on the busy core, and one thread is faster. The same count goes to the BLAS before
each product (``blas_threads()``), whose threads would otherwise spin on the busy core too. The
thread count never changes a result: each loop splits its elements (or its rows, for reductions)
between threads, and every element is computed the same way on any of them.

Some slowdowns leave no trace in ``/proc/stat``: on a virtual machine whose host core is busy
with another machine, waking our second vCPU's thread can cost more than the work it was woken
for. The matrix products and convolutions therefore time themselves (``blas_products``,
``chunk_workers``), and ``thread_choice.py`` sends each kind of product to one thread while that
was faster lately.

The convolutions run the BLAS inside their numba loop (``loops/conv.py``): the threads share the
batch's chunks, and each calls a one-thread BLAS on its own chunk (``chunk_workers``). A product
of one chunk is small, and when the BLAS's threads split each chunk's product instead, the
hand-overs between them and numba's threads cost what the second core gave: the guide CNN's
training step took 5.8 ms on two threads and 6.5 on one; with the chunks shared, 4.0 ms.

numba's thread count is a setting of each Python thread, so the count last set is remembered per
thread, and numba is called only when the wanted count differs from it (a call costs ~1 us).
"""
import contextlib
import threading
import time

from ... import machine
from .free_cpus import FreeCPUs
from .thread_choice import ThreadChoice

PARALLEL_SIZE = 1 << 19   # 524,288 elements: 2 MB of float32
BLAS_SPIN_SECONDS = 0.1   # how long after a BLAS call its threads may still be spinning
BUFFERS_BYTES = 64 << 20  # the most memory chunk_workers' workers may hold in buffers together

_this_thread = threading.local()   # .count: what this module last gave numba.set_num_threads here
_blas_spins_until = 0.0            # perf_counter() time until which BLAS threads may be spinning
_free_cpus = FreeCPUs()             # what the neighbours leave us (free_cpus.py)
_thread_choice = ThreadChoice()     # one BLAS thread or many, from the products' timings (thread_choice.py)


def blas_called():
    """Note that a BLAS product just ran, so its threads are spinning for a while (see above)."""
    global _blas_spins_until
    _blas_spins_until = time.perf_counter() + BLAS_SPIN_SECONDS


def blas_spinning():
    """Whether a BLAS product ran less than ``BLAS_SPIN_SECONDS`` ago (its threads may still spin)."""
    return time.perf_counter() < _blas_spins_until


def forget_blas_call():
    """Act as if no BLAS product had run lately (tests start from this state)."""
    global _blas_spins_until
    _blas_spins_until = 0.0


def parallel_threads():
    """The thread count a large loop gets now: the configured count, capped by the CPUs the
    neighbours leave free, and 1 soon after a BLAS call (see the module docstring)."""
    if blas_spinning():
        return 1
    return _free_cpus.usable_threads(machine.get_num_threads())


def blas_threads(kind=None):
    """Give the BLAS the threads the neighbours leave free; call it right before a product.

    With a ``kind`` (thread_choice.py), one thread instead when that kind's last products ran
    faster on one. With ``me.config.experimental.enable_op_determinism()`` it keeps the configured
    count: a product's last bits depend on how many BLAS threads computed it (machine.py says more).
    Returns the count.
    """
    wanted = machine.get_num_threads()
    if machine.op_determinism_enabled():
        count = wanted
    else:
        count = _thread_choice.threads_for(kind, _free_cpus.usable_threads(wanted))
    machine.set_blas_threads(count)
    return count


@contextlib.contextmanager
def blas_products(kind=None):
    """Around a kernel's matrix products: the BLAS thread count (``blas_threads``), the time they
    took (for thread_choice.py), and ``blas_called()`` after them."""
    count = blas_threads(kind)
    start = time.perf_counter()
    yield count
    _thread_choice.took(kind, count, time.perf_counter() - start)
    blas_called()


@contextlib.contextmanager
def chunk_workers(kind, chunks, buffer_bytes):
    """Around a loop whose threads share ``chunks`` chunks of a batch and each call the BLAS on their
    own (the convolutions, ``loops/conv.py``); gives how many threads (workers) the loop gets. Each
    worker needs a buffer of ``buffer_bytes``.

    The count is what a large loop gets (``parallel_threads``: the free CPUs, one soon after a
    product on several BLAS threads), or one while this kind ran faster on one lately
    (``thread_choice.py``); at most one per chunk, and no more than ``BUFFERS_BYTES`` of buffers
    allow. Several workers each get a one-thread BLAS (two BLAS
    threads per worker would fight over the same cores). With a single chunk, or chunks so big
    that two buffers would not fit (one big image), one worker runs them and the BLAS's own threads
    share each product, as for a matmul. The call is timed for ``thread_choice.py``.
    """
    if chunks > 1 and 2 * buffer_bytes <= BUFFERS_BYTES:
        count = _thread_choice.threads_for(kind, parallel_threads())
        workers = min(count, chunks, BUFFERS_BYTES // buffer_bytes)
        machine.set_blas_threads(1)
    else:
        count = blas_threads(kind)
        workers = 1
    _set_numba_threads(workers)
    start = time.perf_counter()
    yield workers
    _thread_choice.took(kind, count, time.perf_counter() - start)
    if workers == 1 and count > 1:
        blas_called()


def use_threads_for(size, splits=2):
    """Set numba's thread count for a loop over ``size`` elements; return that count.

    ``splits`` is how many iterations the ``prange`` loop has (images, rows ...): with one, there
    is nothing to share, and starting the other threads would only cost their wake-up. Soon after
    a BLAS call, or when the neighbours hold all cores but one, it is 1 as well (see the module
    docstring).
    """
    wanted = parallel_threads() if size >= PARALLEL_SIZE and splits > 1 else 1
    _set_numba_threads(wanted)
    return wanted


def _set_numba_threads(count):
    if getattr(_this_thread, "count", None) != count:
        import numba   # here, not at the top: only a numba loop needs it (see loops/__init__.py)
        numba.set_num_threads(count)
        _this_thread.count = count


def forget_thread_count():
    """Make the next kernel call set numba's count again (after code that changed it directly)."""
    _this_thread.count = None
