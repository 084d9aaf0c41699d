"""Shared fixtures. Test folders mirror the features: library/, tooling/,
translations/, book/ and exercises/; nbval replays the derived notebooks under
notebooks/ in the same run.

``tabbed_notebook`` and ``synthetic_book`` are a small page in every framework,
and a repository around it, for the tests of the tooling that need complete tab
groups whatever state the real chapter is in.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
from filelock import FileLock
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

import booktools
from booktools.pipeline import stages
from booktools.project import BUILD_INPUTS, Project
from booktools.sources.mime_types import FIGURES_MIME

SYNTHETIC_PAGE = "tabs"
SYNTHETIC_VERSION = "9.8.7"
SYNTHETIC_URL = "https://github.com/someone/tab-book"
# The description the synthetic index page gives in its front matter (its meta description).
SYNTHETIC_DESCRIPTION = "A synthetic book of one page, for the tests of the build."


PROJECT = Project.here()
# Held while the site is checked and built (the ``site`` fixture): one build for every process.
SITE_LOCK = PROJECT.build_dir / "site.lock"
# Where pytest-xdist's controller keeps the thread that builds the site at the start of a run.
SITE_BUILD = pytest.StashKey[threading.Thread]()
# The test files whose tests pytest-xdist's workers share (``pytest_xdist_make_scheduler``): each of
# their tests is a unit of work of its own, where ``--dist loadfile`` gives each file to one worker.
SPLIT_FILES = ("tests/tooling/test_other_kernels.py",)


def build_site_if_stale(acquired: threading.Event | None = None) -> str:
    """Build the site (``make book``) unless it is current, one process at a time.

    Returns what the build printed if it failed, else "". ``acquired`` is set once the lock is held.
    """
    SITE_LOCK.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(SITE_LOCK):
        if acquired is not None:
            acquired.set()
        if stages.is_current(PROJECT):
            return ""
        command = [sys.executable, "-m", "booktools", "book"]
        result = subprocess.run(command, cwd=PROJECT.root, check=False, capture_output=True, text=True)
        return "" if result.returncode == 0 else f"{result.stdout}\n{result.stderr}"


def pytest_sessionstart(session: pytest.Session) -> None:
    """On a whole run in pytest-xdist's workers (``make test``), start building the site at once.

    The controller builds it in a thread while the workers run the tests that do not need it
    (the notebooks' replays, the library's tests); a test that needs it waits for the lock.
    Otherwise the first test of ``tests/book`` would build it, and the other worker, reaching
    another book test, would wait idle for the two minutes of the build.
    """
    config = session.config
    whole_run = config.args_source == pytest.Config.ArgsSource.TESTPATHS
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None) or not whole_run:
        return
    acquired = threading.Event()

    def build_in_background() -> None:
        try:
            build_site_if_stale(acquired)
        finally:
            acquired.set()  # also if the build could not even start: the workers then build it themselves

    thread = threading.Thread(target=build_in_background, name="site-build", daemon=True)
    thread.start()
    acquired.wait()  # the lock is held before any worker starts
    config.stash[SITE_BUILD] = thread


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """With ``--dist loadfile``, a scheduler that gives each test of ``SPLIT_FILES`` to a worker of its own, first.

    A file of one long test per framework would otherwise keep one worker busy for all of them,
    at the end of the run (pytest-xdist sends the files with the fewest tests last) while the
    other worker idles. First, they run while the site is built: they do not read it.
    """
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SplitFileScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            return nodeid if scope in SPLIT_FILES else scope

        def _assign_work_unit(self, node: object) -> None:
            split = [scope for scope in self.workqueue if scope.split("::", 1)[0] in SPLIT_FILES]
            for scope in reversed(split):
                self.workqueue.move_to_end(scope, last=False)
            super()._assign_work_unit(node)

    return SplitFileScheduling(config, log)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Wait for the controller's build of the site, if it started one."""
    thread = session.config.stash.get(SITE_BUILD, None)
    if thread is not None:
        thread.join()


@pytest.fixture(scope="session")
def site() -> Path:
    """The built site (``_build/html``), built now if missing or stale, by one process at a time."""
    failure = build_site_if_stale()
    if failure:
        pytest.fail(f"make book failed:\n{failure}")
    return PROJECT.site_dir


@pytest.fixture(scope="session")
def root() -> Path:
    """The repository root."""
    return PROJECT.root


@pytest.fixture
def book_copy(tmp_path: Path) -> Project:
    """A copy of what a build of the book reads (``booktools.project.BUILD_INPUTS``, booktools included)."""
    for name in BUILD_INPUTS:
        source, copy = PROJECT.root / name, tmp_path / name
        if source.is_dir():
            shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__"), dirs_exist_ok=True)
        elif source.exists():
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy)
    return Project(tmp_path)


@pytest.fixture(scope="session")
def project() -> Project:
    """The book this checkout holds (``booktools.project.Project``)."""
    return PROJECT


def _code(cell_id: str, source: str, printed: str | None = None, tags: tuple[str, ...] = ()) -> nbformat.NotebookNode:
    cell = new_code_cell(source)
    cell["id"] = cell_id
    if printed is not None:
        cell.outputs = [new_output("stream", name="stdout", text=printed)]
    if tags:
        cell.metadata["tags"] = list(tags)
    return cell


def _markdown(cell_id: str, source: str) -> nbformat.NotebookNode:
    cell = new_markdown_cell(source)
    cell["id"] = cell_id
    return cell


def synthetic_notebook() -> nbformat.NotebookNode:
    """A page with every kind of cell a source page has (framework code runs without any framework).

    - ``title``: shared markdown with the page's label; ``setup``: ``#@tab all``, saves
      ``import math`` and ``SCALE``;
    - group 1: ``double`` (pytorch, saves ``double``, tagged ``hide-input``), ``note-jax`` (a
      JAX-only note holding a colon fence), ``double-jax`` (saves ``double``, prints 4),
      ``double-tf`` (saves ``double``, prints 4);
    - ``pair-md``: shared markdown, a labelled level-2 heading;
    - group 2: ``pair`` (``#@tab pytorch, jax``, saves ``_half`` and ``Pair``, prints 6),
      ``pair-tf`` (tensorflow, saves ``_half`` and ``Pair``, prints 6);
    - ``shared-print``: ``#@tab all``, prints ``3.14``; ``end``: shared markdown.
    """
    cells = [
        _markdown("title", "(sec_tabs)=\n# Tabs\n\nProse shared by every framework."),
        _code("setup", "#@tab all\nimport math  #@save\n\nSCALE = 2  #@save"),
        _code("double", "#@tab pytorch\ndef double(x):  #@save\n    return SCALE * x", tags=("hide-input",)),
        _markdown(
            "note-jax", ":begin_tab:`jax`\nJAX arrays are immutable.\n\n:::{note}\nA fenced note.\n:::\n:end_tab:"
        ),
        _code("double-jax", "#@tab jax\ndef double(x):  #@save\n    return SCALE * x\n\n\nprint(double(2))", "4\n"),
        _code(
            "double-tf", "#@tab tensorflow\ndef double(x):  #@save\n    return x * SCALE\n\n\nprint(double(2))", "4\n"
        ),
        _markdown("pair-md", "(sec_tabs-pair)=\n## Two Frameworks in One Cell\n\nMore shared prose."),
        _code(
            "pair",
            "#@tab pytorch, jax\ndef _half(x):  #@save\n    return x / 2\n\n\n"
            "class Pair:  #@save\n    pass\n\n\nprint(double(3))",
            "6\n",
        ),
        _code(
            "pair-tf",
            "#@tab tensorflow\ndef _half(x):  #@save\n    return x * 0.5\n\n\n"
            "class Pair:  #@save\n    pass\n\n\nprint(double(3))",
            "6\n",
        ),
        _code("shared-print", "#@tab all\nprint(round(math.pi, 2))", "3.14\n"),
        _markdown("end", "That is all."),
    ]
    notebook = new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    return notebook


@pytest.fixture(scope="session")
def synthetic_release() -> tuple[str, str]:
    """The repository URL (without the trailing slash the config has) and library version of
    ``synthetic_book``."""
    return SYNTHETIC_URL, SYNTHETIC_VERSION


@pytest.fixture(scope="session")
def synthetic_description() -> str:
    """The description that ``synthetic_book``'s index page gives in its front matter."""
    return SYNTHETIC_DESCRIPTION


@pytest.fixture
def tabbed_notebook() -> nbformat.NotebookNode:
    """A fresh copy of the synthetic source page (see ``synthetic_notebook``)."""
    return synthetic_notebook()


def write_synthetic_book(book: Path) -> Path:
    """Write a repository holding the synthetic page as ``chapters/en/tabs.ipynb`` (and its Indonesian twin).

    It has what the tools read: ``_toc.yml`` (an index page, whose front matter gives
    ``SYNTHETIC_DESCRIPTION``, and the synthetic page),
    ``_config.yml`` (the real one, with ``repository.url`` set to ``SYNTHETIC_URL``),
    ``references.bib``, ``img/``, each edition's ``strings.yml`` (the real ones),
    ``booktools/`` (for ``python -m booktools --root <book> <verb>``) and
    ``d2l_lib/__init__.py`` with ``__version__ = SYNTHETIC_VERSION``. Wrap it in
    ``Project(book)`` to hand it to the tools.
    """
    synthetic = Project(book)
    synthetic.library_dir.mkdir(parents=True)
    (synthetic.library_dir / "__init__.py").write_text(f'"""A library."""\n\n__version__ = "{SYNTHETIC_VERSION}"\n')
    tools = Path(booktools.__file__).parent
    shutil.copytree(tools, book / tools.name, ignore=shutil.ignore_patterns("__pycache__"))
    for folder in PROJECT.shared_folders():
        shutil.copytree(folder, book / PROJECT.relative(folder))
    shutil.copy2(PROJECT.bibliography, synthetic.bibliography)
    config = PROJECT.config_file.read_text(encoding="utf-8")
    url_line = next(line for line in config.splitlines() if line.strip().startswith("url:"))
    synthetic.config_file.write_text(config.replace(url_line, f"  url: {SYNTHETIC_URL}/"), encoding="utf-8")
    synthetic.toc_file.write_text(
        f"format: jb-book\nroot: chapters/en/index\nchapters:\n  - file: chapters/en/{SYNTHETIC_PAGE}\n",
        encoding="utf-8",
    )
    for language in ("en", "id"):
        folder = synthetic.edition_dir(language)
        folder.mkdir(parents=True)
        (folder / "index.md").write_text(
            f"---\ndescription: {SYNTHETIC_DESCRIPTION}\n---\n# A Synthetic Book\n\nOne page, every framework.\n",
            encoding="utf-8",
        )
        nbformat.write(synthetic_notebook(), folder / f"{SYNTHETIC_PAGE}.ipynb")
        if PROJECT.strings_file(language).is_file():
            shutil.copy2(PROJECT.strings_file(language), synthetic.strings_file(language))
    return book


@pytest.fixture(scope="session")
def make_synthetic_book() -> Callable[[Path], Path]:
    """``write_synthetic_book``, for fixtures of a wider scope than ``synthetic_book``."""
    return write_synthetic_book


@pytest.fixture
def synthetic_book(tmp_path: Path) -> Path:
    """A fresh synthetic repository (see ``write_synthetic_book``) under ``tmp_path/book``."""
    return write_synthetic_book(tmp_path / "book")


# Measured figures (booktools.sources.measured) on the synthetic page ------------------

MEASURING_CELL = "speed-timing"


def record_figures(book: Path, figures: dict[str, float], languages: tuple[str, ...] = ("en", "id")) -> None:
    """Give the synthetic page of ``book``, in each of ``languages``, a timing cell (id ``speed-timing``,
    ``#@tab all``) whose stored output records ``figures``, and before its last cell the markdown
    cell ``quote`` saying ``Speedup: {measured}`speed-timing.speedup:,.2f`.``; a second call
    changes the stored figures only (as a new ``make outputs`` would)."""
    for language in languages:
        path = Project(book).edition_dir(language) / f"{SYNTHETIC_PAGE}.ipynb"
        notebook = nbformat.read(path, as_version=4)
        output = new_output("display_data", data={FIGURES_MIME: dict(figures)})
        timing = next((cell for cell in notebook.cells if cell.id == MEASURING_CELL), None)
        if timing is None:
            source = (
                "#@tab all\nrecord_figures(" + ", ".join(f"{name}={value}" for name, value in figures.items()) + ")"
            )
            timing = _code(MEASURING_CELL, source, tags=("nbval-ignore-output",))
            quote = _markdown("quote", "Speedup: {measured}`speed-timing.speedup:,.2f`.")
            notebook.cells[-1:-1] = [timing, quote]
        timing.outputs = [output]
        nbformat.write(notebook, path)


@pytest.fixture(scope="session")
def measure_synthetic() -> Callable[..., None]:
    """``record_figures``: a measurement on the synthetic page and the prose that quotes it."""
    return record_figures
