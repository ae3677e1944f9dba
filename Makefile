# minieager's entry points. Each target builds the virtualenv it needs in .venv (nothing to
# activate), so on a fresh machine `make lab` or `make test` is all there is to do.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
# pip reruns only when pyproject.toml is newer than this stamp (it lives and dies with the venv).
STAMP  := $(VENV)/.minieager-installed
# `make warmup` has filled numba's cache for the loops as they are now (see the warmup rule).
WARM   := $(VENV)/.minieager-warm

# Optional, for `make bench` only: the benchmarks compare against PyTorch when it is importable. A
# "+cpu" version is only ever a local or CPU-index wheel (PyPI serves none), so this never pulls the
# multi-gigabyte CUDA build; where no such wheel exists it is skipped. `make bench TORCH=` skips it.
# `make test` and `make lab` never install it (754 MB of the venv).
TORCH  ?= torch==2.13.0+cpu
TORCH_STAMP := $(VENV)/.torch-tried

# One pytest run: the unit tests, the debugger front-end's browser tests, then every notebook
# executed top to bottom by nbval in this venv's kernel. Folders not created yet are left out.
# In JOBS worker processes (pytest-xdist; `make test JOBS=0`: all in one process). --dist loadfile
# keeps each file in one worker: a notebook's cells share one kernel, a module's fixtures are built
# once. Files are handed out in the order the root conftest.py sorts them (those with slow tests
# first), not by size. Two workers pay even on two busy cores: much of the time a worker waits on
# a notebook kernel, a browser or a subprocess.
JOBS   ?= 2
XDIST  := $(if $(filter 0,$(JOBS)),,-n $(JOBS) --dist loadfile --no-loadscope-reorder)
PYTEST := $(PY) -m pytest $(wildcard tests widgets/tests notebooks course/tests course/solutions course/exercises) --nbval --nbval-current-env $(XDIST)

# The GPU tests (tests/gpu) under numba's CUDA simulator, in a pytest process of their own: the
# simulator is chosen by an environment variable read when numba is imported. Tiny shapes. Most
# of them are in one file, so they are handed out one test at a time (--dist load), not by file.
GPU_XDIST := $(if $(filter 0,$(JOBS)),,-n $(JOBS) --dist load)
GPU_SIM_TEST := NUMBA_ENABLE_CUDASIM=1 $(PY) -m pytest tests/gpu -q $(GPU_XDIST)

.PHONY: test test-fast test-gpu check-ptx lab bench warmup clean course grade system-check system-check-no-browser

# .ci/check-system first (before the venv is built) says which system package (graphviz,
# chromium ...) is missing, if one is, instead of letting a notebook fail on it in nbval.
# $(WARM) first: the warm-up fills numba's disk cache once (~30 s on two cores), and every test
# process, notebook kernel and subprocess after it loads the loops instead of compiling them again.
test: system-check $(WARM)
	$(PYTEST)
	$(GPU_SIM_TEST)

# The inner loop: everything but the browser tests and the tests marked slow (each over ~10 s:
# whole notebooks run by nbval, the course graded end to end, wheel and fresh-machine builds,
# numba's bounds-checked rebuild ...; pyproject.toml registers the markers). `make test` runs all.
test-fast: system-check-no-browser $(WARM)
	$(PYTEST) -m "not browser and not slow"
	$(GPU_SIM_TEST) -m "not slow"

# On a machine with an NVIDIA GPU: the same GPU tests for real, with larger shapes, then the
# guide's CNN trained on the GPU to the CPU's accuracy (bench/bench_gpu.py --train-check).
test-gpu: $(STAMP)
	MINIEAGER_GPU_SCALE=large $(PY) -m pytest tests/gpu -q
	$(PY) bench/bench_gpu.py --train-check

# Every CUDA kernel compiled to PTX for a real GPU (sm_90) by NVIDIA's NVVM, without a GPU. The
# simulator runs code a GPU would reject; this catches it. Installs the cuda-toolkit extra (~456 MB).
check-ptx: $(STAMP)
	$(PIP) install -q -e '.[cuda-toolkit]' $(EDITABLE)
	$(PY) tests/gpu/check_ptx.py

system-check:
	@.ci/check-system

system-check-no-browser:
	@.ci/check-system --no-browser

# Jupyter refuses to start as root unless told to (CI machines and containers often are root).
# `make lab LAB_DIR=course/exercises` opens the course's exercises instead.
LAB_DIR ?= notebooks
lab: $(WARM)
	$(VENV)/bin/jupyter lab $(LAB_DIR) $(if $(filter 0,$(shell id -u)),--allow-root)

# Each bench script prints its own table; stop at the first one that fails.
bench: $(STAMP) $(TORCH_STAMP)
	@set -e; for f in $(sort $(wildcard bench/bench_*.py)); do echo "== $$f"; $(PY) $$f; done

# Compile every numba loop into numba's cache once, so that no notebook waits for a compiler
# (python -m minieager.warmup). Redone only when a loop changes, since numba's cache is keyed
# by the loop's source file.
warmup: $(WARM)

$(WARM): $(STAMP) minieager/warmup.py $(wildcard minieager/kernels/cpu/loops/*.py)
	$(PY) -m minieager.warmup
	touch $@

# The course (course/exercises/README.md): the learner notebooks regenerated from the solutions and
# both executed; `make grade SUBMISSIONS=folder` grades a folder of submitted notebooks.
course: $(STAMP)
	$(PY) -m course make

SUBMISSIONS ?= submissions
grade: $(STAMP)
	$(PY) -m course grade $(SUBMISSIONS)

$(PY):
	$(PYTHON) -m venv $(VENV)

# The dev extras include the notebook extras and Playwright's Python package. No browser is
# downloaded (`playwright install` is never run): the browser tests use the system Chromium.
# editable_mode=compat puts the checkout on sys.path (a .pth line) instead of an import hook that
# Python consults last: run from the folder that holds a checkout named minieager/, Python would
# otherwise import that folder as an empty namespace package (tests/test_fresh_machine.py).
# Every `pip install -e` here says so (check-ptx too), or it would turn the install back into a hook.
EDITABLE := --config-settings editable_mode=compat
$(STAMP): pyproject.toml | $(PY)
	$(PIP) install -q -e '.[dev]' $(EDITABLE)
	touch $@

$(TORCH_STAMP): | $(PY)
	$(if $(TORCH),$(PIP) install -q '$(TORCH)' || echo "note: $(TORCH) is not available here; skipped (optional)")
	touch $@

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis test-artifacts bench/out
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

# The course site (course/site/): the guide, the lessons and the exercises with their saved
# outputs, launch buttons, and live tape debuggers. Works offline: open build/site/index.html.
.PHONY: site
site: $(STAMP)
	$(PY) -m course.site.build build/site

# What a Binder user gets, without Docker: binder/requirements.txt in a fresh virtualenv (the
# Python of binder/runtime.txt when this machine has it), binder/postBuild, then every notebook
# run by nbval through binder/start, with a fresh home folder as the image's (the learners'
# exercise notebooks too, once they exist: those must only run without an error).
# pip's wheel cache and the kernels postBuild compiles are reused; bytecode is compiled on import
# only (--no-compile). `make binder-check BINDER_NOTEBOOKS=notebooks/00_tape_debugger.ipynb` checks fewer.
BINDER_NOTEBOOKS ?= notebooks
BINDER_VENV := build/binder-venv
BINDER_HOME := build/binder-home
BINDER_PY   := python$(shell sed -n 's/^python-//p' binder/runtime.txt)
BINDER_ENV  := HOME=$(abspath $(BINDER_HOME)) PATH=$(abspath $(BINDER_VENV))/bin:$$PATH
BINDER_RUN  := $(BINDER_ENV) binder/start
.PHONY: binder-check
binder-check:
	rm -rf $(BINDER_VENV) $(BINDER_HOME) && mkdir -p $(BINDER_HOME)
	$(if $(shell command -v $(BINDER_PY)),$(BINDER_PY),@echo "note: no $(BINDER_PY) here, using $(PYTHON)"; $(PYTHON)) -m venv $(BINDER_VENV)
	$(BINDER_VENV)/bin/pip install -q --no-compile -r binder/requirements.txt pytest nbval
	$(BINDER_ENV) binder/postBuild
	$(BINDER_RUN) python -m pytest -p no:cacheprovider --nbval --nbval-current-env $(BINDER_NOTEBOOKS) -q
	$(if $(wildcard course/exercises/*.ipynb),$(BINDER_RUN) python -m pytest -p no:cacheprovider --nbval-lax --nbval-current-env course/exercises -q)
