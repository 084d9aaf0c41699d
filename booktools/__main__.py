"""``python -m booktools <verb>``: the command line, one function per verb.

The Makefile calls these verbs and nothing else of booktools. Each verb makes no paths of its own: it gets the one
:class:`~booktools.project.Project` made here (``--root`` names another checkout, such as a test's scratch copy) and
hands it to the verb's function (a :data:`VerbRun`). A verb is one function here, whose decorator (:func:`as_verb`)
gives its name, its one-line help and its options; ``python -m booktools --help`` lists :data:`VERBS`, and
docs/architecture.md's generated verb table (``make docs``) adds each one's make targets. A *stage* is only ever one
of the build's (``booktools.pipeline``): the verbs ``book``, ``slides``, ``pdf`` and ``audit`` run stages.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from booktools.cli.verbs import Options, Verb, VerbRun, no_options
from booktools.cli.verbs import parse as parse_verbs
from booktools.project import Project

_registered: list[Verb] = []


def as_verb(
    name: str, help: str, options: Options = no_options, passes_on: bool = False
) -> Callable[[VerbRun], VerbRun]:
    """Make the function it decorates the verb ``name``, with its one-line help (``--help``, docs/architecture.md's
    verb table) and what defines its options; the verbs are listed in the order they are defined."""

    def register(run: VerbRun) -> VerbRun:
        _registered.append(Verb(name, help, run, options, passes_on))
        return run

    return register


def _check_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--check", action="store_true", help="change nothing; fail naming what drifted")


# The verbs, in the order a book is made.
@as_verb("kernel", "install the d2l-book Jupyter kernel every notebook run uses")
def _kernel(project: Project, args: argparse.Namespace) -> int:
    from booktools.runtime import kernel

    print(f"installed kernel {kernel.NAME!r} in {kernel.install()}")
    return 0


@as_verb("lib", "generate d2l_lib/<framework>.py from the #@save cells", _check_option)
def _lib(project: Project, args: argparse.Namespace) -> int:
    from booktools.derive import library

    return library.run(project, check=args.check)


@as_verb("notebooks", "derive notebooks/<lang>/<framework>/ from the source pages", _check_option)
def _notebooks(project: Project, args: argparse.Namespace) -> int:
    from booktools.derive import notebooks

    return notebooks.run(project, check=args.check)


def _new_page_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="the page's file name, no suffix (lowercase, hyphens): attention-pooling")
    parser.add_argument("--title", required=True, help="its title, in English (each edition translates it)")
    parser.add_argument("--after", default=None, help="the page it follows (default: the last)")
    parser.add_argument("--words", type=int, default=None, help="its word cap per framework tab (default: none)")
    parser.add_argument("--quiz", action="store_true", help="it ends with a quiz (chapters/pages.yml quiz: true)")


@as_verb("new-page", "a new page's starting files in every edition, _toc.yml and chapters/pages.yml", _new_page_options)
def _new_page(project: Project, args: argparse.Namespace) -> int:
    from booktools.sources import new_page

    return new_page.run(project, args.name, args.title, args.after, args.words, args.quiz)


def _outputs_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("pages", nargs="*", type=Path, help="source pages (default: every page of every edition)")


@as_verb("outputs", "re-execute the notebooks headlessly and store their outputs", _outputs_options)
def _outputs(project: Project, args: argparse.Namespace) -> int:
    from booktools.derive import outputs

    return outputs.run(project, [path.resolve() for path in args.pages])


@as_verb("assignment", "write the exercises as assignments for instructors into _build/assignments")
def _assignment(project: Project, args: argparse.Namespace) -> int:
    from booktools.derive import assignments

    return assignments.run(project, args)


def _book_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-pdf", action="store_true", help="build without the PDFs, as a site that is not then current (tests)"
    )


@as_verb("book", "bring the site, its slides and its PDFs up to date in _build/html", _book_options)
def _book(project: Project, args: argparse.Namespace) -> int:
    from booktools.pipeline import stages

    return stages.bring_up_to_date(project, pdf=not args.no_pdf)


@as_verb("slides", "build the lecture slides of the editions whose pages changed into the site")
def _slides(project: Project, args: argparse.Namespace) -> int:
    from booktools.pipeline import stages

    return stages.bring_up_to_date(project, targets=("slides",))


@as_verb("pdf", "bring the site up to date and print its editions as PDFs, one per framework")
def _pdf(project: Project, args: argparse.Namespace) -> int:
    from booktools.pipeline import stages

    return stages.bring_up_to_date(project, targets=("pdf",))


def _serve_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=int, default=8000, help="the web server's port (0: any free one)")
    parser.add_argument("--jupyter-port", type=int, default=0, help="the Jupyter server's port (0: any free one)")


@as_verb("serve", "serve the built site and a local Jupyter server for its live code", _serve_options)
def _serve(project: Project, args: argparse.Namespace) -> int:
    from booktools.servers import serve

    return serve.run(project, args.port, args.jupyter_port)


def _lab_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("options", nargs="*", help="JupyterLab's own options (--ServerApp.port=9999 ...)")


@as_verb("lab", "JupyterLab on the derived notebooks, on the d2l-book kernel", _lab_options, passes_on=True)
def _lab(project: Project, args: argparse.Namespace) -> int:
    from booktools.servers import lab

    return lab.run(project, args.options)


@as_verb(
    "check",
    "check that d2l_lib, notebooks/, the translations, chapters/pages.yml, the quizzes and the generated tables of "
    "docs/architecture.md match their sources",
)
def _check(project: Project, args: argparse.Namespace) -> int:
    from booktools.checks import translations
    from booktools.code_facts import tables
    from booktools.derive import library, notebooks
    from booktools.sources import page_manifest, quiz_check

    results = [library.run(project, check=True), notebooks.run(project, check=True), translations.run(project)]
    results.append(page_manifest.run(project))
    results.append(quiz_check.run(project))
    results.append(tables.run(project, VERBS, check=True))
    return max(results)


def _translations_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("languages", nargs="*", help="editions to check (default: all but English)")


@as_verb("translations", "check that every translation matches the English edition", _translations_options)
def _translations(project: Project, args: argparse.Namespace) -> int:
    from booktools.checks import translations

    return translations.run(project, args.languages)


def _versions_options(parser: argparse.ArgumentParser) -> None:
    from booktools.checks.version_matrix import FRAMEWORKS, SERIES

    parser.add_argument("--framework", action="append", choices=FRAMEWORKS, help="only this framework (repeatable)")
    parser.add_argument("--series", action="append", choices=SERIES, help="only this series (repeatable)")
    parser.add_argument("--recreate", action="store_true", help="make the environments again, whatever their stamps")
    parser.add_argument("--python", default=sys.executable, help="the Python the environments are made with")


@as_verb("versions", "the library's tests on the lowest and newest framework releases", _versions_options)
def _versions(project: Project, args: argparse.Namespace) -> int:
    from booktools.checks import version_matrix

    return version_matrix.run(
        project,
        args.framework or version_matrix.FRAMEWORKS,
        args.series or version_matrix.SERIES,
        args.recreate,
        args.python,
    )


def _page_words_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", type=Path, help="a built edition, e.g. _build/html/en")
    parser.add_argument("pages", nargs="*", help="page names (default: every page of _toc.yml)")


@as_verb(
    "page-words",
    "the words a reader meets on a built edition's pages, per framework, against their caps",
    _page_words_options,
)
def _page_words(project: Project, args: argparse.Namespace) -> int:
    from booktools.checks import page_words

    return page_words.run(project, args.folder, args.pages)


def _audit_options(parser: argparse.ArgumentParser) -> None:
    from booktools.checks.audit.options import options

    options(parser)


@as_verb("audit", "Lighthouse on the book's pages (not the decks), mobile and desktop, as a table", _audit_options)
def _audit(project: Project, args: argparse.Namespace) -> int:
    from booktools.checks.audit import options, site_audit
    from booktools.pipeline import stages

    if args.site is not None:
        return site_audit.run(project, args)
    if options.no_option_given(args):  # the whole audit: the stage after the site's, measuring each time
        return stages.bring_up_to_date(project, targets=("audit",))
    return stages.bring_up_to_date(project) or site_audit.run(project, args)


@as_verb(
    "docs", "write the tables of docs/architecture.md that are facts of the code (--check: only compare)", _check_option
)
def _docs(project: Project, args: argparse.Namespace) -> int:
    from booktools.code_facts import tables

    return tables.run(project, VERBS, check=args.check)


VERBS = tuple(_registered)
"""Every verb, in the order a book is made (the order they are defined in)."""


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse a command line naming one of :data:`VERBS` (``booktools.cli.verbs.parse``)."""
    return parse_verbs(VERBS, argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the verb ``argv`` names on the project; return its exit status."""
    args = parse(argv)
    project = Project(args.root.resolve()) if args.root else Project.here()
    verb_run: VerbRun = args.verb_run
    return verb_run(project, args)


if __name__ == "__main__":
    sys.exit(main())
