# The two commands a newcomer needs are `make book` and `make test`; both set up
# .venv from requirements.txt first. Everything else is for maintainers.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# The kernel every notebook run uses (booktools/kernel.py): its environment is fixed,
# so figures show whatever the caller's MPLBACKEND is.
KERNEL := d2l-book

.PHONY: setup book test lib check-lib notebooks check-notebooks check-translations outputs lint pytest bench clean

$(STAMP): requirements.txt pyproject.toml booktools/kernel.py
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -e .
	$(PY) -m booktools.kernel
	touch $(STAMP)

setup: $(STAMP)

## make book: build the rendered book into _build/html
book: setup
	$(PY) -m booktools.build

## make test: every check CI runs
test: setup check-lib check-notebooks check-translations lint pytest

## make lib: regenerate d2l_lib/{torch,jax,tensorflow}.py from the notebooks' #@save cells
lib: setup
	$(PY) -m booktools.extract

check-lib: setup
	$(PY) -m booktools.extract --check

## make notebooks: derive notebooks/<lang>/<framework>/ from the source pages in chapters/
notebooks: setup
	$(PY) -m booktools.derive

check-notebooks: setup
	$(PY) -m booktools.derive --check

## make outputs: re-execute every framework's notebook headlessly and store its outputs
outputs: setup lib
	$(PY) -m booktools.execute

## make check-translations: the Indonesian and Korean editions match English
check-translations: setup
	$(PY) -m booktools.translations

## make bench: speed of d2l_lib against named baselines (prints a table)
bench: setup
	$(PY) benchmarks/attention.py

## make lint: ruff (lint, and format --check), mypy (strict on booktools, default settings on d2l_lib)
lint: setup
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy --strict booktools
	$(PY) -m mypy d2l_lib

pytest: setup
	$(PY) -m pytest --nbval --nbval-kernel-name $(KERNEL)

clean:
	rm -rf _build .pytest_cache .ruff_cache
