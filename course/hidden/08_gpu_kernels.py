"""Lesson 08's hidden checks: only the grader runs them, on sizes, grids and values drawn fresh."""
from course.spec import check, visible_module

lesson = visible_module("08_gpu_kernels")


@check("gpu_saxpy", points=2)
class LaunchSizeForRandomSizes:
    """launch_size(n) for random n, up to ten times what MAX_BLOCKS blocks cover."""
    probe_helpers = (lesson.probe_launch_size,)

    def cases(rng):
        return [{"n": int(n)} for n in rng.integers(0, 1300, 4)]

    def probe(ns, n):
        return probe_launch_size(ns, n)

    def judge(got, n):
        lesson.judge_launch_size(got, n)


@check("gpu_saxpy", points=3)
class KernelOnRandomGrids:
    """saxpy_kernel on random grids (smaller and larger than the array) with a random a."""
    probe_helpers = (lesson.launchable, lesson.probe_kernel)

    def cases(rng):
        return [{"blocks": int(rng.integers(1, 4)), "threads": int(rng.integers(1, 9)),
                 "a": float(round(rng.uniform(-3, 3), 3)), **lesson.inputs(rng, int(rng.integers(1, 40)))}
                for _ in range(3)]

    def probe(ns, blocks, threads, a, x, y):
        return probe_kernel(ns, blocks, threads, a, x, y)

    def judge(got, blocks, threads, a, x, y):
        lesson.judge_kernel(got, blocks, threads, a, x, y)


@check("gpu_saxpy", points=2)
class SaxpyRandomSizes:
    """saxpy on random sizes and dtypes with a random a."""
    probe_helpers = (lesson.launchable, lesson.probe_saxpy)

    def cases(rng):
        return [{"a": float(round(rng.uniform(-3, 3), 3)),
                 **lesson.inputs(rng, int(rng.integers(1, 260)), str(rng.choice(["float32", "float64"])))}
                for _ in range(2)]

    def probe(ns, a, x, y):
        return probe_saxpy(ns, a, x, y)

    def judge(got, a, x, y):
        lesson.judge_saxpy(got, a, x, y)


@check("gpu_block_sum", points=3)
class BlockSumsOnRandomSizes:
    """block_sums_kernel and gpu_sum on random sizes and numbers of blocks."""
    probe_helpers = (lesson.launchable, lesson.probe_block_sums)

    def cases(rng):
        return [{"blocks": int(rng.integers(1, 5)), "x": rng.normal(size=int(rng.integers(1, 260)))} for _ in range(2)]

    def probe(ns, blocks, x):
        return probe_block_sums(ns, blocks, x)

    def judge(got, blocks, x):
        lesson.judge_block_sums(got, blocks, x)


@check("gpu_block_sum", points=2)
class GpuSumRandomSizes:
    """gpu_sum(x) for random sizes, against NumPy's sum."""
    probe_helpers = (lesson.launchable, lesson.probe_gpu_sum)

    def cases(rng):
        return [{"x": rng.normal(size=int(rng.integers(1, 400)))} for _ in range(2)]

    def probe(ns, x):
        return probe_gpu_sum(ns, x)

    def judge(got, x):
        lesson.judge_gpu_sum(got, x)
