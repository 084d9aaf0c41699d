"""The chapter's code exercises as assignments for instructors (``make assignment``).

For every edition and framework, each derived notebook with exercise cells
(``notebooks/<lang>/<framework>/<page>.ipynb``, see ``booktools.derive.notebooks``)
gives two notebooks under ``_build/assignments/<lang>/<framework>/``
(``booktools.derive.exercise_cells`` makes them):

- ``release/<page>.ipynb``, for students: the solutions removed, the starters, checks
  and hints kept, their outputs cleared;
- ``source/<page>.ipynb``, for nbgrader: the solutions in the starters' place between
  ``### BEGIN SOLUTION`` and ``### END SOLUTION``, each check an autograder test.

Each edition also gets ``_build/assignments/<lang>/README.md``, the instructor's guide,
in the edition's language: its text is the ``assignment`` section of
``chapters/<lang>/strings.yml`` (``booktools.sources.strings``), where a missing key fails.

Usage::

    python -m booktools assignment
"""

from __future__ import annotations

import argparse
import ast
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

from booktools.configuration.schema import ConfigError
from booktools.derive import notebooks as derive
from booktools.derive.exercise_cells import AssignmentError, exercises, has_exercises, release, source
from booktools.project import ASSIGNMENT_RELEASE as RELEASE
from booktools.project import ASSIGNMENT_SOURCE as SOURCE
from booktools.project import Project
from booktools.sources.frameworks import FRAMEWORKS, Framework
from booktools.sources.strings import AssignmentStrings, load_strings


@dataclass(frozen=True)
class Written:
    """One page's assignment for one framework: the two notebooks written, and its exercises' ids and answers."""

    framework: Framework
    release: Path
    source: Path
    exercises: tuple[tuple[str, str], ...]  # (exercise id, answer name)


def library_names(project: Project, framework: Framework) -> set[str]:
    """The top-level names ``d2l_lib/<module>.py`` defines (those an exercise's answer may share)."""
    path = project.library_dir / f"{framework.module}.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))} | {
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }


def library_answers(project: Project) -> dict[str, str]:
    """Each exercise's own answer in the library, by exercise id: ``d2l_lib.exercises.REFERENCES``, read
    from its source (as ``library_names`` reads the modules), so that no framework or library is imported."""
    path = project.library_dir / "exercises" / "__init__.py"
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "REFERENCES" for t in node.targets):
            references: dict[str, str] = ast.literal_eval(node.value)
            return references
    raise AssignmentError(f"{project.relative(path)} defines no REFERENCES")


def write_page(project: Project, derived: Path, language: str, framework: Framework) -> Written | None:
    """Write the release and source notebooks of one derived notebook; ``None`` if it has no exercises.

    Raises:
        AssignmentError: if its exercise cells break the conventions.
    """
    notebook = nbformat.read(derived, as_version=4)
    if not has_exercises(notebook):
        return None
    try:
        student, instructor = release(notebook), source(notebook)
    except AssignmentError as error:
        raise AssignmentError(f"{project.relative(derived)}: {error}") from error
    paths = []
    for version, made in ((RELEASE, student), (SOURCE, instructor)):
        path = project.assignment_dir(language, framework.name, version) / derived.name
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.validate(made)
        nbformat.write(made, path)
        paths.append(path)
    found = tuple((exercise.exercise, exercise.answer) for exercise in exercises(notebook))
    return Written(framework, paths[0], paths[1], found)


def readme(project: Project, language: str, strings: AssignmentStrings, written: list[Written]) -> str:
    """The instructor's README of one edition, in its language."""
    folder = project.assignments_dir / language
    lines = [f"# {strings.title}", "", strings.introduction.strip(), "", f"## {strings.files_heading}", ""]
    lines += [
        f"- `<framework>/{RELEASE}/`: {strings.release.strip()}",
        f"- `<framework>/{SOURCE}/`: {strings.source.strip()}",
    ]
    lines += ["", f"## {strings.pages_heading}", ""]
    for page in written:
        ids = ", ".join(f"`{exercise}`" for exercise, _ in page.exercises)
        release_path = page.release.relative_to(folder).as_posix()
        source_path = page.source.relative_to(folder).as_posix()
        lines.append(f"- {page.framework.label}: `{release_path}`, `{source_path}` ({ids})")
    if not written:
        lines.append(strings.no_pages.strip())
    references = library_answers(project)
    names = sorted(
        {
            f"`d2l.{references[exercise]}`"
            for page in written
            for exercise, _ in page.exercises
            if references.get(exercise) in library_names(project, page.framework)
        }
    )
    for heading, text in (
        (strings.hand_out_heading, strings.hand_out),
        (strings.nbgrader_heading, strings.nbgrader),
        (strings.grading_heading, strings.grading),
        (strings.honesty_heading, strings.honesty.format(names=", ".join(names) or "—")),
    ):
        lines += ["", f"## {heading}", "", text.strip()]
    return "\n".join(lines) + "\n"


def write(project: Project) -> dict[str, list[Written]]:
    """Write every edition's assignments and README under ``_build/assignments/``; return them by edition.

    Raises:
        AssignmentError: if a page's exercise cells break the conventions.
        FileNotFoundError: if a derived notebook is missing.
        ConfigError: if an edition's strings lack a key of the README.
    """
    everything = {}
    shutil.rmtree(project.assignments_dir, ignore_errors=True)
    for language in project.editions():
        strings = load_strings(project, language).assignment
        written = []
        for page in project.source_pages(language):
            for framework in FRAMEWORKS:
                derived = derive.derived_path(page, framework, project)
                if not derived.exists():
                    raise FileNotFoundError(f"{project.relative(derived)} is missing: run `make notebooks`")
                made = write_page(project, derived, language, framework)
                if made is not None:
                    written.append(made)
        path = project.assignment_readme(language)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(readme(project, language, strings, written), encoding="utf-8")
        everything[language] = written
    return everything


def run(project: Project, args: argparse.Namespace | None = None) -> int:
    """``python -m booktools assignment``: write the assignments of every edition and framework."""
    try:
        everything = write(project)
    except (AssignmentError, FileNotFoundError, ConfigError) as error:
        print(f"make assignment: {error}", file=sys.stderr)
        return 1
    folder = project.relative(project.assignments_dir)
    for language, written in everything.items():
        pages = sorted({page.release.name for page in written})
        print(f"{folder}/{language}/: README.md, {len(written)} release and {len(written)} source notebooks {pages}")
    return 0
