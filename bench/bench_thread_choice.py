"""The products' own timings (kernels/cpu/thread_choice.py) on and off, in one process.

The guide CNN's training step (batch 32, Adam; compare_trees.py's CNN_STEP), traced by
me.function or eager, in alternating rounds of 1.5 s each:

* "on": minieager as it is: each kind of product uses one BLAS thread while that was faster lately;
* "off": the same two threads without the timings (every product on the free CPUs' count);
* "one": me.config.set_num_threads(1).

On a quiet machine "on" should equal "off" (the once-a-second tries of one thread cost ~0.5%).
In the minutes when this 2-vCPU VM's second vCPU is slow to wake (its host core busy with another
machine; /proc/stat shows nothing), "off" takes twice the one-thread time and "on" should stay
near "one". Those minutes come and go; run it a few times and read the load it prints.

    .venv/bin/python bench/bench_thread_choice.py [ROUNDS] [--eager]
"""
import os
import statistics
import sys
import time

import numpy as np
from compare_trees import CNN_STEP

import minieager as me
from minieager.kernels.cpu import threads
from minieager.kernels.cpu.thread_choice import ThreadChoice


def main(argv):
    rounds = int(argv[0]) if argv and argv[0].isdigit() else 6
    eager = "--eager" in argv
    scope = {"me": me, "np": np}
    exec(CNN_STEP, scope)
    step = scope["train"] if eager else me.function(scope["train"], autograph=False)
    x, y = scope["x"], scope["y"]
    step(x, y)
    print(f"guide CNN step ({'eager' if eager else 'me.function'}), load before {os.getloadavg()[0]:.2f}")
    timed, untimed = threads._thread_choice, ThreadChoice(enabled=False)
    ms = {"on": [], "off": [], "one": []}
    for _ in range(rounds):
        for name in ms:
            threads._thread_choice = untimed if name == "off" else timed
            me.config.set_num_threads(1 if name == "one" else me.machine.default_num_threads())
            start, steps = time.perf_counter(), 0
            while time.perf_counter() - start < 1.5:
                step(x, y)
                steps += 1
            ms[name].append((time.perf_counter() - start) / steps * 1e3)
    threads._thread_choice = timed
    print("rounds (ms per step, on/off/one): " + "  ".join(
        f"{a:.2f}/{b:.2f}/{c:.2f}" for a, b, c in zip(ms["on"], ms["off"], ms["one"])))
    print(f"median ms: on {statistics.median(ms['on']):.2f}, off {statistics.median(ms['off']):.2f}, "
          f"one thread {statistics.median(ms['one']):.2f}; "
          f"on/off {statistics.median(a / b for a, b in zip(ms['on'], ms['off'])):.2f}x, "
          f"on/one {statistics.median(a / b for a, b in zip(ms['on'], ms['one'])):.2f}x")


if __name__ == "__main__":
    main(sys.argv[1:])
