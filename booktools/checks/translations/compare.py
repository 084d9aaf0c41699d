"""Compare one translated cell with its English original; each function returns the problems found.

- :func:`compare_frameworks`: the same framework marks (``#@tab``, ``:begin_tab:``);
- :func:`compare_slide_marks`: the same slide marks (``[**``, ``(**``, ``[~~``,
  ``(~~``), in the same order, so every edition has the same slides;
- :func:`compare_code`: the same parsed code and ``#@save`` marks (comments and
  docstrings are free to differ, and the words the code shows the reader that
  ``chapters/code_text.yml`` lists, ``booktools.sources.code_text``);
  :func:`compare_outputs`: the same stored outputs (only their kinds where nbval
  ignores them; printed text read back into English where the cell translates what it
  prints; a heatmap by the data it draws, its stored description, not its pixels);
- :func:`compare_markdown`: the same math, labels, role targets, directives,
  heading levels and URLs; :func:`compare_figures`: the same measured figures
  quoted (``{measured}`CELL-ID.NAME:FORMAT```, ``booktools.sources.measured``): same cell,
  name and format, in the same order;

The prose itself (English left, glossary, style rules) is checked by ``wording``.

Markdown is read without its slide marks (``booktools.sources.slide_marks``), as the book
and the slides show it: ``(**$$ ... $$**) (label)`` is a labelled equation. A code cell's
record of measured figures is compared by the names it records, not their values, which each
edition measured in its own run.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from typing import Any

from booktools.checks.translations.cells import Cell
from booktools.checks.translations.markdown import parsed
from booktools.checks.translations.prose import (
    quote,
)
from booktools.checks.translations.pycode import normalized_code
from booktools.project import SOURCE_LANGUAGE
from booktools.sources.cell_code import prepared_tree
from booktools.sources.code_text import align, normalized_output, to_english_output
from booktools.sources.exercises import EDITION_OUTPUT_TAGS
from booktools.sources.frameworks import TabError, cell_frameworks
from booktools.sources.measured import (
    MeasuredError,
    is_figures_output,
    placeholders,
)
from booktools.sources.mime_types import FIGURES_MIME, HEATMAP_MIME
from booktools.sources.save_marks import SAVE_MARK, saved_statements
from booktools.sources.slide_marks import mark_kinds

CHECK_MARKS = re.compile("[✓✗]")  # a check's report marks each property it checked (d2l_lib.exercises)
IGNORED_OUTPUT_TAGS = {"nbval-ignore-output", "nbval-skip"}  # outputs that differ from run to run


def _quote_item(item: object) -> str:
    return f"'{item}'" if isinstance(item, str) else repr(item)


def difference(what: str, english: list[Any], translation: list[Any], ordered: bool = True) -> str | None:
    """Describe how two lists differ, or return None if they are the same."""
    if english == translation or (not ordered and Counter(english) == Counter(translation)):
        return None
    missing = list((Counter(english) - Counter(translation)).elements())
    extra = list((Counter(translation) - Counter(english)).elements())
    parts = ([f"English has {', '.join(map(_quote_item, missing))}"] if missing else []) + (
        [f"the translation has {', '.join(map(_quote_item, extra))}"] if extra else []
    )
    return f"{what} differ from English: " + ("; ".join(parts) or "same items in a different order")


def _first_difference(english: str, translation: str) -> str:
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
        None, english.split("\n"), translation.split("\n"), autojunk=False
    ).get_opcodes():
        if tag != "equal":
            want = " / ".join(english.split("\n")[i1:i2]) or "(nothing)"
            have = " / ".join(translation.split("\n")[j1:j2]) or "(nothing)"
            return f"English {quote(want.strip(), 90)}, translation {quote(have.strip(), 90)}"
    return "they differ"


def _plain_outputs(cell: Cell, pairs: list[tuple[str, str]] | None = None) -> list[dict[str, Any]]:
    """The outputs without execution counts, consecutive stream chunks merged.

    Of a cell whose outputs nbval ignores, only the kinds of outputs are kept. With ``pairs``
    (English, translated templates of the words the cell shows, ``booktools.sources.code_text``),
    printed text is read back into English and spaced as :func:`normalized_output` spaces
    English's (pass ``[]`` for the English cell of such a pair), and a heatmap is its description.
    """
    result: list[dict[str, Any]] = []
    for stored in cell.outputs:
        output = {key: value for key, value in stored.items() if key != "execution_count"}
        if pairs is not None and HEATMAP_MIME in output.get("data", {}):  # the labels are drawn in the pixels
            output["data"] = {HEATMAP_MIME: output["data"][HEATMAP_MIME]}
        if is_figures_output(output):  # each edition's run measured its own figures: their names must agree
            recorded = output["data"][FIGURES_MIME]
            names = sorted(recorded) if isinstance(recorded, dict) else recorded
            output = {**output, "data": {FIGURES_MIME: dict.fromkeys(names, "(measured)")}}
        if EDITION_OUTPUT_TAGS & set(cell.tags) and output["output_type"] == "stream":
            # printed in the edition's language (and wrapped to its words): a check's report must
            # mark the same properties as holding (✓) or failing (✗), in the same order, as English
            text = output["text"] if isinstance(output["text"], str) else "".join(output["text"])
            output = {**output, "text": "marks " + "".join(CHECK_MARKS.findall(text)) + "\n"}
        if pairs is not None and output["output_type"] == "stream":
            text = output["text"] if isinstance(output["text"], str) else "".join(output["text"])
            output = {**output, "text": to_english_output(text, pairs) if pairs else normalized_output(text)}
        if IGNORED_OUTPUT_TAGS & set(cell.tags):
            output = {
                "output_type": output["output_type"],
                "name": output.get("name"),
                "data": dict.fromkeys(output.get("data", {}), "(ignored)"),
                "text": "",
            }
        previous = result[-1] if result else {}
        if (
            output["output_type"] == "stream"
            and previous.get("output_type") == "stream"
            and previous.get("name") == output.get("name")
        ):
            previous["text"] += output["text"]
        else:
            result.append(output)
    return result


def compare_frameworks(english: Cell, translation: Cell) -> list[str]:
    """Describe how a cell's framework marks (``#@tab``, ``:begin_tab:``) differ from English."""

    def frameworks(cell: Cell) -> str:
        try:
            found = cell_frameworks({"cell_type": cell.kind, "source": cell.source, "id": cell.id})
        except TabError as error:
            return f"malformed ({error})"
        return "shared" if found is None else ", ".join(sorted(found))

    want, have = frameworks(english), frameworks(translation)
    return [] if want == have else [f"framework marks differ from English: English {want}, translation {have}"]


def compare_slide_marks(english: Cell, translation: Cell) -> list[str]:
    """Describe how the slide marks of a markdown cell differ from English (kinds, in order)."""
    want, have = mark_kinds(english.source), mark_kinds(translation.source)
    if want == have:
        return []
    english_marks, translated_marks = " ".join(want) or "(none)", " ".join(have) or "(none)"
    return [f"slide marks differ from English: English {english_marks}, translation {translated_marks}"]


def compare_outputs(english: Cell, translation: Cell, pairs: list[tuple[str, str]] | None = None) -> list[str]:
    """Describe how the stored outputs of two code cells differ.

    ``pairs``: the (English, translated) templates of the words the cell shows the reader,
    from :func:`compare_code`; the translation's printed text is read back into English.
    """
    translated = [pair for pair in pairs or [] if pair[0] != pair[1]]
    want = _plain_outputs(english, [] if translated else None)
    have = _plain_outputs(translation, translated or None)
    if want == have:
        return []
    if len(want) != len(have):
        return [f"outputs differ from English: English has {len(want)} output(s), the translation {len(have)}"]
    problems = []
    for index, (a, b) in enumerate(zip(want, have), start=1):
        a, b = ({**{k: v for k, v in out.items() if k != "data"}, **out.get("data", {})} for out in (a, b))
        for key in sorted(set(a) | set(b)):
            if a.get(key) == b.get(key):
                continue
            textual = (
                (key == "text" or key.startswith("text/"))
                and isinstance(a.get(key), str)
                and isinstance(b.get(key), str)
            )
            detail = f": {_first_difference(a[key], b[key])}" if textual else ""
            problems.append(f"output {index} differs from English ({key}){detail}")
    return problems


def compare_code(
    english: Cell, translation: Cell, language: str, texts: frozenset[str] = frozenset()
) -> tuple[list[str], list[tuple[str, str]]]:
    """Describe how a translated code cell differs from English other than in comments and docstrings.

    ``lang=`` arguments that name each page's own edition (``language`` for the translation)
    are the same code (``pycode.normalized_code``). A string literal whose English template is
    in ``texts`` (the page's words for the reader, ``chapters/code_text.yml``) must be
    translated, keeping its filled-in values.

    Returns:
        The problems, and the (English, translated) templates of the literals in ``texts``.
    """
    try:
        english_tree = prepared_tree(english.source, SOURCE_LANGUAGE)
    except SyntaxError:
        return ([] if english.source == translation.source else ["code differs from English (not Python)"]), []
    try:
        translated_tree = prepared_tree(translation.source, language)
    except SyntaxError as error:
        return [f"code differs from English: it does not parse (line {error.lineno}: {error.msg})"], []
    found = align(english_tree, translated_tree, texts)
    if not found.same_code:
        want, have = normalized_code(english.source, SOURCE_LANGUAGE), normalized_code(translation.source, language)
        if found.difference:  # where the code itself differs, not a translated literal
            (at, there) = found.difference
            want_line = english.source.split("\n")[at - 1].strip()
            have_line = translation.source.split("\n")[there - 1].strip()
            return [
                f"code differs from English at line {at}: English {quote(want_line, 90)}, "
                f"translation {quote(have_line, 90)}"
            ], []
        return [f"code differs from English: {_first_difference(want, have)}"], []
    problems = list(found.problems)
    problems += [
        f"line {line}: {text!r} is shown to the reader: translate it (chapters/code_text.yml lists it)"
        for text, translated, line in found.pairs
        if translated == text and language != SOURCE_LANGUAGE
    ]
    pairs = [(text, translated) for text, translated, _ in found.pairs]
    if SAVE_MARK.search(english.source + translation.source):
        problem = difference("#@save marks", saved_statements(english.source), saved_statements(translation.source))
        problems += [problem] if problem else []
    return problems, pairs


# Words inside math (\textrm{row maximum}) are prose: an edition writes them in its language.
MATH_WORDS = re.compile(r"\\(textrm|text|mathrm|textit)\{[^{}]*[^\W\d_]{2,}[^{}]*\}")
DECIMAL_COMMA = re.compile(r"(?<=\d)\{,\}(?=\d)")  # 3{,}4: TeX's decimal comma, without a space after it
THOUSANDS_POINT = re.compile(r"(?<=\d)\{\.\}(?=\d{3})")  # 65{.}504: a point between groups of digits
THOUSANDS_COMMA = re.compile(r"(?<=\d)\{,\}(?=\d{3})")  # 65{,}504, where the decimal mark is a point


def english_math(tex: str, decimal: str = ".") -> str:
    """Return math as English writes it: words in ``\textrm{}`` left out, and the edition's marks
    between digits read as English's: for an edition whose decimal mark is a comma, its decimal
    commas (``3{,}4``) as points and its thousands points (``65{.}504``) left out; for one whose
    decimal mark is a point, its thousands commas (``65{,}504``) left out. The rest must be English's."""
    tex = MATH_WORDS.sub(lambda match: f"\\{match.group(1)}{{…}}", tex)
    if decimal == ",":
        return THOUSANDS_POINT.sub("", DECIMAL_COMMA.sub(".", tex))
    return THOUSANDS_COMMA.sub("", tex)


def compare_markdown(english: Cell, translation: Cell, decimal: str = ".") -> list[str]:
    """Describe how a translated markdown cell differs from English in math, labels, links and markup.

    Math is compared as :func:`english_math` reads it: the words of ``\textrm{}`` are the
    edition's, and so is the decimal mark (``decimal``, the edition's own).
    """
    want, have = parsed(english.source), parsed(translation.source)

    def math(blocks: list[tuple[str, str]], mark: str) -> list[str]:
        return [
            f"$${english_math(m, mark)}$$ ({label})" if label else f"$${english_math(m, mark)}$$" for m, label in blocks
        ]

    def inline(found: list[str], mark: str) -> list[str]:
        return [f"${english_math(m, mark)}$" for m in found]

    checks = [
        ("math blocks", math(want.math_blocks, "."), math(have.math_blocks, decimal), True),
        ("inline math", inline(want.inline_math, "."), inline(have.inline_math, decimal), False),
        ("labels", want.labels, have.labels, True),
        ("role targets", _other_roles(want.roles), _other_roles(have.roles), False),
        ("directives", want.directives, have.directives, True),
        ("heading levels", want.headings, have.headings, True),
        ("URLs", want.urls, have.urls, False),
    ]
    return [problem for what, a, b, ordered in checks if (problem := difference(what, a, b, ordered))]


def _other_roles(roles: list[str]) -> list[str]:
    """Role targets other than the measured figures' (``compare_figures`` compares those, in order)."""
    return [role for role in roles if not role.startswith("{measured}")]


def compare_figures(english: Cell, translation: Cell) -> list[str]:
    """Describe how the measured figures a translated markdown cell quotes differ from English's.

    Each placeholder ``{measured}`CELL-ID.NAME:FORMAT``` is code, not prose: the same cell, name
    and format, in the same order.
    """
    found: list[list[str]] = []
    for cell in (english, translation):
        try:
            found.append([placeholder.key for placeholder in placeholders(cell.source)])
        except MeasuredError as error:
            return [f"measured figure in {'English' if cell is english else 'the translation'}: {error}"]
    problem = difference("measured figures", found[0], found[1])
    return [problem] if problem else []
