"""Each page with a word cap keeps to its length, counted on the built English page.

``booktools.checks.page_words`` counts the words a reader meets in each framework's tab
(paragraphs, list items, headings and captions; an inline formula one word, a reference
as the text it shows; not code, outputs, display math, the other tabs, the folded
solutions, the quiz or the bibliography). Each page's cap, in every tab, is its ``words``
in ``chapters/pages.yml``. First, without the site, what the counter counts, on a page
made for it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from booktools.__main__ import main as booktools_command
from booktools.checks import page_words
from booktools.checks.page_words import edition_words
from booktools.project import Project
from booktools.sources.frameworks import FRAMEWORKS, NAMES
from booktools.sources.page_manifest import word_caps
from booktools.website.built_pages import BuiltPageError

EDITION = "en"  # the caps hold for the English original; translations run longer or shorter
WORD_CAPS = word_caps(Project.here())  # chapters/pages.yml: each page's `words`


def katex(symbols: str) -> str:
    """An inline formula as KaTeX writes it: its symbols in MathML, and again in HTML."""
    return (
        f'<span class="math notranslate nohighlight"><span class="katex"><span class="katex-mathml"><math>'
        f"<mi>{symbols}</mi></math></span><span class=\"katex-html\"><span class=\"mord\">{symbols}</span>"
        "</span></span></span>"
    )


def tab_set(contents: dict[str, str]) -> str:
    """A framework tab set as sphinx-design writes it, with ``contents[name]`` in each framework's tab."""
    tabs = "".join(
        f'<input id="t-{f.name}" type="radio"><label class="sd-tab-label" data-sync-id="{f.name}">{f.label}</label>'
        f'<div class="sd-tab-content docutils">{contents[f.name]}</div>'
        for f in FRAMEWORKS
    )
    return f'<div class="sd-tab-set d2l-framework-tabs docutils">{tabs}</div>'


PAGE = (
    '<html><body><header>Site header words</header><article class="bd-article">'
    '<section id="page"><h1><span class="section-number">2. </span>Scoring'
    '<a class="headerlink" href="#page">#</a></h1>'
    '<p class="d2l-slides-link">Slides: <a href="s.html">PyTorch</a></p>'
    f"<p>A score {katex('a(q, k)')} — per key, see <a class=\"reference internal\" href=\"#f\">"
    '<span class="std std-numref">Fig. 2.1</span></a>; both <code><span class="pre">where</span></code>s.</p>'
    '<div class="math notranslate nohighlight">display words are left out</div>'
    '<figure><figcaption><p><span class="caption-number">Fig. 2.1 </span>'
    '<span class="caption-text">The output.</span></p></figcaption></figure>'
    '<ul><li><p>One item.</p></li><li><p>Two</p></li></ul>'
    '<div class="highlight-text"><div class="highlight"><pre>literal words left out</pre></div></div>'
    + tab_set(
        {
            "pytorch": '<div class="d2l-tab-pytorch"><p>Torch note here.</p></div>'
            '<div class="cell"><div class="cell_input"><pre>code words</pre></div>'
            '<div class="cell_output"><pre>output words</pre></div></div>',
            "jax": '<div class="d2l-tab-jax"><p>A longer JAX note with six words.</p></div>',
            "tensorflow": '<div class="cell"><div class="cell_input"><pre>only code</pre></div></div>',
        }
    )
    + '<section id="quiz"><h2>Check Yourself</h2><p>Questions follow.</p>'
    '<div class="cell tag_d2l-quiz"><div class="cell_output">Which one? Yes No</div></div></section>'
    '<section id="exercises"><h2>Exercises</h2><div class="exercise admonition"><p class="admonition-title">'
    "Exercise 2.1</p><section><p>Write it.</p></section></div>"
    '<div class="solution dropdown admonition"><p class="admonition-title">Solution to Exercise 2.1</p>'
    "<section><p>The folded answer is left out.</p></section></div>"
    '<div class="docutils container"><div class="citation-list"><div class="citation">Author, A title, 2024.'
    "</div></div></div></section></section></article><footer>Next page</footer></body></html>"
)
# Prose outside the tabs: "2. Scoring" (2), "A score <formula> — per key, see Fig. 2.1; both wheres." (10),
# "Fig. 2.1 The output." (4), "One item." "Two" (3), "Exercises" "Exercise 2.1" "Write it." (5).
SHARED = 2 + 10 + 4 + 3 + 5
IN_TABS = {"pytorch": 3, "jax": 7, "tensorflow": 0}


def test_the_counter_counts_what_a_reader_meets_in_each_tab():
    assert page_words.page_words(PAGE, "made") == {name: SHARED + IN_TABS[name] for name in NAMES}


def test_a_token_without_a_letter_or_a_digit_is_no_word():
    assert page_words.count_words("a — b = 2 ; ( x_1 ) _ 한국어 .") == 5


def test_a_page_without_its_article_or_a_tab_is_refused(tmp_path: Path):
    with pytest.raises(BuiltPageError, match="article"):
        page_words.page_words("<html><body><p>No article.</p></body></html>", "bare")
    broken = PAGE.replace('data-sync-id="jax"', 'data-sync-id="mxnet"')
    with pytest.raises(BuiltPageError, match="without a jax tab"):
        page_words.page_words(broken, "broken")
    with pytest.raises(BuiltPageError, match="does not exist"):
        edition_words(tmp_path, ["missing"])


@pytest.fixture(scope="module")
def english_counts(site: Path) -> dict[str, dict[str, int]]:
    """The words of each capped English page, per framework (``python -m booktools page-words``)."""
    return edition_words(site / EDITION, list(WORD_CAPS))


@pytest.mark.parametrize("page", WORD_CAPS)
def test_the_page_keeps_to_its_word_cap_in_every_tab(english_counts, page):
    cap = WORD_CAPS[page]
    over = {name: count for name, count in english_counts[page].items() if count > cap}
    assert not over, f"{page} has more than {cap:,} words a reader meets in these tabs: {over}"


def test_the_counts_print_by_hand(site: Path, capsys: pytest.CaptureFixture[str]):
    assert booktools_command(["page-words", str(site / EDITION), *WORD_CAPS]) == 0
    table = capsys.readouterr().out
    assert all(page in table for page in WORD_CAPS) and all(f.label in table for f in FRAMEWORKS), table
