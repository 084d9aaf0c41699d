"""Configuration is validated on load (booktools.configuration.schema): a misspelt key or a wrong type fails with a
message naming the file, the key and what was expected. Covers chapters/glossary.yml, the editions and
the other keys of _config.yml that booktools reads, and the one place each fact lives."""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from booktools.__main__ import main as booktools_command
from booktools.checks.translations.glossary import GlossaryError, load_glossary, read_glossary
from booktools.configuration.schema import ConfigError, validate
from booktools.project import BUILD_INPUTS, Project
from booktools.website import editions as edition_settings

GLOSSARY = "chapters/glossary.yml"


@pytest.fixture
def book(tmp_path: Path, project: Project) -> Path:
    """A scratch copy of the configuration files, the chapters and the library's messages."""
    scratch = Project(tmp_path)
    shutil.copytree(project.chapters, scratch.chapters, ignore=shutil.ignore_patterns("*.lock"))
    shutil.copytree(project.library_messages_file("en").parent, scratch.library_messages_file("en").parent)
    for name in (project.config_file.name, project.toc_file.name):
        shutil.copy(project.root / name, tmp_path / name)
    return tmp_path


def editions(book: Path) -> list[str]:
    """The codes of the editions present in ``book``."""
    return Project(book).editions()


def edit_yaml(path: Path, change) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")


def error_of(call) -> ConfigError:
    with pytest.raises(ConfigError) as raised:
        call()
    return raised.value


# ---- chapters/glossary.yml ---------------------------------------------------------------------


def test_the_real_glossary_and_config_load(project: Project) -> None:
    glossary = load_glossary(project)
    assert "attention" in glossary.concepts
    assert {term.concept for term in read_glossary("ko", project)} == set(glossary.concepts)
    assert project.editions()[0] == "en"


@pytest.mark.parametrize(
    ("change", "key", "words"),
    [
        (
            lambda g: g["concepts"]["attention"]["id"].update(bannd=["atensi"]),
            "concepts.attention.id",
            ["unknown key 'bannd'", "did you mean 'banned'?", "expected term, banned, note"],
        ),
        (
            lambda g: g["concepts"]["attention"]["id"].update(banned="atensi"),
            "concepts.attention.id.banned",
            ["expected a list, each item a string", "got a string ('atensi')"],
        ),
        (
            lambda g: g["concepts"]["attention"]["ko"].pop("term"),
            "concepts.attention.ko",
            ["missing key 'term' (a string)"],
        ),
        (
            lambda g: g["concepts"]["attention"].update(en="(attention"),
            "concepts.attention.en",
            ["expected a regular expression", "missing ), unterminated subpattern"],
        ),
        (
            lambda g: g["concepts"]["dot product"].update(kr=g["concepts"]["dot product"].pop("ko")),
            "concepts.'dot product'",
            ["unknown key 'kr'", "an edition's language code (id, ko)"],
        ),
        (lambda g: g["concepts"]["query"].pop("id"), "concepts.query", ["missing key 'id'"]),
        (lambda g: g.update(concept=g.pop("concepts")), "", ["unknown key 'concept'", "did you mean 'concepts'?"]),
        (
            lambda g: g["concepts"]["key"]["id"].update(term=["key"]),
            "concepts.key.id.term",
            ["expected a string, got a list"],
        ),
    ],
)
def test_a_malformed_glossary_names_the_file_and_the_key(book: Path, change, key: str, words: list[str]) -> None:
    edit_yaml(book / GLOSSARY, change)
    error = error_of(lambda: load_glossary(Project(book)))
    assert isinstance(error, GlossaryError)
    assert (error.file, error.key) == (GLOSSARY, key)
    message = str(error)
    assert message.startswith(f"{GLOSSARY}: {key + ': ' if key else ''}")
    assert all(word in message for word in words), message


def test_a_malformed_glossary_stops_check_translations(book: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit_yaml(book / GLOSSARY, lambda g: g["concepts"]["attention"]["id"].update(bannd=["atensi"]))
    assert booktools_command(["--root", str(book), "translations"]) == 2
    assert "chapters/glossary.yml: concepts.attention.id: unknown key 'bannd'" in capsys.readouterr().err


def test_a_glossary_that_is_not_yaml(book: Path) -> None:
    (book / GLOSSARY).write_text("concepts: [unclosed\n", encoding="utf-8")
    assert str(error_of(lambda: load_glossary(Project(book)))).startswith(f"{GLOSSARY}: not valid YAML")


def test_a_new_glossary_rule_is_one_field() -> None:
    # What issue 15's rules will look like: one line in a schema, validated like the others.
    @dataclass(frozen=True)
    class Rule:
        term: str
        plurals: tuple[str, ...] = ()

    assert validate({"term": "값", "plurals": ["값들"]}, Rule, GLOSSARY).plurals == ("값들",)
    error = error_of(lambda: validate({"term": "값", "plurals": "값들"}, Rule, GLOSSARY, "concepts.value.ko"))
    assert str(error) == (
        f"{GLOSSARY}: concepts.value.ko.plurals: expected a list, each item a string, got a string ('값들')"
    )


# ---- _config.yml -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "key", "words"),
    [
        (
            lambda c: c["editions"]["ko"].update(naem=c["editions"]["ko"].pop("name")),
            "editions.ko",
            ["unknown key 'naem'", "did you mean 'name'?"],
        ),
        (lambda c: c["editions"]["id"].pop("name"), "editions.id", ["missing key 'name' (a string)"]),
        (
            lambda c: c["editions"]["id"].update(title=["Fungsi"]),
            "editions.id.title",
            ["expected a string or nothing, got a list"],
        ),
        (
            lambda c: c["editions"]["ko"].update(config="코드 셀 보기"),
            "editions.ko.config",
            ["expected a mapping of names to values"],
        ),
        (lambda c: c["editions"].pop("en"), "editions", ["expected the source language 'en'"]),
        (
            lambda c: c.update(editons=c.pop("editions")),
            "",
            ["unknown key 'editons'", "did you mean 'editions'?", "leaves the other keys to Jupyter Book"],
        ),
        (
            lambda c: c["repository"].update(ulr=c["repository"].pop("url")),
            "repository",
            ["unknown key 'ulr'", "did you mean 'url'?"],
        ),
        (lambda c: c["repository"].update(url=None), "repository.url", ["expected a string, got nothing"]),
        (
            lambda c: c["parse"].update(myst_enable_extensions="dollarmath"),
            "parse.myst_enable_extensions",
            ["expected a list, each item a string"],
        ),
    ],
)
def test_a_malformed_config_names_the_file_and_the_key(book: Path, change, key: str, words: list[str]) -> None:
    edit_yaml(book / "_config.yml", change)
    error = error_of(lambda: editions(book))
    assert (error.file, error.key) == ("_config.yml", key)
    assert all(word in str(error) for word in words), str(error)


def test_jupyter_books_own_keys_pass_through(book: Path) -> None:
    edit_yaml(book / "_config.yml", lambda c: c.update(logo="logo.png", latex={"latex_engine": "xelatex"}))
    assert editions(book) == ["en", "id", "ko"]


def test_a_folder_that_is_not_an_edition(book: Path) -> None:
    (book / "chapters" / "fr").mkdir()
    error = error_of(lambda: editions(book))
    assert str(error) == "_config.yml: editions: chapters/fr/ is not listed under `editions` (listed: en, id, ko)"


def test_a_configured_edition_without_its_folder_is_not_present(book: Path) -> None:
    shutil.rmtree(book / "chapters" / "ko")
    assert editions(book) == ["en", "id"]


def test_make_notebooks_and_check_translations_report_a_bad_config(book: Path, root: Path) -> None:
    edit_yaml(book / "_config.yml", lambda c: c["editions"]["ko"].update(naem="x"))
    shutil.copytree(root / "booktools", book / "booktools", ignore=shutil.ignore_patterns("__pycache__"))
    for verb in (["translations"], ["notebooks", "--check"]):
        result = subprocess.run(
            [sys.executable, "-m", "booktools", "--root", str(book), *verb],
            cwd=book,
            capture_output=True,
            text=True,
            env={"PYTHONPATH": str(book), "PATH": ""},
            timeout=120,
            check=False,
        )
        assert result.returncode == 2, (verb, result.stderr)
        assert "_config.yml: editions.ko: unknown key 'naem'" in result.stderr, (verb, result.stderr)


# ---- one fact, one place -----------------------------------------------------------------------


def test_build_and_the_other_tools_read_the_same_editions(project: Project) -> None:
    data = yaml.safe_load(project.config_file.read_text(encoding="utf-8"))
    assert [edition.code for edition in edition_settings.editions_to_build(data, project)] == project.editions()


def test_build_inputs_name_every_booktools_module_the_build_imports(project: Project) -> None:
    extensions = ", ".join(
        yaml.safe_load(project.config_file.read_text(encoding="utf-8"))["sphinx"]["local_extensions"]
    )
    script = f"import sys, booktools.pipeline.stages, {extensions}; print(*sorted(sys.modules))"
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=project.root, capture_output=True, text=True, check=True
    )
    modules = [name for name in result.stdout.split() if name.startswith(("booktools.", "d2l_lib."))]
    assert "booktools.website.jupyter_book" in modules and "booktools.website.extension" in modules
    assert "booktools.pipeline.stages" in modules
    for name in modules:
        path = Path(*name.split("."))
        assert any(
            Path(entry) in (path, path.with_suffix(".py")) or Path(entry) in path.parents for entry in BUILD_INPUTS
        ), f"{name} is read by the build but not in booktools.project.BUILD_INPUTS"


def test_build_inputs_name_the_settings_the_sources_and_the_shared_folders(project: Project) -> None:
    read = [project.config_file, project.toc_file, project.bibliography, project.chapters, project.library_dir]
    read += project.shared_folders()
    assert {project.relative(path) for path in read} <= set(BUILD_INPUTS)
    assert project.build_inputs() == [project.root / name for name in BUILD_INPUTS], "the checkout has them all"


def test_the_config_header_points_at_the_functions_that_derive_an_edition() -> None:
    """``_config.yml``'s header names the functions that hold what an edition changes, rather than a list of keys."""
    project = Project.here()
    header = []
    for line in project.config_file.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        header.append(line)
    text = " ".join(header)
    assert "booktools/website/editions.py" in text
    for name in ("edition_config", "edition_toc"):
        assert f"`{name}`" in text and callable(getattr(edition_settings, name)), name
