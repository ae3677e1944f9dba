# minieager's entry points. Each target builds the virtualenv it needs in .venv (nothing to
# activate), so on a fresh machine `make lab` or `make test` is all there is to do.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
# pip reruns only when pyproject.toml is newer than this stamp (it lives and dies with the venv).
STAMP  := $(VENV)/.minieager-installed

# Optional: the benchmarks compare against PyTorch when it is importable. A "+cpu" version is
# only ever a local or CPU-index wheel (PyPI serves none), so this never pulls the multi-gigabyte
# CUDA build; where no such wheel exists it is skipped. `make test TORCH=` skips it outright.
TORCH  ?= torch==2.13.0+cpu

# One pytest run: the unit tests, the debugger front-end's browser tests, then every notebook
# executed top to bottom by nbval in this venv's kernel. Folders not created yet are left out.
PYTEST := $(PY) -m pytest $(wildcard tests widgets/tests notebooks) --nbval --nbval-current-env

# The GPU tests (tests/gpu) under numba's CUDA simulator, in a pytest process of their own: the
# simulator is chosen by an environment variable read when numba is imported. Tiny shapes; ~2 min.
GPU_SIM_TEST := NUMBA_ENABLE_CUDASIM=1 $(PY) -m pytest tests/gpu -q

.PHONY: test test-fast test-gpu check-ptx lab bench clean

test: $(STAMP)
	$(PYTEST)
	$(GPU_SIM_TEST)

# Everything but the tests that drive JupyterLab in a real browser.
test-fast: $(STAMP)
	$(PYTEST) -m "not browser"
	$(GPU_SIM_TEST)

# On a machine with an NVIDIA GPU: the same GPU tests for real, with larger shapes, then the
# guide's CNN trained on the GPU to the CPU's accuracy (bench/bench_gpu.py --train-check).
test-gpu: $(STAMP)
	MINIEAGER_GPU_SCALE=large $(PY) -m pytest tests/gpu -q
	$(PY) bench/bench_gpu.py --train-check

# Every CUDA kernel compiled to PTX for a real GPU (sm_90) by NVIDIA's NVVM, without a GPU. The
# simulator runs code a GPU would reject; this catches it. Installs the cuda-toolkit extra (~456 MB).
check-ptx: $(STAMP)
	$(PIP) install -q -e '.[cuda-toolkit]'
	$(PY) tests/gpu/check_ptx.py

# Jupyter refuses to start as root unless told to (CI machines and containers often are root).
lab: $(STAMP)
	$(VENV)/bin/jupyter lab notebooks/ $(if $(filter 0,$(shell id -u)),--allow-root)

# Each bench script prints its own table; stop at the first one that fails.
bench: $(STAMP)
	@set -e; for f in $(sort $(wildcard bench/bench_*.py)); do echo "== $$f"; $(PY) $$f; done

$(PY):
	$(PYTHON) -m venv $(VENV)

# The dev extras include the notebook extras and Playwright's Python package. No browser is
# downloaded (`playwright install` is never run): the browser tests use the system Chromium.
$(STAMP): pyproject.toml | $(PY)
	$(PIP) install -q -e '.[dev]'
	$(if $(TORCH),$(PIP) install -q '$(TORCH)' || echo "note: $(TORCH) is not available here; skipped (optional)")
	touch $@

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis test-artifacts bench/out
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
