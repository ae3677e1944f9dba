"""CPU kernels. Importing registers them; their numba loops (``loops/``) are imported and compiled on first use."""
import warnings

# For tiny arrays the kernels call NumPy, which warns on x / 0, log(0) or inf * 0; the numba loops
# and TensorFlow give inf or nan silently. So RuntimeWarnings raised from kernel code are ignored
# (the user's own NumPy code still warns), at no cost when nothing is raised: np.errstate around
# every call would cost more than the op itself.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"minieager\.kernels\.")

from . import elementwise, layout, matmul, nn, optimizers, reduce, strings  # noqa: E402,F401  (registers the kernels)
