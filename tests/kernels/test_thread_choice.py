"""thread_choice.py: one BLAS thread or many for each kind of product, from its latest timings."""
import numpy as np
import pytest

from minieager import machine
from minieager.kernels.cpu import thread_choice, threads
from minieager.kernels.cpu.thread_choice import MARGIN, RETRY_SECONDS, ThreadChoice, kind_of

from .test_free_cpus import Clock


@pytest.fixture
def clock():
    return Clock()   # a clock the tests move by hand (test_free_cpus.py's)


def run(choice, kind, seconds_on, n=2):
    """One product of ``kind``: ask for a count, 'run' it in ``seconds_on[count]``, report; the count."""
    count = choice.threads_for(kind, n)
    choice.took(kind, count, seconds_on[count])
    return count


def test_a_new_kind_runs_on_every_free_thread_until_one_thread_has_been_timed(clock):
    choice = ThreadChoice(clock=clock)
    assert [run(choice, "k", {1: 1.0, 2: 9.0}) for _ in range(5)] == [2] * 5
    clock.now += RETRY_SECONDS
    assert run(choice, "k", {1: 1.0, 2: 9.0}) == 1                  # the once-a-second try of the other
    assert [run(choice, "k", {1: 1.0, 2: 9.0}) for _ in range(5)] == [1] * 5
    assert choice.using("k") == 1


def test_many_threads_stay_unless_one_is_more_than_the_margin_faster(clock):
    choice = ThreadChoice(clock=clock)
    for one_thread in (1.0 / MARGIN + 0.01, 0.99 / MARGIN):
        choice = ThreadChoice(clock=clock)
        run(choice, "k", {1: one_thread, 2: 1.0})
        clock.now += RETRY_SECONDS
        run(choice, "k", {1: one_thread, 2: 1.0})
        assert run(choice, "k", {1: one_thread, 2: 1.0}) == (2 if one_thread * MARGIN >= 1.0 else 1)


def test_one_slow_many_thread_call_does_not_send_a_kind_to_one_thread(clock):
    """The better of the last two many-thread calls counts: one hiccup is not a slow machine."""
    choice = ThreadChoice(clock=clock)
    run(choice, "k", {1: 1.8, 2: 1.0})
    clock.now += RETRY_SECONDS
    assert run(choice, "k", {1: 1.8, 2: 1.0}) == 1                  # timed once on one thread: 1.8
    assert run(choice, "k", {1: 1.8, 2: 5.0}) == 2                  # a hiccup on two ...
    assert run(choice, "k", {1: 1.8, 2: 1.0}) == 2                  # ... and two it stays
    assert run(choice, "k", {1: 1.8, 2: 5.0}) == 2
    assert run(choice, "k", {1: 1.8, 2: 5.0}) == 2                  # two slow calls in a row:
    assert run(choice, "k", {1: 1.8, 2: 5.0}) == 1                  # now one thread is faster


def test_the_machine_getting_fast_again_is_seen_within_a_retry(clock):
    choice = ThreadChoice(clock=clock)
    slow = {1: 6.3, 2: 15.0}                                       # the CNN step's slow minutes
    run(choice, "k", slow)
    run(choice, "k", slow)
    clock.now += RETRY_SECONDS
    run(choice, "k", slow)
    assert run(choice, "k", slow) == 1
    clock.now += RETRY_SECONDS
    fast = {1: 6.3, 2: 3.5}
    assert run(choice, "k", fast) == 2                              # the retry on two threads ...
    assert [run(choice, "k", fast) for _ in range(3)] == [2] * 3   # ... and two threads are back at once
    # Going to one thread took two slow readings in a row; coming back takes one fast one.


def test_kinds_are_timed_apart(clock):
    choice = ThreadChoice(clock=clock)
    run(choice, "a", {1: 1.0, 2: 9.0})
    run(choice, "b", {1: 9.0, 2: 1.0})
    clock.now += RETRY_SECONDS
    run(choice, "a", {1: 1.0, 2: 9.0})
    run(choice, "b", {1: 9.0, 2: 1.0})
    assert (run(choice, "a", {1: 1.0, 2: 9.0}), run(choice, "b", {1: 9.0, 2: 1.0})) == (1, 2)
    assert (choice.using("a"), choice.using("b")) == (1, 2)
    assert choice.threads_for(None, 2) == 2 and choice.using(None) is None   # no kind: not timed
    assert kind_of("matmul", (2, 3), (3, 4)) == ("matmul", (2, 3), (3, 4))


def test_the_record_is_forgotten_when_shapes_keep_changing(clock, monkeypatch):
    monkeypatch.setattr(thread_choice, "MAX_KINDS", 3)
    choice = ThreadChoice(clock=clock)
    for kind in range(3):
        run(choice, kind, {1: 1.0, 2: 2.0})
    assert choice.using(0) == 2
    run(choice, "fourth", {1: 1.0, 2: 2.0})
    assert choice.using(0) is None and choice.using("fourth") == 2


def test_disabled_it_always_answers_the_free_count(clock):
    choice = ThreadChoice(enabled=False, clock=clock)
    for _ in range(3):
        run(choice, "k", {1: 1.0, 2: 9.0})
        clock.now += RETRY_SECONDS
    assert choice.threads_for("k", 2) == 2 and choice.using("k") is None


# ---- the kernels ask it ---------------------------------------------------------------------------
@pytest.fixture
def timed_products(monkeypatch, clock):
    """Two free CPUs and a ThreadChoice on a test clock; the BLAS counts the kernels set, recorded."""
    choice = ThreadChoice(clock=clock)
    monkeypatch.setattr(threads, "_thread_choice", choice)
    monkeypatch.setattr(machine, "_num_threads", 2)
    monkeypatch.setattr(machine, "_op_determinism", False)
    counts = []
    monkeypatch.setattr(machine, "set_blas_threads", counts.append)
    return choice, counts


def conv_cases(images):
    """The three convolution kernels on ``images`` 20x20x16 images, as (name, args from an rng)."""
    return [
        ("conv2d", lambda rng: (rng.standard_normal((images, 20, 20, 16)).astype(np.float32),
                                rng.standard_normal((3, 3, 16, 16)).astype(np.float32), (1, 1), "VALID")),
        ("conv2d_backprop_filter", lambda rng: (rng.standard_normal((images, 20, 20, 16)).astype(np.float32),
                                                rng.standard_normal((images, 18, 18, 16)).astype(np.float32),
                                                (3, 3, 16, 16), (1, 1), "VALID")),
        ("conv2d_backprop_input", lambda rng: (rng.standard_normal((images, 18, 18, 16)).astype(np.float32),
                                               rng.standard_normal((3, 3, 16, 16)).astype(np.float32),
                                               (images, 20, 20, 16), (1, 1), "VALID")),
    ]


@pytest.mark.parametrize("kernel,args", [
    ("matmul", lambda rng: (rng.standard_normal((128, 128)).astype(np.float32),) * 2)] + conv_cases(images=1))
def test_a_product_kernel_goes_to_one_blas_thread_when_its_kind_ran_faster_there(kernel, args, timed_products,
                                                                                   clock):
    """The kernel times itself (the real clock) and reports; here the record says one thread was
    faster, as it did in the slow minutes, and the kernel's next call sets the BLAS to one thread.
    (A convolution of one image is one chunk: its product gets the BLAS's threads.)"""
    from minieager.kernels.registry import get_kernel
    choice, counts = timed_products
    inputs = args(np.random.default_rng(0))
    first = get_kernel(kernel, "cpu")(*inputs)
    (kind,) = choice._kinds                                         # the kernel named its kind
    assert kind[0] == kernel and counts == [2]
    choice._kinds[kind].update(one=0.001, many=(1.0, 1.0))          # as if two threads had been slow
    again = get_kernel(kernel, "cpu")(*inputs)
    assert counts == [2, 1] and choice.using(kind) == 1
    np.testing.assert_allclose(again, first, rtol=1e-5, atol=1e-4)  # the same numbers, on one thread


@pytest.mark.parametrize("kernel,args", conv_cases(images=4))
def test_a_convolution_shares_its_chunks_between_threads_unless_one_ran_faster(kernel, args, timed_products):
    """Four images make four chunks: two threads share them, each with a one-thread BLAS; once the
    record says one thread was faster, one thread runs them all, and the bits are the same."""
    from minieager.kernels.registry import get_kernel
    choice, counts = timed_products
    threads.forget_blas_call()
    inputs = args(np.random.default_rng(0))
    first = get_kernel(kernel, "cpu")(*inputs)
    (kind,) = choice._kinds
    assert kind[0] == kernel and counts == [1] and threads._this_thread.count == 2
    choice._kinds[kind].update(one=0.001, many=(1.0, 1.0))
    again = get_kernel(kernel, "cpu")(*inputs)
    assert counts == [1, 1] and threads._this_thread.count == 1 and choice.using(kind) == 1
    np.testing.assert_array_equal(again, first)


@pytest.mark.parametrize("kernel,args", conv_cases(images=4))
def test_chunks_too_big_for_two_buffers_run_on_one_worker_with_the_blas_threads(kernel, args, timed_products,
                                                                                 monkeypatch):
    """One image's patches bigger than half of BUFFERS_BYTES (a big image): one worker takes the
    chunks one by one and the BLAS's threads share each product, as before the threads shared chunks."""
    from minieager.kernels.registry import get_kernel
    choice, counts = timed_products
    monkeypatch.setattr(threads, "BUFFERS_BYTES", 100_000)        # one image's patches (18x18 pixels x 144): 186,624 bytes
    inputs = args(np.random.default_rng(0))
    got = get_kernel(kernel, "cpu")(*inputs)
    assert counts == [2] and threads._this_thread.count == 1
    monkeypatch.undo()
    np.testing.assert_allclose(got, get_kernel(kernel, "cpu")(*inputs), rtol=1e-5, atol=1e-4)
