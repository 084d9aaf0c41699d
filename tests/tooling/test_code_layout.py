"""Code blocks marked with their number of lines, which static/book.css lays out when reached."""

from __future__ import annotations

from booktools.website.extension.code_layout import LINES_PROPERTY, line_count, number_code_lines


def test_line_count_counts_the_lines_shown():
    assert line_count("") == 1
    assert line_count("x = 1") == 1
    assert line_count("x = 1\n") == 1, "a final newline ends the last line; it starts none"
    assert line_count('<span class="k">def</span> f():\n    return 1\n') == 2
    assert line_count("a\n\nb\n") == 3, "an empty line is a line"


def test_every_pre_without_a_style_gets_its_line_count():
    page = '<p>x</p><pre tabindex="0">a\nb\n</pre><div><pre>c</pre></div>'
    assert number_code_lines(page) == (
        f'<p>x</p><pre tabindex="0" style="{LINES_PROPERTY}: 2">a\nb\n</pre>'
        f'<div><pre style="{LINES_PROPERTY}: 1">c</pre></div>'
    )


def test_a_pre_with_a_style_and_other_elements_are_left_alone():
    page = '<pre style="color: red">a\nb</pre><pretend>x</pretend><code>y\nz</code>'
    assert number_code_lines(page) == page
    assert number_code_lines(number_code_lines("<pre>a</pre>")) == number_code_lines("<pre>a</pre>")
