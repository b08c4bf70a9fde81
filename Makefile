# The two commands of the README: `make demo` and `make test`. Everything else is set-up they call.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
OUT ?= out/demo
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: demo test lint install install-dev browser clean

$(PY):
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e .
	touch $@

$(DEV_STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP) $@

install: $(STAMP)

install-dev: $(DEV_STAMP)

# Debian's Chromium for the real-browser tests (Playwright drives it through executable_path).
browser:
	@command -v chromium >/dev/null || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }

demo: $(STAMP)
	$(VENV)/bin/refuge demo --out $(OUT)

lint: $(DEV_STAMP)
	$(VENV)/bin/ruff check geo refuge_map tests benchmarks
	$(VENV)/bin/ruff format --check geo refuge_map tests benchmarks

test: $(DEV_STAMP) browser lint
	$(VENV)/bin/pytest -n 2

clean:
	rm -rf $(VENV) out
