"""Framework marks of the source pages (booktools.sources.frameworks): which cell belongs to
which framework, the marks stripped, and the tab groups with each of their errors."""

from __future__ import annotations

import nbformat
import pytest
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_markdown_cell, new_raw_cell

from booktools.project import Project
from booktools.sources.frameworks import (
    FRAMEWORKS,
    NAMES,
    TabError,
    by_name,
    cell_frameworks,
    groups,
    is_tabbed,
    strip_marks,
)

EVERY = frozenset(NAMES)


def code(source: str, cell_id: str = "c") -> NotebookNode:
    """A code cell with the id ``cell_id``."""
    cell = new_code_cell(source)
    cell["id"] = cell_id
    return cell


def markdown(source: str, cell_id: str = "m") -> NotebookNode:
    """A markdown cell with the id ``cell_id``."""
    cell = new_markdown_cell(source)
    cell["id"] = cell_id
    return cell


def note(framework: str, text: str, cell_id: str = "n") -> NotebookNode:
    """A framework-only markdown cell, marked as d2lbook marks it."""
    return markdown(f":begin_tab:`{framework}`\n{text}\n:end_tab:", cell_id)


# The frameworks ---------------------------------------------------------------------


def test_three_frameworks_in_tab_order_with_their_module_and_extra():
    assert NAMES == ("pytorch", "jax", "tensorflow")
    assert [f.label for f in FRAMEWORKS] == ["PyTorch", "JAX", "TensorFlow"]
    assert [f.module for f in FRAMEWORKS] == ["torch", "jax", "tensorflow"]
    assert [f.extra for f in FRAMEWORKS] == ["torch", "jax", "tensorflow"]
    assert by_name("jax").label == "JAX"


def test_an_unknown_framework_name_is_refused():
    with pytest.raises(TabError, match=r"^unknown framework 'mxnet'; expected one of pytorch, jax, tensorflow$"):
        by_name("mxnet")


# cell_frameworks ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first_line", "expected"),
    [
        ("#@tab pytorch", {"pytorch"}),
        ("#@tab jax", {"jax"}),
        ("#@tab tensorflow", {"tensorflow"}),
        ("#@tab pytorch, jax", {"pytorch", "jax"}),
        ("#@tab jax,tensorflow ", {"jax", "tensorflow"}),
        ("#@tab all", set(NAMES)),
    ],
)
def test_a_code_cells_tab_line_names_its_frameworks(first_line: str, expected: set[str]):
    assert cell_frameworks(code(f"{first_line}\nx = 1")) == frozenset(expected)


def test_shared_markdown_belongs_to_no_framework_and_a_tab_note_to_its_own():
    assert cell_frameworks(markdown("## A heading\n\nProse.")) is None
    assert cell_frameworks(markdown(":end_tab: alone is plain text")) is None
    assert cell_frameworks(note("tensorflow", "Keras layers are callable.")) == frozenset({"tensorflow"})
    assert cell_frameworks(new_raw_cell("raw")) is None


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            "x = 1",
            r"cell c: a code cell must start with `#@tab <framework>` \(pytorch, jax, tensorflow or all\), "
            r"got 'x = 1'$",
        ),
        ("", r"cell c: a code cell must start with `#@tab <framework>` .*got ''$"),
        ("x = 1\n#@tab jax", r"cell c: a code cell must start with `#@tab <framework>`"),
        ("#@tab mxnet\nx = 1", r"^cell c: unknown framework 'mxnet'; expected one of pytorch, jax, tensorflow$"),
        ("#@tab pytorch, numpy\nx = 1", r"^cell c: unknown framework 'numpy'"),
    ],
)
def test_a_code_cell_without_a_valid_tab_line_is_an_error_naming_the_cell(source: str, message: str):
    with pytest.raises(TabError, match=message):
        cell_frameworks(code(source))


def test_a_tab_line_naming_no_framework_is_an_error_naming_the_cell():
    """``#@tab ,`` would otherwise put a cell in no framework's notebook and no module."""
    with pytest.raises(TabError, match=r"^cell c: "):
        cell_frameworks(code("#@tab ,\nx = 1"))


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("Prose first.\n:begin_tab:`jax`\nNote.\n:end_tab:", r"^cell m: :begin_tab: must be the cell's first line$"),
        (
            ":begin_tab:`jax`\nNote without an end.",
            r"^cell m: a cell opened by :begin_tab: must end with the line :end_tab:$",
        ),
        (":begin_tab:`mxnet`\nNote.\n:end_tab:", r"^cell m: unknown framework 'mxnet'"),
    ],
)
def test_a_malformed_tab_note_is_an_error_naming_the_cell(source: str, message: str):
    with pytest.raises(TabError, match=message):
        cell_frameworks(markdown(source))


def test_only_cells_of_some_frameworks_sit_in_tabs():
    assert is_tabbed(code("#@tab jax\nx = 1"))
    assert is_tabbed(code("#@tab pytorch, tensorflow\nx = 1"))
    assert is_tabbed(note("jax", "Note."))
    assert not is_tabbed(code("#@tab all\nx = 1"))
    assert not is_tabbed(markdown("Prose."))


# strip_marks -----------------------------------------------------------------------


def test_strip_marks_drops_the_tab_line_and_surrounding_blank_lines_only():
    cell = code("#@tab jax\n\nimport jax  #@save\n\nx = jax.numpy.ones(3)\n")
    assert strip_marks(cell) == "import jax  #@save\n\nx = jax.numpy.ones(3)"
    assert strip_marks(code("#@tab all\nprint('#@tab pytorch')")) == "print('#@tab pytorch')"


def test_strip_marks_unwraps_a_tab_note_and_leaves_shared_cells_alone():
    assert (
        strip_marks(note("jax", "JAX arrays are immutable.\n\nSo we copy."))
        == "JAX arrays are immutable.\n\nSo we copy."
    )
    shared = "## Heading\n\n:::{note}\nA note.\n:::"
    assert strip_marks(markdown(shared)) == shared
    # a code cell without a mark is returned as it is (cell_frameworks reports it)
    assert strip_marks(code("x = 1")) == "x = 1"


# groups -----------------------------------------------------------------------------


def page(*cells: NotebookNode) -> list[NotebookNode]:
    """The cells of a page, each given a unique id by position (``c0``, ``c1``, ...)."""
    for index, cell in enumerate(cells):
        cell["id"] = f"c{index}"
    return list(cells)


def test_groups_are_runs_of_consecutive_framework_cells():
    cells = page(
        markdown("# Title"),  # c0 shared
        code("#@tab all\nimport math"),  # c1 shared by all: no tabs
        code("#@tab pytorch\nx = 1"),  # c2 group 1
        note("jax", "A note."),  # c3
        code("#@tab jax\nx = 1"),  # c4
        code("#@tab tensorflow\nx = 1"),  # c5
        markdown("Prose."),  # c6 shared: ends the group
        code("#@tab pytorch, jax\nprint(x)"),  # c7 group 2
        code("#@tab tensorflow\nprint(x)"),  # c8
        code("#@tab all\nprint(math.pi)"),  # c9 ends group 2
        code("#@tab pytorch\ny = 2"),  # c10 group 3, at the end of the page
        code("#@tab jax\ny = 2"),  # c11
        code("#@tab tensorflow\ny = 2"),  # c12
    )
    assert groups(cells) == [[2, 3, 4, 5], [7, 8], [10, 11, 12]]


def test_a_page_without_framework_cells_has_no_groups():
    assert groups(page(markdown("# Title"), code("#@tab all\nx = 1"))) == []


def test_a_group_lacking_a_framework_is_an_error_naming_its_first_cell():
    cells = page(markdown("# Title"), code("#@tab pytorch\nx = 1"), code("#@tab jax\nx = 1"), markdown("End."))
    with pytest.raises(TabError, match=r"^cell c1: the tab group starting here has no cell for tensorflow$"):
        groups(cells)
    lone = page(markdown("# Title"), note("jax", "A note."))
    with pytest.raises(TabError, match=r"^cell c1: the tab group starting here has no cell for pytorch, tensorflow$"):
        groups(lone)


def test_a_shared_cell_splits_a_group_so_both_halves_are_incomplete():
    cells = page(
        code("#@tab pytorch\nx = 1"),
        code("#@tab all\nx = 1"),
        code("#@tab jax\nx = 1"),
        code("#@tab tensorflow\nx = 1"),
    )
    with pytest.raises(TabError, match=r"^cell c0: .*no cell for jax, tensorflow$"):
        groups(cells)


@pytest.mark.parametrize(
    "order",
    [
        ("jax", "pytorch", "tensorflow"),
        ("pytorch", "tensorflow", "jax"),
        ("pytorch", "jax", "pytorch", "tensorflow"),
    ],
)
def test_a_group_out_of_framework_order_is_an_error_naming_its_first_cell(order: tuple[str, ...]):
    cells = page(markdown("# Title"), *(code(f"#@tab {name}\nx = 1") for name in order))
    with pytest.raises(
        TabError,
        match=r"^cell c1: the cells of a tab group must come in the order "
        r"pytorch, jax, tensorflow$",
    ):
        groups(cells)


def test_a_malformed_cell_inside_a_page_fails_groups():
    with pytest.raises(TabError, match=r"^cell c1: a code cell must start with `#@tab"):
        groups(page(markdown("# Title"), code("x = 1")))


def test_every_page_of_every_edition_has_valid_marks_and_complete_groups(project: Project):
    for language in project.editions():
        for path in project.source_pages(language):
            cells = nbformat.read(path, as_version=4).cells
            try:
                groups(cells)
            except TabError as error:
                pytest.fail(f"{project.relative(path)}: {error}")
