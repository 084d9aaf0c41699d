"""``booktools.project.Project`` (paths, configuration) and ``booktools.derive.provenance`` (library headers)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from sphinx_external_toc.api import Document
from sphinx_external_toc.parsing import parse_toc_data

from booktools.configuration.schema import ConfigError
from booktools.configuration.toc import reading_order
from booktools.derive.provenance import Provenance, header, read_headers
from booktools.project import BUILD_INPUTS, Project
from booktools.sources.myst import Heading, headings

PROJECT = Project.here()
NESTED_TOC = """\
format: jb-book
root: chapters/en/index
parts:
  - caption: One
    chapters:
      - file: chapters/en/a
        sections:
          - file: chapters/en/a1
  - caption: Two
    chapters:
      - file: chapters/en/b
"""


def _book(tmp_path: Path, toc: str, pages: list[str]) -> Project:
    shutil.copy2(PROJECT.config_file, tmp_path / "_config.yml")
    (tmp_path / "_toc.yml").write_text(toc, encoding="utf-8")
    for language in ("en", "id", "ko"):
        folder = tmp_path / "chapters" / language
        folder.mkdir(parents=True)
        for page in pages:
            (folder / f"{page}.md").write_text(f"# {page}\n", encoding="utf-8")
    return Project(tmp_path)


def test_the_reading_order_follows_parts_chapters_and_sections_as_jupyter_book_reads_them(tmp_path: Path) -> None:
    project = _book(tmp_path, NESTED_TOC, ["index", "a", "a1", "b"])
    assert project.toc_entries() == ["chapters/en/index", "chapters/en/a", "chapters/en/a1", "chapters/en/b"]
    assert [path.name for path in project.pages("ko")] == ["index.md", "a.md", "a1.md", "b.md"]


def _as_jupyter_book_reads(toc: str) -> list[str]:
    """The documents of a table of contents in the order sphinx-external-toc (Jupyter Book 1's reader) walks them."""
    site_map = parse_toc_data(yaml.safe_load(toc))

    def walk(document: Document) -> list[str]:
        names = [document.docname]
        for tree in document.subtrees:
            names += [name for item in tree.items if isinstance(item, str) for name in walk(site_map[item])]
        return names

    return walk(site_map.root)


@pytest.mark.parametrize("toc", [NESTED_TOC, PROJECT.toc_file.read_text(encoding="utf-8")], ids=["nested", "book"])
def test_the_plain_yaml_reading_order_is_jupyter_book_s(toc: str) -> None:
    assert reading_order(yaml.safe_load(toc), "_toc.yml") == _as_jupyter_book_reads(toc)


@pytest.mark.parametrize(
    ("toc", "message"),
    [
        ("format: jb-article\nroot: a\n", "_toc.yml: format: expected 'jb-book'"),
        ("format: jb-book\nchapters:\n  - file: b\n", "_toc.yml: missing key 'root'"),
        ("format: jb-book\nroot: a\nchapters:\n  - glob: b*\n", "_toc.yml: chapters[0]: unknown key 'glob'"),
        (
            "format: jb-book\nroot: a\nparts:\n  - chapters:\n      - file: b\n        sections:\n          - fil: c\n",
            "_toc.yml: parts[0].chapters[0].sections[0]: unknown key 'fil' (did you mean 'file'?)",
        ),
        ("format: jb-book\nroot: a\nchapters:\n  - title: B\n", "_toc.yml: chapters[0]: expected either `file`"),
        ("format: jb-book\nroot: a\nchapters:\n  - url: https://x\n    sections:\n      - file: c\n", "holds no"),
        (
            "format: jb-book\nroot: a\nchapters:\n  - file: b\nparts:\n  - chapters:\n      - file: c\n",
            "_toc.yml: expected `chapters` or `parts`",
        ),
    ],
)
def test_a_toc_of_a_shape_the_reader_does_not_know_is_refused_naming_the_entry(toc: str, message: str) -> None:
    with pytest.raises(ConfigError) as refused:
        reading_order(yaml.safe_load(toc), "_toc.yml")
    assert message in str(refused.value), str(refused.value)


def test_a_link_in_the_toc_is_no_page(tmp_path: Path) -> None:
    toc = NESTED_TOC.replace(
        "      - file: chapters/en/b\n", "      - file: chapters/en/b\n      - url: https://d2l.ai\n"
    )
    project = _book(tmp_path, toc, ["index", "a", "a1", "b"])
    assert project.toc_entries()[-1] == "chapters/en/b"


def test_a_page_an_edition_lacks_is_named(tmp_path: Path) -> None:
    project = _book(tmp_path, NESTED_TOC, ["index", "a", "a1", "b"])
    (tmp_path / "chapters" / "id" / "a1.md").unlink()
    with pytest.raises(FileNotFoundError, match=r"_toc.yml names chapters/en/a1, but chapters/id/a1.ipynb/.md"):
        project.pages("id")


def test_a_toc_entry_outside_the_english_edition_is_refused(tmp_path: Path) -> None:
    project = _book(tmp_path, NESTED_TOC.replace("chapters/en/b", "notes/b"), ["index", "a", "a1"])
    with pytest.raises(ValueError, match="'notes/b' is not under chapters/en/"):
        project.pages()


def test_the_real_book_reads_in_its_order_in_every_edition() -> None:
    names = [path.name for path in PROJECT.pages()]
    assert names[0] == "index.md" and "attention-scoring-functions.ipynb" in names
    for language in PROJECT.editions():
        assert [path.name for path in PROJECT.pages(language)] == names, language


def test_every_path_is_under_the_root_and_the_build_inputs_exist() -> None:
    paths = [PROJECT.chapters, PROJECT.library_dir, PROJECT.notebooks_dir, PROJECT.site_dir, PROJECT.work_dir("x")]
    assert all(path.is_relative_to(PROJECT.root) for path in paths)
    assert [PROJECT.relative(path) for path in PROJECT.build_inputs()] == list(BUILD_INPUTS)
    assert PROJECT.language_of(PROJECT.edition_dir("ko") / "index.md") == "ko"


def test_a_provenance_header_reads_back_as_it_was_written() -> None:
    written = Provenance("chapters/en/attention-scoring-functions.ipynb", "masked-softmax", "Masked (Softmax)", "s_x")
    text = "import torch\n" + header(written) + "def f():\n    pass\n"
    assert read_headers(text) == [(2, written)]
    assert written.page == "attention-scoring-functions"


def test_the_library_s_headers_name_a_page_and_a_section_of_the_book() -> None:
    for module in ("torch.py", "jax.py", "tensorflow.py"):
        found = read_headers((PROJECT.library_dir / module).read_text(encoding="utf-8"))
        assert found, module
        assert {item.page for _, item in found} <= {path.stem for path in PROJECT.source_pages()}


def test_headings_and_their_labels_come_from_the_myst_parser() -> None:
    text = "(sec_a)=\n# A\n\nText with # no heading.\n\n```python\n# a comment\n```\n\n## B *b*\n\n(sec_c)=\n### C"
    assert headings(text) == [Heading(1, "A", "sec_a"), Heading(2, "B *b*"), Heading(3, "C", "sec_c")]
