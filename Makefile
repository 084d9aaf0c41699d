# The two commands a newcomer needs are `make book` and `make test`; both set up
# .venv from requirements.txt first. Everything else is for maintainers.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# The kernel every notebook run uses: its spec (KERNEL_SPEC) fixes its environment, so figures
# show whatever the caller's MPLBACKEND is. python -m booktools kernel installs it into .venv,
# again whenever the spec changes (KERNEL_STAMP), without remaking the environment.
KERNEL := d2l-book
KERNEL_SPEC := booktools/runtime/kernel.py
KERNEL_STAMP := $(VENV)/.kernel-installed
# Each pinned npm package is installed into <environment>/share/d2l-book/<tool>, where
# booktools.programs.npm_prefix looks for it; tests/tooling/test_npm_prefixes.py checks the
# folders below (AXE, THEBE, KATEX, LIGHTHOUSE, REVEAL) against it.
# axe-core for the accessibility tests (tests/book/test_accessibility.py), pinned by
# tests/book/axe/package-lock.json, installed with npm into the environment by make test-setup:
# a tool of the tests only, so make book does not install it.
AXE := $(VENV)/share/d2l-book/axe
AXE_SCRIPT := $(AXE)/node_modules/axe-core/axe.min.js
# Thebe for the book's Live code button (booktools/website/extension/live.py), pinned by
# booktools/website/extension/thebe/package-lock.json, installed with npm into the environment;
# the build copies its bundle into the site.
THEBE := $(VENV)/share/d2l-book/thebe
THEBE_SCRIPT := $(THEBE)/node_modules/thebe/lib/index.js
# KaTeX, which the build runs in Node to typeset the book's math into HTML
# (booktools/website/extension/katex_math.py), pinned by booktools/website/extension/katex/package-lock.json,
# installed with npm into the environment; the build copies its stylesheet and fonts into the site.
KATEX := $(VENV)/share/d2l-book/katex
KATEX_SCRIPT := $(KATEX)/node_modules/katex/dist/katex.min.js
# Lighthouse for make audit (booktools/checks/audit/), pinned by booktools/checks/audit/package-lock.json,
# installed with npm into the environment when make audit first runs (make test does not need it).
LIGHTHOUSE := $(VENV)/share/d2l-book/lighthouse
LIGHTHOUSE_CLI := $(LIGHTHOUSE)/node_modules/lighthouse/cli/index.js
# d2lbook 1.0.3 pins Sphinx 5.3, so it has an environment of its own for the slides
# (booktools/slides/), pinned by booktools/slides/requirements.txt; reveal.js, require.js
# and jQuery for the decks, pinned by booktools/slides/reveal/package-lock.json, are installed into it.
D2LBOOK_VENV := .venv-d2lbook
D2LBOOK_STAMP := $(D2LBOOK_VENV)/.installed
REVEAL := $(D2LBOOK_VENV)/share/d2l-book/reveal

.PHONY: new-page setup test-setup slides-setup slides pdf book audit assignment lab serve test test-versions lib check check-lib notebooks check-notebooks check-translations docs outputs lint pytest bench clean

# tools/pip_install.py is pip install done by uv (pinned in requirements.txt, installed first
# by pip), with the package sources of pip's configuration: the same packages, in a fraction
# of the time. Without uv, or with BOOK_INSTALLER=pip, pip installs. --compile writes every
# module's bytecode at install time, as pip does by default and uv only when asked: each of the
# test run's many Python processes (kernels, builds) then imports the frameworks from bytecode
# instead of compiling their sources anew where bytecode is not written (PYTHONDONTWRITEBYTECODE).
$(STAMP): requirements.txt pyproject.toml tools/pip_install.py
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet $$(grep -E '^uv==' requirements.txt)
	$(PY) tools/pip_install.py --quiet --compile -r requirements.txt
	$(PY) tools/pip_install.py --quiet --no-deps -e .
	touch $(STAMP)

$(KERNEL_STAMP): $(KERNEL_SPEC) $(STAMP)
	$(PY) -m booktools kernel
	touch $(KERNEL_STAMP)

$(AXE_SCRIPT): tests/book/axe/package.json tests/book/axe/package-lock.json $(STAMP)
	mkdir -p $(AXE)
	cp tests/book/axe/package.json tests/book/axe/package-lock.json $(AXE)/
	npm ci --prefix $(AXE) --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $(AXE_SCRIPT)

$(THEBE_SCRIPT): booktools/website/extension/thebe/package.json booktools/website/extension/thebe/package-lock.json $(STAMP)
	rm -rf $(THEBE)/node_modules  # npm ci over a large node_modules can race with its own removal
	mkdir -p $(THEBE)
	cp booktools/website/extension/thebe/package.json booktools/website/extension/thebe/package-lock.json $(THEBE)/
	npm ci --prefix $(THEBE) --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $(THEBE_SCRIPT)

$(KATEX_SCRIPT): booktools/website/extension/katex/package.json booktools/website/extension/katex/package-lock.json $(STAMP)
	mkdir -p $(KATEX)
	cp booktools/website/extension/katex/package.json booktools/website/extension/katex/package-lock.json $(KATEX)/
	npm ci --prefix $(KATEX) --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $(KATEX_SCRIPT)

# What the site and the tests need: .venv, the kernel, Thebe and KaTeX. The targets that only read and
# write files with booktools (new-page, lib, notebooks, check, lint, ...) need .venv alone.
setup: $(STAMP) $(KERNEL_STAMP) $(THEBE_SCRIPT) $(KATEX_SCRIPT)

# What the tests need beyond the book's set-up: axe-core.
test-setup: setup $(AXE_SCRIPT)

$(LIGHTHOUSE_CLI): booktools/checks/audit/package.json booktools/checks/audit/package-lock.json $(STAMP)
	mkdir -p $(LIGHTHOUSE)
	cp booktools/checks/audit/package.json booktools/checks/audit/package-lock.json $(LIGHTHOUSE)/
	npm ci --prefix $(LIGHTHOUSE) --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $(LIGHTHOUSE_CLI)

# .venv's uv installs it too (tools/pip_install.py), so .venv comes first.
$(D2LBOOK_STAMP): booktools/slides/requirements.txt booktools/slides/reveal/package-lock.json tools/pip_install.py | $(STAMP)
	$(PYTHON) -m venv $(D2LBOOK_VENV)
	UV=$(CURDIR)/$(VENV)/bin/uv $(D2LBOOK_VENV)/bin/python tools/pip_install.py --quiet -r booktools/slides/requirements.txt
	mkdir -p $(REVEAL)
	cp booktools/slides/reveal/package.json booktools/slides/reveal/package-lock.json $(REVEAL)/
	npm ci --prefix $(REVEAL) --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $(D2LBOOK_STAMP)

slides-setup: $(D2LBOOK_STAMP)

## make slides: lecture slides of every page, edition and framework (d2lbook + nbconvert) into _build/html/<lang>/slides/
slides: setup slides-setup
	$(PY) -m booktools slides

## make pdf: the built book as PDFs, one per edition and framework (Chromium), into _build/html/<lang>/pdf/
pdf: setup
	$(PY) -m booktools pdf

## make book: build the rendered book, its slides and its PDFs into _build/html
book: setup slides-setup
	$(PY) -m booktools book

## make audit: Lighthouse (mobile and desktop) on the book's pages (the landing page, each edition's pages, API and search; not the decks), served gzipped from 127.0.0.1; prints a table (not part of make test)
audit: setup slides-setup $(LIGHTHOUSE_CLI)
	$(PY) -m booktools audit $(AUDIT_ARGS)

## make new-page NAME=<page> TITLE="<title>": a new page in every edition, _toc.yml and chapters/pages.yml (NEW_PAGE_ARGS: --after, --words, --quiz)
new-page: $(STAMP)
	$(PY) -m booktools new-page $(NAME) --title "$(TITLE)" $(NEW_PAGE_ARGS)

## make lab: JupyterLab on the derived notebooks (notebooks/<lang>/<framework>/), kernel d2l-book
lab: $(KERNEL_STAMP)
	$(PY) -m booktools lab $(LAB_ARGS)

## make serve: the built site and a local Jupyter server for its Live code button (prints the URL)
serve: setup
	$(PY) -m booktools serve $(SERVE_ARGS)

## make test: every check CI runs
test: test-setup slides-setup check lint pytest

## make test-versions: the library's tests on the lowest and newest release of each framework pyproject.toml allows (not part of make test)
# One environment per framework and series under _build/versions/, made once and reused while
# what it was made from is unchanged (booktools/checks/version_matrix/); prints a table at the end.
# It needs .venv only (booktools), not the npm packages of setup.
test-versions: $(STAMP)
	$(PY) -m booktools versions $(VERSIONS_ARGS)

## make lib: regenerate d2l_lib/{torch,jax,tensorflow}.py from the notebooks' #@save cells
lib: $(STAMP)
	$(PY) -m booktools lib

## make check: d2l_lib, notebooks/ and the translations against their sources (the three checks below),
## chapters/pages.yml against _toc.yml, the quizzes, and docs/architecture.md's generated tables (make docs)
check: $(STAMP)
	$(PY) -m booktools check

## make docs: rewrite the tables of docs/architecture.md that are facts of the code (make check compares them)
docs: $(STAMP)
	$(PY) -m booktools docs

check-lib: $(STAMP)
	$(PY) -m booktools lib --check

## make notebooks: derive notebooks/<lang>/<framework>/ from the source pages in chapters/
notebooks: $(STAMP)
	$(PY) -m booktools notebooks

check-notebooks: $(STAMP)
	$(PY) -m booktools notebooks --check

## make outputs: re-execute every framework's notebook headlessly and store its outputs
outputs: $(KERNEL_STAMP) lib
	$(PY) -m booktools outputs

## make assignment: the exercises as assignments for instructors, per edition and framework, into _build/assignments/
assignment: $(STAMP)
	$(PY) -m booktools assignment

## make check-translations: the Indonesian and Korean editions match English
check-translations: $(STAMP)
	$(PY) -m booktools translations

## make bench: speed of d2l_lib against named baselines (prints a table, benchmarks.cpu_table); on a
## machine with a CUDA GPU, also the GPU table (benchmarks.gpu_table says so and measures nothing without
## one); then the two paths of the PyTorch masked softmax (benchmarks.masked_softmax_paths)
bench: $(STAMP)
	$(PY) -m benchmarks

## make lint: ruff (lint, and format --check), mypy (strict on booktools, default settings on d2l_lib)
lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy --strict booktools
	$(PY) -m mypy d2l_lib

# --durations lists the slowest tests, so that where CI's time goes shows in its log.
# pytest-xdist runs the tests in PYTEST_WORKERS processes (CI's machine has two cores; three
# workers were faster where the build's environments existed, 16m04s against 17m24s, but slower
# on a clean clone, 20m52s, where the Colab environments and the site are made during the run);
# --dist loadfile keeps each file in one worker, in order: a notebook's cells share its
# kernel, and a module's fixtures (its servers, the Colab environments) are made once;
# the files SPLIT_FILES names (tests/conftest.py) have their tests shared, and sent first.
# The site is built once for all workers (tests/book/conftest.py). PYTEST_WORKERS=0 runs
# everything in this process, as before.
PYTEST_WORKERS ?= 2
pytest: test-setup
	$(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadfile --nbval --nbval-kernel-name $(KERNEL) --durations=15

clean:
	rm -rf _build .pytest_cache .ruff_cache
