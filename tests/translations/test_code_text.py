"""The words the code shows the reader (chapters/code_text.yml): translated, and nothing else in the code.

booktools.sources.code_text aligns an English cell with its translation; the checker reads a
translated cell's printed output back into English, compares heatmaps by the data they draw,
and holds the list to the English code. The number format of translated prose is checked on
the text as the reader gets it (booktools.checks.translations.number_format).
"""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import nbformat
import pytest

from booktools.checks.translations.cells import Cell
from booktools.checks.translations.check import check
from booktools.checks.translations.code_texts import check_registry
from booktools.checks.translations.compare import compare_code, compare_markdown, compare_outputs, english_math
from booktools.checks.translations.number_format import check_number_format, number_problems
from booktools.project import Project
from booktools.sources.code_text import (
    align,
    display_literals,
    edition_pairs,
    library_table,
    library_table_file,
    read_registry,
    registry_file,
    to_english_output,
)
from booktools.sources.mime_types import HEATMAP_MIME
from booktools.sources.strings import NumberStrings

PROJECT = Project.here()
TEXTS = frozenset({"Keys", "Queries", "{}: slope {}", "   d  max weight"})
INDONESIAN = NumberStrings(decimal=",", thousands=".")
KOREAN = NumberStrings(decimal=".", thousands=",")


def code(source: str, outputs: tuple = ()) -> Cell:
    return Cell(1, "c", "code", source, (), outputs)


def stream(text: str) -> dict:
    return {"output_type": "stream", "name": "stdout", "text": text}


def test_a_listed_literal_may_be_translated_and_nothing_else() -> None:
    english = "fig = show_heatmaps(w, xlabel='Keys', ylabel='Queries')\nprint(f'{name}: slope {s:.2f}')"
    korean = "fig = show_heatmaps(w, xlabel='키', ylabel='쿼리')\nprint(f'{name}: 기울기 {s:.2f}')"
    found = align(ast.parse(english), ast.parse(korean), TEXTS)
    assert found.same_code and found.problems == []
    pairs = [(a, b) for a, b, _ in found.pairs]
    assert pairs == [("Keys", "키"), ("Queries", "쿼리"), ("{}: slope {}", "{}: 기울기 {}")]
    # a literal that is not listed is code: it must stay as written
    assert not align(ast.parse("print('done')"), ast.parse("print('selesai')"), TEXTS).same_code
    # and so is everything around a listed one
    assert not align(ast.parse(english), ast.parse(korean.replace("xlabel", "ylabel", 1)), TEXTS).same_code


def test_a_translation_keeps_the_filled_in_values_in_order() -> None:
    english = ast.parse("print(f'{name}: slope {s:.2f}')")
    for changed in ("print(f'{s:.2f}: 기울기 {name}')", "print(f'{name}: 기울기 {s:.3f}')", "print('기울기')"):
        found = align(english, ast.parse(changed), TEXTS)
        assert found.same_code and found.problems, changed
        assert "same filled-in values, in the same order" in found.problems[0]


def test_the_checker_asks_for_a_listed_literal_to_be_translated() -> None:
    english = code("show_heatmaps(w, xlabel='Keys', ylabel='Queries')")
    problems, pairs = compare_code(english, code("show_heatmaps(w, xlabel='키', ylabel='Queries')"), "ko", TEXTS)
    assert problems == ["line 1: 'Queries' is shown to the reader: translate it (chapters/code_text.yml lists it)"]
    assert pairs == [("Keys", "키"), ("Queries", "Queries")]
    problems, _ = compare_code(english, code("show_heatmaps(w, xlabel='Kunci', ylabel='Kueri', cmap='x')"), "id", TEXTS)
    assert problems and problems[0].startswith("code differs from English")


def test_printed_output_is_read_back_into_english() -> None:
    pairs = [("   d  max weight", "   d  최대 가중치"), ("{}: slope {}", "{}: 기울기 {}"), ("Keys", "키")]
    text = "   d  최대 가중치\n   4       0.912\nn 키움: 기울기 1.02 and more\n"
    assert to_english_output(text, pairs) == " d max weight\n 4 0.912\nn 키움: slope 1.02 and more\n"
    english = code("", (stream("   d  max weight\n   4       0.912\nn 키움: slope 1.02 and more\n"),))
    korean = code("", (stream(text),))
    assert compare_outputs(english, korean, pairs) == []
    wrong = code("", (stream(text.replace("0.912", "0.913")),))
    assert compare_outputs(english, wrong, pairs)  # a number is still a number
    assert compare_outputs(english, korean, [])  # without the pairs, the words differ


def test_a_heatmap_is_compared_by_what_it_draws_where_its_labels_are_translated() -> None:
    def heatmap(png: str, panels: list) -> dict:
        return {"output_type": "display_data", "metadata": {}, "data": {"image/png": png, HEATMAP_MIME: panels}}

    english = code("", (heatmap("english pixels", [[1, 2]]),))
    assert compare_outputs(english, code("", (heatmap("korean pixels", [[1, 2]]),)), [("Keys", "키")]) == []
    assert compare_outputs(english, code("", (heatmap("korean pixels", [[1, 3]]),)), [("Keys", "키")])
    assert compare_outputs(english, code("", (heatmap("other pixels", [[1, 2]]),)))  # no translated words


def test_display_literals_are_what_print_labels_titles_and_legends_show() -> None:
    tree = ast.parse(
        "print('mask:', x)\nax.set_ylabel('time (seconds)')\nax.plot(x, label=f'{n} grows')\n"
        "print(f'{a:4d}  {b:5.2f}')\nd = {'key': 1}\nax.set_title('$nmd$')"
    )
    assert [text for text, _ in display_literals(tree)] == ["mask:", "time (seconds)", "{} grows", "$nmd$"]


def test_the_list_holds_to_the_english_code_and_each_edition_translates_it(tmp_path: Path) -> None:
    assert check_registry(PROJECT) == []
    registry = read_registry(PROJECT)
    assert "Keys" in registry.page("preliminaries")
    pairs = edition_pairs(PROJECT)
    assert {language for language in pairs} == {"id", "ko"}
    listed = {text for texts in registry.translate.values() for text in texts}
    for language, found in pairs.items():
        assert {english for english, _ in found} == listed, language  # every listed text, translated
    # the library's table is made from them (make lib; make check-lib fails when it drifts)
    table = json.loads(library_table_file(PROJECT).read_text(encoding="utf-8"))
    assert table == json.loads(library_table(pairs))
    # a new label the list lacks is reported, and so is a listed text no page shows
    book = Project(tmp_path)
    shutil.copytree(PROJECT.chapters, book.chapters)
    shutil.copy(PROJECT.toc_file, book.toc_file)
    shutil.copy(PROJECT.config_file, book.config_file)
    path = book.edition_dir("en") / "preliminaries.ipynb"
    notebook = nbformat.read(path, as_version=4)
    demo = next(cell for cell in notebook.cells if cell.id == "identity-demo")
    demo.source += "\nprint('the weights of the first query:', 1)"
    nbformat.write(notebook, path)
    file = registry_file(book)
    file.write_text(file.read_text(encoding="utf-8").replace("    - Queries\n", "    - Queries\n    - Values\n", 1))
    problems = check_registry(book)
    assert any("'the weights of the first query:' is shown to the reader: list it" in p for p in problems)
    assert "chapters/code_text.yml: 'Values' (translate: preliminaries) is not in the English page's code" in problems


def test_one_text_is_translated_one_way_in_an_edition(tmp_path: Path) -> None:
    book = Project(tmp_path)
    for copy in (PROJECT.chapters, PROJECT.library_data_dir, PROJECT.library_messages_file("en").parent):
        shutil.copytree(copy, tmp_path / copy.relative_to(PROJECT.root))
    shutil.copy(PROJECT.toc_file, book.toc_file)
    shutil.copy(PROJECT.config_file, book.config_file)
    path = book.edition_dir("ko") / "preliminaries.ipynb"
    notebook = nbformat.read(path, as_version=4)
    demo = next(cell for cell in notebook.cells if cell.id == "identity-demo")
    before = next(text for english, text in edition_pairs(PROJECT)["ko"] if english == "Keys")
    demo.source = demo.source.replace(f"xlabel='{before}'", "xlabel='열쇠'")
    nbformat.write(notebook, path)
    problems = check(book, ["ko"])
    assert any(p.startswith("ko: 'Keys' is translated in more than one way") for p in problems), problems


@pytest.mark.parametrize(
    ("text", "numbers", "problem"),
    [
        ("sekitar 0.5 detik", INDONESIAN, "'0.5': write the decimal mark as ','"),
        ("sebanyak 1000 contoh", INDONESIAN, "'1000': group the thousands with '.'"),
        ("tabel berukuran 68,5MiB", INDONESIAN, "'5MiB': a space between the number and its unit"),
        ("가중치 행렬은 68.5MiB입니다", KOREAN, "'5MiB': a space between the number and its unit"),
        ("예제 1000개", KOREAN, "'1000': group the thousands with ','"),
    ],
)
def test_a_number_in_another_format_is_reported(text: str, numbers: NumberStrings, problem: str) -> None:
    assert [p for p in number_problems(text, numbers) if p.startswith(problem)], number_problems(text, numbers)


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("sekitar 0,5 detik, 1.000 contoh, 65.504 dan 68,5 MiB", INDONESIAN),
        ("PyTorch 2.13 dan torch 2.5, versi yang dipakai buku ini (2.13), rilis 2.13.0", INDONESIAN),
        ("pada 2014 dan 2026, di NVIDIA H100 80GB HBM3", INDONESIAN),
        ("68.5 MiB, 1,000개, 0.96, 버전 2.13", KOREAN),
    ],
)
def test_numbers_in_the_editions_format_pass(text: str, numbers: NumberStrings) -> None:
    assert number_problems(text, numbers) == []


def test_the_number_format_is_checked_with_the_measured_figures_filled_in() -> None:
    figures = {"timing": {"small": 1234.5, "mib": 68.5}}
    source = "Sekitar {measured}`timing.small:.1f` kali; {measured}`timing.mib:.1f`MiB; $n = 8192$ `x = 1.5`."
    problems = check_number_format(source, INDONESIAN, figures)
    assert any("'1234,5': group the thousands" in p for p in problems), problems  # as the reader reads it
    assert any("'5MiB': a space" in p for p in problems), problems
    assert not any("8192" in p or "1.5" in p for p in problems)  # math and code are not prose
    fixed = source.replace(":.1f` kali", ":,.1f` kali").replace("`MiB", "` MiB")
    assert check_number_format(fixed, INDONESIAN, figures) == []


def test_math_may_differ_in_its_words_and_in_the_editions_decimal_mark() -> None:
    english = Cell(
        1, "m", "markdown", r"About $-3.4 \times 10^{38}$, and $\exp(\textrm{fill} - \textrm{row maximum})$."
    )
    indonesian = Cell(
        1, "m", "markdown", r"Sekitar $-3{,}4 \times 10^{38}$, dan $\exp(\textrm{isian} - \textrm{maksimum baris})$."
    )
    assert compare_markdown(english, indonesian, ",") == []
    assert compare_markdown(english, indonesian, ".")  # a decimal comma only where the edition writes one
    changed = Cell(1, "m", "markdown", indonesian.source.replace("10^{38}", "10^{39}"))
    assert compare_markdown(english, changed, ",")  # the rest of the math is English's
    assert english_math(r"\mathrm{d}x + \textrm{BMM}(A)") == r"\mathrm{d}x + \textrm{…}(A)"  # a symbol stays
    assert english_math(r"-65{.}504 + 0{,}5", ",") == "-65504 + 0.5"  # the Indonesian thousands and decimal marks
    assert english_math(r"-65{,}504 + 0.5", ".") == "-65504 + 0.5"  # the Korean thousands comma


def test_no_stored_output_holds_a_missing_glyph_warning() -> None:
    """make outputs draws the editions' labels with a font that has their letters (d2l_lib.figure_text)."""
    for path in sorted(PROJECT.chapters.glob("*/*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            for output in cell.get("outputs", []):
                text = output.get("text", "") + json.dumps(output.get("data", {}).get("text/plain", ""))
                assert "missing from" not in text and "Glyph" not in text, f"{path.name}, cell {cell.get('id')}"
