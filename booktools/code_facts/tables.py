"""The blocks of ``docs/architecture.md`` that are facts of the code, rendered from the code (``make docs``).

Each block sits between ``<!-- generated: NAME -->`` and ``<!-- end generated -->``; :func:`blocks` renders it:
the verbs (``booktools.__main__.VERBS``, which the entry point gives :func:`run`, with the make targets whose
recipe calls each), the import layers (``booktools.LAYERS``), the stages (``booktools.pipeline.stages.STAGES``, in
the order they run) and the trace of ``make book`` through them (each stage's run function and its docstring), the
modules (each package's ``__init__`` map, the one place a module's job is written), the quality bars
(``booktools.configuration.bars``) and the upstream tools (``UPSTREAM``). ``python -m booktools docs`` writes
them; ``--check`` (and ``python -m booktools check``) changes nothing and names each block that differs from what
the code renders.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path, PurePosixPath

from booktools import LAYERS
from booktools.cli.verbs import Verb
from booktools.configuration.bars import BARS, Bar
from booktools.pipeline.graph import Stage, ordered
from booktools.pipeline.stages import MAKE_BOOK, STAGES, stages_up_to
from booktools.project import TOOLS, Project
from booktools.upstream.guard import series
from booktools.upstream.tools import UPSTREAM

DOCUMENT = "docs/architecture.md"
PACKAGE = Path(__file__).resolve().parents[1]  # booktools/, whose maps the module table renders
BLOCK = re.compile(r"<!-- generated: ([a-z-]+) -->\n(.*?)<!-- end generated -->", re.DOTALL)
BOOKTOOLS_CALL = re.compile(r"-m booktools ([a-z][a-z-]*)")
MAKE_RULE = re.compile(r"^([^\s:#=][^:=]*):(?!=)", re.MULTILINE)
MAP_ENTRY = re.compile(r"^- ``([A-Za-z_]\w*/?)``:?")
RST_LITERAL = re.compile(r"``(.+?)``(?!`)")
RST_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")


class DocTablesError(ValueError):
    """The document's generated blocks cannot be matched with those the code renders."""


def _code(text: str) -> str:
    """A markdown code span of ``text`` (doubled backticks when it holds one)."""
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def markdown(rst: str) -> str:
    """A docstring's reStructuredText (literals, roles) as markdown for a table cell, on one line."""
    text = RST_ROLE.sub(lambda match: f"``{match.group(1)}``", " ".join(rst.split()))
    return RST_LITERAL.sub(lambda match: _code(match.group(1)), text).replace("|", "\\|")


def _text(plain: str) -> str:
    """Plain text for a table cell, with nothing markdown would read as a tag."""
    return plain.replace("<", "\\<").replace("|", "\\|")


def _table(header: tuple[str, ...], rows: Iterable[tuple[str, ...]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    return "\n".join([*lines, *("| " + " | ".join(row) + " |" for row in rows)]) + "\n"


def make_targets(makefile: Path) -> dict[str, list[str]]:
    """Each verb's make targets: the rules of ``makefile`` whose recipe runs ``python -m booktools <verb>``."""
    targets: dict[str, list[str]] = {}
    rule = ""
    for line in makefile.read_text(encoding="utf-8").splitlines():
        match = MAKE_RULE.match(line)
        if match:
            rule = match.group(1).strip()
        elif line.startswith("\t") and rule:
            for verb in BOOKTOOLS_CALL.findall(line):
                targets.setdefault(verb, []).append(rule)
    return targets


def verbs(project: Project, verb_list: Sequence[Verb]) -> str:
    """The verbs of ``python -m booktools``, their help, and the make targets that run them."""
    targets = make_targets(project.root / "Makefile")

    def rules(verb: str) -> str:
        named = targets.get(verb, [])
        return ", ".join(f"`{rule}` rule" if rule.startswith("$(") else f"`make {rule}`" for rule in named)

    return _table(
        ("verb", "what it does", "make"), ((f"`{verb.name}`", _text(verb.help), rules(verb.name)) for verb in verb_list)
    )


def _grouped(project: Project, paths: Iterable[Path], editions: Iterable[str]) -> str:
    """Paths under the book's root, each edition's code as ``<lang>``, the files of one folder as one pattern."""
    codes = set(editions)
    folders: dict[PurePosixPath, list[str]] = {}
    for path in paths:
        relative = PurePosixPath(path.relative_to(project.root).as_posix())
        if relative.parts[0] == TOOLS:  # a stage's code: every stage reads its own
            continue
        general = PurePosixPath(*("<lang>" if part in codes else part for part in relative.parts))
        names = folders.setdefault(general.parent, [])
        if general.name not in names:
            names.append(general.name)
    shown = []
    for folder, names in folders.items():
        by_suffix: dict[str, list[str]] = {}
        for name in names:
            by_suffix.setdefault(PurePosixPath(name).suffix, []).append(name)
        # files of one kind in a folder as a pattern; those at the root and folders (no suffix) one by one
        patterned = {suffix for suffix, group in by_suffix.items() if len(group) > 1 and suffix and folder.parts}
        alone = [name for suffix, group in by_suffix.items() if suffix not in patterned for name in group]
        shown += [_code(f"{folder.as_posix()}/*{suffix}") for suffix in patterned]
        if len(alone) == 1 or not folder.parts:
            shown += [_code((folder / name).as_posix()) for name in alone]
        elif alone:
            shown.append(_code(f"{folder.as_posix()}/{{{', '.join(alone)}}}"))
    return ", ".join(shown)


def _stage_row(project: Project, stage: Stage, number: int, book: set[str]) -> tuple[str, ...]:
    edition = project.editions()[0] if stage.per_edition else stage.editions(project)[0]
    editions = project.editions()
    runs = "per edition" if stage.per_edition else "once"
    verb = "`make book`" if stage.name in book else f"`make {stage.name}`"
    needs = ", ".join(f"`{need}`" for need in stage.needs) or "--"
    reads = _grouped(project, stage.reads(project, edition), editions)
    writes = _grouped(project, stage.writes(project, edition), editions)
    return (str(number), f"`{stage.name}`", _text(stage.does), runs, reads, writes, needs, verb)


def layers(project: Project) -> str:
    """The import layers, bottom first, on one line: a package or top module per layer."""
    return " → ".join(f"`{name}`" for name in LAYERS) + "\n"


def stages(project: Project) -> str:
    """The stages in the order they run, what each reads (besides ``booktools/``), writes and needs; a drawing."""
    book = {stage.name for stage in stages_up_to(*MAKE_BOOK)}
    rows = [_stage_row(project, stage, number, book) for number, stage in enumerate(ordered(STAGES), 1)]
    table = _table(
        ("#", "stage", "what it makes", "runs", "reads (and all of `booktools/`)", "writes", "needs", "run by"), rows
    )
    drawing = ["```mermaid", "flowchart LR"]
    drawing += [f'    {stage.name}["{stage.name}"]' for stage in ordered(STAGES)]
    drawing += [f"    {need} --> {stage.name}" for stage in ordered(STAGES) for need in stage.needs]
    return table + "\n" + "\n".join([*drawing, "```"]) + "\n"


def trace(project: Project) -> str:
    """``make book`` through the stage table: each stage in the order it runs, its run function and what that does."""
    book = {stage.name for stage in stages_up_to(*MAKE_BOOK)}
    lines = [f"`pipeline.stages.MAKE_BOOK` ({', '.join(f'`{name}`' for name in MAKE_BOOK)}) and every stage they need:"]
    for number, stage in enumerate(ordered(STAGES), 1):
        run = f"{stage.run.__module__.removeprefix(TOOLS + '.')}.{stage.run.__name__}"
        where = "per edition" if stage.per_edition else "once"
        only = "" if stage.name in book else f", only for `make {stage.name}`"
        job = markdown((stage.run.__doc__ or "").split("\n\n", 1)[0])
        lines.append(f"{number}. `{stage.name}` ({where}{only}): `{run}` → {job}")
    return "\n".join(lines) + "\n"


def package_job(init: Path) -> str:
    """A package's job: the first paragraph of its ``__init__`` docstring."""
    docstring = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
    return markdown(docstring.split("\n\n", 1)[0])


def package_map(init: Path) -> dict[str, str]:
    """The map of a package's ``__init__`` docstring: each ``- ``name``: job`` entry, its lines joined."""
    docstring = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
    entries: dict[str, str] = {}
    current = ""
    for line in docstring.splitlines():
        match = MAP_ENTRY.match(line)
        if match:
            current = match.group(1)
            entries[current] = line[match.end() :].strip()
        elif current and line.startswith("  ") and line.strip():
            entries[current] += " " + line.strip()
        else:
            current = ""
    return {name: markdown(job).rstrip(";") for name, job in entries.items()}


def _module_rows(package: Path, prefix: str) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    for name, job in package_map(package / "__init__.py").items():
        if name.endswith("/"):
            rows.append((f"`{prefix}{name}`", package_job(package / name / "__init__.py")))
            rows += _module_rows(package / name.rstrip("/"), f"{prefix}{name}")
        else:
            rows.append((f"`{prefix}{name}.py`", job))
    return rows


def modules(project: Project) -> str:
    """Every module and package of booktools and its one job, from the packages' maps."""
    return _table(("module", "its one job"), _module_rows(PACKAGE, ""))


def _bar_row(project: Project, bar: Bar) -> tuple[str, ...]:
    """A bar's row: what it holds, where its value is and that value, what enforces it."""
    if bar.value is None:  # each page's own: named, not copied
        pages_file = _code(project.relative(project.pages_file))
        return (bar.holds, f"{pages_file}, each page's `words`", "per page", bar.enforced_by)
    constant = _code(f"{Bar.__module__}.{bar.constant}")
    return (bar.holds, constant, _code(str(bar.value)), bar.enforced_by)


def bars(project: Project) -> str:
    """The quality bars (``booktools.configuration.bars``): each with its value, or where the pages hold theirs."""
    return _table(("bar", "held by", "value", "enforced by"), (_bar_row(project, bar) for bar in BARS))


def upstream(project: Project) -> str:
    """The tools whose insides the site depends on: the series each is written for, and its places."""
    rows = ((f"`{tool.distribution}`", f"`{series(tool.release)}`", str(len(tool.places))) for tool in UPSTREAM)
    return _table(("tool", "series", "places"), rows)


def blocks(verb_list: Sequence[Verb]) -> dict[str, Callable[[Project], str]]:
    """Each generated block of the document, by its name in the markers, and what renders it."""
    return {
        "verbs": lambda project: verbs(project, verb_list),
        "layers": layers,
        "stages": stages,
        "trace": trace,
        "modules": modules,
        "bars": bars,
        "upstream": upstream,
    }


def rendered(text: str, project: Project, verb_list: Sequence[Verb]) -> tuple[str, list[str]]:
    """``text`` with every generated block rendered anew (the verbs' from ``verb_list``), and the names of those that
    changed.

    Raises:
        DocTablesError: if a block of :func:`blocks` is missing, named twice, or one the code has no renderer for.
    """
    renderers = blocks(verb_list)
    found = [match.group(1) for match in BLOCK.finditer(text)]
    unknown = sorted(set(found) - set(renderers))
    missing = [name for name in renderers if name not in found]
    twice = sorted({name for name in found if found.count(name) > 1})
    if unknown or missing or twice:
        raise DocTablesError(
            f"{DOCUMENT}: generated blocks unknown {unknown}, missing {missing}, given twice {twice} "
            "(each block is '<!-- generated: NAME -->' ... '<!-- end generated -->')"
        )
    stale: list[str] = []

    def render(match: re.Match[str]) -> str:
        name, old = match.group(1), match.group(2)
        new = renderers[name](project)
        if new != old:
            stale.append(name)
        return f"<!-- generated: {name} -->\n{new}<!-- end generated -->"

    return BLOCK.sub(render, text), stale


def run(project: Project, verb_list: Sequence[Verb], check: bool = False) -> int:
    """Write the document's generated blocks, the verbs' from ``verb_list`` (with ``check``, only name the stale
    ones); 0, or 1 if one is stale."""
    path = project.root / DOCUMENT
    if not path.is_file():
        print(f"{DOCUMENT}: missing", file=sys.stderr)
        return 1
    text = path.read_text(encoding="utf-8")
    try:
        new, stale = rendered(text, project, verb_list)
    except DocTablesError as error:
        print(error, file=sys.stderr)
        return 1
    if check:
        for name in stale:
            print(f"{DOCUMENT}: the generated block {name!r} is stale (run make docs)", file=sys.stderr)
        return 1 if stale else 0
    if new != text:
        path.write_text(new, encoding="utf-8")
    print(f"{DOCUMENT}: " + (f"rewrote {', '.join(stale)}" if stale else "every generated block current"))
    return 0
