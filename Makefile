# minieager's entry points. Each target builds the virtualenv it needs in .venv (nothing to
# activate), so on a fresh machine `make lab` or `make test` is all there is to do.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
# pip reruns only when pyproject.toml is newer than this stamp (it lives and dies with the venv).
STAMP  := $(VENV)/.minieager-installed

# Optional, for `make bench` only: the benchmarks compare against PyTorch when it is importable. A
# "+cpu" version is only ever a local or CPU-index wheel (PyPI serves none), so this never pulls the
# multi-gigabyte CUDA build; where no such wheel exists it is skipped. `make bench TORCH=` skips it.
# `make test` and `make lab` never install it (754 MB of the venv).
TORCH  ?= torch==2.13.0+cpu
TORCH_STAMP := $(VENV)/.torch-tried

# One pytest run: the unit tests, the debugger front-end's browser tests, then every notebook
# executed top to bottom by nbval in this venv's kernel. Folders not created yet are left out.
PYTEST := $(PY) -m pytest $(wildcard tests widgets/tests notebooks) --nbval --nbval-current-env

.PHONY: test test-fast lab bench clean system-check system-check-no-browser

# .ci/check-system first (before the venv is built) says which system package (graphviz,
# chromium ...) is missing, if one is, instead of letting a notebook fail on it in nbval.
test: system-check $(STAMP)
	$(PYTEST)

# Everything but the tests that drive JupyterLab in a real browser.
test-fast: system-check-no-browser $(STAMP)
	$(PYTEST) -m "not browser"

system-check:
	@.ci/check-system

system-check-no-browser:
	@.ci/check-system --no-browser

# Jupyter refuses to start as root unless told to (CI machines and containers often are root).
lab: $(STAMP)
	$(VENV)/bin/jupyter lab notebooks/ $(if $(filter 0,$(shell id -u)),--allow-root)

# Each bench script prints its own table; stop at the first one that fails.
bench: $(STAMP) $(TORCH_STAMP)
	@set -e; for f in $(sort $(wildcard bench/bench_*.py)); do echo "== $$f"; $(PY) $$f; done

$(PY):
	$(PYTHON) -m venv $(VENV)

# The dev extras include the notebook extras and Playwright's Python package. No browser is
# downloaded (`playwright install` is never run): the browser tests use the system Chromium.
# editable_mode=compat puts the checkout on sys.path (a .pth line) instead of an import hook that
# Python consults last: run from the folder that holds a checkout named minieager/, Python would
# otherwise import that folder as an empty namespace package (tests/test_fresh_machine.py).
$(STAMP): pyproject.toml | $(PY)
	$(PIP) install -q -e '.[dev]' --config-settings editable_mode=compat
	touch $@

$(TORCH_STAMP): | $(PY)
	$(if $(TORCH),$(PIP) install -q '$(TORCH)' || echo "note: $(TORCH) is not available here; skipped (optional)")
	touch $@

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis test-artifacts bench/out
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
