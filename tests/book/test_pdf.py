"""The book's PDFs (``booktools.pdf``): one per edition and framework, printed by ``make book``.

On the built site: each PDF opens, has bookmarks of the page titles and holds, as
extractable text, each page's title and first sentence in the edition's language
(Hangul in the Korean ones), its framework's code and no other framework's, the
heatmaps as embedded images, a glyph for every character, and Korean lines broken
between words only. Every page of every edition links its edition's three PDFs.
"""

from __future__ import annotations

import functools
import re
import subprocess
import unicodedata
from collections import Counter
from pathlib import Path

import pypdf
import pytest
from bs4 import BeautifulSoup, Tag
from PIL import Image

from booktools.configuration.config_file import configured_editions
from booktools.pdf.document import FRAMEWORK_ATTRIBUTE, PRINT_CSS, mark_frameworks
from booktools.pdf.edition_pdfs import document_copy
from booktools.project import Project
from booktools.sources.frameworks import FRAMEWORKS, NAMES
from booktools.website.api_page import PAGE as API_PAGE
from booktools.website.built_pages import page_article

PROJECT = Project.here()
EDITIONS = [edition.code for edition in configured_editions(PROJECT.config())]
PDFS = [(code, framework.name) for code in EDITIONS for framework in FRAMEWORKS]
# A dotted name in code (torch.bmm, jnp.linalg.norm): what tells the frameworks' code apart.
# ASCII only: Python's \w takes Hangul too, and Korean prose sets a particle right after a name
# (`keras.ops.dot_product_attention`와), which would hide the name from the prose's names.
IDENTIFIER = r"[A-Za-z_][A-Za-z0-9_]*"
DOTTED_NAME = re.compile(rf"(?<![A-Za-z0-9_.]){IDENTIFIER}(?:\.{IDENTIFIER})+")
HANGUL = re.compile(r"[\uac00-\ud7a3]")
FONT_STACK = re.compile(r"--pdf-(?:sans|mono):\s*([^;]+);")


def page_title(article: Tag) -> str:
    """Return the title of a page: its first ``h1`` without its number and anchor."""
    heading = article.find("h1")
    if not isinstance(heading, Tag):
        return ""
    copy = BeautifulSoup(str(heading), "html.parser")
    for extra in copy.select(".section-number, a.headerlink"):
        extra.decompose()
    return " ".join(copy.get_text().split())


def font_families() -> list[str]:
    """Return the font families ``print.css`` sets the PDFs in (``--pdf-sans``, ``--pdf-mono``), generic ones aside."""
    stacks = FONT_STACK.findall(PRINT_CSS.read_text(encoding="utf-8"))
    names = [name.strip() for stack in stacks for name in stack.split(",")]
    return [name.strip('"') for name in names if name.startswith('"')]


SENTENCE_END = re.compile(r"(?<=[.!?])\s")
FONT_FOLDERS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"), Path.home() / ".fonts")
MATH = ".math, mjx-container, .katex, .MathJax"


def squeeze(text: str) -> str:
    """Text as compared here: ligatures undone (NFKC), no whitespace and no hyphens (pdftotext joins
    a word broken at a line's end hyphen and all: "masing-" + "masing" reads "masingmasing")."""
    return re.sub(r"[\s\-\u2010]+", "", unicodedata.normalize("NFKC", text))


@functools.cache
def reader(code: str, framework: str) -> pypdf.PdfReader:
    return pypdf.PdfReader(PROJECT.pdf_file(code, framework))


@functools.cache
def text(code: str, framework: str) -> str:
    """The PDF's text, extracted by Poppler's ``pdftotext`` (Debian's poppler-utils, installed by
    ``.ci/run``): under a second a PDF, where pypdf took 13 s on the Type3 fonts of Noto CJK."""
    path = PROJECT.pdf_file(code, framework)
    command = ["pdftotext", "-enc", "UTF-8", str(path), "-"]
    return subprocess.run(command, capture_output=True, check=True).stdout.decode()


@functools.cache
def articles(code: str) -> dict[str, Tag]:
    """The built pages of an edition in reading order (the API page last), framework content marked."""
    found = {}
    for name in [*PROJECT.page_names(code), API_PAGE]:
        article = page_article((PROJECT.site_dir / code / f"{name}.html").read_text(encoding="utf-8"), name)
        mark_frameworks(article, name)
        found[name] = article
    return found


def outline_titles(outline: list) -> list[str]:
    return [title for item in outline for title in (outline_titles(item) if isinstance(item, list) else [item.title])]


def first_sentence(article: Tag) -> str:
    """The first sentence of the page's first paragraph of prose (no math, no framework's own)."""
    for paragraph in article.find_all("p"):
        if paragraph.find_parent(attrs={FRAMEWORK_ATTRIBUTE: True}) or paragraph.select_one(MATH):
            continue
        prose = " ".join(paragraph.get_text().split())
        if len(prose) >= 40:
            return SENTENCE_END.split(prose)[0]
    raise AssertionError("a page without a paragraph of prose")


def framework_names(code: str) -> dict[str, set[str]]:
    """The dotted names only one framework's content uses, never the prose or another framework."""
    own: dict[str, set[str]] = {name: set() for name in NAMES}
    shared: set[str] = set()
    for article in articles(code).values():
        copy = BeautifulSoup(str(article), "html.parser")
        for marked in copy.select(f"[{FRAMEWORK_ATTRIBUTE}]"):
            own[str(marked[FRAMEWORK_ATTRIBUTE])] |= set(DOTTED_NAME.findall(marked.get_text()))
            marked.decompose()
        shared |= set(DOTTED_NAME.findall(copy.get_text()))
    return {name: names - shared - set().union(*(own[o] for o in NAMES if o != name)) for name, names in own.items()}


def uses(extracted: str, name: str) -> bool:
    """Whether ``extracted`` holds the dotted ``name`` whole, not as the end of a longer one (a.attention_weights)."""
    return re.search(rf"(?<![A-Za-z0-9_.]){re.escape(name)}(?![A-Za-z0-9_])", extracted) is not None


def image_sizes(pdf: pypdf.PdfReader) -> Counter:
    """The (width, height) of every image embedded in the PDF, counted once each."""
    seen, sizes = set(), Counter()

    def visit(resources) -> None:
        for ref in (resources.get("/XObject") or {}).values():
            if ref.idnum in seen:
                continue
            seen.add(ref.idnum)
            xobject = ref.get_object()
            if xobject["/Subtype"] == "/Image":
                sizes[(int(xobject["/Width"]), int(xobject["/Height"]))] += 1
            elif xobject["/Subtype"] == "/Form" and "/Resources" in xobject:
                visit(xobject["/Resources"])

    for page in pdf.pages:
        visit(page.get("/Resources") or {})
    return sizes


def heatmap_sizes(code: str, framework: str) -> Counter:
    """The sizes of the PNG figures (heatmaps) a framework's PDF shows: shared, or in its own content."""
    sizes = Counter()
    for article in articles(code).values():
        for image in article.select('img[src$=".png"]'):
            owner = image.find_parent(attrs={FRAMEWORK_ATTRIBUTE: True})
            if owner is None or owner[FRAMEWORK_ATTRIBUTE] == framework:
                with Image.open(PROJECT.site_dir / code / image["src"]) as png:
                    sizes[png.size] += 1
    return sizes


@pytest.fixture(scope="module")
def pdfs(printed_site: Path) -> list[tuple[str, str]]:
    missing = [PROJECT.relative(PROJECT.pdf_file(*pdf)) for pdf in PDFS if not PROJECT.pdf_file(*pdf).is_file()]
    assert not missing, f"make book printed no {missing}"
    return PDFS


def test_every_pdf_opens_with_bookmarks_of_its_pages_and_its_frameworks_api(pdfs):
    for code, framework in pdfs:
        pdf = reader(code, framework)
        assert len(pdf.pages) > 10, (code, framework)
        titles = outline_titles(pdf.outline)
        for page, article in articles(code).items():
            assert any(title.endswith(page_title(article)) for title in titles), (code, framework, page, titles)
        assert len(titles) > 2 * len(articles(code)), f"{code}/{framework}: bookmarks of the sections too"
        modules = [title for title in titles if "d2l_lib." in title]
        label = next(f.label for f in FRAMEWORKS if f.name == framework)
        assert len(modules) == 1 and label in modules[0], (code, framework, modules)
        assert pdf.metadata.title.endswith(f"({label})"), pdf.metadata.title


def test_the_text_holds_every_page_title_and_first_sentence_in_the_editions_language(pdfs):
    for code, framework in pdfs:
        extracted = squeeze(text(code, framework))
        for page, article in articles(code).items():
            assert squeeze(page_title(article)) in extracted, (code, framework, page, "title")
            sentence = first_sentence(article)
            assert squeeze(sentence) in extracted, (code, framework, page, sentence)


def test_hangul_is_extractable_from_the_korean_pdfs(pdfs):
    for code, framework in pdfs:
        count = len(HANGUL.findall(text(code, framework)))
        assert (count > 5000) if code == "ko" else (count == 0), (code, framework, count)


def test_each_pdf_holds_its_frameworks_code_and_no_other(pdfs):
    for code in EDITIONS:
        names = framework_names(code)
        assert all(len(found) >= 5 for found in names.values()), names
        for framework in NAMES:
            extracted = unicodedata.normalize("NFKC", text(code, framework))
            assert [name for name in names[framework] if name not in squeeze(extracted)] == [], (code, framework)
            others = [name for o in NAMES if o != framework for name in names[o] if uses(extracted, name)]
            assert others == [], (code, framework, others)


def test_the_heatmaps_are_embedded_images(pdfs):
    for code, framework in pdfs:
        expected = heatmap_sizes(code, framework)
        assert sum(expected.values()) >= 5, (code, framework)
        assert image_sizes(reader(code, framework)) == expected, (code, framework)


@functools.cache
def installed_fonts() -> dict[str, set[int]]:
    """The characters of every installed font family (the families ``print.css`` names)."""
    from fontTools.ttLib import TTCollection, TTFont

    wanted, found = set(font_families()), {}
    for folder in FONT_FOLDERS:
        for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
            if path.suffix.lower() not in {".ttf", ".otf", ".ttc"}:
                continue
            fonts = TTCollection(path, lazy=True).fonts if path.suffix.lower() == ".ttc" else [TTFont(path, lazy=True)]
            for font in fonts:
                family = font["name"].getBestFamilyName()
                if family in wanted:
                    found.setdefault(family, set()).update(font.getBestCmap())
    return found


def test_every_character_of_every_pdf_has_a_glyph(pdfs):
    fonts = installed_fonts()
    missing_fonts = sorted(set(font_families()) - set(fonts))
    assert not missing_fonts, f"print.css names fonts that are not installed: {missing_fonts} (.ci/run installs them)"
    covered = set().union(*fonts.values())
    for code in EDITIONS:
        document = BeautifulSoup(document_copy(PROJECT, code).read_text(encoding="utf-8"), "html.parser")
        for element in document.select(f"script, style, {MATH}"):
            element.decompose()
        characters = set(document.body.get_text()) - set(" \t\n\r\xa0")
        assert sorted(c for c in characters if ord(c) not in covered) == [], code
    for code, framework in pdfs:
        extracted = text(code, framework)
        boxes = [c for c in set(extracted) if unicodedata.category(c) in {"Co", "Cn"} or c == "\ufffd"]
        assert boxes == [], (code, framework, boxes)


def test_korean_lines_break_between_words(pdfs):
    document = BeautifulSoup(document_copy(PROJECT, "ko").read_text(encoding="utf-8"), "html.parser")
    source = " ".join(" ".join(document.stripped_strings).split())
    for framework in NAMES:
        breaks = re.findall(r"([\uac00-\ud7a3]{2})\n([\uac00-\ud7a3]{2})", text("ko", framework))
        inside = [f"{a}|{b}" for a, b in breaks if a + b in source and f"{a} {b}" not in source]
        assert len(breaks) > 50 and inside == [], (framework, inside[:10])


def test_every_page_of_every_edition_links_its_editions_pdfs(pdfs):
    for code in EDITIONS:
        expected = {PROJECT.pdf_file(code, framework.name) for framework in FRAMEWORKS}
        pages = sorted((PROJECT.site_dir / code).glob("*.html"))
        assert len(pages) > len(PROJECT.page_names(code)), code
        for page in pages:
            soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
            linked = {(page.parent / str(a["href"])).resolve() for a in soup.select('a[href$=".pdf"]')}
            assert linked == expected, (code, page.name, sorted(map(str, linked)))
    landing = BeautifulSoup((PROJECT.site_dir / "index.html").read_text(encoding="utf-8"), "html.parser")
    linked = {(PROJECT.site_dir / str(a["href"])).resolve() for a in landing.select('a[href$=".pdf"]')}
    assert linked == {PROJECT.pdf_file(*pdf) for pdf in pdfs}
