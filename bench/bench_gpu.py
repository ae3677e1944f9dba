"""GPU benchmarks: the guide's matmul benchmark, the matmul kernels against cuBLAS, memory-bound
kernels against the copy bandwidth, and training steps against PyTorch CUDA and minieager's CPU.

Run: .venv/bin/python bench/bench_gpu.py  (on a machine with an NVIDIA GPU and the cuda extra)
     .venv/bin/python bench/bench_gpu.py --train-check   (make test-gpu: the guide's CNN on both devices)

Without a GPU it runs the guide's benchmark on the CPU, prints "GPU: not found" as the guide does,
says so, and exits 0. PyTorch rows appear when ``import torch`` works and sees the GPU; minieager
and PyTorch are measured in alternating rounds in this one process, the best round kept.
"""
import sys
import time

import numpy as np
from common import machine_description, print_table

import minieager as me

RNG = np.random.default_rng(0)


def guide_benchmark(shape=(1000, 1000), steps=200):
    """The guide's Performance section, as it prints it: 200 products of a matrix by itself."""
    def measure(x, steps):
        me.matmul(x, x)                       # the first call compiles (GPU) or warms up BLAS (CPU)
        start = time.time()
        for _ in range(steps):
            x = me.matmul(x, x)
        _ = x.numpy()                         # waits for the GPU to finish, and copies to the host
        return time.time() - start

    print("Time to multiply a {} matrix by itself {} times:".format(shape, steps))
    with me.device("/cpu:0"):
        print("CPU: {} secs".format(measure(me.random.normal(shape), steps)))
    if me.num_gpus() > 0:
        with me.device("/gpu:0"):
            print("GPU: {} secs".format(measure(me.random.normal(shape), steps)))
    else:
        print("GPU: not found")


def _torch_cuda():
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def best_of(fns, sync, rounds=3, number=5):
    """Seconds per call of each fn: alternating rounds, each timed after ``sync()``; the best round."""
    best = [float("inf")] * len(fns)
    for fn in fns:                          # compile and warm up
        fn()
    sync()
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            sync()
            start = time.perf_counter()
            for _ in range(number):
                fn()
            sync()
            best[i] = min(best[i], (time.perf_counter() - start) / number)
    return best


def matmul_kernels(torch, size=4096):
    from numba import cuda

    from minieager.kernels.cuda.matmul import matmul_3d
    a_np, b_np = (RNG.standard_normal((1, size, size), dtype=np.float32) for _ in range(2))
    a, b = cuda.to_device(a_np), cuda.to_device(b_np)
    fns = [lambda: matmul_3d(a, b, "tiled"), lambda: matmul_3d(a, b, "register_blocked")]
    names = ["minieager tiled (shared memory)", "minieager register-blocked"]
    if torch is not None:
        ta, tb = torch.from_numpy(a_np[0]).cuda(), torch.from_numpy(b_np[0]).cuda()
        fns.append(lambda: torch.matmul(ta, tb))
        names.append("torch.matmul (cuBLAS)")
    times = best_of(fns, cuda.synchronize)
    flops = 2 * size ** 3
    rows = [[name, t * 1e3, flops / t / 1e12, times[-1] / t * 100 if torch is not None else None]
            for name, t in zip(names, times)]
    print(f"\nMatmul ({size}, {size}) float32 on the GPU")
    print_table(rows, ["kernel", "ms", "TFLOP/s", "% of cuBLAS"])


def memory_bound(torch, n=10 ** 8):
    from numba import cuda
    x_np = RNG.standard_normal(n, dtype=np.float32)
    with me.device("/gpu:0"):
        x, y = me.constant(x_np), me.constant(x_np)
    copy_target = cuda.device_array_like(x._value)
    fns = [lambda: copy_target.copy_to_device(x._value), lambda: x + y, lambda: me.reduce_sum(x)]
    times = best_of(fns, cuda.synchronize, number=3)
    nbytes = 4 * n
    moved = [2 * nbytes, 3 * nbytes, nbytes]                 # copy: read + write; add: 2 reads + write
    bandwidth = [m / t / 1e9 for m, t in zip(moved, times)]
    rows = [[name, t * 1e3, bw, bw / bandwidth[0] * 100]
            for name, t, bw in zip(["device-to-device copy", "minieager x + y", "minieager reduce_sum(x)"],
                                   times, bandwidth)]
    if torch is not None:
        tx, ty = torch.from_numpy(x_np).cuda(), torch.from_numpy(x_np).cuda()
        t_add, t_sum = best_of([lambda: tx + ty, lambda: tx.sum()], torch.cuda.synchronize, number=3)
        rows += [["torch x + y", t_add * 1e3, 3 * nbytes / t_add / 1e9, 3 * nbytes / t_add / 1e9 / bandwidth[0] * 100],
                 ["torch x.sum()", t_sum * 1e3, nbytes / t_sum / 1e9, nbytes / t_sum / 1e9 / bandwidth[0] * 100]]
    print(f"\nMemory-bound kernels over {n:.0e} float32 (GB/s counts bytes read + written)")
    print_table(rows, ["", "ms", "GB/s", "% of copy"])


def _me_models():
    mlp = me.Sequential([me.layers.Dense(128, activation="relu", input_shape=(784,)), me.layers.Dense(10)])
    cnn = me.Sequential([me.layers.Conv2D(16, 3, activation="relu", input_shape=(28, 28, 1)),
                         me.layers.Conv2D(16, 3, activation="relu"),
                         me.layers.GlobalAveragePooling2D(), me.layers.Dense(10)])
    return {"MLP 784-128-10, SGD": (mlp, (784,), me.optimizers.SGD(0.01)),
            "guide CNN 28x28x1, Adam": (cnn, (28, 28, 1), me.optimizers.Adam())}


def _me_step(model, optimizer, x, y):
    def step():
        with me.GradientTape() as tape:
            loss = me.losses.sparse_softmax_cross_entropy(y, model(x, training=True))
        variables = model.trainable_variables
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        float(loss)                                           # waits for the step to finish
    return step


def _torch_step(torch, name, x_np, y_np):
    nn = torch.nn
    if name.startswith("MLP"):
        model = nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10)).cuda()
        optimizer = torch.optim.SGD(model.parameters(), 0.01)
        x = torch.from_numpy(x_np).cuda()
    else:
        model = nn.Sequential(nn.Conv2d(1, 16, 3), nn.ReLU(), nn.Conv2d(16, 16, 3), nn.ReLU(),
                              nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10)).cuda()
        optimizer = torch.optim.Adam(model.parameters())
        x = torch.from_numpy(np.ascontiguousarray(x_np.transpose(0, 3, 1, 2))).cuda()
    y = torch.from_numpy(y_np).cuda()

    def step():
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        float(loss)
    return step


def train_steps(torch, batch=256):
    rows = []
    for name in _me_models():
        steps = []
        for device in ("/gpu:0", "/cpu:0"):
            with me.device(device):
                model, shape, optimizer = _me_models()[name]
                x_np = RNG.standard_normal((batch,) + shape).astype(np.float32)
                y_np = RNG.integers(0, 10, batch)
                steps.append(_me_step(model, optimizer, me.constant(x_np), me.constant(y_np)))
        if torch is not None:
            steps.append(_torch_step(torch, name, x_np, y_np))
        times = best_of(steps, lambda: None, number=5)
        rows.append([f"{name}, batch {batch}"] + [t * 1e3 for t in times] + ([None] if torch is None else []))
    print("\nTrain step time, ms (best round): minieager on the GPU, on the CPU, and PyTorch CUDA")
    print_table(rows, ["case", "GPU ms", "CPU ms", "torch CUDA ms"],
                ratios=[("GPU ms", "CPU ms"), ("GPU ms", "torch CUDA ms")])


def train_check(epochs=2):
    """The guide's CNN trained on the digits data on the GPU and on the CPU: the same accuracy."""
    (x, y), (x_test, y_test) = me.data.datasets.digits.load_data()
    x, x_test = (a.reshape(len(a), 8, 8, 1).astype(np.float32) / 16 for a in (x, x_test))
    accuracy, start = {}, None
    for device in ("/cpu:0", "/gpu:0"):
        me.random.set_seed(0)
        with me.device(device):
            model = me.Sequential([me.layers.Conv2D(16, 3, activation="relu", input_shape=(8, 8, 1)),
                                   me.layers.Conv2D(16, 3, activation="relu"),
                                   me.layers.GlobalAveragePooling2D(), me.layers.Dense(10)])
            # Both devices start from the same weights: the GPU's random kernels draw other numbers
            # for the same seed, and two epochs from other starting points end a few % apart.
            if start is None:
                start = model.get_weights()
            else:
                model.set_weights(start)
            model.compile(optimizer=me.optimizers.Adam(0.01),
                          loss=me.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
            model.fit(x, y, batch_size=32, epochs=epochs, verbose=0, seed=0)
            accuracy[device] = model.evaluate(x_test, y_test, verbose=0)[1]
        print(f"{device}: test accuracy {accuracy[device]:.4f}")
    gap = abs(accuracy["/gpu:0"] - accuracy["/cpu:0"])
    print(f"accuracy gap {gap:.4f} (allowed 0.02)")
    return 0 if gap <= 0.02 else 1


def main():
    if "--train-check" in sys.argv:
        if me.num_gpus() == 0:
            print("GPU: not found; the GPU training check needs an NVIDIA GPU.")
            return 0
        return train_check()
    print(machine_description())
    guide_benchmark()
    if me.num_gpus() == 0:
        print("\nNo GPU here (me.num_gpus() == 0): the GPU benchmarks were not run. They need an NVIDIA "
              "GPU and `pip install -e '.[cuda]'`.")
        return 0
    from numba import cuda
    name = cuda.get_current_device().name
    print(f"\nGPU: {name.decode() if isinstance(name, bytes) else name}")
    torch = _torch_cuda()
    if torch is None:
        print("(PyTorch with CUDA is not importable: its rows are left out)")
    matmul_kernels(torch)
    memory_bound(torch)
    train_steps(torch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
