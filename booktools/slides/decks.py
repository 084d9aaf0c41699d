"""Lecture slides of every page, edition and framework (``make slides``; ``make book`` too).

What d2lbook does and what this module does:

- **d2lbook** (1.0.3, in its own environment ``.venv-d2lbook``, pinned by
  ``booktools/slides/requirements.txt``: it pins Sphinx 5.3, the book needs Sphinx 7)
  turns each derived notebook into a *slide notebook*: ``d2lbook.slides.Slides.generate``
  keeps the text inside the slide marks (``booktools.sources.slide_marks``), starts a
  slide at each ``[**``, merges code cells, drops comments and ``#@save``, and
  sets the ``slideshow`` metadata (``booktools/slides/d2lbook_run.py`` calls it);
- **this module** feeds it the derived notebook of each page, language and
  framework (``booktools.derive.notebooks``, with its stored outputs, so the heatmaps are
  on the slides), less what is no lecture material (``booktools.slides.lecture``: the
  Colab install cell, the code the book hides, the quiz, the exercises with their
  solutions); splits d2lbook's slides so that each fits a 1280x720 screen
  (``booktools.slides.fit``, with the layout of ``slides.css``); then renders each slide
  notebook to a reveal.js deck with nbconvert's ``slides`` exporter (nbconvert
  from the same pinned environment) and makes the deck read offline: reveal.js
  and require.js come from the npm registry, pinned by
  ``booktools/slides/reveal/package-lock.json`` and installed by ``npm ci`` into
  ``.venv-d2lbook/share/d2l-book/reveal``, MathJax 3 from the book's own pinned copy
  (``booktools.slides.mathjax``); all are copied beside the decks.

The decks go to ``_build/html/<lang>/slides/<page>-<framework>.html`` with an
index, ``_build/html/<lang>/slides/index.html``. d2lbook's own HTML/PDF
builder and its RISE set-up are not used: the book is built by Jupyter Book,
and nbconvert's reveal.js export needs no notebook server.

Usage::

    python -m booktools slides
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from html import escape as html_escape
from pathlib import Path

import jinja2
import nbformat

from booktools.derive.notebooks import derive
from booktools.programs import npm_prefix
from booktools.project import DECK_NAME, SLIDES_FOLDER, Project
from booktools.slides.errors import SlidesError
from booktools.slides.lecture import fit_slide_notebook, lecture_cells
from booktools.slides.mathjax import COMPONENT_DIRS, mathjax_source
from booktools.slides.metrics import METRICS
from booktools.sources.frameworks import FRAMEWORKS, Framework
from booktools.sources.slide_marks import has_slides, strip_slide_marks
from booktools.sources.strings import load_strings

DRIVER = Path(__file__).resolve().parent / "d2lbook_run.py"
# What of reveal.js goes beside the decks.
REVEAL_FILES = ("dist", "plugin", "LICENSE")
# nbconvert's reveal.js template, adapted to MathJax 3 (booktools/slides/template/d2l_reveal).
TEMPLATES = Path(__file__).resolve().parent / "template"
TEMPLATE = "d2l_reveal"
INDEX_TEMPLATE = "index.html"  # the index of an edition's decks, beside the template
STYLE_TEMPLATE = "slides.css.j2"  # the slides' layout (booktools.slides.fit's sizes), beside the decks
STYLE = "slides.css"


@dataclass(frozen=True)
class Deck:
    """One deck: a page of an edition in one framework."""

    language: str
    page: str  # the page's file name without suffix: "attention-scoring-functions"
    framework: Framework

    @property
    def name(self) -> str:
        """The deck's file name without suffix: ``<page>-<framework>`` (``booktools.project.DECK_NAME``)."""
        return Path(DECK_NAME.format(page=self.page, framework=self.framework.name)).stem


def all_decks(project: Project, languages: list[str] | None = None) -> list[Deck]:
    """Return every deck of the editions ``languages`` (all by default): each notebook page with slide marks (a
    page without them has no deck: d2lbook makes none), in each framework."""
    return [
        Deck(language, source.stem, framework)
        for language in (project.editions() if languages is None else languages)
        for source in project.source_pages(language)
        if has_slides(nbformat.read(source, as_version=4).cells)
        for framework in FRAMEWORKS
    ]


def d2lbook_python(project: Project) -> Path:
    """Return the Python of the isolated d2lbook environment.

    Raises:
        SlidesError: if the environment is missing (``make slides-setup`` creates it).
    """
    python = project.d2lbook_env / "bin" / "python"
    if not python.exists():
        raise SlidesError(
            f"{project.relative(project.d2lbook_env)} is missing: "
            "make slides-setup creates it from booktools/slides/requirements.txt"
        )
    return python


def _run(command: list[str], project: Project) -> None:
    result = subprocess.run(command, cwd=project.root, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SlidesError(f"{' '.join(command[:3])} ... failed:\n{result.stdout}\n{result.stderr}")


def slide_notebooks(decks: list[Deck], project: Project) -> dict[Deck, Path]:
    """Write each deck's derived notebook and let d2lbook make its slide notebook; return those written."""
    work = project.work_dir("slides")
    for language in sorted({deck.language for deck in decks}):  # other editions' work stays as it is
        shutil.rmtree(work / "derived" / language, ignore_errors=True)
        shutil.rmtree(work / "decks" / language, ignore_errors=True)
    pairs: dict[Deck, tuple[Path, Path]] = {}
    for deck in decks:
        source = project.edition_dir(deck.language) / f"{deck.page}.ipynb"
        notebook = derive(source, deck.framework, project, slide_marks=True)
        notebook.cells = lecture_cells(notebook.cells)
        notebook.metadata["title"] = f"{first_heading(notebook)} ({deck.framework.label})"
        derived = work / "derived" / deck.language / f"{deck.name}.ipynb"
        derived.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, derived)
        pairs[deck] = (derived, work / "decks" / deck.language / f"{deck.name}.ipynb")
    command = [str(d2lbook_python(project)), str(DRIVER)]
    command += [str(path) for pair in pairs.values() for path in pair]
    _run(command, project)
    return {deck: target for deck, (_, target) in pairs.items() if target.exists()}


def first_heading(notebook: nbformat.NotebookNode) -> str:
    """Return the text of the notebook's first level-1 heading, without slide marks."""
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            for line in strip_slide_marks(cell.source).splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return ""


def copy_assets(target: Path, project: Project) -> None:
    """Copy reveal.js, require.js, jQuery and MathJax beside the decks in ``target``.

    Raises:
        SlidesError: if reveal.js is not installed (``make slides-setup`` runs ``npm ci``).
    """
    reveal = npm_prefix("reveal", project.d2lbook_env) / "node_modules"
    if not (reveal / "reveal.js" / "dist" / "reveal.js").exists():
        raise SlidesError(f"{project.relative(reveal)}/reveal.js is missing: make slides-setup installs it with npm ci")
    for name in REVEAL_FILES:
        source = reveal / "reveal.js" / name
        if source.is_dir():
            shutil.copytree(source, target / "reveal.js" / name, dirs_exist_ok=True)
        else:
            shutil.copy2(source, target / "reveal.js" / name)
    shutil.copy2(reveal / "requirejs" / "require.js", target / "require.js")
    shutil.copy2(reveal / "jquery" / "dist" / "jquery.min.js", target / "jquery.min.js")
    mathjax = mathjax_source()
    shutil.copy2(mathjax / "tex-mml-chtml.js", target / "mathjax" / "tex-mml-chtml.js")
    shutil.copy2(mathjax.parent / "LICENSE", target / "mathjax" / "LICENSE")
    for name in COMPONENT_DIRS:
        shutil.copytree(mathjax / name, target / "mathjax" / name, dirs_exist_ok=True)


def render_decks(language: str, slide_notebooks: list[Path], target: Path, project: Project) -> None:
    """Render an edition's slide notebooks to reveal.js decks in ``target`` with nbconvert."""
    nbconvert = project.d2lbook_env / "bin" / "jupyter-nbconvert"
    _run(
        [
            str(nbconvert),
            "--to",
            "slides",
            "--output-dir",
            str(target),
            f"--TemplateExporter.extra_template_basedirs={TEMPLATES}",
            f"--template={TEMPLATE}",
            "--SlidesExporter.reveal_url_prefix=reveal.js",
            f"--SlidesExporter.reveal_width={METRICS.width}",
            f"--SlidesExporter.reveal_height={METRICS.height}",
            "--SlidesExporter.reveal_theme=white",  # its fonts come with reveal.js ("simple" loads Google's)
            "--HTMLExporter.require_js_url=require.js",
            "--HTMLExporter.jquery_url=jquery.min.js",
            "--HTMLExporter.mathjax_url=mathjax/tex-mml-chtml.js",
            *map(str, slide_notebooks),
        ],
        project,
    )
    for notebook in slide_notebooks:
        deck = target / f"{notebook.stem}.slides.html"
        text = deck.read_text(encoding="utf-8")
        text = text.replace('<html lang="en">', f'<html lang="{language}">', 1)
        deck.with_name(f"{notebook.stem}.html").write_text(text, encoding="utf-8")
        deck.unlink()


def write_style(target: Path) -> None:
    """Write ``slides.css`` into ``target``: the layout of the slides, from ``booktools.slides.fit``'s sizes."""
    template = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=False, keep_trailing_newline=True
    ).get_template(STYLE_TEMPLATE)
    (target / STYLE).write_text(template.render(m=METRICS), encoding="utf-8")


def write_index(language: str, label: str, decks: list[Deck], target: Path, titles: dict[Deck, str]) -> Path:
    """Write ``target/index.html``, linking every deck of the edition (``label``: "Slides" in its language)."""
    template = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, keep_trailing_newline=True
    ).get_template(INDEX_TEMPLATE)
    links = [{"href": f"{deck.name}.html", "title": titles[deck]} for deck in decks]
    index = target / "index.html"
    index.write_text(template.render(language=language, label=label, decks=links), encoding="utf-8")
    return index


def name_tab(deck: Path, label: str) -> None:
    """Name a deck's browser tab in its edition's words: nbconvert's "<title> slides" becomes "<title> · <label>"."""
    html = deck.read_text(encoding="utf-8")
    named = re.sub(
        r"<title>(.*?) slides</title>", lambda match: f"<title>{match[1]} · {html_escape(label)}</title>", html, count=1
    )
    deck.write_text(named, encoding="utf-8")


def build(site: Path, project: Project, languages: list[str] | None = None) -> list[Path]:
    """Build the decks of the editions ``languages`` (default: all) into ``site/<lang>/slides/``; return them."""
    decks = all_decks(project, languages)
    made = slide_notebooks(decks, project)
    for deck, path in made.items():
        for what in fit_slide_notebook(path):
            print(f"slides: {deck.language}/{deck.name}: left out {what}")
    written = []
    for language in sorted({deck.language for deck in decks}, key=project.editions().index):
        mine = [deck for deck in decks if deck.language == language and deck in made]
        if not mine:
            continue
        target = site / language / SLIDES_FOLDER
        shutil.rmtree(target, ignore_errors=True)
        (target / "reveal.js").mkdir(parents=True)
        (target / "mathjax").mkdir()
        copy_assets(target, project)
        write_style(target)
        render_decks(language, [made[deck] for deck in mine], target, project)
        label = load_strings(project, language).slides
        for deck in mine:
            name_tab(target / f"{deck.name}.html", label)
        titles = {deck: json.loads(made[deck].read_text(encoding="utf-8"))["metadata"]["title"] for deck in mine}
        write_index(language, label, mine, target, titles)
        written += [target / f"{deck.name}.html" for deck in mine]
    return written
