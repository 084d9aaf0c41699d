"""A Korean search language for Sphinx's built-in search.

Sphinx has no Korean splitter: for ``language = "ko"`` it falls back to English,
which indexes each space-separated eojeol as one term. Korean attaches particles
to nouns (어텐션은, 어텐션의, 키와), so the term 어텐션 or 키 would only be found
through Sphinx's partial matching, which its JavaScript applies to query words of
three characters or more; the many one- and two-syllable nouns (키, 값, 함수) would
be found only where they stand bare.

``SearchKorean`` keeps the English treatment of Latin words (the Porter stemmer,
which the search page applies to the query too) and splits mixed tokens at the
boundary between Hangul and other letters (``softmax는`` gives ``softmax`` and
``는``). For every Hangul word it also indexes each of its prefixes, so a query for
the bare noun finds the word with any particle attached (edge n-grams). The query
side needs no change: a query word is looked up as it is typed.
"""

from __future__ import annotations

import re

from sphinx.search.en import SearchEnglish

HANGUL = "\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3"
_HANGUL_RUN = re.compile(f"[{HANGUL}]+")
_TOKEN = re.compile(f"[{HANGUL}]+|[^\\W{HANGUL}]+")


def hangul_prefixes(word: str) -> list[str]:
    """Return ``word``'s prefixes, shortest first, ending with ``word`` itself."""
    return [word[:end] for end in range(1, len(word) + 1)]


class SearchKorean(SearchEnglish):
    """Index Korean text so that a noun is found whatever particle follows it."""

    lang = "ko"
    language_name = "Korean"

    def split(self, input: str) -> list[str]:
        """Split ``input`` into words, adding the prefixes of every Hangul word."""
        words: list[str] = []
        for token in _TOKEN.findall(input):
            if _HANGUL_RUN.fullmatch(token):
                words.extend(hangul_prefixes(token))
            else:
                words.append(token)
        return words

    def stem(self, word: str) -> str:
        """Stem Latin words as English does; leave Hangul words as they are."""
        if _HANGUL_RUN.search(word):
            return word
        return super().stem(word)
