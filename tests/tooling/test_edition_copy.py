"""The renderable copy of a source page (booktools.website.edition_copy): framework cells marked for
the tabs, tab notes wrapped in a container, ``#@tab all`` cells shown once."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import nbformat
import pytest

from booktools.project import Project
from booktools.sources.frameworks import TabError
from booktools.website.edition_copy import book_notebook, write_edition_sources

PROJECT = Project.here()


def scratch_edition(root: Path) -> Path:
    """``chapters/en/`` of a scratch project under ``root``, with the real configuration and English strings."""
    scratch = Project(root)
    scratch.edition_dir("en").mkdir(parents=True)
    shutil.copy2(PROJECT.config_file, scratch.config_file)
    shutil.copy2(PROJECT.strings_file("en"), scratch.strings_file("en"))
    return scratch.edition_dir("en")


def by_id(notebook: nbformat.NotebookNode) -> dict[str, nbformat.NotebookNode]:
    return {cell.id: cell for cell in notebook.cells}


def test_framework_code_cells_lose_their_mark_and_gain_a_tag_per_framework(tabbed_notebook):
    cells = by_id(book_notebook(tabbed_notebook))
    assert cells["double"].source == "def double(x):  #@save\n    return SCALE * x"
    assert cells["double"].metadata["tags"] == ["hide-input", "d2l-tab-pytorch"]  # its own tags kept
    assert cells["double-jax"].metadata["tags"] == ["d2l-tab-jax"]
    assert cells["double-tf"].metadata["tags"] == ["d2l-tab-tensorflow"]
    assert cells["pair"].metadata["tags"] == ["d2l-tab-pytorch", "d2l-tab-jax"]
    assert cells["double-jax"].outputs == tabbed_notebook.cells[4].outputs


def test_a_cell_for_every_framework_is_shown_once_outside_the_tabs(tabbed_notebook):
    rendered = book_notebook(tabbed_notebook)
    assert [cell.id for cell in rendered.cells] == [cell.id for cell in tabbed_notebook.cells]
    cells = by_id(rendered)
    for cell_id in ("setup", "shared-print"):
        assert not cells[cell_id].source.startswith("#@tab")
        assert "tags" not in cells[cell_id].metadata
    assert cells["setup"].source == "import math  #@save\n\nSCALE = 2  #@save"


def test_shared_markdown_is_left_as_it_is(tabbed_notebook):
    cells = by_id(book_notebook(tabbed_notebook))
    for cell in tabbed_notebook.cells:
        if cell.cell_type == "markdown" and not cell.source.startswith(":begin_tab:"):
            assert cells[cell.id].source == cell.source


def test_a_tab_note_is_wrapped_in_a_container_of_its_framework(tabbed_notebook):
    cells = by_id(book_notebook(tabbed_notebook))
    assert cells["note-jax"].source == (
        "::::{container} d2l-tab-jax\nJAX arrays are immutable.\n\n:::{note}\nA fenced note.\n:::\n::::"
    )
    assert "tags" not in cells["note-jax"].metadata


@pytest.mark.parametrize(("inner", "outer"), [(None, 4), (3, 4), (4, 5), (6, 7)])
def test_the_containers_fence_is_longer_than_any_colon_fence_inside(tabbed_notebook, inner: int | None, outer: int):
    body = "Plain text." if inner is None else f"{':' * inner}{{note}}\nInside.\n{':' * inner}"
    tabbed_notebook.cells[3].source = f":begin_tab:`jax`\n{body}\n:end_tab:"
    source = by_id(book_notebook(tabbed_notebook))["note-jax"].source
    first, *middle, last = source.splitlines()
    assert first == f"{':' * outer}{{container}} d2l-tab-jax" and last == ":" * outer
    assert "\n".join(middle) == body
    assert all(len(line) - len(line.lstrip(":")) < outer for line in middle)


def test_the_source_notebook_is_not_changed(tabbed_notebook):
    before = copy.deepcopy(tabbed_notebook)
    book_notebook(tabbed_notebook)
    assert tabbed_notebook == before


def test_a_malformed_group_is_refused_naming_page_and_cell(tabbed_notebook):
    tabbed_notebook.cells = [cell for cell in tabbed_notebook.cells if cell.id not in ("note-jax", "double-jax")]
    with pytest.raises(
        TabError, match=r"^chapters/en/tabs\.ipynb, cell double: the tab group starting here has no cell for jax$"
    ):
        book_notebook(tabbed_notebook, "chapters/en/tabs.ipynb")


def test_the_edition_copy_keeps_the_layout_so_relative_figure_paths_work(synthetic_book: Path, tmp_path: Path):
    target_root = tmp_path / "src"
    (target_root / "stale").mkdir(parents=True)
    folder = write_edition_sources(synthetic_book / "chapters" / "en", target_root, Project(synthetic_book))
    assert folder == target_root / "chapters" / "en"
    assert sorted(path.name for path in folder.iterdir()) == [
        "api.md",
        "index.md",
        "tabs.ipynb",
    ]  # api.md: booktools.website.api_page
    assert not (target_root / "stale").exists()
    assert (folder / "index.md").read_bytes() == (synthetic_book / "chapters/en/index.md").read_bytes()
    assert (folder / "../../img/attention-output.svg").resolve().is_file()
    written = nbformat.read(folder / "tabs.ipynb", as_version=4)
    assert written == book_notebook(nbformat.read(synthetic_book / "chapters/en/tabs.ipynb", as_version=4))


def test_slide_marks_are_stripped_from_markdown_and_kept_in_code():
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell(
            "## [**Scores**]\n\n[**A score**] is (**a\nnumber**).[~~ Slides only~~](~~ too~~)"
        ),
        nbformat.v4.new_markdown_cell(":begin_tab:`pytorch`\nx\n:end_tab:"),
        nbformat.v4.new_markdown_cell(":begin_tab:`jax`\n[**JAX keys**] are explicit.\n:end_tab:"),
        nbformat.v4.new_markdown_cell(":begin_tab:`tensorflow`\ny\n:end_tab:"),
        nbformat.v4.new_code_cell("#@tab all\nf(**{'a': 1})  # [**kept**]"),
    ]
    rendered = book_notebook(notebook)
    assert rendered.cells[0].source == "## Scores\n\nA score is a\nnumber."
    assert "JAX keys are explicit." in rendered.cells[2].source
    assert rendered.cells[4].source == "f(**{'a': 1})  # [**kept**]"
    for cell in rendered.cells[:4]:
        assert "[**" not in cell.source and "(**" not in cell.source and "~~" not in cell.source


def test_slide_marks_are_stripped_from_markdown_pages(tmp_path):
    source = scratch_edition(tmp_path)
    (source / "index.md").write_text("# [**Book**]\n\n(**Welcome**)[~~ to the slides~~].\n", encoding="utf-8")
    target = write_edition_sources(source, tmp_path / "out", Project(tmp_path))
    assert (target / "index.md").read_text(encoding="utf-8") == "# Book\n\nWelcome.\n"


def test_a_page_with_slide_marks_links_its_decks_after_its_title(tmp_path):
    source = scratch_edition(tmp_path)
    marked = nbformat.v4.new_notebook()
    marked.cells = [
        nbformat.v4.new_markdown_cell("(sec_x)=\n# Title\n\n[**Key idea**]."),
        nbformat.v4.new_markdown_cell("More."),
    ]
    plain = nbformat.v4.new_notebook()
    plain.cells = [nbformat.v4.new_markdown_cell("# Plain\n\nNo slides.")]
    nbformat.write(marked, source / "marked.ipynb")
    nbformat.write(plain, source / "plain.ipynb")
    target = write_edition_sources(source, tmp_path / "out", Project(tmp_path))
    cells = nbformat.read(target / "marked.ipynb", as_version=4).cells
    assert [cell.id for cell in cells][1] == "d2l-slides-link"
    for framework in ("pytorch", "jax", "tensorflow"):
        assert f'href="slides/marked-{framework}.html"' in cells[1].source
    assert len(nbformat.read(target / "plain.ipynb", as_version=4).cells) == 1
