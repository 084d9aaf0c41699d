"""Stages with declared inputs and outputs, run in dependency order when what they read has
changed.

A :class:`Stage` says, per edition (or once for the whole book), which files it reads,
which it writes and which stages it needs; :func:`make` orders the stages with the
standard library's ``graphlib`` and runs each stale one. A stage is stale for an edition
when its stamp (``booktools.pipeline.stamps``) is missing or was made from other inputs
(its files, and what the stages it needs made), or when one of its outputs is missing.
Its ``run`` is called once, with every edition for which it is stale, so that a stage
can batch its work (one ``d2lbook`` process for every deck, one browser for every PDF),
and says what became of each: ``DONE`` is stamped, ``SKIPPED`` (a tool it needs is not
installed; it said so) and ``FAILED`` are not. A stage whose need failed does not run
for that edition; one whose need was skipped runs and is stale again once the need is
met. A stage that is not ``cached`` (a measurement, such as the audit, whose scores depend on
the machine's load) is never stamped and runs every time it is asked for, once the stages it
needs are current.

``pydoit`` and ``make`` itself were considered for the graph: doit keeps its state in a
dbm file keyed by file lists and runs tasks one by one, so batching the editions of a
stage, the thing that keeps a full build fast, would be fought rather than helped; the
Makefile cannot see inside an edition. ``graphlib`` orders, and the rest is this module.
"""

from __future__ import annotations

import enum
import graphlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from booktools.pipeline.stamps import clear_stamp, files_digest, read_stamp, write_stamp
from booktools.project import Project

ONCE = "all"  # the edition of a stage that runs once for the whole book (all editions at once)


class Outcome(enum.Enum):
    """What became of one stage for one edition."""

    DONE = "done"
    SKIPPED = "skipped"
    FAILED = "failed"


Paths = Callable[[Project, str], Sequence[Path]]


@dataclass(frozen=True)
class Stage:
    """One stage of the build.

    ``reads`` and ``writes`` give, for an edition's code (or ``ONCE``), the files and
    folders the stage reads and writes (a missing one makes it stale); ``made``, what the
    stages after it read of it (by default what it writes); ``environment``, a digest of the
    versions of the tools it runs with; ``needs`` names the stages whose outputs it reads, for
    the same edition when both run per edition, for every edition when it runs once; ``run``
    does the work for the editions given and says what became of each; ``cached`` False makes
    it run whenever it is asked for (a measurement), with no stamp.
    """

    name: str
    does: str
    reads: Paths
    writes: Paths
    run: Callable[[Project, list[str]], dict[str, Outcome]]
    needs: tuple[str, ...] = ()
    per_edition: bool = True
    made: Paths | None = None
    environment: Callable[[Project], str] = lambda project: ""  # the tools' versions it runs with
    cached: bool = True  # False: never current, so it runs each time (a measurement of the machine)

    def made_digest(self, project: Project, edition: str) -> str:
        """The digest of what the stage made for ``edition``, as the stages after it read it."""
        return files_digest(project, (self.made or self.writes)(project, edition))

    def editions(self, project: Project) -> list[str]:
        """The editions the stage runs for: every present one, or ``[ONCE]``."""
        return project.editions() if self.per_edition else [ONCE]

    def task(self, edition: str) -> str:
        """The stage's name for one edition, as its stamp is named: ``site.en``, ``root.all``."""
        return f"{self.name}.{edition}"


def ordered(stages: Sequence[Stage]) -> list[Stage]:
    """The stages in an order where each comes after those it needs.

    Raises:
        ValueError: if a stage needs one that is not given, or the needs form a cycle.
    """
    by_name = {stage.name: stage for stage in stages}
    graph: dict[str, set[str]] = {}
    for stage in stages:
        unknown = [need for need in stage.needs if need not in by_name]
        if unknown:
            raise ValueError(f"stage {stage.name!r} needs {unknown}, which are not stages of {sorted(by_name)}")
        graph[stage.name] = set(stage.needs)
    try:
        return [by_name[name] for name in graphlib.TopologicalSorter(graph).static_order()]
    except graphlib.CycleError as error:
        raise ValueError(f"the stages' needs form a cycle: {error.args[1]}") from error


def need_tasks(stage: Stage, edition: str, stages: dict[str, Stage], project: Project) -> list[str]:
    """The tasks (stage for edition) whose stamps ``stage`` reads for ``edition``."""
    tasks = []
    for name in stage.needs:
        need = stages[name]
        if not need.per_edition:
            tasks.append(need.task(ONCE))
        elif stage.per_edition:
            tasks.append(need.task(edition))
        else:
            tasks += [need.task(code) for code in need.editions(project)]
    return tasks


def digest(stage: Stage, edition: str, stages: dict[str, Stage], project: Project) -> str:
    """The digest of what ``stage`` reads for ``edition``: its files and its needs' stamps."""
    needs = need_tasks(stage, edition, stages, project)
    return files_digest(project, stage.reads(project, edition), needs, stage.environment(project))


def is_stale(stage: Stage, edition: str, stages: dict[str, Stage], project: Project) -> bool:
    """Whether ``stage`` must run for ``edition``: not ``cached``, no stamp, another digest, or an output missing."""
    if not stage.cached:
        return True
    current = read_stamp(project, stage.task(edition)) == digest(stage, edition, stages, project)
    return not current or not all(path.exists() for path in stage.writes(project, edition))


def stale_tasks(project: Project, stages: Sequence[Stage]) -> list[str]:
    """The tasks of ``stages`` that would run (as if every stage before each succeeded): ``[]`` when all are current.

    A stage after a stale one is counted stale too, since running the first changes its stamp.
    """
    by_name = {stage.name: stage for stage in stages}
    stale: list[str] = []
    for stage in ordered(stages):
        for edition in stage.editions(project):
            upstream = need_tasks(stage, edition, by_name, project)
            if any(task in stale for task in upstream) or is_stale(stage, edition, by_name, project):
                stale.append(stage.task(edition))
    return stale


def make(
    project: Project, stages: Sequence[Stage], skip: frozenset[str] = frozenset(), report: Callable[[str], None] = print
) -> bool:
    """Run every stale stage of ``stages`` in dependency order, but those ``skip`` names; False if one failed.

    A skipped stage is not run and not stamped, as when a tool it needs is missing: the stages
    after it run on what there is, and are stale again once it has run.

    Each stage's digest is taken before it runs, so that a file changed while it runs makes it
    stale again; it is stamped with it if it succeeded, and its stamp is cleared otherwise.
    """
    by_name = {stage.name: stage for stage in stages}
    outcomes: dict[str, Outcome] = {}
    for stage in ordered(stages):
        todo: dict[str, str] = {}
        for edition in stage.editions(project):
            upstream = need_tasks(stage, edition, by_name, project)
            if any(outcomes.get(task) is Outcome.FAILED for task in upstream):
                outcomes[stage.task(edition)] = Outcome.FAILED
                clear_stamp(project, stage.task(edition))
                report(f"{stage.task(edition)}: not run, a stage it needs failed")
            elif is_stale(stage, edition, by_name, project):
                todo[edition] = digest(stage, edition, by_name, project)
            else:
                outcomes[stage.task(edition)] = Outcome.DONE
                report(f"{stage.task(edition)}: current")
        if not todo:
            continue
        if stage.name in skip:
            for edition in todo:
                outcomes[stage.task(edition)] = Outcome.SKIPPED
                clear_stamp(project, stage.task(edition))
            report(f"{stage.name}: skipped, as asked ({', '.join(todo)})")
            continue
        for edition in todo:
            clear_stamp(project, stage.task(edition))
        results = stage.run(project, list(todo))
        for edition, stage_digest in todo.items():
            outcome = results.get(edition, Outcome.FAILED)
            outcomes[stage.task(edition)] = outcome
            if outcome is Outcome.DONE and stage.cached:
                write_stamp(project, stage.task(edition), stage_digest, stage.made_digest(project, edition))
    return Outcome.FAILED not in outcomes.values()
