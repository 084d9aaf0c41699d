"""The rewriting of the built site, step by step (booktools.website.extension.page_steps): each step alone."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from sphinx.errors import ExtensionError

from booktools.website.extension import page_steps

# A 1x1 PNG.
PIXEL = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")


def step(name: str) -> page_steps.PageStep:
    """The page step called ``name``."""
    return next(step for step in page_steps.PAGE_STEPS if step.name == name)


def test_the_steps_are_named_once_say_what_they_do_and_run_in_order():
    names = [step.name for step in page_steps.PAGE_STEPS]
    assert names == ["inline-icons", "plain-code-tokens", "size-images", "focusable-code", "number-code-lines"]
    assert [step.name for step in page_steps.SITE_STEPS] == ["bundle-stylesheets"]
    assert all(step.does and "\n" not in step.does for step in (*page_steps.PAGE_STEPS, *page_steps.SITE_STEPS))


def test_inline_icons_turns_a_font_awesome_icon_into_svg(tmp_path: Path):
    html = step("inline-icons").apply('<p><i class="fa-solid fa-xmark"></i></p>', tmp_path / "a.html")
    assert "<i " not in html and '<svg class="svg-inline--fa fa-xmark"' in html and 'aria-hidden="true"' in html


def test_an_unknown_icon_fails_naming_the_page(tmp_path: Path):
    with pytest.raises(ExtensionError, match=r"a\.html: Font Awesome icon: .*no-such-icon"):
        step("inline-icons").apply('<i class="fa-solid fa-no-such-icon"></i>', tmp_path / "a.html")


def test_plain_code_tokens_drops_the_spans_of_plain_text(tmp_path: Path):
    html = '<div class="highlight-python"><pre><span class="n">x</span><span class="o">=</span></pre>'
    assert step("plain-code-tokens").apply(html, tmp_path / "a.html") == (
        '<div class="highlight-python"><pre>x<span class="o">=</span></pre>'
    )


def test_size_images_reads_the_size_of_an_image_beside_the_page(tmp_path: Path):
    (tmp_path / "dot.png").write_bytes(PIXEL)
    html = step("size-images").apply('<img src="dot.png" alt="a dot" />', tmp_path / "a.html")
    assert 'width="1" height="1"' in html and 'loading="lazy"' in html and 'decoding="async"' in html


def test_focusable_code_gives_every_pre_a_tab_stop(tmp_path: Path):
    assert step("focusable-code").apply("<pre>a</pre>", tmp_path / "a.html") == '<pre tabindex="0">a</pre>'


def test_number_code_lines_writes_the_line_count(tmp_path: Path):
    html = step("number-code-lines").apply('<pre tabindex="0">a\nb\n</pre>', tmp_path / "a.html")
    assert html == '<pre tabindex="0" style="--lines: 2">a\nb\n</pre>'


def test_a_page_goes_through_every_step(tmp_path: Path):
    html = '<div class="highlight"><pre><span class="n">x</span>\n</pre></div>'
    assert page_steps.rewrite_page(html, tmp_path / "a.html") == (
        '<div class="highlight"><pre tabindex="0" style="--lines: 1">x\n</pre></div>'
    )
