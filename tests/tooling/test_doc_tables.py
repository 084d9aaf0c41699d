"""docs/architecture.md's generated tables are what the code renders now (booktools.code_facts.tables, ``make docs``).

The verb, stage, module, bar and upstream tables, and the trace of ``make book``, are rendered from the entry
point's ``VERBS``, ``STAGES`` (with each stage's run function), the packages' maps, the bars' constants and
``UPSTREAM``: a verb, stage, module or tool added, moved or removed fails here, named, until ``make docs`` writes
the document again.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from booktools.__main__ import VERBS
from booktools.code_facts import tables as doc_tables
from booktools.pipeline.graph import ordered
from booktools.pipeline.stages import STAGES
from booktools.project import Project

PROJECT = Project.here()


def test_every_generated_block_is_current() -> None:
    text = (PROJECT.root / doc_tables.DOCUMENT).read_text(encoding="utf-8")
    _, stale = doc_tables.rendered(text, PROJECT, VERBS)
    assert not stale, f"{doc_tables.DOCUMENT}: stale generated blocks {stale} (run make docs)"


@pytest.fixture
def document_copy(tmp_path: Path) -> Project:
    """A book root with the document, the Makefile, the configuration, the chapters and booktools of this checkout."""
    for name in (doc_tables.DOCUMENT, "Makefile", "_config.yml", "_toc.yml"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(PROJECT.root / name, tmp_path / name)
    for folder in (PROJECT.chapters, *PROJECT.shared_folders()):
        shutil.copytree(folder, tmp_path / folder.name)
    # The stage table names each stage's code, found as files under the book's root.
    shutil.copytree(PROJECT.root / "booktools", tmp_path / "booktools", ignore=shutil.ignore_patterns("__pycache__"))
    return Project(tmp_path)


def test_a_stale_block_is_named_and_make_docs_rewrites_it(document_copy: Project, capsys) -> None:
    path = document_copy.root / doc_tables.DOCUMENT
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("| `lib` |", "| `library` |", 1), encoding="utf-8")
    assert doc_tables.run(document_copy, VERBS, check=True) == 1
    assert "the generated block 'verbs' is stale" in capsys.readouterr().err
    assert doc_tables.run(document_copy, VERBS) == 0
    assert path.read_text(encoding="utf-8") == text
    assert doc_tables.run(document_copy, VERBS, check=True) == 0


def test_a_missing_or_unknown_block_is_an_error(document_copy: Project, capsys) -> None:
    path = document_copy.root / doc_tables.DOCUMENT
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("<!-- generated: bars -->", "<!-- generated: barz -->"), encoding="utf-8")
    assert doc_tables.run(document_copy, VERBS) == 1
    assert "unknown ['barz'], missing ['bars']" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") != text  # nothing written


def test_the_tables_name_every_verb_module_and_stage() -> None:
    text = (PROJECT.root / doc_tables.DOCUMENT).read_text(encoding="utf-8")
    for verb in VERBS:
        assert f"| `{verb.name}` |" in text
    package = PROJECT.root / "booktools"
    for path in package.rglob("*.py"):
        relative = path.relative_to(package)
        name = f"{relative.parent.as_posix()}/" if path.name == "__init__.py" else relative.as_posix()
        if name != "./":
            assert f"| `{name}` |" in text, f"{doc_tables.DOCUMENT}'s module table lacks {name}"


def test_the_trace_of_make_book_is_each_stage_s_run_in_the_order_they_run() -> None:
    lines = doc_tables.trace(PROJECT).splitlines()
    assert "`root`, `notebooks`" in lines[0]
    assert len(lines) == 1 + len(STAGES)
    for number, (line, stage) in enumerate(zip(lines[1:], ordered(STAGES), strict=True), 1):
        assert line.startswith(f"{number}. `{stage.name}` ("), line
        assert stage.run.__doc__, f"{stage.run.__name__} says nothing for the trace"
        job = doc_tables.markdown(stage.run.__doc__.split("\n\n")[0])
        assert line.endswith(f"`pipeline.stage_runs.{stage.run.__name__}` → {job}"), line
    assert lines[-1].startswith(f"{len(STAGES)}. `audit` (once, only for `make audit`)")
    assert doc_tables.trace(PROJECT) in (PROJECT.root / doc_tables.DOCUMENT).read_text(encoding="utf-8")


def test_a_docstring_literal_becomes_a_markdown_code_span() -> None:
    assert doc_tables.markdown("the ``#@save`` cells -> ``d2l_lib/<framework>.py``") == (
        "the `#@save` cells -> `d2l_lib/<framework>.py`"
    )
    assert doc_tables.markdown("quotes (``{measured}`CELL-ID.NAME:FORMAT```)") == (
        "quotes (`` {measured}`CELL-ID.NAME:FORMAT` ``)"
    )
    assert doc_tables.markdown(":class:`~booktools.project.Project`, a | b") == "`booktools.project.Project`, a \\| b"
