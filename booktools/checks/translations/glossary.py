"""The translation glossary ``chapters/glossary.yml``: its schema, and its rules for one language.

The file maps each concept to how English prose names it (``en``, a regular
expression) and, for each edition's language code, the term chosen and the
variants banned. It is validated on load against the schema below
(``booktools.configuration.schema``): a misspelt key, a value of the wrong type, a bad pattern
or a language that is not an edition fails with the file, the key and what was
expected. A new rule is a new field: one line in :class:`LanguageRule` (per
concept and language), :class:`StyleRule` (per style rule) or :class:`Glossary`
(for the whole file).

Beside the concepts, ``rules`` holds each edition's style rules that a term and
its banned variants cannot express (a vector's dimension is not its length, no
needless plural, the dash between the two nouns of a pair): a regular expression
that must not match, with ``must_fail`` and ``must_pass`` example sentences,
which ``tests/translations/test_glossary_rules.py`` runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from booktools.configuration.config_file import SOURCE_LANGUAGE, configured_editions
from booktools.configuration.schema import ConfigError, load
from booktools.project import Project

FLAGS = re.IGNORECASE | re.MULTILINE


class GlossaryError(ConfigError):
    """``chapters/glossary.yml`` does not have the documented format."""


def _pattern(text: str) -> str:
    try:
        re.compile(text, FLAGS)
    except re.error as error:
        raise ValueError(f"expected a regular expression: {error}") from error
    return text


@dataclass(frozen=True)
class LanguageRule:
    """A concept in one language (``id:``, ``ko:``)."""

    term: str  # the chosen term, required in a cell whose English names the concept
    banned: tuple[str, ...] = ()  # variants that must not appear anywhere in the edition
    note: str = ""  # guidance for translators; not checked


CELL_KINDS = ("all", "markdown", "code")


def _cells(text: str) -> str:
    if text not in CELL_KINDS:
        raise ValueError(f"expected one of {', '.join(CELL_KINDS)}, got {text!r}")
    return text


@dataclass(frozen=True)
class StyleRule:
    """A style rule of one edition: text that breaks it, searched like banned variants."""

    statement: str  # the rule, in words; shown with each problem
    pattern: str = field(default="", metadata={"check": _pattern})  # matches text that breaks the rule
    banned: tuple[str, ...] = ()  # forms that break it too, matched like a concept's banned variants
    cells: str = field(default="all", metadata={"check": _cells})  # all, markdown or code (comments, docstrings, quiz)
    emphasis: bool = False  # search markdown with its emphasis marks `*` kept (removed by default)
    must_fail: tuple[str, ...] = ()  # sentences that break the rule (run by the tests)
    must_pass: tuple[str, ...] = ()  # sentences that keep it (run by the tests)


@dataclass(frozen=True)
class Concept:
    """One concept: how English names it, and its rule in each other language."""

    en: str = field(metadata={"check": _pattern})
    languages: dict[str, LanguageRule] = field(default_factory=dict, metadata={"rest": True})


@dataclass(frozen=True)
class Glossary:
    """The whole file."""

    concepts: dict[str, Concept]
    rules: dict[str, dict[str, StyleRule]] = field(default_factory=dict)  # language -> rule name -> rule


@dataclass(frozen=True)
class Term:
    """The glossary's rule for one concept in one language, ready to apply."""

    concept: str
    english: re.Pattern[str]
    term: str
    banned: tuple[str, ...]


def load_glossary(project: Project) -> Glossary:
    """Read and validate ``chapters/glossary.yml``; each language must be an edition of ``_config.yml``.

    Raises:
        GlossaryError: naming the file, the key and what was expected.
    """
    file = project.relative(project.glossary_file)
    try:
        glossary = load(project.glossary_file, Glossary, file)
        languages = [
            edition.code for edition in configured_editions(project.config()) if edition.code != SOURCE_LANGUAGE
        ]
    except ConfigError as error:
        raise GlossaryError(error.file, error.key, error.problem) from error
    for name, concept in glossary.concepts.items():
        where = f"concepts.{name}" if re.fullmatch(r"[\w-]+", name) else f"concepts.{name!r}"
        for code in concept.languages:
            if code not in languages:
                raise GlossaryError(
                    file,
                    where,
                    f"unknown key {code!r}; expected {SOURCE_LANGUAGE} "
                    f"or an edition's language code ({', '.join(languages)})",
                )
        for code in languages:
            if code not in concept.languages:
                raise GlossaryError(
                    file, where, f"missing key {code!r} (the concept in that edition: {{term: ..., banned: [...]}})"
                )
    for code, rules in glossary.rules.items():
        if code not in languages:
            raise GlossaryError(
                file, f"rules.{code}", f"unknown language {code!r}; expected an edition's ({', '.join(languages)})"
            )
        for name, rule in rules.items():
            if not rule.pattern and not rule.banned:
                raise GlossaryError(file, f"rules.{code}.{name}", "expected a pattern or banned forms")
            if not rule.must_fail:
                raise GlossaryError(file, f"rules.{code}.{name}", "expected must_fail: a sentence that breaks the rule")
    return glossary


def read_rules(language: str, project: Project) -> dict[str, StyleRule]:
    """Return the style rules of ``language`` (see :class:`StyleRule`), by name.

    Raises:
        GlossaryError: if the file does not match its schema (see :func:`load_glossary`).
    """
    return load_glossary(project).rules.get(language, {})


def read_glossary(language: str, project: Project) -> list[Term]:
    """Return the glossary's terms for ``language``.

    Raises:
        GlossaryError: if the file does not match its schema (see :func:`load_glossary`).
    """
    return [
        Term(name, re.compile(concept.en, FLAGS), concept.languages[language].term, concept.languages[language].banned)
        for name, concept in load_glossary(project).concepts.items()
    ]
