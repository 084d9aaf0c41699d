"""The names that the documents and the code's prose give the code exist, so a rename cannot leave one pointing nowhere.

Every name in backticks in ``README.md`` and ``docs/architecture.md`` that looks like code of booktools (a dotted
name starting with one of its packages or modules, as ``pipeline.stages.bring_up_to_date(project)`` or
``booktools.website.extension.page_steps``) must import and resolve, attribute by attribute; every file path
(``booktools/sources/new_page.py``, ``runtime/kernel.py``, ``tests/tooling/test_pipeline.py``) must exist, from the
book's root, from ``booktools/`` or, for the theme's templates, from ``booktools/website/extension/``.

The prose of the code is held the same way: in every docstring, comment and string of a ``.py`` file under
``booktools/`` and ``tests/``, and in ``_config.yml``, the ``Makefile`` and ``chapters/*/alt_text.yml``, every
``booktools.<...>`` name must resolve (a module, a package, or a function, class, constant or attribute of one), as
must a name in double backticks that starts with a package (``pipeline.stages.is_current``); every path written
``booktools/<...>.py`` or ``booktools/<dir>/`` must exist.
"""

from __future__ import annotations

import importlib
import io
import re
import tokenize
from pathlib import Path

import pytest

from booktools.project import Project

PROJECT = Project.here()
DOCUMENTS = ("README.md", "docs/architecture.md")
PACKAGE = PROJECT.root / "booktools"
TOP = sorted(path.stem if path.is_file() else path.name for path in PACKAGE.iterdir() if not path.name.startswith("_"))
CODE = re.compile(r"`([^`\n]+)`")
DOTTED = re.compile(rf"^(?:booktools\.)?(?:{'|'.join(TOP)})(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
FILE_SUFFIX = re.compile(r"\.(?:py|css|j2|html|yml|json|js|txt|md)$")  # ``slides.css``: a file, not code
PATH = re.compile(r"^[\w./-]+\.(?:py|yml|html|css|js|json|txt)$")


def is_module(parts: list[str]) -> bool:
    """Whether ``booktools.<parts>`` is a module or package of the tree (found by its file, not imported)."""
    base = PACKAGE.joinpath(*parts)
    return (base / "__init__.py").is_file() or base.with_suffix(".py").is_file()


def resolves(dotted: str) -> bool:
    """Whether ``booktools.<dotted>`` is a module, or an attribute chain of one.

    A module is found by its file, so that one written for another environment (``slides.d2lbook_run``, which
    runs in d2lbook's) resolves without being imported; an attribute is looked up on the imported module.
    """
    parts = dotted.removeprefix("booktools.").removeprefix("booktools").split(".")
    parts = [part for part in parts if part]
    for split in range(len(parts), -1, -1):
        if not is_module(parts[:split]):
            continue
        if split == len(parts):
            return True
        found: object = importlib.import_module(".".join(["booktools", *parts[:split]]))
        for attribute in parts[split:]:
            if not hasattr(found, attribute):
                return False
            found = getattr(found, attribute)
        return True
    return False


def names(document: str) -> list[str]:
    text = (PROJECT.root / document).read_text(encoding="utf-8")
    found = []
    for span in CODE.findall(text):
        match = DOTTED.match(span.strip())
        if match and not FILE_SUFFIX.search(match.group(0)):
            found.append(match.group(0))
    return sorted(set(found))


def paths(document: str) -> list[str]:
    text = (PROJECT.root / document).read_text(encoding="utf-8")
    return sorted({span.strip() for span in CODE.findall(text) if PATH.match(span.strip()) and "/" in span})


@pytest.mark.parametrize("document", DOCUMENTS)
def test_every_dotted_name_of_the_code_a_document_gives_resolves(document: str) -> None:
    missing = [name for name in names(document) if not resolves(name)]
    assert not missing, f"{document} names code that does not exist: {missing}"


@pytest.mark.parametrize("document", DOCUMENTS)
def test_every_file_a_document_names_exists(document: str) -> None:
    def exists(path: str) -> bool:
        theme = PACKAGE / "website" / "extension"
        bases = (PROJECT.root, PACKAGE, theme, theme / "templates")  # the theme's files by their short path
        built = path.startswith("_build/")  # what the build writes, absent from a fresh checkout
        return any((base / path).exists() for base in bases) or "<" in path or "*" in path or built

    missing = [path for path in paths(document) if not exists(path)]
    assert not missing, f"{document} names files that do not exist: {missing}"


def test_the_check_finds_a_stale_name() -> None:
    assert resolves("pipeline.stages.bring_up_to_date") and not resolves("pipeline.book.build")
    assert not resolves("website.extension.tab_stops.THEME_VERSION")
    assert DOTTED.match("runtime.kernel.install()")
    assert not Path(PACKAGE / "pipeline" / "book.py").exists()


# Where the code's own prose is read: every Python file's docstrings, comments and strings, and these files whole.
PROSE_FILES = (
    "_config.yml",
    "Makefile",
    *sorted(path.relative_to(PROJECT.root).as_posix() for path in PROJECT.root.glob("chapters/*/alt_text.yml")),
)
PYTHON_FILES = sorted(
    path.relative_to(PROJECT.root).as_posix()
    for folder in ("booktools", "tests")
    for path in (PROJECT.root / folder).rglob("*.py")
    if "__pycache__" not in path.parts
)
QUALIFIED = re.compile(r"(?<![\w./])booktools(?:\.[A-Za-z_]\w*)+")
PACKAGE_PATH = re.compile(r"(?<![\w./-])booktools/(?:[\w.-]+/)*(?:[\w-]+\.py\b)?")
DOUBLE_BACKTICKS = re.compile(r"``([^`\n]+)``")


def prose(relative: str) -> list[tuple[int, str]]:
    """A file's prose, each piece with its first line: a Python file's comments and strings, else its lines."""
    text = (PROJECT.root / relative).read_text(encoding="utf-8")
    if not relative.endswith(".py"):
        return list(enumerate(text.splitlines(), start=1))
    kinds = {tokenize.COMMENT, tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
    return [
        (token.start[0], token.string)
        for token in tokenize.generate_tokens(io.StringIO(text).readline)
        if token.type in kinds
    ]


def stale_names(relative: str) -> list[str]:
    """Each name or path of booktools the prose of a file gives that does not exist, as ``line: name``."""
    stale = []
    for line, text in prose(relative):
        dotted = [match.group(0) for match in QUALIFIED.finditer(text)]
        for span in DOUBLE_BACKTICKS.findall(text):
            match = DOTTED.match(span.strip())
            if match and not FILE_SUFFIX.search(match.group(0)):
                dotted.append(match.group(0))
        stale += [f"{line}: {name}" for name in dotted if not resolves(name)]
        written = (match.group(0) for match in PACKAGE_PATH.finditer(text))
        stale += [f"{line}: {path}" for path in written if not (PROJECT.root / path).exists()]
    return stale


@pytest.mark.parametrize("relative", PYTHON_FILES + list(PROSE_FILES))
def test_every_name_of_booktools_the_prose_gives_exists(relative: str) -> None:
    stale = stale_names(relative)
    assert not stale, f"{relative} names code of booktools that does not exist: {stale}"


def test_the_prose_check_finds_stale_names_and_paths() -> None:
    # The stale names are put together here, so that this file's own prose names nothing stale.
    gone, moved, path = (
        "booktools" + ".website.build",
        "website.jupyter_book" + ".is_current",
        "booktools" + "/pipeline/book.py",
    )
    assert resolves("booktools.slides.d2lbook_run") and resolves("booktools.pipeline.stages.STAGES")
    assert not resolves(gone) and not resolves(f"booktools.{moved}")
    text = f"``{gone}`` and ``{moved}``, in {path}"
    assert QUALIFIED.findall(text) == [gone]
    assert [match.group(0) for match in PACKAGE_PATH.finditer(text)] == [path]
    assert [span for span in DOUBLE_BACKTICKS.findall(text) if DOTTED.match(span)] == [gone, moved]
