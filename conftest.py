"""Settings for every pytest run in this repository (tests/, widgets/tests/ and the notebooks under nbval)."""
import os

# The notebooks' saved outputs must not depend on whether numba's cache is warm: no compile notice
# (minieager/kernels/cpu/loops/compile_notice.py) in the kernels nbval starts. The notice's own
# tests turn it back on for the kernels they start.
os.environ.setdefault("MINIEAGER_COMPILE_NOTICE", "0")
