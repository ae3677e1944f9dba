"""Room for numba.cuda kernels: a GPU backend registers its kernels here under device type "gpu".

Until it does, ``me.num_gpus()`` is 0 and asking for "/gpu:0" raises a clear error.
"""
