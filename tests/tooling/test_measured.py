"""Measured figures quoted in the prose (``booktools.sources.measured``): placeholders read,
figures read from the stored outputs and written in the edition's number format, every
fault a loud error naming page, cell and placeholder; and the derived notebooks with the
figures written in, following the stored measurement."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_output

from booktools.derive import notebooks as derive
from booktools.project import Project
from booktools.sources.frameworks import by_name
from booktools.sources.measured import (
    MeasuredError,
    fill_page,
    is_figures_output,
    placeholders,
    recorded_figures,
    without_placeholders,
    write_number,
)
from booktools.sources.mime_types import FIGURES_MIME
from booktools.sources.strings import NumberStrings, load_strings

PROJECT = Project.here()
ENGLISH = NumberStrings(decimal=".", thousands=",")
INDONESIAN = NumberStrings(decimal=",", thousands=".")
PAGE = "chapters/en/page.ipynb"


def figures_output(figures: object) -> nbformat.NotebookNode:
    return new_output("display_data", data={FIGURES_MIME: figures})


def code(cell_id: str, source: str, *outputs: nbformat.NotebookNode) -> nbformat.NotebookNode:
    cell = new_code_cell(source)
    cell["id"] = cell_id
    cell.outputs = list(outputs)
    return cell


def markdown(cell_id: str, source: str) -> nbformat.NotebookNode:
    cell = new_markdown_cell(source)
    cell["id"] = cell_id
    return cell


def page(*cells: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    """A page whose cell ``timing`` (``#@tab all``) recorded ``small`` and ``large``, then ``cells``."""
    timing = code(
        "timing",
        "#@tab all\nrecord_figures(small=a, large=b)",
        new_output("stream", name="stdout", text="1.23x\n"),
        figures_output({"small": 1.234, "large": 12345.678}),
    )
    return [markdown("title", "# Title"), timing, *cells]


# Placeholders ------------------------------------------------------------------------------


def test_placeholders_are_read_in_order_with_cell_name_and_format():
    text = "Fused is {measured}`fused-timing.small:.2f` times, then {measured}`fused-timing.ratio_2:,.0f`."
    found = placeholders(text)
    assert [(p.cell, p.name, p.spec) for p in found] == [
        ("fused-timing", "small", ".2f"),
        ("fused-timing", "ratio_2", ",.0f"),
    ]
    assert [p.key for p in found] == ["fused-timing.small:.2f", "fused-timing.ratio_2:,.0f"]
    assert text[found[0].start : found[0].end] == found[0].text == "{measured}`fused-timing.small:.2f`"


@pytest.mark.parametrize(
    "text",
    [
        "{measured} without its content",
        "{measured}`fused-timing.small`",  # no format
        "{measured}`fused-timing:.2f`",  # no name
        "{measured}`fused-timing.Small:.2f`",  # a name is lower case
        "{measured}`fused timing.small:.2f`",  # no spaces in an id
        "{measured}`fused-timing.small:`",
        "{measured}`fused-timing.small:d`",  # not a format of a float
        "{measured}`fused-timing.small:.2n`",  # the locale's format, not the edition's
        "{measured}`fused-timing.small:.2q`",
    ],
)
def test_a_malformed_placeholder_is_an_error_quoting_it(text: str):
    with pytest.raises(MeasuredError, match="{measured}"):
        placeholders(text)


def test_text_without_the_role_has_no_placeholders_and_the_checker_reads_them_as_numbers():
    assert placeholders("A `{measured}`-free text, $x$.".replace("{measured}", "measured")) == []
    assert without_placeholders("is {measured}`query-key.small:.2f` times") == "is 0 times"


# The edition's number format ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "spec", "english", "indonesian"),
    [
        (1234.5, ",.1f", "1,234.5", "1.234,5"),
        (0.5, ".2f", "0.50", "0,50"),
        (1234567.0, ",.0f", "1,234,567", "1.234.567"),
        (0.237, ".0%", "24%", "24%"),
        (0.2375, ".1%", "23.8%", "23,8%"),
        (-3.25, ".1f", "-3.2", "-3,2"),
    ],
)
def test_a_figure_is_written_in_the_editions_number_format(value: float, spec: str, english: str, indonesian: str):
    assert write_number(value, spec, ENGLISH) == english
    assert write_number(value, spec, INDONESIAN) == indonesian


def test_each_edition_states_its_number_format_in_its_strings():
    assert load_strings(PROJECT, "en").numbers == ENGLISH
    assert load_strings(PROJECT, "ko").numbers == ENGLISH
    assert load_strings(PROJECT, "id").numbers == INDONESIAN


# Recorded figures ---------------------------------------------------------------------------------


def test_figures_are_read_from_the_record_not_from_printed_text():
    outputs = [new_output("stream", name="stdout", text="small: 9.99\n"), figures_output({"small": 1.5, "n": 3})]
    assert recorded_figures(outputs, "here") == {"small": 1.5, "n": 3.0}
    assert is_figures_output(outputs[1]) and not is_figures_output(outputs[0])
    both = new_output("display_data", data={FIGURES_MIME: {"small": 1.5}, "text/plain": "{...}"})
    assert not is_figures_output(both)  # a record is a display whose only MIME type is the figures'


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ([1.5], "not a JSON object"),
        ({"Small": 1.5}, "'Small' is not a name"),
        ({"small": "1.5"}, "is '1.5', not a number"),
        ({"small": True}, "is True, not a number"),
    ],
)
def test_a_malformed_record_is_an_error_naming_the_cell(data: object, problem: str):
    with pytest.raises(MeasuredError, match=f"page.ipynb, cell timing: .*{problem}"):
        recorded_figures([figures_output(data)], "page.ipynb, cell timing")


def test_a_figure_recorded_twice_is_an_error():
    with pytest.raises(MeasuredError, match="'small' is recorded twice"):
        recorded_figures([figures_output({"small": 1}), figures_output({"small": 2})], "here")


# Filling a page -------------------------------------------------------------------------------------------


def test_a_page_gets_its_figures_in_the_editions_format():
    quote = "Small {measured}`timing.small:.2f`, large {measured}`timing.large:,.1f`."
    english, indonesian = page(markdown("quote", quote)), page(markdown("quote", quote))
    fill_page(english, ENGLISH, PAGE)
    fill_page(indonesian, INDONESIAN, PAGE)
    assert english[-1].source == "Small 1.23, large 12,345.7."
    assert indonesian[-1].source == "Small 1,23, large 12.345,7."
    assert english[1].outputs[1].data[FIGURES_MIME] == {"small": 1.234, "large": 12345.678}  # the record stays


@pytest.mark.parametrize(
    ("cells", "problem"),
    [
        ([markdown("quote", "{measured}`timeing.small:.2f`")], "the page has no code cell with id 'timeing'"),
        ([markdown("quote", "{measured}`title.small:.2f`")], "the page has no code cell with id 'title'"),
        ([markdown("quote", "{measured}`timing.medium:.2f`")], "recorded no figure 'medium' .it recorded large, small"),
        (
            [code("plain", "#@tab all\nprint(1)"), markdown("quote", "{measured}`plain.small:.2f`")],
            "cell 'plain' recorded no figures",
        ),
        ([markdown("quote", "{measured}`timing.small`")], "is malformed"),
    ],
)
def test_a_placeholder_that_cannot_be_filled_names_page_cell_and_placeholder(cells: list, problem: str):
    with pytest.raises(MeasuredError, match=rf"^chapters/en/page\.ipynb, cell quote: .*{{measured}}.*{problem}"):
        fill_page(page(*cells), ENGLISH, PAGE)


def test_markdown_of_one_framework_quotes_only_that_frameworks_cells():
    def cells(quoting: str) -> list[nbformat.NotebookNode]:
        return [
            code("torch-timing", "#@tab pytorch\nrecord_figures(small=a)", figures_output({"small": 1.0})),
            markdown("quote", f":begin_tab:`jax`\nJAX: {{measured}}`{quoting}.small:.1f`.\n:end_tab:"),
            code("jax-timing", "#@tab jax\nrecord_figures(small=a)", figures_output({"small": 2.0})),
            code("tf-timing", "#@tab tensorflow\nrecord_figures(small=a)", figures_output({"small": 3.0})),
            markdown("shared", "PyTorch: {measured}`torch-timing.small:.1f`."),
        ]

    def text(cells: list[nbformat.NotebookNode], cell_id: str) -> str:
        return next(cell.source for cell in cells if cell.id == cell_id)

    allowed = page(*cells("jax-timing"))
    fill_page(allowed, ENGLISH, PAGE)
    assert "JAX: 2.0." in text(allowed, "quote") and text(allowed, "shared") == "PyTorch: 1.0."
    shared = page(*cells("timing"))  # a cell of every framework
    fill_page(shared, ENGLISH, PAGE)
    assert "JAX: 1.2." in text(shared, "quote")
    with pytest.raises(
        MeasuredError, match="cell quote: .*markdown of jax quotes cell 'tf-timing', which is tensorflow"
    ):
        fill_page(page(*cells("tf-timing")), ENGLISH, PAGE)


# Derived notebooks --------------------------------------------------------------------------------------------------


def run_notebooks(book: Path, *args: str) -> subprocess.CompletedProcess:
    """``python -m booktools --root <book> <args>`` with the book's own copy of booktools."""
    return subprocess.run(
        [sys.executable, "-m", "booktools", "--root", str(book), *args],
        cwd=book,
        env={"PYTHONPATH": str(book), "PATH": ""},
        capture_output=True,
        text=True,
        check=False,
    )


def derived_quote(book: Path, language: str, framework: str = "jax") -> str:
    """The text of cell ``quote`` in the derived notebook of the synthetic page."""
    path = Project(book).notebooks_dir / language / framework / "tabs.ipynb"
    return next(cell.source for cell in nbformat.read(path, as_version=4).cells if cell.id == "quote")


def test_the_derived_notebooks_follow_the_stored_measurement(synthetic_book: Path, measure_synthetic):
    measure_synthetic(synthetic_book, {"speedup": 1234.5})
    assert run_notebooks(synthetic_book, "notebooks").returncode == 0
    assert derived_quote(synthetic_book, "en") == "Speedup: 1,234.50."
    assert derived_quote(synthetic_book, "id") == "Speedup: 1.234,50."
    # the record of figures stays in the derived notebook: Jupyter and Colab show nothing for it
    derived = derive.derive(synthetic_book / "chapters/en/tabs.ipynb", by_name("pytorch"), Project(synthetic_book))
    timing = next(cell for cell in derived.cells if cell.id == "speed-timing")
    assert [is_figures_output(output) for output in timing.outputs] == [True]

    measure_synthetic(synthetic_book, {"speedup": 2.5})  # a new run of make outputs
    checked = run_notebooks(synthetic_book, "notebooks", "--check")
    assert checked.returncode == 1 and "notebooks/en/jax/tabs.ipynb differs" in checked.stderr
    assert run_notebooks(synthetic_book, "notebooks").returncode == 0
    assert derived_quote(synthetic_book, "en", "tensorflow") == "Speedup: 2.50."
    assert derived_quote(synthetic_book, "id", "tensorflow") == "Speedup: 2,50."


def test_make_outputs_derives_the_code_to_run_without_figures_to_quote(synthetic_book: Path, measure_synthetic):
    measure_synthetic(synthetic_book, {"speedup": 2.0})
    path = synthetic_book / "chapters/en/tabs.ipynb"
    notebook = nbformat.read(path, as_version=4)
    next(cell for cell in notebook.cells if cell.id == "speed-timing").outputs = []  # not run yet
    nbformat.write(notebook, path)
    with pytest.raises(MeasuredError):
        derive.derive(path, by_name("jax"), Project(synthetic_book))
    unfilled = derive.derive(path, by_name("jax"), Project(synthetic_book), figures=False)
    assert "{measured}`speed-timing.speedup:,.2f`" in next(c.source for c in unfilled.cells if c.id == "quote")


@pytest.mark.parametrize("verb", [["notebooks"], ["check"]])
def test_an_unknown_figure_fails_notebooks_and_check_naming_page_cell_and_placeholder(
    synthetic_book: Path, measure_synthetic, verb: list[str]
):
    measure_synthetic(synthetic_book, {"speedup": 2.0})
    assert run_notebooks(synthetic_book, "notebooks").returncode == 0
    measure_synthetic(synthetic_book, {"slowdown": 0.5}, languages=("id",))
    result = run_notebooks(synthetic_book, *verb)
    assert result.returncode != 0
    assert (
        "chapters/id/tabs.ipynb, cell quote: {measured}`speed-timing.speedup:,.2f`: "
        "cell 'speed-timing' recorded no figure 'speedup' (it recorded slowdown)"
    ) in result.stderr


def test_the_slides_show_the_figures_in_the_prose_and_nothing_of_the_record():
    from booktools.slides.lecture import lecture_cells

    cells = [code("timing", "#@tab all\nrecord_figures(small=a)", figures_output({"small": 1.0}))]
    printed = new_output("stream", name="stdout", text="1.00x\n")
    cells.append(code("timing-printed", "#@tab all\nprint(a)", printed, figures_output({"large": 2.0})))
    kept = lecture_cells(cells)
    assert not any(is_figures_output(output) for cell in kept for output in cell.outputs)
    assert kept[1].outputs == [printed]
