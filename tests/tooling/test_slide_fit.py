"""Slides that fit (``booktools.slides.fit``) and titles d2lbook keeps (``slide_marks.titles_inside_marks``).

Without d2lbook or a browser: synthetic slide cells are split where a slide would be too tall,
long code at its statements, a statement taller than a slide left out and named, a long
printed output shortened, and a marked heading keeps its ``#`` inside the mark.
``tests/book/test_slide_layout.py`` checks the real decks in Chromium.
"""

from __future__ import annotations

import base64
import struct
import zlib

from nbformat.v4 import new_code_cell, new_markdown_cell, new_output

from booktools.slides.fit import ELLIPSIS, METRICS, fit_slides, statement_blocks
from booktools.sources.slide_marks import mark_kinds, strip_slide_marks, titles_inside_marks


def slide(cell):
    cell.metadata["slideshow"] = {"slide_type": "slide"}
    return cell


def starts(cells) -> list[bool]:
    return [cell.metadata.get("slideshow", {}).get("slide_type") == "slide" for cell in cells]


def function(name: str, lines: int) -> str:
    return f"def {name}():\n" + "\n".join(f"    x{i} = {i}" for i in range(lines - 1))


def png(width: int, height: int) -> str:
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + header
    data = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(header)) + chunk + struct.pack(">I", zlib.crc32(chunk))
    return base64.b64encode(data).decode()


def test_a_marked_heading_keeps_its_hashes_inside_the_mark():
    source = "(sec_x)=\n## [**Checking Shapes**]\n\n(**Most bugs are shape bugs**): more.\n### Not marked\n"
    moved = titles_inside_marks(source)
    assert "[**## Checking Shapes\n**]" in moved
    assert mark_kinds(moved) == mark_kinds(source)
    assert "### Not marked" in moved
    assert strip_slide_marks(moved).replace("## Checking Shapes\n", "## Checking Shapes") == strip_slide_marks(source)


def test_short_slides_are_left_as_they_are():
    cells = [slide(new_markdown_cell("## Title\n\nA sentence.")), new_code_cell("x = 1")]
    fitted = fit_slides(cells)
    assert starts(fitted.cells) == [True, False] and fitted.left_out == []


def test_a_cell_that_does_not_fit_starts_a_slide_and_a_title_mid_cell_too():
    cells = [
        slide(new_markdown_cell("## Title\n\nsome text")),
        new_code_cell(function("f", 20)),
        new_code_cell(function("g", 10)),
        new_markdown_cell("A formula.\n\n## Next Section\n\nmore"),
    ]
    fitted = fit_slides(cells)
    assert starts(fitted.cells) == [True, False, True, False, True]
    assert fitted.cells[0].source == "## Title\n\nSome text", "the text after a title starts with a capital"
    assert fitted.cells[-1].source.startswith("## Next Section")


def test_long_code_is_cut_at_its_statements_and_a_statement_taller_than_a_slide_left_out():
    rows = int(METRICS.budget / METRICS.code_line)
    source = "\n\n\n".join([function("a", 16), function("b", 16), function("huge", rows + 5), "class C:\n    x = 1"])
    assert len(statement_blocks(source)) == 4
    cell = new_code_cell(source)
    cell.outputs = [new_output("stream", name="stdout", text="done\n")]
    fitted = fit_slides([slide(cell)])
    sources = [part.source for part in fitted.cells]
    assert [s.split("(")[0] for s in sources] == ["def a", "def b"] and "class C:" in sources[1]
    assert "huge" not in "".join(sources)
    assert starts(fitted.cells) == [True, True]
    assert fitted.cells[-1].outputs[0].text == "done\n", "the outputs stay under the last part"
    assert fitted.left_out == [f"huge ({rows + 5} lines, taller than a slide)"]


def test_methods_of_a_long_class_go_to_slides_of_their_own():
    methods = "\n\n".join(f"    def m{i}(self):\n" + "\n".join("        pass" for _ in range(8)) for i in range(4))
    fitted = fit_slides([slide(new_code_cell("class Layer:\n    '''Doc.'''\n\n" + methods))])
    assert len(fitted.cells) > 1 and fitted.left_out == []
    assert all(METRICS.cell_height(cell) <= METRICS.budget for cell in fitted.cells)
    long_method = "    def forward(self):\n" + "\n".join("        pass" for _ in range(40))
    fitted = fit_slides([slide(new_code_cell("@decorated\nclass Layer:\n    x = 1\n\n" + long_method))])
    assert fitted.left_out == ["Layer.forward (41 lines, taller than a slide)"]
    assert [cell.source for cell in fitted.cells] == ["@decorated\nclass Layer:\n    x = 1"]


def test_a_function_stays_whole_with_the_functions_it_defines():
    source = "def outer():\n    x = 1\n\n    def inner():\n        pass\n    return inner\n\n\nouter()"
    assert statement_blocks(source) == [source.split("\n\n\n")[0], "outer()"]


def test_a_long_output_gets_a_slide_of_its_own_shortened_to_what_fits():
    cell = new_code_cell(function("f", 10))
    cell.outputs = [new_output("stream", name="stdout", text="".join(f"line {i}\n" for i in range(80)))]
    fitted = fit_slides([slide(cell)])
    code, shown = fitted.cells
    assert code.outputs == [] and shown.metadata["transient"] == {"remove_source": True}
    lines = shown.outputs[0].text.splitlines()
    assert lines[0] == "line 0" and lines[-1] == ELLIPSIS and len(lines) < 80
    assert METRICS.cell_height(shown) <= METRICS.budget


def test_a_timing_cell_shows_its_results_only():
    cell = new_code_cell(function("timing", 60), metadata={"transient": {"remove_source": True}})
    cell.outputs = [new_output("stream", name="stdout", text="1.0 ms\n")]
    fitted = fit_slides([slide(new_markdown_cell("Timings")), cell])
    assert fitted.left_out == [] and [c.source for c in fitted.cells] == ["Timings", ""]
    assert fitted.cells[1].outputs[0].text == "1.0 ms\n"


def test_images_are_shown_larger_within_bounds():
    small, tall = new_output("display_data", data={"image/png": png(269, 144)}), None
    tall = new_output("display_data", data={"image/png": png(400, 900)})
    cell = new_code_cell("show()")
    cell.outputs = [small]
    other = new_code_cell("show()")
    other.outputs = [tall]
    fitted = fit_slides([slide(cell), slide(other)])
    assert fitted.cells[0].outputs[0].metadata["image/png"] == {"width": 404, "height": 216}
    assert fitted.cells[1].outputs[0].metadata["image/png"]["height"] == METRICS.image_height
