"""Code blocks laid out when the reader comes near them, holding their height until then.

A chapter's code blocks, in every framework's tab, are most of its elements: on the
engineering page, the blocks of the tab shown hold about 3,400 elements of its 6,500
that the browser styles and lays out before the first paint, in one long task of a
phone's main thread. ``static/book.css`` gives every ``<pre>`` that
:func:`number_code_lines` marked ``content-visibility: auto``: the browser styles and
lays out its contents only when it comes near the viewport. The block itself stays in
the page, its text in the accessibility tree and in find-in-page; it holds the height
of its lines until then (``contain-intrinsic-block-size``, from the number of lines
written here), so that the page does not jump when it is laid out, and keeps its
real height once it has been. Printing lays out every block.
"""

from __future__ import annotations

import re

# A <pre> element with its attributes and its content (which holds no other <pre>).
_PRE = re.compile(r"<pre(?=[\s>])([^>]*)>(.*?)</pre>", re.DOTALL)
# The CSS custom property static/book.css reads the number of lines from.
LINES_PROPERTY = "--lines"


def line_count(content: str) -> int:
    """Return the number of lines a ``<pre>`` element's HTML content shows (a final newline ends a line)."""
    return max(1, content.rstrip("\n").count("\n") + 1)


def number_code_lines(text: str) -> str:
    """Return an HTML page whose ``<pre>`` elements without a ``style`` have their line count as ``--lines``."""

    def numbered(match: re.Match[str]) -> str:
        attributes, content = match.groups()
        if re.search(r"\sstyle=", attributes):
            return match.group(0)
        return f'<pre{attributes} style="{LINES_PROPERTY}: {line_count(content)}">{content}</pre>'

    return _PRE.sub(numbered, text)
