"""The words the book's code shows the reader, which each edition writes in its own language.

A figure's axis labels and legend, a printed table's header, the label of a printed line
(``print('mask of the first example:')``) are read, not run: each edition translates them,
and its code is otherwise the English code. ``chapters/code_text.yml`` lists them, page by
page, as *templates*: a string literal's text, with ``{}`` where an f-string fills in a value
(``'{}: slope {} '`` for ``f'{label}: slope {slope:.2f} '``). Nothing else in the code may
differ from English.

:func:`align` walks an English cell and its translation side by side (their parsed code):
they must be the same code, except that a literal whose English template is listed may be
translated; an f-string keeps the same filled-in values in the same order. It returns the
(English, translated) template pairs it found, which the translation checker uses to read a
translated cell's printed output back into English (:func:`to_english_output`), and ``make
lib`` writes into the library (``d2l_lib/figure_text.json``), where ``d2l_lib.figure_text``
shows a figure's English words on a machine that has no font for the edition's letters.

:func:`display_literals` finds the literals the English code shows the reader (arguments
of ``print``, labels, titles, legends): each must be listed, either under ``translate`` or
under ``keep`` with the reason it stays as written (a function's name, a formula), so
that a new label cannot be left in English unnoticed.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from booktools.configuration.schema import ConfigError, read_yaml
from booktools.project import SOURCE_LANGUAGE, Project
from booktools.sources.cell_code import prepared_tree
from d2l_lib.figure_text import TEXT_FILE, template_pattern

REGISTRY = "code_text.yml"  # in chapters/
# Where a literal is shown to the reader: the arguments of these functions and methods ...
DISPLAY_CALLS = frozenset({"print", "set_xlabel", "set_ylabel", "set_title", "suptitle", "legend", "text"})
# ... and these keyword arguments of any call.
DISPLAY_KEYWORDS = frozenset({"xlabel", "ylabel", "title", "titles", "label"})
WORDS = re.compile(r"[A-Za-z]{2,}")  # a literal without a word shows no words to translate

Literal = ast.Constant | ast.JoinedStr


@dataclass(frozen=True)
class Registry:
    """``chapters/code_text.yml``: per page, the templates translated, and those kept (with why)."""

    translate: dict[str, list[str]]
    keep: dict[str, str]

    def page(self, name: str) -> frozenset[str]:
        """Return the templates that a page's translations translate."""
        return frozenset(self.translate.get(name, ()))


@dataclass
class Alignment:
    """What :func:`align` found: the translated templates, and the problems."""

    pairs: list[tuple[str, str, int]] = field(default_factory=list)  # (English, translated, English line)
    problems: list[str] = field(default_factory=list)
    same_code: bool = True
    difference: tuple[int, int] | None = None  # (English line, translation's line) of the first difference


def registry_file(project: Project) -> Path:
    """``chapters/code_text.yml``."""
    return project.chapters / REGISTRY


def read_registry(project: Project) -> Registry:
    """Read ``chapters/code_text.yml`` (none: nothing is listed, so every literal is code).

    Raises:
        ConfigError: if the file is malformed.
    """
    path = registry_file(project)
    if not path.exists():  # a book without the file: no literal may be translated
        return Registry({}, {})
    data = read_yaml(path, project.relative(path))
    name = project.relative(path)
    if not isinstance(data, dict) or set(data) != {"translate", "keep"}:
        raise ConfigError(name, "", "must have exactly the keys 'translate' and 'keep'")
    translate, keep = data["translate"], data["keep"]
    if not isinstance(translate, dict) or not all(
        isinstance(items, list) and all(isinstance(item, str) for item in items) for items in translate.values()
    ):
        raise ConfigError(name, "translate", "must map each page to a list of templates (strings)")
    if not isinstance(keep, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in keep.items()):
        raise ConfigError(name, "keep", "must map each template to the reason it stays as written")
    return Registry({str(page): list(items) for page, items in translate.items()}, dict(keep))


def template(node: ast.AST) -> str | None:
    """Return the template of a string literal (``{}`` for each filled-in value), or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.replace("{", "{{").replace("}", "}}")
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                parts.append(value.value.replace("{", "{{").replace("}", "}}"))
            else:
                parts.append("{}")
        return "".join(parts)
    return None


def _fields(node: ast.AST) -> list[str]:
    """The filled-in values of an f-string, as parsed code; none for a plain string."""
    if isinstance(node, ast.JoinedStr):
        return [ast.dump(value) for value in node.values if isinstance(value, ast.FormattedValue)]
    return []


def _walk(
    english: object, translation: object, texts: frozenset[str], found: Alignment, lines: tuple[int, int] = (0, 0)
) -> bool:
    """Compare two parsed trees; record translated literals in ``found``; False where they differ.

    ``lines``: the lines of the nearest enclosing nodes (English, translation), where a difference is reported.
    """
    lines = (getattr(english, "lineno", lines[0]), getattr(translation, "lineno", lines[1]))
    line = lines[0]
    if isinstance(english, ast.AST) and (english_template := template(english)) in texts:
        translated = template(translation) if isinstance(translation, ast.AST) else None
        if translated is None or _fields(english) != _fields(translation):  # type: ignore[arg-type]
            found.problems.append(
                f"line {line}: the translation of {english_template!r} must be a string with the same "
                "filled-in values, in the same order"
            )
        else:
            found.pairs.append((str(english_template), translated, line))
        return True
    if isinstance(english, list) and isinstance(translation, list) and len(english) == len(translation):
        return all([_walk(a, b, texts, found, lines) for a, b in zip(english, translation)])
    if isinstance(english, ast.AST) and type(english) is type(translation):
        return all(
            [
                _walk(getattr(english, name, None), getattr(translation, name, None), texts, found, lines)
                for name in english._fields
                if name != "ctx"
            ]
        )
    if english == translation:
        return True
    if found.difference is None:
        found.difference = lines
    return False


def align(english: ast.Module, translation: ast.Module, texts: frozenset[str]) -> Alignment:
    """Walk an English cell's code and its translation's side by side (see the module's docstring).

    Both trees come with their docstrings made equal (``booktools.checks.translations.pycode``).
    """
    found = Alignment()
    found.same_code = _walk(english, translation, texts, found)
    return found


def display_literals(tree: ast.AST) -> Iterator[tuple[str, int]]:
    """Yield (template, line) of every string literal that ``tree`` shows the reader and that has words."""

    def literals(node: ast.AST) -> Iterator[ast.AST]:
        if template(node) is not None:
            yield node
        elif isinstance(node, (ast.List, ast.Tuple)):
            for element in node.elts:
                yield from literals(element)

    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        shown = list(node.args) if name in DISPLAY_CALLS else []
        shown += [keyword.value for keyword in node.keywords if keyword.arg in DISPLAY_KEYWORDS]
        for argument in shown:
            for literal in literals(argument):
                text = str(template(literal))
                if WORDS.search(text.replace("{}", "")):
                    yield text, getattr(literal, "lineno", 0)


def to_english_output(text: str, pairs: list[tuple[str, str]]) -> str:
    """Read a translated cell's printed ``text`` back into English, line by line.

    ``pairs`` are (English, translated) templates; each place a translated template
    matches (longest first) is written with the English template and the same values.
    Runs of spaces become one (a translated header is spaced for its own words).
    """
    ordered = sorted(pairs, key=lambda pair: -len(pair[1]))
    lines = []
    for line in text.split("\n"):
        for english, translated in ordered:
            if translated == english:
                continue
            pattern = template_pattern(translated)
            if translated.endswith("}") and not translated.endswith("}}"):
                pattern = pattern[: -len("(.*?)")] + "(.*)"  # a value at the end runs to the line's end
            # a word of the template is a whole word of the line: 키 (Keys) is not the start of 키움
            pattern = ("(?<!\\w)" if re.match(r"\w", translated) else "") + pattern
            pattern += "(?!\\w)" if re.search(r"\w$", translated) else ""
            line = re.sub(pattern, functools.partial(_written_in, english), line)
        lines.append(line)
    return normalized_output("\n".join(lines))


def _written_in(english: str, match: re.Match[str]) -> str:
    return english.format(*match.groups())


def normalized_output(text: str) -> str:
    """English printed output as :func:`to_english_output` leaves a translation's: single spaces."""
    return "\n".join(re.sub(r" {2,}", " ", line).rstrip() for line in text.split("\n"))


def library_table(pairs: dict[str, set[tuple[str, str]]]) -> str:
    """Return ``d2l_lib/figure_text.json``: per edition, its (translated, English) templates, sorted."""
    data = {
        language: sorted([translated, english] for english, translated in found) for language, found in pairs.items()
    }
    return json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def library_table_file(project: Project) -> Path:
    """``d2l_lib/figure_text.json``."""
    return project.library_dir / TEXT_FILE


def code_trees(path: Path, language: str) -> list[tuple[str, ast.Module]]:
    """(cell id, parsed code) of every code cell of a notebook that parses."""
    notebook = nbformat.read(path, as_version=4)
    trees = []
    for cell in notebook.cells:
        if cell.cell_type == "code":
            try:
                trees.append((str(cell.get("id")), prepared_tree(cell.source, language)))
            except SyntaxError:
                continue
    return trees


def edition_pairs(project: Project) -> dict[str, set[tuple[str, str]]]:
    """Return, per translated edition, its (English, translated) templates of the listed words."""
    registry = read_registry(project)
    found: dict[str, set[tuple[str, str]]] = {}
    for english in project.pages(SOURCE_LANGUAGE):
        if english.suffix != ".ipynb":
            continue
        texts = registry.page(english.stem)
        english_trees = dict(code_trees(english, SOURCE_LANGUAGE))
        for language in project.editions():
            if language == SOURCE_LANGUAGE:
                continue
            translation = project.edition_dir(language) / english.name
            pairs = found.setdefault(language, set())
            if not translation.exists():  # the translation checker reports a missing page
                continue
            for cell_id, tree in code_trees(translation, language):
                if cell_id in english_trees:
                    pairs |= {(a, b) for a, b, _ in align(english_trees[cell_id], tree, texts).pairs if a != b}
    return found
