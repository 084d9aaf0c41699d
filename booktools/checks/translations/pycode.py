"""Python code as the translation checker sees it: the code itself, and the prose inside it.

Comments and docstrings are translated; the code is not. :func:`normalized_code`
gives the code with them left out (what must equal English), :func:`code_prose`
the comments and docstrings (what must not be left in English).
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize

from booktools.checks.translations.prose import segments
from booktools.sources.cell_code import docstrings, prepared_tree
from booktools.sources.save_marks import SAVE_MARK

CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
# Comments addressed to tools, not readers (mypy, ruff, black, coverage): not prose, never translated.
TOOL_COMMENT = re.compile(r"^(?:type:\s*ignore(?:\[[\w\-, ]*\])?|noqa(?::[\w, ]*)?|fmt:\s*(?:on|off|skip)|pragma:.*)$")


@functools.lru_cache(maxsize=4096)  # a check reads each English cell once per edition, and tests check often
def normalized_code(source: str, language: str | None = None) -> str:
    """Return the code of a cell as text, without comments and with every docstring the same.

    With ``language``, a call's ``lang=`` argument that names it (``lang='id'`` on an
    Indonesian page, ``lang='en'`` on an English one) reads as ``lang=<edition>``: a check or
    hint prints in its edition's language (``booktools.sources.exercises``). Any other value
    stays as written, so a page that passes another edition's language differs from English.

    Raises:
        SyntaxError: if the cell is not valid Python.
    """
    return ast.unparse(prepared_tree(source, language))


def code_prose(source: str) -> list[tuple[int, str]]:
    """Return (line number, sentence) for the comments and docstrings of a cell."""
    return list(_code_prose(source))


@functools.lru_cache(maxsize=4096)  # the checker reads a cell's prose twice, English's once per edition
def _code_prose(source: str) -> tuple[tuple[int, str], ...]:
    pieces: list[tuple[int, str]] = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
        tree = ast.parse(source)
    except (tokenize.TokenError, SyntaxError):
        return ()
    block_end = -1  # last line of the block of whole-line comments being read
    for token in tokens:
        if token.type != tokenize.COMMENT:
            continue
        text = SAVE_MARK.split(token.string, maxsplit=1)[0].lstrip("#").strip()
        if TOOL_COMMENT.match(text):
            text = ""
        whole_line = token.line.lstrip().startswith("#")
        if text and whole_line and block_end == token.start[0] - 1:
            pieces[-1] = (pieces[-1][0], pieces[-1][1] + "\n" + text)
        elif text:
            pieces.append((token.start[0], text))
        block_end = token.start[0] if text and whole_line else -1
    pieces += [(statement.lineno, text) for _, statement, text in docstrings(tree)]
    result = []
    for line, text in pieces:
        result += [(line + number - 1, sentence) for number, sentence in segments(CODE_SPAN.sub(" ", text))]
    return tuple(sorted(result))
