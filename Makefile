# The two commands of the README: `make demo` and `make test`. Everything else is set-up they call.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
OUT ?= out/demo
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
ASSETS := refuge_map/render/assets
ASSETS_STAMP := $(ASSETS)/node_modules/.package-lock.json

.PHONY: demo test lint docs install install-dev browser assets clean

$(PY):
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e .
	touch $@

$(DEV_STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP) $@

# The package's byte-code, remade when a module changes: an editable install writes none, and
# where PYTHONDONTWRITEBYTECODE is set Python would compile every module at every start.
SOURCES := $(shell find geo refuge_map data -name '*.py')
BYTECODE := $(VENV)/.bytecode

$(BYTECODE): $(SOURCES) | $(PY)
	$(PY) -m compileall -q geo refuge_map data
	touch $@

install: $(STAMP) $(BYTECODE)

install-dev: $(DEV_STAMP) $(BYTECODE)

# Debian's Chromium for the real-browser tests (Playwright drives it through executable_path).
browser:
	@command -v chromium >/dev/null || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }

# The maps' JavaScript and CSS at the versions package-lock.json pins, into a git-ignored
# node_modules/ (self-contained maps inline them; nothing is downloaded at run time).
$(ASSETS_STAMP): $(ASSETS)/package.json $(ASSETS)/package-lock.json
	@command -v npm >/dev/null || { apt-get update -qq && apt-get install -y -qq npm >/dev/null; }
	npm ci --prefix $(ASSETS) --no-audit --no-fund --ignore-scripts
	touch $@

assets: $(ASSETS_STAMP)

demo: $(STAMP) $(BYTECODE) assets
	$(VENV)/bin/refuge demo --out $(OUT)

lint: $(DEV_STAMP)
	$(VENV)/bin/ruff check geo refuge_map data/__init__.py tests benchmarks docs setup.py
	$(VENV)/bin/ruff format --check geo refuge_map data/__init__.py tests benchmarks docs setup.py
	$(VENV)/bin/mypy

# The documentation site, offline and strict (a broken link or reference fails), into site/.
# The tutorials execute with the small CI parameters, as in the test suite.
docs: $(DEV_STAMP) assets
	CI=1 NO_MKDOCS_2_WARNING=1 JUPYTER_CONFIG_PATH=docs/_jupyter $(VENV)/bin/mkdocs build --strict --quiet

test: $(DEV_STAMP) browser assets lint
	$(VENV)/bin/pytest -n 2
	$(MAKE) docs

# The benchmarks (figures printed; mesa-geo comes with the `bench` extra).
bench: $(DEV_STAMP)
	$(PY) -m pip install --quiet -e '.[bench]'
	for bench in benchmarks/bench_*.py; do $(PY) $$bench || exit 1; done

clean:
	rm -rf $(VENV) out site .cache
