"""``python -m booktools <verb>``: the command line, one function per verb.

The Makefile calls these verbs and nothing else of booktools. Each verb makes no
paths of its own: it gets the one :class:`~booktools.project.Project` made here
(``--root`` names another checkout, such as a test's scratch copy) and hands it
to the verb's function (a :data:`VerbRun`). The verbs and their help are data in
``booktools.code_facts.verbs``; ``python -m booktools --help`` lists them, and docs/architecture.md's
generated verb table gives each one's make targets. A *stage* is only ever one of the
build's (``booktools.pipeline``): the verbs ``book``, ``slides``, ``pdf`` and ``audit`` run stages.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from booktools.code_facts.verbs import VERB_HELP
from booktools.project import Project

VerbRun = Callable[[Project, argparse.Namespace], int]
"""A verb's function: it gets the project and the parsed options, and returns the exit status."""


@dataclass(frozen=True)
class Verb:
    """One verb of the command line: its one-line help, its options and the function it runs."""

    name: str
    help: str
    run: VerbRun
    options: Callable[[argparse.ArgumentParser], None] = lambda parser: None
    passes_on: bool = False  # options it does not know go to the tool it starts (JupyterLab's)


def _no_options(parser: argparse.ArgumentParser) -> None:
    pass


def _check_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--check", action="store_true", help="change nothing; fail naming what drifted")


def _kernel(project: Project, args: argparse.Namespace) -> int:
    from booktools.runtime import kernel

    print(f"installed kernel {kernel.NAME!r} in {kernel.install()}")
    return 0


def _lib(project: Project, args: argparse.Namespace) -> int:
    from booktools.derive import library

    return library.run(project, check=args.check)


def _notebooks(project: Project, args: argparse.Namespace) -> int:
    from booktools.derive import notebooks

    return notebooks.run(project, check=args.check)


def _outputs(project: Project, args: argparse.Namespace) -> int:
    from booktools.derive import outputs

    return outputs.run(project, [path.resolve() for path in args.pages])


def _new_page(project: Project, args: argparse.Namespace) -> int:
    from booktools.sources import new_page

    return new_page.run(project, args.name, args.title, args.after, args.words, args.quiz)


def _new_page_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="the page's file name, no suffix (lowercase, hyphens): attention-pooling")
    parser.add_argument("--title", required=True, help="its title, in English (each edition translates it)")
    parser.add_argument("--after", default=None, help="the page it follows (default: the last)")
    parser.add_argument("--words", type=int, default=None, help="its word cap per framework tab (default: none)")
    parser.add_argument("--quiz", action="store_true", help="it ends with a quiz (chapters/pages.yml quiz: true)")


def _book(project: Project, args: argparse.Namespace) -> int:
    from booktools.pipeline import stages

    return stages.bring_up_to_date(project, pdf=not args.no_pdf)


def _book_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-pdf", action="store_true", help="build without the PDFs, as a site that is not then current (tests)"
    )


def _slides(project: Project, args: argparse.Namespace) -> int:
    from booktools.pipeline import stages

    return stages.bring_up_to_date(project, targets=("slides",))


def _pdf(project: Project, args: argparse.Namespace) -> int:
    from booktools.pipeline import stages

    return stages.bring_up_to_date(project, targets=("pdf",))


def _assignment(project: Project, args: argparse.Namespace) -> int:
    from booktools.derive import assignments

    return assignments.run(project, args)


def _serve(project: Project, args: argparse.Namespace) -> int:
    from booktools.servers import serve

    return serve.run(project, args.port, args.jupyter_port)


def _lab(project: Project, args: argparse.Namespace) -> int:
    from booktools.servers import lab

    return lab.run(project, args.options)


def _translations(project: Project, args: argparse.Namespace) -> int:
    from booktools.checks import translations

    return translations.run(project, args.languages)


def _check(project: Project, args: argparse.Namespace) -> int:
    from booktools.checks import translations
    from booktools.code_facts import tables
    from booktools.derive import library, notebooks
    from booktools.sources import page_manifest, quiz_check

    results = [library.run(project, check=True), notebooks.run(project, check=True), translations.run(project)]
    results.append(page_manifest.run(project))
    results.append(quiz_check.run(project))
    results.append(tables.run(project, check=True))
    return max(results)


def _docs(project: Project, args: argparse.Namespace) -> int:
    from booktools.code_facts import tables

    return tables.run(project, check=args.check)


def _versions(project: Project, args: argparse.Namespace) -> int:
    from booktools.checks import version_matrix

    return version_matrix.run(
        project,
        args.framework or version_matrix.FRAMEWORKS,
        args.series or version_matrix.SERIES,
        args.recreate,
        args.python,
    )


def _page_words(project: Project, args: argparse.Namespace) -> int:
    from booktools.checks import page_words

    return page_words.run(project, args.folder, args.pages)


def _page_words_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", type=Path, help="a built edition, e.g. _build/html/en")
    parser.add_argument("pages", nargs="*", help="page names (default: every page of _toc.yml)")


def _audit(project: Project, args: argparse.Namespace) -> int:
    from booktools.checks.audit import options, site_audit
    from booktools.pipeline import stages

    if args.site is not None:
        return site_audit.run(project, args)
    if options.no_option_given(args):  # the whole audit: the stage after the site's, measuring each time
        return stages.bring_up_to_date(project, targets=("audit",))
    return stages.bring_up_to_date(project) or site_audit.run(project, args)


def _audit_options(parser: argparse.ArgumentParser) -> None:
    from booktools.checks.audit.options import options

    options(parser)


def _outputs_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("pages", nargs="*", type=Path, help="source pages (default: every page of every edition)")


def _serve_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=int, default=8000, help="the web server's port (0: any free one)")
    parser.add_argument("--jupyter-port", type=int, default=0, help="the Jupyter server's port (0: any free one)")


def _lab_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("options", nargs="*", help="JupyterLab's own options (--ServerApp.port=9999 ...)")


def _translations_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("languages", nargs="*", help="editions to check (default: all but English)")


def _versions_options(parser: argparse.ArgumentParser) -> None:
    from booktools.checks.version_matrix import FRAMEWORKS, SERIES

    parser.add_argument("--framework", action="append", choices=FRAMEWORKS, help="only this framework (repeatable)")
    parser.add_argument("--series", action="append", choices=SERIES, help="only this series (repeatable)")
    parser.add_argument("--recreate", action="store_true", help="make the environments again, whatever their stamps")
    parser.add_argument("--python", default=sys.executable, help="the Python the environments are made with")


# Each verb's function, its options and whether it passes options on; its name and help are booktools.code_facts.verbs'.
RUNS: dict[str, tuple[VerbRun, Callable[[argparse.ArgumentParser], None], bool]] = {
    "kernel": (_kernel, _no_options, False),
    "lib": (_lib, _check_option, False),
    "notebooks": (_notebooks, _check_option, False),
    "new-page": (_new_page, _new_page_options, False),
    "outputs": (_outputs, _outputs_options, False),
    "assignment": (_assignment, _no_options, False),
    "book": (_book, _book_options, False),
    "slides": (_slides, _no_options, False),
    "pdf": (_pdf, _no_options, False),
    "serve": (_serve, _serve_options, False),
    "lab": (_lab, _lab_options, True),
    "check": (_check, _no_options, False),
    "translations": (_translations, _translations_options, False),
    "versions": (_versions, _versions_options, False),
    "page-words": (_page_words, _page_words_options, False),
    "audit": (_audit, _audit_options, False),
    "docs": (_docs, _check_option, False),
}
VERBS = tuple(Verb(name, text, *RUNS[name]) for name, text in VERB_HELP)


PROG = "python -m booktools"
ROOT_HELP = "the book's checkout (default: this one)"


def parser(with_options: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The command line: a global ``--root`` and one subcommand per verb, with the options of the verbs
    ``with_options`` names (of every verb by default). A verb's options may import its package (the audit's
    presets, the version matrix's frameworks), so :func:`parse` defines only those of the verb it runs."""
    main = argparse.ArgumentParser(prog=PROG, description="Every verb of the book, in the order a book is made.")
    main.add_argument("--root", type=Path, default=None, help=ROOT_HELP)
    verbs = main.add_subparsers(dest="verb", required=True, metavar="verb")
    for verb in VERBS:
        sub = verbs.add_parser(verb.name, help=verb.help, description=verb.help)
        if with_options is None or verb.name in with_options:
            verb.options(sub)
        sub.set_defaults(verb_run=verb.run)
    return main


def chosen_verb(argv: Sequence[str] | None = None) -> str | None:
    """The verb a command line names (None if it names none), read before any verb's options are defined."""
    first = argparse.ArgumentParser(prog=PROG, add_help=False)
    first.add_argument("--root", type=Path, default=None, help=ROOT_HELP)
    first.add_argument("verb", nargs="?", default=None)
    known, _ = first.parse_known_args(argv)
    verb: str | None = known.verb
    return verb


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse a command line, with the options of its verb only; a verb that passes options on (``lab``) gets
    those it does not know."""
    verb = chosen_verb(argv)
    command = parser(with_options=() if verb is None else (verb,))
    args, unknown = command.parse_known_args(argv)
    if unknown and not next(verb for verb in VERBS if verb.name == args.verb).passes_on:
        command.error(f"unrecognized arguments: {' '.join(unknown)}")
    if unknown:
        args.options = [*args.options, *unknown]
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the verb ``argv`` names on the project; return its exit status."""
    args = parse(argv)
    project = Project(args.root.resolve()) if args.root else Project.here()
    verb_run: VerbRun = args.verb_run
    return verb_run(project, args)


if __name__ == "__main__":
    sys.exit(main())
