"""What a verb of ``python -m booktools`` is, and the parsing of a command line that names one.

The verbs themselves are ``booktools.__main__``'s :data:`~booktools.__main__.VERBS`. A verb's options are defined
only when it is the one a command line names (:func:`parse`): some read their package (the audit's presets), and
``lib --help`` should not import the audit.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from booktools.project import Project

VerbRun = Callable[[Project, argparse.Namespace], int]
"""A verb's function: it gets the project and the parsed options, and returns the exit status."""
Options = Callable[[argparse.ArgumentParser], None]
"""What defines a verb's options on its subcommand's parser."""


def no_options(parser: argparse.ArgumentParser) -> None:
    """Define no options: the verb takes none."""


@dataclass(frozen=True)
class Verb:
    """One verb of the command line: its one-line help, its options and the function it runs."""

    name: str
    help: str
    run: VerbRun
    options: Options = no_options
    passes_on: bool = False  # options it does not know go to the tool it starts (JupyterLab's)


PROG = "python -m booktools"
ROOT_HELP = "the book's checkout (default: this one)"


def parser(verbs: Sequence[Verb], with_options: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The command line: a global ``--root`` and one subcommand per verb of ``verbs``, with the options of those
    ``with_options`` names (of every verb by default). A verb's options may import its package (the audit's
    presets, the version matrix's frameworks), so :func:`parse` defines only those of the verb it runs."""
    main = argparse.ArgumentParser(prog=PROG, description="Every verb of the book, in the order a book is made.")
    main.add_argument("--root", type=Path, default=None, help=ROOT_HELP)
    subcommands = main.add_subparsers(dest="verb", required=True, metavar="verb")
    for verb in verbs:
        sub = subcommands.add_parser(verb.name, help=verb.help, description=verb.help)
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


def parse(verbs: Sequence[Verb], argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse a command line naming one of ``verbs``, with the options of that verb only; a verb that passes options
    on (``lab``) gets those it does not know."""
    verb = chosen_verb(argv)
    command = parser(verbs, with_options=() if verb is None else (verb,))
    args, unknown = command.parse_known_args(argv)
    if unknown and not next(verb for verb in verbs if verb.name == args.verb).passes_on:
        command.error(f"unrecognized arguments: {' '.join(unknown)}")
    if unknown:
        args.options = [*args.options, *unknown]
    return args
