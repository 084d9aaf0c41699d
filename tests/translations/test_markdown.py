"""Markdown is read as MyST reads it (checks.translations.markdown): the cases regular expressions got wrong."""

from __future__ import annotations

from booktools.checks.translations.cells import Cell
from booktools.checks.translations.compare import compare_markdown
from booktools.checks.translations.markdown import parse_markdown
from booktools.checks.translations.wording import check_english_left
from booktools.project import Project

PROJECT = Project.here()


def markdown(source: str) -> Cell:
    return Cell(1, "cell", "markdown", source)


def test_dollars_inside_inline_code_are_code_not_math() -> None:
    found = parse_markdown("Write `$$x$$` or `$y$` literally, and $z$ as math.")
    assert found.math_blocks == []
    assert found.inline_math == ["z"]
    assert found.blocks == [(1, "Write   or   literally, and   as math.")]


def test_a_role_inside_inline_code_is_code_not_a_role() -> None:
    found = parse_markdown("Write ``{numref}`fig_x` `` to refer to a figure, as {numref}`fig_y` does.")
    assert found.roles == ["{numref}fig_y"]


def test_a_directive_inside_a_list_item() -> None:
    english = "- First step:\n\n  :::{note}\n  Keep the mask.\n  :::\n- Second step."
    found = parse_markdown(english)
    assert found.directives == ["note"]
    assert (4, "Keep the mask.") in found.blocks  # the note's body is prose, on its own line
    assert parse_markdown("- :::{note}\n  A note.\n  :::").directives == ["note"]
    dropped = "- Langkah pertama:\n\n  Pertahankan mask.\n- Langkah kedua."
    assert compare_markdown(markdown(english), markdown(dropped)) == [
        "directives differ from English: English has 'note'"
    ]


def test_an_indented_fence_is_a_code_block_not_a_directive() -> None:
    assert parse_markdown("Text:\n\n    :::{note}\n    not a directive\n    :::\n").directives == ["code block"]


def test_a_code_block_inside_a_directive_stays_code() -> None:
    english = (
        "::::{admonition} Solution\n:class: dropdown\n\n```python\nweights = softmax(scores)  # the weights\n```\n::::"
    )
    translated = english.replace("Solution", "Solusi")
    found = parse_markdown(english)
    assert found.directives == ["admonition :class: dropdown", "code block python"]
    assert found.blocks == [(1, "Solution")]  # the code's comment is not prose
    assert compare_markdown(markdown(english), markdown(translated)) == []
    assert check_english_left(markdown(english), markdown(translated), set(), PROJECT) == []
    without_code = "::::{admonition} Solusi\n:class: dropdown\n\nTeks.\n::::"
    assert compare_markdown(markdown(english), markdown(without_code)) == [
        "directives differ from English: English has 'code block python'"
    ]


def test_a_role_inside_a_link() -> None:
    found = parse_markdown("[the figure {numref}`fig_a`](https://example.org/a_(b)) shows it.")
    assert found.roles == ["{numref}fig_a"]
    assert found.urls == ["https://example.org/a_(b)"]
    assert found.blocks == [(1, "the figure   shows it.")]


def test_a_code_span_alone_on_a_line_does_not_split_the_paragraph() -> None:
    found = parse_markdown("The function\n`scaled_dot_product_attention(q, k, v)`\ncomputes it. It is fast.")
    assert [line for line, _ in found.blocks] == [1]


def test_math_labels_and_line_numbers_inside_directives() -> None:
    source = "(sec_a)=\n# Title\n\n:::{note}\n:class: tip\n\n$$a = b$$ (eq_a)\n\nSee {eq}`eq_a`.\n:::"
    found = parse_markdown(source)
    assert found.labels == ["sec_a"]
    assert found.headings == ["#"]
    assert found.math_blocks == [("a = b", "eq_a")]
    assert found.directives == ["note :class: tip"]
    assert found.roles == ["{eq}eq_a"]
    assert found.blocks == [(2, "Title"), (9, "See  .")]


def test_figure_options_in_yaml_and_a_prose_alt() -> None:
    found = parse_markdown("```{figure} ../img/a.svg\n---\nwidth: 560px\nalt: A heatmap\n---\nThe caption.\n```")
    assert found.directives == ["figure ../img/a.svg :width: 560px"]
    assert (2, "A heatmap") in found.blocks and (6, "The caption.") in found.blocks


def test_links_and_written_out_urls() -> None:
    found = parse_markdown("See <https://d2l.ai>, https://example.org and ![a figure](../img/x.svg).")
    assert found.urls == ["../img/x.svg", "https://d2l.ai", "https://example.org"]
    assert "https" not in found.prose and "a figure" in found.prose
