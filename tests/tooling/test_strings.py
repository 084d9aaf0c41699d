"""Interface strings: one file per edition, every key in every edition, never an English fallback.

The site's strings are ``chapters/<lang>/strings.yml`` (``booktools.sources.strings``);
the library's own strings are ``d2l_lib/messages/<lang>.json``, package data that the
book's checks read from there. The tests that change a file work on a copy.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from sphinx.errors import ExtensionError

from booktools.configuration.schema import ConfigError
from booktools.pipeline import stages
from booktools.project import Project
from booktools.sources.library_messages import check_library_messages
from booktools.sources.strings import EditionStrings, load_strings
from booktools.website.editions import strings_config
from booktools.website.extension import live
from d2l_lib import quiz

PROJECT = Project.here()


def _copy(tmp_path: Path, *names: str) -> Project:
    """A copy of the files ``names`` of the book under ``tmp_path``, as a project."""
    for name in names:
        source = PROJECT.root / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, tmp_path / name)
    return Project(tmp_path)


def _drop_line(path: Path, prefix: str) -> None:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(line for line in lines if not line.startswith(prefix)), encoding="utf-8")


@pytest.mark.parametrize("language", PROJECT.editions())
def test_every_edition_has_every_interface_string(language: str) -> None:
    strings = load_strings(PROJECT, language)
    assert isinstance(strings, EditionStrings)
    flat = {**strings_config(strings), **dataclasses.asdict(strings)}
    if language == "en":  # the themes' labels are English already: nothing to give in other words
        assert strings.theme_words == {}
        flat = {key: value for key, value in flat.items() if key != "theme_words"}
    assert all(value for value in flat.values())


def test_the_editions_strings_differ_from_english_where_they_are_translated() -> None:
    english = load_strings(PROJECT, "en")
    for language in PROJECT.editions()[1:]:
        strings = load_strings(PROJECT, language)
        assert strings.live.button != english.live.button and strings.api.title != english.api.title, language


def test_a_missing_string_names_the_file_and_the_key(tmp_path: Path) -> None:
    project = _copy(tmp_path, "_config.yml", "_toc.yml", "chapters")
    _drop_line(project.strings_file("id"), "  run: ")
    with pytest.raises(ConfigError, match=r"chapters/id/strings\.yml: live: missing key 'run'"):
        load_strings(project, "id")


def test_a_missing_string_fails_the_build_before_any_edition_is_built(
    synthetic_book: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = Project(synthetic_book)
    _drop_line(project.strings_file("id"), "slides: ")
    assert stages.bring_up_to_date(project) == 1
    assert "chapters/id/strings.yml: missing key 'slides'" in capsys.readouterr().err
    assert not (project.site_dir / "en").exists()


def test_the_live_code_button_has_no_english_fallback() -> None:
    strings = dataclasses.asdict(load_strings(PROJECT, "ko").live)
    strings.pop("restart")
    config = SimpleNamespace(book={"live_server": "local", "live_strings": strings}, html_theme_options={})
    with pytest.raises(ExtensionError, match="book.live_strings: expected a mapping with the keys .*restart"):
        live.live_settings(config)  # type: ignore[arg-type]


def test_every_edition_has_the_library_s_messages_with_english_s_keys() -> None:
    assert check_library_messages(PROJECT) == []
    assert sorted(quiz.languages()) == sorted(PROJECT.editions())


def test_a_missing_library_message_is_reported(tmp_path: Path) -> None:
    project = _copy(tmp_path, "_config.yml", "_toc.yml", "chapters", "d2l_lib")
    path = project.library_messages_file("ko")
    data = json.loads(path.read_text(encoding="utf-8"))
    del data["quiz"]["retry"]
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    assert check_library_messages(project) == ["d2l_lib/messages/ko.json: missing quiz.retry"]


def test_the_quiz_has_no_fallback_language() -> None:
    with pytest.raises(ValueError, match="no quiz labels for language 'fr'; known: en, id, ko"):
        quiz.labels("fr")
