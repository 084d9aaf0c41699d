"""The names the documents give the code exist: a renamed module or function cannot leave a document pointing nowhere.

Every name in backticks in ``README.md`` and ``docs/architecture.md`` that looks like code of booktools (a dotted
name starting with one of its packages or modules, as ``pipeline.stages.bring_up_to_date(project)`` or
``booktools.website.extension.page_steps``) must import and resolve, attribute by attribute; every file path
(``booktools/sources/new_page.py``, ``runtime/kernel.py``, ``tests/tooling/test_pipeline.py``) must exist, from the
book's root, from ``booktools/`` or, for the theme's templates, from ``booktools/website/extension/``.
"""

from __future__ import annotations

import importlib
import re
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


def resolves(dotted: str) -> bool:
    """Whether ``booktools.<dotted>`` is a module, or an attribute chain of one."""
    parts = dotted.removeprefix("booktools.").split(".")
    for split in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(["booktools", *parts[:split]]))
        except ModuleNotFoundError:
            continue
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
        return any((base / path).exists() for base in bases) or "<" in path or "*" in path

    missing = [path for path in paths(document) if not exists(path)]
    assert not missing, f"{document} names files that do not exist: {missing}"


def test_the_check_finds_a_stale_name() -> None:
    assert resolves("pipeline.stages.bring_up_to_date") and not resolves("pipeline.book.build")
    assert not resolves("website.extension.tab_stops.THEME_VERSION")
    assert DOTTED.match("runtime.kernel.install()")
    assert not Path(PACKAGE / "pipeline" / "book.py").exists()
