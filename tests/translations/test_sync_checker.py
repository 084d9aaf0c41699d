"""The translation checker (`make check-translations`): it passes on the real
editions, and each kind of drift, made on a scratch copy of the chapters, fails
with a message naming the file and the cell."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest

from booktools.__main__ import main
from booktools.checks.translations.cells import Cell
from booktools.checks.translations.check import check
from booktools.checks.translations.compare import compare_figures, compare_markdown, compare_outputs
from booktools.checks.translations.glossary import read_rules
from booktools.checks.translations.prose import looks_english
from booktools.checks.translations.pycode import code_prose
from booktools.checks.translations.wording import check_english_left, check_style_rules
from booktools.project import Project
from booktools.sources.mime_types import FIGURES_MIME, HEATMAP_MIME

CHAPTER = "attention-scoring-functions.ipynb"
PRACTICE = "attention-scoring-in-practice.ipynb"
PROJECT = Project.here()


@pytest.fixture
def book(tmp_path: Path) -> Project:
    """A scratch copy of the chapters, the library's quizzes and messages, the table of contents and the
    configuration (the editions)."""
    book = Project(tmp_path)
    shutil.copytree(PROJECT.chapters, book.chapters)
    shutil.copytree(PROJECT.library_data_dir, book.library_data_dir)
    shutil.copytree(PROJECT.library_messages_file("en").parent, book.library_messages_file("en").parent)
    shutil.copy(PROJECT.toc_file, book.toc_file)
    shutil.copy(PROJECT.config_file, book.config_file)
    return book


def edit_cell(book: Project, language: str, cell_id: str, change: Callable, notebook: str = CHAPTER) -> str:
    """Apply ``change`` to one cell of a scratch notebook; return where the checker should point."""
    path = book.edition_dir(language) / notebook
    nb = nbformat.read(path, as_version=4)
    number, cell = next((n, c) for n, c in enumerate(nb.cells, start=1) if c.id == cell_id)
    change(cell)
    nbformat.write(nb, path)
    return f"chapters/{language}/{notebook}, cell {number} (id {cell_id})"


def english_cell(project: Project, cell_id: str, notebook: str = CHAPTER) -> nbformat.NotebookNode:
    nb = nbformat.read(project.edition_dir("en") / notebook, as_version=4)
    return next(cell for cell in nb.cells if cell.id == cell_id)


def replace(old: str, new: str) -> Callable:
    def change(cell: nbformat.NotebookNode) -> None:
        assert old in cell.source, f"{old!r} is not in the cell"
        cell.source = cell.source.replace(old, new, 1)

    return change


def assert_reported(book: Project, where: str, *words: str) -> None:
    """The checker fails with a problem located at ``where`` that contains all ``words``."""
    problems = check(book, [where.split("/")[1]])
    assert any(p.startswith(f"{where}:") and all(w in p for w in words) for p in problems), (
        f"expected a problem at {where} with {words}; got:\n" + "\n".join(problems)
    )


def test_the_real_editions_match_english() -> None:
    # The guard against false alarms: the committed translations pass every check.
    assert {"id", "ko"} <= set(PROJECT.editions())
    assert check(PROJECT) == []


def english_number(project: Project, cell_id: str, notebook: str = CHAPTER) -> int:
    """The number of a cell in the English page (the checker numbers missing cells as in English)."""
    cells = nbformat.read(project.edition_dir("en") / notebook, as_version=4).cells
    return next(n for n, c in enumerate(cells, start=1) if c.id == cell_id)


def test_deleting_a_cell_from_ko(book: Project) -> None:
    path = book.edition_dir("ko") / CHAPTER
    nb = nbformat.read(path, as_version=4)
    nb.cells = [cell for cell in nb.cells if cell.id != "masked-softmax-demo-md"]
    nbformat.write(nb, path)
    number = english_number(book, "masked-softmax-demo-md")
    assert_reported(book, f"chapters/ko/{CHAPTER}, cell {number} (id masked-softmax-demo-md)", "missing")
    assert_reported(book, f"chapters/ko/{CHAPTER}", "cells, English has")


def test_moving_a_cell_in_ko(book: Project) -> None:
    path = book.edition_dir("ko") / CHAPTER
    nb = nbformat.read(path, as_version=4)
    moved = nb.cells.pop(1)
    nb.cells.append(moved)
    nbformat.write(nb, path)
    assert_reported(book, f"chapters/ko/{CHAPTER}, cell {len(nb.cells)} (id {moved.id})", "out of order")


def test_changing_a_number_in_a_code_cell_of_id(book: Project) -> None:
    where = edit_cell(book, "id", "masked-softmax-demo-1d", replace("[2, 3]", "[2, 4]"))
    assert_reported(book, where, "code differs from English", "[2, 4]")


def test_moving_a_save_mark_in_id(book: Project) -> None:
    where = edit_cell(
        book, "id", "aliases", replace("ones = torch.ones  #@save", "ones = torch.ones"), notebook="preliminaries.ipynb"
    )
    assert_reported(book, where, "#@save marks differ", "ones = torch.ones")


def test_changing_tags_in_ko(book: Project) -> None:
    where = edit_cell(book, "ko", "valid-lens-helper", lambda cell: cell.metadata.pop("tags"), PRACTICE)
    assert_reported(book, where, "tags differ", "hide-input")


def test_rewording_comments_and_docstrings_is_allowed(book: Project) -> None:
    before = check(book)

    def reword(cell: nbformat.NotebookNode) -> None:
        lines = cell.source.split("\n")
        cell.source = "\n".join(line + "  # 설명" if line.startswith("    return") else line for line in lines)
        cell.source = cell.source.replace('"""', '"""다시 쓴 설명. ', 1)

    edit_cell(book, "ko", "masked-softmax", reword)
    assert check(book) == before


@pytest.mark.parametrize("language", ["ko", "id"])
def test_leaving_an_english_paragraph(book: Project, language: str) -> None:
    # The translator forgot the last paragraph of the cell: it is still the English one.
    english = english_cell(PROJECT, "dot-weights-md").source.split("\n\n")[-1]

    def forget(cell: nbformat.NotebookNode) -> None:
        cell.source = "\n\n".join(cell.source.split("\n\n")[:-1] + [english])

    where = edit_cell(book, language, "dot-weights-md", forget)
    assert_reported(book, where, "prose left in English", "as in English", "A loop over the examples")


@pytest.mark.parametrize(
    ("language", "cell_id", "sentence"),
    [
        ("id", "sdpa-demo-md", "Note that the keys are shared by both of the examples in this batch."),
        ("ko", "sdpa-heatmap-md", "We use it again in the next section."),
    ],
)
def test_a_new_english_sentence(book: Project, language: str, cell_id: str, sentence: str) -> None:
    # Added at the end of the cell's last sentence, which ends with ":" in one case.
    where = edit_cell(book, language, cell_id, lambda cell: setattr(cell, "source", cell.source + " " + sentence))
    assert_reported(book, where, "prose left in English", sentence[:30])


def test_an_english_comment_in_code(book: Project) -> None:
    def comment(cell: nbformat.NotebookNode) -> None:
        cell.source = "# Draw the weights of the first example, then those of the second.\n" + cell.source

    where = edit_cell(book, "ko", "sdpa-heatmap", comment)
    assert_reported(book, where, "prose left in English (line 1)", "Draw the weights")


@pytest.mark.parametrize("directive", ["type: ignore[attr-defined]", "noqa: E501", "fmt: skip", "pragma: no cover"])
def test_a_comment_for_tools_is_not_prose(directive: str) -> None:
    source = f"fig.extra = 1  # {directive}\nx = 2  # Draw the weights"
    assert code_prose(source) == [(2, "Draw the weights")]


def test_an_english_paragraph_in_a_markdown_page(book: Project) -> None:
    page = book.edition_dir("ko") / "index.md"
    page.write_text(
        page.read_text(encoding="utf-8") + "\nEvery page is a Jupyter notebook that runs on its own.\n",
        encoding="utf-8",
    )
    assert_reported(book, "chapters/ko/index.md", "prose left in English", "Every page")


def test_an_untranslated_heading(book: Project) -> None:
    heading = english_cell(PROJECT, "shapes-md", "preliminaries.ipynb").source.split("\n")[0]

    def keep(cell: nbformat.NotebookNode) -> None:
        cell.source = heading + "\n" + cell.source.split("\n", 1)[1]

    where = edit_cell(book, "id", "shapes-md", keep, notebook="preliminaries.ipynb")
    assert_reported(book, where, "prose left in English (line 1, as in English)", "Checking Shapes")


def test_a_banned_glossary_variant_in_id(book: Project) -> None:
    where = edit_cell(book, "id", "additive-md", replace("perhatian aditif", "atensi aditif"))
    assert_reported(book, where, "banned variant 'atensi'", "'attention'", "write 'perhatian'")


def test_a_banned_glossary_variant_in_an_id_docstring(book: Project) -> None:
    where = edit_cell(
        book,
        "id",
        "dot-product-attention",
        replace("Perhatian hasil kali titik terskala", "Perhatian hasil kali titik berskala"),
    )
    # line 1 is `#@tab pytorch`, line 2 the class, line 3 the docstring
    assert_reported(book, where, "banned variant 'Perhatian hasil kali titik berskala'", "(line 3)")


def test_a_banned_word_inside_a_longer_word_is_not_a_variant(book: Project) -> None:
    # "latensi" (latency) contains "atensi", the banned variant of "perhatian".
    edit_cell(book, "id", "exercise-3-md", lambda cell: setattr(cell, "source", cell.source + " Latensi juga."))
    assert not [p for p in check(book) if "banned" in p]


def test_a_missing_glossary_term_in_ko(book: Project) -> None:
    def drop(cell: nbformat.NotebookNode) -> None:
        assert "히트맵" in cell.source
        cell.source = cell.source.replace("히트맵", "그림")

    where = edit_cell(book, "ko", "sdpa-heatmap-md", drop)
    assert_reported(book, where, "glossary", "'heatmap'", "lacks the term '히트맵'")


@pytest.mark.parametrize(
    ("language", "cell_id", "old", "new", "words"),
    [
        (
            "ko",
            "additive-md",
            "$$**) (eq_additive-attn)",
            "$$**) (eq_additive-attention)",
            ("math blocks differ", "eq_additive-attention"),
        ),
        (
            "id",
            "bmm-md",
            "\\mathbb{R}^{N \\times r \\times t}.",
            "\\mathbb{R}^{N \\times t \\times r}.",
            ("math blocks differ", "eq_batch-matrix-mul"),
        ),
        ("ko", "bmm-md", "(subsec_batch_dot)=", "(subsec_bmm)=", ("labels differ", "subsec_bmm")),
        (
            "id",
            "sdpa-md",
            "{eq}`eq_dot_product_attention`",
            "{eq}`eq_softmax_attention`",
            ("role targets differ", "{eq}eq_dot_product_attention"),
        ),
        ("ko", "dot-md", "$\\sqrt{d}$", "$\\sqrt{n}$", ("inline math differ", "$\\sqrt{n}$")),
        ("id", "title", ":width: 560px", ":width: 600px", ("directives differ", "600px")),
        (
            "ko",
            "references-md",
            "https://discuss.d2l.ai/t/1064",
            "https://discuss.d2l.ai/t/1065",
            ("URLs differ", "1065"),
        ),
    ],
)
def test_changed_math_labels_and_links(
    book: Project, language: str, cell_id: str, old: str, new: str, words: tuple[str, ...]
) -> None:
    where = edit_cell(book, language, cell_id, replace(old, new))
    assert_reported(book, where, *words)


def test_a_changed_output_in_ko(book: Project) -> None:
    def change(cell: nbformat.NotebookNode) -> None:
        text = cell.outputs[0].data["text/plain"]
        cell.outputs[0].data["text/plain"] = text.replace("0.0000", "0.0001", 1)

    where = edit_cell(book, "ko", "masked-softmax-demo-1d", change)
    assert_reported(book, where, "output 1 differs from English (text/plain)", "0.0001")


def test_a_changed_figure_in_id(book: Project) -> None:
    # A heatmap whose labels the edition translates is compared by the data it draws (its stored
    # description); nbval replays its pixels against the edition's own stored image.
    other = next(
        out.data for out in english_cell(book, "causal-mask-demo").outputs if "image/png" in out.get("data", {})
    )
    where = edit_cell(book, "id", "sdpa-heatmap", lambda cell: cell.outputs[0].data.update(other))
    assert_reported(book, where, f"output 1 differs from English ({HEATMAP_MIME})")


def test_execution_counts_do_not_matter(book: Project) -> None:
    before = check(book)
    edit_cell(book, "ko", "bmm-demo", lambda cell: cell.outputs[0].update(execution_count=99))
    assert check(book) == before


def test_outputs_that_nbval_ignores_may_differ() -> None:
    def cell(seconds: str, tags: tuple[str, ...]) -> Cell:
        output = {"output_type": "stream", "name": "stdout", "text": f"took {seconds} s\n"}
        return Cell(1, "timing", "code", "print(1)", tags, (output,))

    ignored = ("nbval-ignore-output",)
    assert compare_outputs(cell("0.1", ignored), cell("0.2", ignored)) == []
    assert compare_outputs(cell("0.1", ()), cell("0.2", ()))


def test_records_of_measured_figures_may_differ_in_value_not_in_names() -> None:
    def cell(figures: dict[str, float], tags: tuple[str, ...] = ()) -> Cell:
        output = {"output_type": "display_data", "metadata": {}, "data": {FIGURES_MIME: figures}}
        return Cell(1, "timing", "code", "record_figures(small=a)", tags, (output,))

    assert compare_outputs(cell({"small": 1.21}), cell({"small": 1.19})) == []  # each edition's own run
    assert compare_outputs(cell({"small": 1.2}), cell({"large": 1.2})) == [
        f"output 1 differs from English ({FIGURES_MIME})"
    ]
    ignored = ("nbval-ignore-output",)
    assert compare_outputs(cell({"small": 1.21}, ignored), cell({"small": 1.19}, ignored)) == []


def measured_cell(text: str) -> Cell:
    return Cell(1, "speed-md", "markdown", text)


def test_measured_figures_must_be_quoted_as_in_english() -> None:
    english = measured_cell("Fused is {measured}`fused.small:.2f` and {measured}`fused.large:,.1f` times faster.")
    same = measured_cell("Terfusi {measured}`fused.small:.2f` dan {measured}`fused.large:,.1f` kali lebih cepat.")
    assert compare_figures(english, same) == [] and compare_markdown(english, same) == []
    swapped = measured_cell("Terfusi {measured}`fused.large:,.1f` dan {measured}`fused.small:.2f` kali.")
    assert compare_figures(english, swapped) == [
        "measured figures differ from English: same items in a different order"
    ]
    other_format = measured_cell("Terfusi {measured}`fused.small:.1f` dan {measured}`fused.large:,.1f` kali.")
    assert compare_figures(english, other_format) == [
        "measured figures differ from English: English has 'fused.small:.2f'; the translation has 'fused.small:.1f'"
    ]
    written_out = measured_cell("Terfusi 1,23 dan {measured}`fused.large:,.1f` kali.")
    assert compare_figures(english, written_out) == [
        "measured figures differ from English: English has 'fused.small:.2f'"
    ]
    malformed = measured_cell("Terfusi {measured}`fused.small` dan {measured}`fused.large:,.1f` kali.")
    assert (
        "measured figure in the translation: '{measured}`fused.small`' is malformed"
        in compare_figures(english, malformed)[0]
    )


def test_a_placeholder_is_no_prose_for_the_style_rules() -> None:
    rules = read_rules("id", PROJECT)
    cell = measured_cell("Skor {measured}`key-query-timing.small:.2f` kali lebih cepat.")
    assert check_style_rules(cell, rules, PROJECT) == []
    assert check_style_rules(measured_cell("Skor key-query kali lebih cepat."), rules, PROJECT)


def test_a_measured_figure_quoted_differently_in_id(book: Project) -> None:
    text = "\n\nSee {measured}`timing.small:.2f`."
    for language in ("en", "id"):
        edit_cell(book, language, "title", lambda cell: setattr(cell, "source", cell.source + text))
    before = check(book)
    here = edit_cell(book, "id", "title", replace(":.2f`", ":.3f`"))
    added = set(check(book)) - set(before)
    assert added == {
        f"{here}: measured figures differ from English: English has 'timing.small:.2f'; "
        "the translation has 'timing.small:.3f'"
    }


def test_a_translated_admonition_title_is_prose() -> None:
    english = Cell(1, "s", "markdown", ":::{admonition} Solution\n:class: dropdown\n\nText.\n:::")
    translated = Cell(1, "s", "markdown", ":::{admonition} Solusi\n:class: dropdown\n\nTeks.\n:::")
    assert compare_markdown(english, translated) == []
    untitled = Cell(1, "s", "markdown", ":::{admonition} Solution\n:class: dropdown\n\nTeks.\n:::")
    assert check_english_left(english, untitled, set(), PROJECT) == [
        "prose left in English (line 1, as in English): 'Solution'"
    ]
    dropped = Cell(1, "s", "markdown", ":::{admonition} Solusi\n\nTeks.\n:::")
    assert compare_markdown(english, dropped) == [
        "directives differ from English: English has 'admonition :class: dropdown'; the translation has 'admonition'"
    ]


def test_a_missing_page(book: Project) -> None:
    (book.edition_dir("id") / "preliminaries.ipynb").unlink()
    assert "chapters/id/preliminaries.ipynb: missing (English has chapters/en/preliminaries.ipynb)" in check(book)


def test_main_exit_status_and_report(book: Project, capsys: pytest.CaptureFixture[str]) -> None:
    where = edit_cell(book, "ko", "masked-softmax", replace("0.0", "0.5"))
    assert main(["--root", str(book.root), "translations"]) == 1
    assert f"- {where}: code differs from English" in capsys.readouterr().err


def test_a_malformed_glossary(book: Project) -> None:
    book.glossary_file.write_text("concepts:\n  attention:\n    id: perhatian\n", encoding="utf-8")
    assert main(["--root", str(book.root), "translations"]) == 2


@pytest.mark.parametrize(
    "sentence",
    [
        "The valid lengths come either as one number per example or as one number per query.",
        "Then batch matrix multiplication multiplies the matrices pairwise:",
        "It returns one vector per query and keeps the weights of the last call.",
    ],
)
def test_english_sentences_look_english(sentence: str) -> None:
    assert looks_english(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        # code identifiers, proper names and the English terms the glossary keeps
        "Transformer Engine dari NVIDIA dan Megatron {cite} memakai varian perhatian yang efisien.",
        "Buku ini adalah satu bab dari Dive into Deep Learning (D2L) yang ditulis ulang dengan PyTorch.",
        "Setiap query memakai softmax dan dropout pada minibatch berisi key dan value.",
        "masked_softmax(X, valid_lens) mengembalikan bobot dengan dtype float16 atau bfloat16.",
        "DotProductAttention은 show_heatmaps로 어텐션 가중치를 그립니다(Colab에서도 됩니다).",
        "스케일드 내적 어텐션(scaled dot product attention)은 Transformer의 핵심입니다.",
    ],
)
def test_translated_sentences_do_not_look_english(sentence: str) -> None:
    assert not looks_english(sentence)


def test_slide_marks_must_match_english_cell_by_cell() -> None:
    from booktools.checks.translations.compare import compare_slide_marks

    english = Cell(3, "x", "markdown", "## [**Scores**]\n\n[**A score**] is (**a number**). [~~Slides only~~]")
    same = Cell(3, "x", "markdown", "## [**Skor**]\n\n[**Skor**] adalah (**sebuah angka**). [~~Hanya slide~~]")
    fewer = Cell(3, "x", "markdown", "## [**Skor**]\n\nSkor adalah (**sebuah angka**). [~~Hanya slide~~]")
    reordered = Cell(3, "x", "markdown", "## [**Skor**]\n\n(**Skor**) adalah [**sebuah angka**]. [~~Hanya slide~~]")
    assert compare_slide_marks(english, same) == []
    for translation in (fewer, reordered):
        (problem,) = compare_slide_marks(english, translation)
        assert problem.startswith("slide marks differ from English: English [** [** (** [~~, translation")


def test_a_slide_mark_missing_in_ko(book: Project) -> None:
    def mark(cell: nbformat.NotebookNode) -> None:
        cell.source = f"[~~{cell.source.splitlines()[0]}~~]\n" + cell.source

    cell_id = next(
        c.id for c in nbformat.read(book.edition_dir("en") / CHAPTER, as_version=4).cells if c.cell_type == "markdown"
    )
    edit_cell(book, "en", cell_id, mark)
    where = edit_cell(book, "ko", cell_id, lambda cell: None)
    assert_reported(book, where, "slide marks differ from English", "[~~")


def test_a_check_cell_passes_its_own_editions_language(book: Project) -> None:
    """``lang='ko'`` is the Korean page's own language; ``lang='en'`` there is a mistake."""
    english = english_cell(book, "exercise-4-check")
    assert "lang='en'" in english.source
    where = edit_cell(book, "ko", "exercise-4-check", replace("lang='ko'", "lang='en'"))
    assert_reported(book, where, "code differs from English", "lang='en'")


def test_a_check_cells_report_may_differ_in_words_not_in_verdicts() -> None:
    def cell(report: str) -> Cell:
        outputs = (
            {"output_type": "stream", "name": "stdout", "text": report},
            {"output_type": "execute_result", "data": {"text/plain": "CheckResult('x', passed=False)"}, "metadata": {}},
        )
        return Cell(1, "exercise-1-check", "code", "d2l.check_exercise('x', f)", ("d2l-check",), outputs)

    english = cell("Checking x:\n  ✓ it runs\n  ✗ it fails on a long\n    input\n")
    indonesian = cell("Memeriksa x:\n  ✓ berjalan\n  ✗ gagal pada masukan panjang\n")  # wrapped otherwise
    assert compare_outputs(english, indonesian) == []
    assert compare_outputs(english, cell("Memeriksa x:\n  ✓ berjalan\n  ✓ lulus\n"))  # another verdict
    assert compare_outputs(english, cell("Memeriksa x:\n  ✓ berjalan\n"))  # a property less
    verdict = {**english.outputs[1], "data": {"text/plain": "CheckResult('x', passed=True)"}}
    passed = dataclasses.replace(english, outputs=(english.outputs[0], verdict))
    assert compare_outputs(english, passed)  # the verdict is the same in every edition
