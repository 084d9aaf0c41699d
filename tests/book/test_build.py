"""`make book`: editions derived from one configuration, strict builds, an offline site."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
import yaml
from bs4 import BeautifulSoup

from booktools.configuration.config_file import configured_editions, parse
from booktools.pipeline import stages as pipeline_stages
from booktools.pipeline.stamps import files_digest
from booktools.project import BUILD_INPUTS, Project
from booktools.sources.frameworks import DEFAULT as DEFAULT_FRAMEWORK
from booktools.sources.frameworks import FRAMEWORKS, groups
from booktools.sources.mime_types import FIGURES_MIME
from booktools.sources.strings import load_strings
from booktools.website import editions, jupyter_book

PROJECT = Project.here()

REMOTE_ASSET = re.compile(r'(src|href)="https?://[^"]*\.(js|css)')
CHAPTER = "attention-scoring-functions"


class _Tags(HTMLParser):
    """Collect the start tags of an HTML page as (tag, attributes) pairs."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def tags(path: Path) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Tags()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.tags


# Derivation of each edition's configuration --------------------------------------------


def test_toc_entries_become_relative_to_the_edition_folder():
    derived = editions.edition_toc(PROJECT)
    assert derived["root"] == "index"
    files = [entry["file"] for entry in derived["chapters"]]
    assert CHAPTER in files
    assert not any("/" in name for name in files)


def test_a_toc_entry_outside_the_english_folder_is_refused(tmp_path: Path):
    book = Project(tmp_path)
    toc = {"format": "jb-book", "root": "chapters/en/index", "chapters": [{"file": "notes/extra"}]}
    book.toc_file.write_text(yaml.safe_dump(toc), encoding="utf-8")
    with pytest.raises(editions.BuildError, match="'notes/extra' is not under chapters/en/"):
        editions.edition_toc(book)


def test_edition_config_changes_only_what_differs(book_config):
    configured = configured_editions(parse(book_config))
    korean = next(edition for edition in configured if edition.code == "ko")
    derived = editions.edition_config(book_config, korean, configured, PROJECT)
    assert derived["sphinx"]["config"]["language"] == "ko"
    assert derived["title"] == korean.title
    assert derived["repository"]["path_to_book"] == "notebooks/ko/pytorch"
    assert derived["repository"]["url"] == book_config["repository"]["url"]
    assert derived["repository"]["branch"] == book_config["repository"]["branch"]
    assert derived["execute"] == book_config["execute"]
    assert all(Path(path).is_absolute() and Path(path).exists() for path in derived["bibtex_bibfiles"])
    assert "editions" not in derived
    assert [entry["code"] for entry in derived["sphinx"]["config"]["book"]["editions"]] == ["en", "id", "ko"]
    # the top-level configuration is left as it was
    assert book_config["sphinx"]["config"]["language"] == "en"


def test_path_to_book_is_kept_as_a_prefix(book_config):
    config = {**book_config, "repository": {**book_config["repository"], "path_to_book": "book/"}}
    english = configured_editions(parse(config))[0]
    assert (
        editions.edition_config(config, english, [english], PROJECT)["repository"]["path_to_book"]
        == "book/notebooks/en/pytorch"
    )


def test_the_colab_button_of_every_page_opens_a_notebook_of_every_framework(book_config):
    """The button opens ``<path_to_book>/<page>.ipynb``, and framework-colab.js swaps the
    framework folder for the tab the reader chose: each must exist in the repository."""
    configured = configured_editions(parse(book_config))
    for edition in configured:
        folder = editions.edition_config(book_config, edition, configured, PROJECT)["repository"]["path_to_book"]
        for page in PROJECT.source_pages(edition.code):
            for framework in FRAMEWORKS:
                target = PROJECT.root / folder.replace(f"/{DEFAULT_FRAMEWORK.name}", f"/{framework.name}") / page.name
                assert target.is_file(), f"{PROJECT.relative(target)} is missing; run `make notebooks`"


def test_english_comes_first_and_every_edition_has_a_name(book_config):
    configured = configured_editions(parse(book_config))
    assert [edition.code for edition in configured] == ["en", "id", "ko"]
    assert all(edition.name and edition.title for edition in configured)


def test_the_build_is_strict_and_does_not_execute(book_config):
    assert {"-W", "-n", "--keep-going"} <= set(jupyter_book.BUILD_FLAGS)
    assert book_config["execute"]["execute_notebooks"] == "off"
    assert "mathjax_path" not in book_config["sphinx"]["config"], "the math is typeset at build time"


# The built site -----------------------------------------------------------------------


def test_three_editions_and_a_landing_page_linking_them(site, built_editions):
    assert built_editions == ["en", "id", "ko"]
    links = {attrs.get("href") for tag, attrs in tags(site / "index.html") if tag == "a"}
    for code in built_editions:
        assert f"{code}/index.html" in links
        assert (site / code / f"{CHAPTER}.html").exists()


def test_every_page_declares_its_language_and_links_every_edition(site, built_editions):
    for code in built_editions:
        pages = sorted((site / code).glob("*.html"))
        assert len(pages) >= 4, pages
        for page in pages:
            found = tags(page)
            html = next(attrs for tag, attrs in found if tag == "html")
            assert html.get("lang") == code, page
            switcher = {
                attrs["data-edition"]: attrs["href"]
                for tag, attrs in found
                if tag == "a" and "edition-link" in (attrs.get("class") or "")
            }
            assert sorted(switcher) == sorted(built_editions), page
            for other, href in switcher.items():
                assert (page.parent / href).resolve() == (site / other / page.name).resolve(), (page, href)


def test_no_remote_scripts_or_stylesheets(site):
    offenders = [
        f"{path.relative_to(site)}: {match.group(0)}"
        for path in site.rglob("*")
        if path.is_file() and path.suffix in {".html", ".js", ".css"}
        for match in REMOTE_ASSET.finditer(path.read_text(encoding="utf-8", errors="replace"))
    ]
    assert offenders == []


def test_no_measured_placeholder_is_left_in_any_built_page_or_deck(site):
    """Every figure the prose quotes was written in (booktools.sources.measured), and no record of figures
    shows among a page's outputs (the code of the cell that records them names their MIME type, as code)."""
    offenders = []
    for path in site.rglob("*.html"):
        soup = BeautifulSoup(path.read_text(encoding="utf-8", errors="replace"), "html.parser")
        for code in soup.select(".cell_input, pre"):
            code.decompose()
        text = str(soup)
        offenders += [f"{path.relative_to(site)}: {word}" for word in (FIGURES_MIME, "{measured}") if word in text]
    assert offenders == []


def test_citations_have_a_bibliography(site, built_editions):
    for code in built_editions:
        found = tags(site / code / f"{CHAPTER}.html")
        # A citation entry is a div of class "citation" (booktools/website/extension/a11y.py drops docutils' role
        # doc-biblioentry, which ARIA allows only inside a doc-bibliography list).
        entries = {
            attrs["id"] for tag, attrs in found if tag == "div" and "citation" in (attrs.get("class") or "").split()
        }
        cited = {
            (attrs.get("href") or "")[1:]
            for tag, attrs in found
            if tag == "a" and "reference internal" in (attrs.get("class") or "")
        }
        assert entries, f"{code}: no bibliography"
        assert entries <= cited, f"{code}: bibliography entries not cited in the text: {entries - cited}"


def test_the_korean_search_index_has_bare_nouns(site, built_editions):
    """Korean attaches particles to nouns; the index must still hold the nouns (키 from 키와)."""
    if "ko" not in built_editions:
        pytest.fail("no Korean edition was built")
    index = (site / "ko" / "searchindex.js").read_text(encoding="utf-8")
    data = json.loads(index[index.index("(") + 1 : index.rindex(")")])
    terms = set(data["terms"]) | set(data["titleterms"])
    assert {"어텐션", "키", "값", "쿼리"} <= terms


def test_korean_words_are_indexed_with_their_prefixes():
    from booktools.website.extension.search import SearchKorean

    words = SearchKorean({}).split("쿼리와 키의 softmax는 값을")
    assert {"쿼리", "쿼리와", "키", "키의", "softmax", "값", "값을"} <= set(words)
    assert "softmax는" not in words
    assert SearchKorean({}).stem("attentions") == "attent"
    assert SearchKorean({}).stem("어텐션") == "어텐션"


def tab_sets(page: Path) -> list:
    """The framework tab sets of a built page (BeautifulSoup elements)."""
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    return soup.select("div.sd-tab-set.d2l-framework-tabs")


def tab_labels(tab_set) -> list[tuple[str, str | None, str | None]]:
    """(text, sync group, sync id) of each tab label of a tab set, in order."""
    return [
        (label.get_text(strip=True), label.get("data-sync-group"), label.get("data-sync-id"))
        for label in tab_set.find_all("label", class_="sd-tab-label", recursive=False)
    ]


FRAMEWORK_LABELS = [(framework.label, "framework", framework.name) for framework in FRAMEWORKS]


def test_every_tab_group_of_every_page_is_one_synced_tab_set(site, built_editions):
    for code in built_editions:
        for source in PROJECT.source_pages(code):
            expected = len(groups(nbformat.read(source, as_version=4).cells))
            found = tab_sets(site / code / f"{source.stem}.html")
            assert len(found) == expected, f"{code}/{source.stem}.html: {len(found)} tab sets, {expected} groups"
            assert all(tab_labels(tab_set) == FRAMEWORK_LABELS for tab_set in found), f"{code}/{source.stem}.html"


# A broken book fails the build ------------------------------------------------------


def _append_markdown(notebook: Path, text: str) -> None:
    data = json.loads(notebook.read_text(encoding="utf-8"))
    data["cells"].append({"cell_type": "markdown", "id": "broken-on-purpose", "metadata": {}, "source": text})
    notebook.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")


def test_a_broken_reference_citation_or_label_in_any_edition_fails_the_build(synthetic_book: Path):
    """One build of the synthetic book in three editions, three faults, each in another edition; each is reported.

    The synthetic book has the real configuration and bibliography, and one short page per
    edition: a build takes seconds where the chapter's takes minutes.
    """
    book = Project(synthetic_book)
    shutil.copytree(book.edition_dir("id"), book.edition_dir("ko"))
    shutil.copy2(PROJECT.strings_file("ko"), book.strings_file("ko"))
    page = "tabs.ipynb"  # the synthetic page (tests/conftest.py)
    _append_markdown(book.edition_dir("ko") / page, "See {ref}`sec_no-such-label-anywhere`.")
    _append_markdown(book.edition_dir("id") / page, "As shown by {cite}`No.Such.Paper.2099`.")
    # A label that the index page defines too.
    _append_markdown(book.edition_dir("en") / page, "(sec_twice)=\n## Twice")
    with (book.edition_dir("en") / "index.md").open("a", encoding="utf-8") as index:
        index.write("\n(sec_twice)=\n## Once\n")
    result = build_book(synthetic_book)
    report = result.stdout + result.stderr
    assert result.returncode != 0, report
    assert "building en, id, ko" in report, report
    assert re.search(r"ko: FAILED[\s\S]*sec_no-such-label-anywhere", report), report
    assert re.search(r"id: FAILED[\s\S]*No\.Such\.Paper\.2099", report), report
    assert re.search(r"en: FAILED[\s\S]*duplicate label", report, re.IGNORECASE), report
    assert not book.site_dir.joinpath("index.html").exists()
    assert not pipeline_stages.is_current(book)


def test_the_scratch_book_holds_everything_a_build_reads(scratch_book):
    assert [path.name for path in Project(scratch_book).build_inputs()] == list(BUILD_INPUTS)
    scratch = Project(scratch_book)
    assert files_digest(scratch, scratch.build_inputs()) == files_digest(PROJECT, PROJECT.build_inputs())


# Framework tabs, on a synthetic page -------------------------------------------------


def build_book(book: Path, env: dict[str, str] | None = None, *, pdf: bool = True) -> subprocess.CompletedProcess:
    """``make book`` in ``book`` (in the environment ``env``, this process's by default); without ``pdf``,
    with ``--no-pdf``: for the successful builds whose PDFs no test reads (printing them takes seconds).

    ``python -m booktools`` runs the copy of the package in ``book``, on the project around it.
    """
    command = [sys.executable, "-m", "booktools", "book", *([] if pdf else ["--no-pdf"])]
    return subprocess.run(command, cwd=book, check=False, capture_output=True, text=True, env=env)


def assert_build_fails(book: Path, pattern: str, *, pdf: bool = True) -> None:
    """``make book`` in ``book`` fails, its report matches ``pattern``, and it leaves no landing page."""
    result = build_book(book, pdf=pdf)
    report = result.stdout + result.stderr
    assert result.returncode == 1, report
    assert re.search(pattern, report), report
    assert not (book / "_build" / "html" / "index.html").exists()


@pytest.fixture(scope="module")
def noisy_english_build(
    tmp_path_factory: pytest.TempPathFactory, make_synthetic_book
) -> tuple[Path, subprocess.CompletedProcess]:
    """The synthetic book (tests/conftest.py), English edition only, and its build, without PDFs, in an
    environment whose every Python process prints ``NOISE`` (``noisy_environment``): one build for the
    tests of what a dependency prints, which read its report, and for those of the tabs, which read its page."""
    folder = tmp_path_factory.mktemp("tabs")
    book = make_synthetic_book(folder / "book")
    shutil.rmtree(book / "chapters" / "id")
    return book, build_book(book, env=noisy_environment(folder / "noise"), pdf=False)


@pytest.fixture(scope="module")
def tabs_page(noisy_english_build: tuple[Path, subprocess.CompletedProcess]) -> Path:
    """The built page of the synthetic source page, English edition only."""
    book, result = noisy_english_build
    assert result.returncode == 0, result.stdout + result.stderr
    return Project(book).site_dir / "en" / "tabs.html"


def tab_texts(tab_set) -> list[str]:
    """The text of each tab's content, in tab order."""
    return [
        content.get_text(" ", strip=True)
        for content in tab_set.find_all("div", class_="sd-tab-content", recursive=False)
    ]


def test_each_group_of_framework_cells_is_one_tab_set_synced_by_framework(tabs_page: Path):
    first, second = tab_sets(tabs_page)
    assert tab_labels(first) == tab_labels(second) == FRAMEWORK_LABELS
    checked = [tab_input.has_attr("checked") for tab_input in first.find_all("input", recursive=False)]
    assert checked == [True, False, False], "the PyTorch tab is shown first"
    pytorch, jax, tensorflow = tab_texts(first)
    assert "return SCALE * x" in pytorch and "print" not in pytorch
    assert jax.startswith("JAX arrays are immutable.") and "A fenced note." in jax and "4" in jax
    assert "return x * SCALE" in tensorflow and "immutable" not in tensorflow
    # a cell of two frameworks is shown in both tabs
    pytorch, jax, tensorflow = tab_texts(second)
    assert "x / 2" in pytorch and "x / 2" in jax and "x * 0.5" in tensorflow


def test_cells_of_every_framework_and_shared_prose_stay_outside_the_tabs(tabs_page: Path):
    soup = BeautifulSoup(tabs_page.read_text(encoding="utf-8"), "html.parser")
    article = soup.find("article")
    for tab_set in article.select("div.sd-tab-set"):
        tab_set.decompose()
    outside = article.get_text(" ", strip=True)
    code = re.sub(r"\s+", "", outside)  # the code's text, whatever spans the highlighter wrote
    assert code.count("SCALE=2") == 1 and code.count("print(round(math.pi,2))") == 1
    assert "Prose shared by every framework." in outside and "More shared prose." in outside
    assert "return SCALE * x" not in outside and "immutable" not in outside
    assert ":begin_tab:" not in tabs_page.read_text(encoding="utf-8")


def test_the_page_switches_the_colab_link_to_the_chosen_framework(tabs_page: Path, synthetic_release):
    found = tags(tabs_page)
    scripts = [attrs.get("src") or "" for tag, attrs in found if tag == "script"]
    assert any(src.startswith("_static/framework-colab.js") for src in scripts), scripts
    assert (tabs_page.parent / "_static" / "framework-colab.js").is_file()
    url = synthetic_release[0].removeprefix("https://github.com/")
    colab = [attrs["href"] for tag, attrs in found if tag == "a" and "colab.research" in (attrs.get("href") or "")]
    assert colab == [f"https://colab.research.google.com/github/{url}/blob/main/notebooks/en/pytorch/tabs.ipynb"]


def test_a_page_is_described_by_its_front_matter_or_its_first_prose(tabs_page: Path, synthetic_description: str):
    def description(path: Path) -> str:
        found = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser").find_all(
            "meta", attrs={"name": "description"}
        )
        assert len(found) == 1, found
        return str(found[0]["content"])

    assert description(tabs_page.parent / "index.html") == synthetic_description
    # The JAX-only note is in the tabs, the code and its outputs are not prose: the shared prose remains.
    assert description(tabs_page) == "Prose shared by every framework. More shared prose. That is all."


def test_a_malformed_tab_group_fails_the_build_naming_notebook_and_cell(synthetic_book: Path):
    shutil.rmtree(synthetic_book / "chapters" / "id")
    path = synthetic_book / "chapters" / "en" / "tabs.ipynb"
    notebook = nbformat.read(path, as_version=4)
    notebook.cells = [cell for cell in notebook.cells if cell.id != "double-tf"]
    nbformat.write(notebook, path)
    assert_build_fails(
        synthetic_book,
        # the library's stage reads the tabs first (make book derives d2l_lib before the sites)
        r"chapters/en/tabs\.ipynb.*cell double: the tab group starting here has no cell for tensorflow",
    )


# Measured figures (booktools.sources.measured) ---------------------------------------------


def test_the_built_pages_and_notebooks_state_the_stored_measurement(synthetic_book: Path, measure_synthetic):
    """The synthetic book in English and Indonesian, its timing cell's stored figure changed as a new
    ``make outputs`` would change it: the pages state the new figure, each in its edition's format,
    and show nothing of the record (nor does myst-nb warn about its MIME type: the build is strict)."""
    measure_synthetic(synthetic_book, {"speedup": 1.5})
    measure_synthetic(synthetic_book, {"speedup": 3210.987})
    result = build_book(synthetic_book, pdf=False)
    assert result.returncode == 0, result.stdout + result.stderr
    for code, figure in (("en", "3,210.99"), ("id", "3.210,99")):
        html = (Project(synthetic_book).site_dir / code / "tabs.html").read_text(encoding="utf-8")
        text = BeautifulSoup(html, "html.parser").get_text(" ")
        assert f"Speedup: {figure}." in text, code
        assert "{measured}" not in html and "d2l.figures" not in html and "Speedup: 1" not in text, code
    derived = subprocess.run(
        [sys.executable, "-m", "booktools", "notebooks"], cwd=synthetic_book, capture_output=True, text=True
    )
    assert derived.returncode == 0, derived.stderr
    notebook = nbformat.read(Project(synthetic_book).notebooks_dir / "id" / "jax" / "tabs.ipynb", as_version=4)
    assert "Speedup: 3.210,99." in [cell.source for cell in notebook.cells]


def test_a_figure_no_cell_recorded_fails_the_build_naming_page_cell_and_placeholder(
    synthetic_book: Path, measure_synthetic
):
    measure_synthetic(synthetic_book, {"slowdown": 2.0})
    assert_build_fails(
        synthetic_book,
        r"en: FAILED[\s\S]*chapters/en/tabs\.ipynb, cell quote: \{measured\}`speed-timing\.speedup:,\.2f`: "
        r"cell 'speed-timing' recorded no figure 'speedup'",
        pdf=False,
    )


# Only the build's own problems fail it ------------------------------------------------

# What TensorFlow prints on CPUs with AVX-512 VNNI/BF16 or AMX when the API page imports it,
# and worse: every Python process of the build prints these at start-up.
NOISE = (
    "WARNING: All log messages before absl::InitializeLog() is called are written to STDERR",
    "ERROR: a line some dependency printed",
)


def noisy_environment(folder: Path) -> dict[str, str]:
    """The environment of a build in which every Python process prints ``NOISE`` to stderr at start-up."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = "".join(f"sys.stderr.write({line!r} + '\\n')\n" for line in NOISE)
    (folder / "sitecustomize.py").write_text(f"import sys\n\n{lines}", encoding="utf-8")
    path = os.pathsep.join(filter(None, [str(folder), os.environ.get("PYTHONPATH", "")]))
    return {**os.environ, "PYTHONPATH": path}


def test_lines_that_a_dependency_prints_fail_nothing(noisy_english_build: tuple[Path, subprocess.CompletedProcess]):
    book, result = noisy_english_build
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    assert "en: built, 0 warnings" in report, report
    log = (book / "_build" / "editions" / "en" / "build.log").read_text(encoding="utf-8")
    assert all(line in log for line in NOISE), "the noise did not reach the build, so this test proves nothing"
    assert (book / "_build" / "editions" / "en" / jupyter_book.WARNING_FILE).read_text(encoding="utf-8") == ""


def test_sphinx_warnings_still_fail_a_noisy_build_naming_the_page(synthetic_book: Path, tmp_path: Path):
    shutil.rmtree(synthetic_book / "chapters" / "id")
    _append_markdown(
        synthetic_book / "chapters" / "en" / "tabs.ipynb",
        "See {ref}`sec_no-such-label`.\n\n```{no-such-directive}\nbody\n```",
    )
    result = build_book(synthetic_book, env=noisy_environment(tmp_path / "noise"))
    report = result.stdout + result.stderr
    assert result.returncode == 1, report
    failed = result.stdout[result.stdout.index("en: FAILED") :]  # its stderr has the process's own noise
    assert re.search(r"tabs\.ipynb.*WARNING: .*sec_no-such-label", failed), report
    assert re.search(r"tabs\.ipynb.*WARNING: .*no-such-directive", failed), report
    assert not any(line in failed for line in NOISE), "only Sphinx's own warnings are listed"
    assert not (synthetic_book / "_build" / "html" / "index.html").exists()


def test_a_crash_without_a_warning_fails_with_the_end_of_the_log(tmp_path: Path):
    warnings, log = tmp_path / jupyter_book.WARNING_FILE, tmp_path / "build.log"
    log.write_text("".join(f"line {n}\n" for n in range(100)) + "Traceback (most recent call last):\nBoom\n")
    problems = jupyter_book.build_problems(1, warnings, log)
    assert problems[0].startswith("jupyter-book build exited with 1")
    assert problems[-1] == "Boom" and len(problems) == jupyter_book.LOG_TAIL_LINES + 1
    assert jupyter_book.build_problems(0, warnings, log) == []
    warnings.write_text("page.md:3: WARNING: undefined label\n\n")
    assert jupyter_book.build_problems(1, warnings, log) == ["page.md:3: WARNING: undefined label"]


def test_a_warning_names_the_source_page_the_author_edits_not_the_build_s_copy(tmp_path: Path):
    root = tmp_path / "book"
    (root / "chapters" / "en").mkdir(parents=True)
    (root / "chapters" / "en" / "page.ipynb").write_text("{}")
    copy = root / "_build" / "editions" / "en" / jupyter_book.COPY_FOLDER
    lines = [
        f"{copy}/chapters/en/page.ipynb:3: WARNING: undefined label: 'sec_x'",
        "_build/editions/en/src/chapters/en/page.ipynb: WARNING: document isn't included in any toctree",
        f"{copy}/chapters/en/api.md:1: WARNING: a page made by the build, with no source",
        "WARNING: no path at all",
    ]
    assert jupyter_book.source_paths(lines, copy, root) == [
        "chapters/en/page.ipynb:3: WARNING: undefined label: 'sec_x'",
        "chapters/en/page.ipynb: WARNING: document isn't included in any toctree",
        f"{copy}/chapters/en/api.md:1: WARNING: a page made by the build, with no source",
        "WARNING: no path at all",
    ]


def test_editions_are_prepared_in_one_thread_before_any_runs(synthetic_book: Path, monkeypatch):
    """Sources are written on the main thread: the Markdown parser's URL cache (mdurl) is not thread-safe."""
    events: list[tuple[str, str, bool]] = []

    def prepare(edition, *args):
        events.append(("prepare", edition.code, threading.current_thread() is threading.main_thread()))
        work = synthetic_book / edition.code
        return jupyter_book.EditionRun(
            edition, [], work / "build.log", work / "warnings.txt", synthetic_book, work / "src"
        )

    def run(prepared):
        events.append(("run", prepared.edition.code, False))
        return jupyter_book.EditionResult(prepared.edition, 1, prepared.log, ["stopped here by the test"])

    monkeypatch.setattr(jupyter_book, "prepare_edition", prepare)
    monkeypatch.setattr(jupyter_book, "run_edition", run)
    assert pipeline_stages.bring_up_to_date(Project(synthetic_book)) == 1
    codes = sorted({code for _, code, _ in events})
    assert len(codes) >= 2, "the synthetic book has more than one edition"
    assert events[: len(codes)] == [("prepare", code, True) for code in codes]
    assert sorted(code for stage, code, _ in events[len(codes) :] if stage == "run") == codes


def test_a_configuration_outside_jupyter_books_schema_is_refused(book_config):
    assert jupyter_book.invalid_config(book_config) == ""
    assert "Jupyter Book's schema" in jupyter_book.invalid_config({**book_config, "exclude_patterns": "not a list"})


THEME_LABELS = (
    "Color mode", "System Settings", "Site navigation", "On this page", "Launch interactive content",
    "Version warning", "next page", "Back to top", "Skip to main content", "Toggle primary sidebar",
    "Toggle secondary sidebar", "Link to this heading", "Link to this equation", 'aria-label="Main"',
)  # fmt: skip


@pytest.mark.parametrize("language", ["id", "ko"])
def test_the_themes_labels_and_the_footer_are_in_the_editions_words(site, built_editions, language):
    """booktools.website.extension.theme_words: no theme label left in English, the edition's own author line and
    figure, exercise and solution labels, and sphinxcontrib-bibtex's "n.d." in the edition's words."""
    if language not in built_editions:
        pytest.skip(f"the {language} edition is not built")
    strings = load_strings(PROJECT, language)
    page = (site / language / "attention-scoring-functions.html").read_text(encoding="utf-8")
    assert [label for label in THEME_LABELS if label in page] == []
    assert strings.footer_author in page and "By The" not in page
    words = strings.theme_words
    assert f"NVIDIA, {words['n.d.']}" in page and "n.d." not in page
    if "et al." in words:
        assert f"Vaswani <em>{words['et al.']}</em>, 2017" in page
    if "Exercise" in words:
        assert f'caption-number">{words["Exercise"]} 2.1' in page
    if "Fig. %s" in words:
        assert f'caption-number">{words["Fig. %s"] % "2.1"}' in page
