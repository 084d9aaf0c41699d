"""Lighter code blocks: Pygments' spans for tokens that look like plain text are dropped.

Pygments wraps every token of a code block in a ``<span class="...">``: every
name (``n``), punctuation mark (``p``) and run of whitespace (``w``). The book's
pages hold each code cell once per framework, so this is most of their HTML and
of their elements (the library's page: some 8,000 of its 15,000 spans are these
three), which the browser parses, styles and lays out before it can paint.

The theme's Pygments styles (pydata-sphinx-theme's a11y light and dark, in
``_static/pygments.css``) give these three tokens exactly the colour of the code
block itself (``.highlight .n {color: #080808}`` as ``.highlight {color: #080808}``,
and so in the dark mode), so their text is drawn the same without the span, as
long as the ``<pre>`` takes the block's colour (``static/book.css``:
``.highlight pre {color: inherit}``). :func:`plain_code_tokens` unwraps them inside
the ``<pre>`` of ``div.highlight`` blocks only: elsewhere (an API signature) a
``span.n`` is styled.
"""

from __future__ import annotations

import re

PLAIN_TOKENS = ("n", "p", "w")
_BLOCK = re.compile(r'(<div class="highlight[^"]*"><pre>)(.*?)(</pre>)', re.DOTALL)
_PLAIN_SPAN = re.compile(r'<span class="(?:' + "|".join(PLAIN_TOKENS) + r')">([^<]*)</span>')


def plain_code_tokens(text: str) -> str:
    """Return an HTML page whose highlighted code blocks have no span for plain-text tokens."""
    return _BLOCK.sub(lambda block: block.group(1) + _PLAIN_SPAN.sub(r"\1", block.group(2)) + block.group(3), text)
