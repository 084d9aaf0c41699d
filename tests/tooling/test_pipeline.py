"""The build's stages (``booktools.pipeline``): each runs when what it reads has changed, and only then.

The stages are the book's own (``pipeline.stages.STAGES``: their reads, writes and needs),
over a book_copy copy of what a build reads; their work is replaced by a recorder that
writes each declared output anew (but the library's, whose content a change of prose
leaves as it is), so that these tests say which stage runs for which edition
without building a site.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from booktools.pipeline import stage_io, stage_runs, stages
from booktools.pipeline.graph import ONCE, Outcome, Stage, make, ordered, stale_tasks
from booktools.pipeline.stamps import files_digest, read_stamp
from booktools.project import Project
from booktools.slides import decks, mathjax
from booktools.slides.errors import SlidesError
from booktools.sources.frameworks import FRAMEWORKS
from booktools.sources.new_page import NewPage, add_page

PROJECT = Project.here()
PAGE = "preliminaries.ipynb"


def recorded(ran: list[str], fail: frozenset[str] = frozenset()) -> list[Stage]:
    """``stages.STAGES`` with each stage's work replaced: it notes ``stage.edition`` and writes each output as a
    function of what the stage read, as a real stage would; the root files, which do not change with a page's
    body, and d2l_lib's modules, which do not change with its prose, are written as they were."""

    def recorder(stage: Stage) -> Callable[[Project, list[str]], dict[str, Outcome]]:
        def run(project: Project, editions: list[str]) -> dict[str, Outcome]:
            outcomes = {}
            for edition in editions:
                ran.append(stage.task(edition))
                if stage.task(edition) in fail:
                    outcomes[edition] = Outcome.FAILED
                    continue
                read = "" if stage.name == "root" else files_digest(project, stage.reads(project, edition))
                for path in stage.writes(project, edition):
                    if project.library_dir in path.parents:
                        continue
                    if path.is_dir() or path == project.notebooks_dir:
                        path = path / "written"
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(f"{stage.task(edition)} from {read}\n", encoding="utf-8")
                outcomes[edition] = Outcome.DONE
            return outcomes

        return run

    return [dataclasses.replace(stage, run=recorder(stage)) for stage in stages.STAGES]


def every_task(project: Project) -> set[str]:
    return {stage.task(edition) for stage in recorded([]) for edition in stage.editions(project)}


def test_the_first_build_runs_every_stage_and_the_second_only_the_audit(book_copy: Project) -> None:
    ran: list[str] = []
    assert make(book_copy, recorded(ran), report=lambda line: None)
    assert set(ran) == every_task(book_copy)
    assert stale_tasks(book_copy, recorded([])) == [f"audit.{ONCE}"]
    ran.clear()
    assert make(book_copy, recorded(ran), report=lambda line: None)
    assert ran == [f"audit.{ONCE}"]  # a measurement: taken each time it is asked, and never stamped
    assert read_stamp(book_copy, f"audit.{ONCE}") == ""


def test_the_audit_measures_each_time_it_is_asked_after_the_stages_it_needs(book_copy: Project) -> None:
    assert make(book_copy, recorded([]), report=lambda line: None)
    page = book_copy.edition_dir("ko") / PAGE
    page.write_text(page.read_text(encoding="utf-8") + " ", encoding="utf-8")
    ran: list[str] = []
    assert make(book_copy, recorded(ran), report=lambda line: None)
    assert ran[-1] == f"audit.{ONCE}" and {"site.ko", "slides.ko", "pdf.ko", f"root.{ONCE}"} <= set(ran)
    page.write_text(page.read_text(encoding="utf-8") + " ", encoding="utf-8")
    ran.clear()
    assert not make(book_copy, recorded(ran, fail=frozenset({"site.ko"})), report=lambda line: None)
    assert f"audit.{ONCE}" not in ran  # no measurement of a site that is not current


def test_a_change_to_one_page_of_one_edition_rebuilds_that_edition_only(book_copy: Project) -> None:
    assert make(book_copy, recorded([]), report=lambda line: None)
    page = book_copy.edition_dir("id") / PAGE
    page.write_text(page.read_text(encoding="utf-8").replace("Persiapan", "Persiapan Awal", 1), encoding="utf-8")
    ran: list[str] = []
    assert make(book_copy, recorded(ran), report=lambda line: None)
    # The library and the notebooks read every page: they run, and d2l_lib is the same, so no
    # other edition's site follows.
    assert sorted(ran) == sorted(
        ["library.all", "notebooks.all", "site.id", "slides.id", "pdf.id", f"root.{ONCE}", f"audit.{ONCE}"]
    )


def test_an_edit_to_any_file_of_booktools_reruns_every_stage(book_copy: Project) -> None:
    """Every stage reads the whole of booktools/: a comment in a check, a server, the pipeline's own code, the
    theme's stylesheet or an npm lock (a trailing line) reruns each of them, whether or not it runs that file."""
    for name in (
        "checks/page_words.py",
        "servers/serve.py",
        "pipeline/graph.py",
        "website/extension/static/book.css",
        "checks/audit/package-lock.json",
    ):
        assert make(book_copy, recorded([]), report=lambda line: None)
        changed = book_copy.root / "booktools" / name
        text = changed.read_text(encoding="utf-8")
        changed.write_text(text + ("/* a change */\n" if name.endswith(".css") else "# a change\n"), encoding="utf-8")
        ran: list[str] = []
        assert make(book_copy, recorded(ran), report=lambda line: None)
        assert sorted(ran) == sorted(every_task(book_copy)), name


def test_an_edit_to_nothing_reruns_no_stage(book_copy: Project) -> None:
    """A file of booktools written again as it was, compiled Python beside it, or a file no stage reads (the
    tests, the README) leave every stage current: only the audit, which measures whenever asked, runs."""
    assert make(book_copy, recorded([]), report=lambda line: None)
    for path in sorted((book_copy.root / "booktools").rglob("*.py")):
        path.write_bytes(path.read_bytes())
    cache = book_copy.root / "booktools" / "pipeline" / "__pycache__"
    cache.mkdir(exist_ok=True)
    (cache / "graph.cpython-311.pyc").write_bytes(b"compiled")
    (book_copy.root / "booktools" / "stray.pyc").write_bytes(b"compiled")
    (book_copy.root / "README.md").write_text("another readme\n", encoding="utf-8")
    ran: list[str] = []
    assert make(book_copy, recorded(ran), report=lambda line: None)
    assert ran == [f"audit.{ONCE}"]
    assert stale_tasks(book_copy, recorded([])) == [f"audit.{ONCE}"]


def test_another_release_of_a_stage_s_tools_runs_that_stage_again(book_copy: Project) -> None:
    assert make(book_copy, recorded([]), report=lambda line: None)
    ran: list[str] = []
    upgraded = [
        dataclasses.replace(stage, environment=lambda project: "Sphinx==8.0.0") if stage.name == "slides" else stage
        for stage in recorded(ran)
    ]
    assert make(book_copy, upgraded, report=lambda line: None)
    # it made the same decks: nothing after it runs but the audit, which measures whenever asked
    assert sorted(ran) == sorted([f"audit.{ONCE}", *(f"slides.{code}" for code in book_copy.editions())])


def test_a_missing_output_makes_its_stage_run_again(book_copy: Project) -> None:
    assert make(book_copy, recorded([]), report=lambda line: None)
    (book_copy.slides_dir("ko") / "index.html").unlink()
    ran: list[str] = []
    assert make(book_copy, recorded(ran), report=lambda line: None)
    assert ran == ["slides.ko", f"audit.{ONCE}"]  # it made what it made before: nothing after it runs but the audit


def test_every_deck_is_an_output_of_the_slides_and_read_by_what_needs_them(book_copy: Project) -> None:
    assert make(book_copy, recorded([]), report=lambda line: None)
    writes = stage_io.slides_writes(book_copy, "ko")
    assert len(writes) == 1 + len(book_copy.source_pages("ko")) * len(FRAMEWORKS)
    deck = next(path for path in writes if path.name != "index.html")
    deck.unlink()
    ran: list[str] = []
    assert make(book_copy, recorded(ran), report=lambda line: None)
    assert ran == ["slides.ko", f"audit.{ONCE}"]
    slides = next(stage for stage in stages.STAGES if stage.name == "slides")
    made = slides.made_digest(book_copy, "ko")
    deck.write_text("another deck\n", encoding="utf-8")
    assert slides.made_digest(book_copy, "ko") != made  # what root and the audit read of the decks is every deck


def test_a_failed_stage_is_not_stamped_and_what_needs_it_does_not_run(book_copy: Project) -> None:
    ran: list[str] = []
    lines: list[str] = []
    assert not make(book_copy, recorded(ran, fail=frozenset({"site.ko"})), report=lines.append)
    assert "pdf.ko" not in ran and f"root.{ONCE}" not in ran and f"audit.{ONCE}" not in ran
    assert "pdf.ko: not run, a stage it needs failed" in lines
    assert read_stamp(book_copy, "site.ko") == "" and read_stamp(book_copy, "site.en") != ""
    assert "site.ko" in stale_tasks(book_copy, recorded([]))
    ran.clear()
    assert make(book_copy, recorded(ran), report=lambda line: None)
    assert sorted(ran) == [f"audit.{ONCE}", "pdf.ko", f"root.{ONCE}", "site.ko"]


def test_a_skipped_stage_leaves_the_build_not_current_and_runs_once_asked(book_copy: Project) -> None:
    ran: list[str] = []
    assert make(book_copy, recorded(ran), skip=frozenset({"pdf"}), report=lambda line: None)
    assert not any(task.startswith("pdf.") for task in ran) and f"root.{ONCE}" in ran
    assert {"pdf.en", "pdf.id", "pdf.ko"} <= set(stale_tasks(book_copy, recorded([])))
    ran.clear()
    assert make(book_copy, recorded(ran), report=lambda line: None)
    assert sorted(ran) == [f"audit.{ONCE}", "pdf.en", "pdf.id", "pdf.ko", f"root.{ONCE}"]


def test_stages_are_ordered_by_their_needs_and_a_cycle_or_unknown_need_is_refused() -> None:
    names = [stage.name for stage in ordered(stages.STAGES)]
    for stage in stages.STAGES:
        assert all(names.index(need) < names.index(stage.name) for need in stage.needs), stage.name
    first, second = stages.STAGES[0], stages.STAGES[1]
    with pytest.raises(ValueError, match="cycle"):
        ordered([dataclasses.replace(first, needs=(second.name,)), dataclasses.replace(second, needs=(first.name,))])
    with pytest.raises(ValueError, match="not stages"):
        ordered([dataclasses.replace(first, needs=("nowhere",))])


def test_make_book_is_root_with_everything_it_needs_and_the_audit_comes_after() -> None:
    assert [stage.name for stage in stages.stages_up_to(*stages.MAKE_BOOK)] == [
        "library",
        "notebooks",
        "site",
        "slides",
        "pdf",
        "root",
    ]
    assert [stage.name for stage in stages.stages_up_to("pdf")] == ["library", "site", "pdf"]
    assert "audit" in [stage.name for stage in stages.stages_up_to("audit")]


def test_an_edition_s_site_reads_its_own_folder_and_no_other_edition_s(book_copy: Project) -> None:
    reads = stage_io.edition_inputs(book_copy, "id")
    assert book_copy.edition_dir("id") in reads
    assert not {book_copy.edition_dir("en"), book_copy.edition_dir("ko"), book_copy.chapters} & set(reads)
    assert book_copy.library_dir in reads  # the edition's alt text is in its own folder
    assert book_copy.alt_text_file("id").is_relative_to(book_copy.edition_dir("id"))


def test_the_audit_runs_again_when_a_page_changed_though_the_root_files_did_not(book_copy: Project) -> None:
    assert make(book_copy, recorded([]), report=lambda line: None)
    root_files = {path: path.read_bytes() for path in stages.STAGES[-2].writes(book_copy, ONCE)}
    page = book_copy.edition_dir("ko") / PAGE
    page.write_text(page.read_text(encoding="utf-8") + " ", encoding="utf-8")
    ran: list[str] = []
    assert make(book_copy, recorded(ran), report=lambda line: None)
    assert {path: path.read_bytes() for path in root_files} == root_files
    assert f"audit.{ONCE}" in ran and "site.ko" in ran and "site.en" not in ran


def test_the_architecture_drawing_shows_the_stages_as_they_are() -> None:
    needs = {stage.name: set(stage.needs) for stage in stages.STAGES}
    text = (PROJECT.root / "docs" / "architecture.md").read_text(encoding="utf-8")
    drawing = text[text.index("### The build's stages") :].split("```mermaid", 1)[1].split("```", 1)[0]
    names = dict(re.findall(r'(\w+)\["(\w+)', drawing))
    edges = {(names[a], names[b]) for a, b in re.findall(r"(\w+)(?:\[[^\]]*\])? --> (\w+)", drawing)}
    assert edges == {(need, name) for name, wanted in needs.items() for need in wanted}


def test_an_edition_s_alt_text_rebuilds_its_site_and_what_follows_but_not_its_decks(book_copy: Project) -> None:
    assert make(book_copy, recorded([]), report=lambda line: None)
    with book_copy.alt_text_file("ko").open("a", encoding="utf-8") as file:
        file.write("# a change\n")
    ran: list[str] = []
    assert make(book_copy, recorded(ran), report=lambda line: None)
    # the library and the notebooks read all of chapters/: they run, make the same, and nothing follows from them
    assert sorted(ran) == sorted(
        [f"library.{ONCE}", f"notebooks.{ONCE}", "site.ko", "pdf.ko", f"root.{ONCE}", f"audit.{ONCE}"]
    )


def test_a_tool_s_digest_ignores_distributions_outside_the_environment(tmp_path: Path, monkeypatch) -> None:
    """``pip install .`` leaves ``d2l_lib.egg-info`` beside the sources, on the path of a process started there:
    the stages' tools are still what the environment has installed, or the site would turn stale mid-run."""
    from booktools.pipeline import tool_inputs

    before = tool_inputs.running_environment()
    assert re.search(r"^nbformat-\d", before, re.MULTILINE)  # every distribution, by name and version
    stray = tmp_path / "d2l_lib.egg-info"
    stray.mkdir()
    (stray / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: d2l-lib\nVersion: 9.9.9\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    tool_inputs.running_environment.cache_clear()
    try:
        assert tool_inputs.running_environment() == before
    finally:
        tool_inputs.running_environment.cache_clear()


def test_an_edit_to_one_stage_s_run_function_reruns_every_stage(book_copy: Project) -> None:
    assert make(book_copy, recorded([]), report=lambda line: None)
    runs = book_copy.root / "booktools" / "pipeline" / "stage_runs.py"
    text = runs.read_text(encoding="utf-8")
    runs.write_text(text.replace(RUN_ROOT_LINE, RUN_ROOT_LINE + "\n    # a change", 1), encoding="utf-8")
    ran: list[str] = []
    assert make(book_copy, recorded(ran), report=lambda line: None)
    assert sorted(ran) == sorted(every_task(book_copy))


RUN_ROOT_LINE = "def write_root(project: Project, editions: list[str]) -> dict[str, Outcome]:"


def test_every_stage_reads_the_whole_of_booktools(book_copy: Project) -> None:
    for stage in stages.STAGES:
        for edition in stage.editions(book_copy):
            assert book_copy.root / "booktools" in stage.reads(book_copy, edition), stage.task(edition)


def _environments() -> dict[str, str]:
    return {stage.name: stage.environment(PROJECT) for stage in stages.STAGES}


def test_an_upgrade_in_the_running_environment_changes_every_stage_s_tools(monkeypatch) -> None:
    before = _environments()
    monkeypatch.setattr(stage_io, "running_environment", lambda: "jinja2-99")
    after = _environments()
    assert [name for name in before if before[name] == after[name]] == []


@pytest.mark.parametrize(
    ("tool", "fact", "users"),
    [
        ("node_version", lambda: "v99", {"site", "audit"}),
        ("file_identity", lambda path: "another chromium", {"pdf", "audit"}),
        ("python_environment", lambda prefix: "d2lbook-99", {"slides"}),
    ],
)
def test_a_tool_outside_python_changes_the_tools_of_the_stages_that_run_it(
    monkeypatch, tool: str, fact: Callable[..., str], users: set[str]
) -> None:
    before = _environments()
    monkeypatch.setattr(stage_io, tool, fact)
    after = _environments()
    assert {name for name in before if before[name] != after[name]} == users


def test_missing_mathjax_fails_the_slides_stage_with_its_message(book_copy: Project, monkeypatch, capsys) -> None:
    def no_package(name: str) -> None:
        raise ModuleNotFoundError(f"No module named {name!r}")

    monkeypatch.setattr(mathjax.importlib.resources, "files", no_package)
    with pytest.raises(SlidesError, match="django-static-mathjax"):
        mathjax.mathjax_source()
    book_copy.d2lbook_env.mkdir(exist_ok=True)
    monkeypatch.setattr(decks, "build", lambda site, project, editions: [mathjax.mathjax_source()])
    assert stage_runs.build_slides(book_copy, ["en"]) == {"en": Outcome.FAILED}
    assert "slides: MathJax is missing: install the pinned django-static-mathjax" in capsys.readouterr().err


def test_a_page_without_slide_marks_is_no_deck_the_slides_must_write(book_copy: Project) -> None:
    """d2lbook makes no deck of a page without slide marks (a new page's first state), so the slides stage does
    not declare one: it would be missing after every build and the stage would run every time."""
    add_page(NewPage("notes", "Notes"), book_copy)
    names = [path.name for path in stage_io.slides_writes(book_copy, "ko")]
    assert "index.html" in names and not [name for name in names if name.startswith("notes")]
    assert [name for name in names if name.startswith("preliminaries")]
    assert {deck.page for deck in decks.all_decks(book_copy, ["en"])} == {
        path.stem for path in book_copy.source_pages("en") if path.stem != "notes"
    }
