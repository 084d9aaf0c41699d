"""Tell prose left in English from translated prose, sentence by sentence.

A translated sentence is reported when it is its English original, left
untranslated (:func:`copied_from_english`), or when it is full of English
function words (:func:`looks_english`). Identifiers, proper names and the terms
the glossary keeps in English are not evidence either way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# English words that carry no content and are not Indonesian words (so no "a",
# "as", "per", "di"). A sentence full of them is English, whatever its nouns.
FUNCTION_WORDS = frozenset(
    """
    the of and is are was were be been being that which who whose we our us you your it its they them
    their this these those with to for from by on at in into or not but if then than when where while
    what how why can could will would should must may might has have had does do did there here each
    every only also both such because so very just all any some other another same more most much many
    about after before over under between through without within again once since until whether nor let
    either neither however therefore thus instead whatever
""".split()
)
# Names that stay in English in every edition (words of these phrases are not evidence of English prose).
PROPER_NAMES = (
    "Dive into Deep Learning",
    "PyTorch",
    "NVIDIA",
    "Transformer Engine",
    "Transformer",
    "Megatron",
    "Colab",
    "D2L",
    "Jupyter",
    "Python",
    "GPU",
    "CPU",
    "NaN",
    "BMM",
    "MLP",
    "Gaussian",
    "Args",
    "Returns",
    "Raises",
)
# A sentence is English when it has MIN_FUNCTION_WORDS of them making up MIN_SHARE of its words.
MIN_FUNCTION_WORDS = 2
MIN_SHARE = 0.15
# A sentence identical to its English original is untranslated if it has this many ordinary words
# (more in code, where a comment such as "# (batch, queries, d)" may be notation).
MIN_COPIED_WORDS = {"markdown": 1, "code": 2}

WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
IDENTIFIER = re.compile(r"\b\w*(?:_|\d|[a-z][A-Z])\w*\b")  # snake_case, names with digits, camelCase
SENTENCE_END = re.compile(r"(?<=[.!?:;。])\s+(?=[^a-z])")
# Plain text (comments, docstrings): a heading or a list item starts a new block.
HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


def squash(text: str) -> str:
    """Collapse white space to single spaces."""
    return " ".join(text.split())


def text_blocks(text: str) -> list[tuple[int, str]]:
    """Split plain text into (line number, block): blank lines, headings and list items start blocks.

    Heading and list markers are dropped, and so are ``*`` (emphasis).
    """
    blocks: list[tuple[int, list[str]]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            blocks.append((number, []))
            continue
        if (
            HEADING.match(line)
            or LIST_ITEM.match(line)
            or not blocks
            or not blocks[-1][1]
            or HEADING.match(blocks[-1][1][-1])
        ):
            blocks.append((number, []))
        blocks[-1][1].append(line)
    result = []
    for number, lines in blocks:
        block = squash(" ".join(lines))
        block = LIST_ITEM.sub("", HEADING.sub("", block)).replace("*", "")
        if block:
            result.append((number, block))
    return result


def sentences(blocks: Iterable[tuple[int, str]]) -> list[tuple[int, str]]:
    """Split blocks of prose into (line number of the block, sentence)."""
    return [
        (number, sentence) for number, block in blocks for sentence in SENTENCE_END.split(squash(block)) if sentence
    ]


def segments(text: str) -> list[tuple[int, str]]:
    """Split plain text into (line number, sentence) (see :func:`text_blocks`)."""
    return sentences(text_blocks(text))


def words(sentence: str) -> list[str]:
    """The words of a sentence, without identifiers and proper names."""
    for name in PROPER_NAMES:
        sentence = re.sub(rf"\b{re.escape(name)}\b", " ", sentence)
    return WORD.findall(IDENTIFIER.sub(" ", sentence))


def looks_english(sentence: str) -> bool:
    """Tell whether a sentence of a translation is written in English.

    English prose is recognised by its function words ("the", "of", "is",
    "which", ...), which neither Indonesian nor Korean uses and which are not in
    identifiers, math, proper names or the technical terms the glossary keeps:
    at least :data:`MIN_FUNCTION_WORDS` of them, making up at least
    :data:`MIN_SHARE` of the sentence's words.
    """
    found = words(sentence)
    english = sum(word.lower() in FUNCTION_WORDS for word in found)
    return english >= MIN_FUNCTION_WORDS and english >= MIN_SHARE * len(found)


def copied_from_english(sentence: str, english: set[str], kept: set[str], min_words: int = 1) -> bool:
    """Tell whether a sentence is its English original, left untranslated.

    ``english`` holds the sentences of the English cell; ``kept`` the lowercase
    words the language keeps from English (the glossary's terms). The sentence
    must have ``min_words`` words besides those, proper names and one-letter
    names, so that a formula or a product name written the same way passes.
    """
    if sentence not in english:
        return False
    ordinary = [word for word in words(sentence) if len(word) > 1 and word.lower() not in kept]
    return len(ordinary) >= min_words


def quote(text: str, width: int = 70) -> str:
    """``repr`` of ``text``, shortened to ``width`` characters."""
    return repr(text if len(text) <= width else text[: width - 3] + "...")
