"""The Live code button's settings (``booktools.website.extension.live``): where the kernel comes from, the strings."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest
from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser
from docutils.utils import new_document
from sphinx.errors import ExtensionError

from booktools.project import Project
from booktools.runtime.kernel import NAME as KERNEL_NAME
from booktools.sources.strings import load_strings
from booktools.website.extension import live

PROJECT = Project.here()
ENGLISH = dataclasses.asdict(load_strings(PROJECT, "en").live)
REPOSITORY = {"repository_url": "https://github.com/d2l-attention/attention-scoring-book", "repository_branch": "v1"}


def config(server: str = "local", strings: dict | None = None, repository: dict | None = None) -> SimpleNamespace:
    """The Sphinx configuration values ``live_settings`` reads (the English edition's strings unless given)."""
    options = REPOSITORY if repository is None else repository
    strings = ENGLISH if strings is None else strings
    return SimpleNamespace(book={"live_server": server, "live_strings": strings}, html_theme_options=options)


def test_the_local_server_is_the_default_and_its_token_is_fetched_not_written():
    settings = live.live_settings(config())
    assert settings["mode"] == "local"
    assert settings["serverInfo"] == "/_live/server.json"
    assert settings["kernel"] == KERNEL_NAME
    assert "token" not in str(settings).lower()
    assert settings["thebe"] == "_static/thebe/"


def test_a_binderhub_url_builds_the_books_repository_at_its_branch():
    settings = live.live_settings(config("https://mybinder.org/"))
    assert settings["mode"] == "binder"
    assert settings["kernel"] == "python3"
    assert settings["binder"] == {
        "binderUrl": "https://mybinder.org",
        "repo": "d2l-attention/attention-scoring-book",
        "ref": "v1",
        "repoProvider": "github",
    }


@pytest.mark.parametrize(
    ("server", "repository", "message"),
    [
        ("mybinder.org", None, "BinderHub URL"),
        ("https://mybinder.org", {}, "repository.url"),
        ("https://mybinder.org", {"repository_url": "https://gitlab.com/a/b"}, "repository.url"),
    ],
)
def test_a_kernel_source_that_cannot_work_fails_the_build(server, repository, message):
    with pytest.raises(ExtensionError, match=message):
        live.live_settings(config(server, repository=repository))


def test_an_editions_strings_replace_the_english_ones_and_a_missing_or_misspelt_key_fails():
    indonesian = dataclasses.asdict(load_strings(PROJECT, "id").live)
    settings = live.live_settings(config(strings=indonesian))
    assert settings["strings"] == indonesian
    assert settings["strings"]["button"] != ENGLISH["button"]
    assert sorted(settings["strings"]) == sorted(live.STRINGS)
    misspelt = {("label" if key == "button" else key): text for key, text in indonesian.items()}
    with pytest.raises(ExtensionError, match=r"book\.live_strings: expected a mapping with the keys button, "):
        live.live_settings(config(strings=misspelt))
    missing = {key: text for key, text in indonesian.items() if key != "run"}
    with pytest.raises(
        ExtensionError, match=r"book\.live_strings: expected a mapping with the keys .*, run,"
    ):  # no English fallback
        live.live_settings(config(strings=missing))


def test_sphinx_thebes_page_settings_are_removed_and_other_raw_html_kept():
    document = new_document("page", get_default_settings(Parser))
    sphinx_thebe = ('<script type="text/x-thebe-config">{}</script>', "<script>kernelName = 'python3'</script>")
    for text in (*sphinx_thebe, "<b>x</b>"):
        document.append(nodes.raw(text=text, format="html"))
    live.drop_sphinx_thebe_settings(SimpleNamespace(), document, "page")
    assert [node.astext() for node in document.findall(nodes.raw)] == ["<b>x</b>"]


def test_a_missing_thebe_install_names_the_command_that_installs_it(tmp_path):
    with pytest.raises(ExtensionError, match="make setup"):
        live.thebe_source(tmp_path)
    assert (live.thebe_source() / "index.js").is_file()
