"""The alt-text templates of a translation keep to its glossary (booktools.checks.translations.check.check_alt_text).

The heatmaps' alt text is prose a reader hears, so a banned variant of a glossary term, or
text that breaks one of the edition's style rules for every kind of text, is reported in
``chapters/<lang>/alt_text.yml`` as it is in a page.
"""

from __future__ import annotations

import re

import pytest

from booktools.checks.translations.check import check_alt_text
from booktools.checks.translations.glossary import StyleRule, Term, read_glossary, read_rules
from booktools.project import SOURCE_LANGUAGE, Project

PROJECT = Project.here()
TRANSLATIONS = [code for code in PROJECT.editions() if code != SOURCE_LANGUAGE]


@pytest.mark.parametrize("language", TRANSLATIONS)
def test_each_edition_s_alt_text_keeps_to_its_glossary(language):
    terms, rules = read_glossary(language, PROJECT), read_rules(language, PROJECT)
    assert check_alt_text(language, terms, rules, PROJECT) == []


def test_a_banned_variant_in_a_template_is_named_with_its_file_and_key():
    heatmap = Term("heatmap", re.compile(r"\bheatmaps?\b"), "peta bahang", ("peta panas",))
    problems = check_alt_text("id", [heatmap], {}, PROJECT)
    assert problems and all(problem.startswith("chapters/id/alt_text.yml: glossary:") for problem in problems)
    assert any("'Peta panas' of 'heatmap' (heatmaps.single)" in problem for problem in problems), problems


def test_only_the_rules_for_every_kind_of_text_apply():
    markdown_only = StyleRule(statement="no grid", pattern=r"\bgrid\b", cells="markdown")
    everywhere = StyleRule(statement="no grid", pattern=r"\bgrid\b")
    assert check_alt_text("id", [], {"grid": markdown_only}, PROJECT) == []
    assert any("(heatmaps.grid)" in problem for problem in check_alt_text("id", [], {"grid": everywhere}, PROJECT))
