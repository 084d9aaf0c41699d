"""The extension's settings (booktools.website.sphinx_settings): one typed object, checked, written and read back."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from sphinx.errors import ExtensionError

from booktools.configuration.schema import ConfigError
from booktools.website.sphinx_settings import BookSettings, PdfLink, SiteEdition, settings_of, with_warning_file

KOREAN = SiteEdition("ko", "한국어", "제목", "ko_KR")


def test_the_settings_go_into_the_config_and_come_back_the_same():
    book = BookSettings(
        edition="ko", editions=(KOREAN,), site_url="https://x.org/", pdf_links=(PdfLink("jax", "JAX", "pdf/j.pdf"),)
    )
    config = book.as_config()
    assert config["editions"] == [{"code": "ko", "name": "한국어", "title": "제목", "locale": "ko_KR"}]
    assert "live_strings" not in config, "an unset group of strings is left out"
    assert BookSettings.from_config(config) == book
    assert settings_of(SimpleNamespace(book=config)) == book  # type: ignore[arg-type]


def test_nothing_set_is_the_defaults():
    assert settings_of(SimpleNamespace()) == BookSettings()  # type: ignore[arg-type]
    assert BookSettings().live_server == "local"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"edition": 3}, r"book\.edition: expected a string, got an integer \(3\)"),
        ({"live_servr": "local"}, r"book: unknown key 'live_servr' \(did you mean 'live_server'\?\)"),
        ({"live_server": "mybinder.org"}, r"book\.live_server: expected 'local' or a BinderHub URL .*'mybinder\.org'"),
        ({"editions": [{"code": "ko"}]}, r"book\.editions\[0\]: missing key 'name'"),
        (
            {"edition": "id", "editions": [{"code": "ko", "name": "n", "title": "t", "locale": "l"}]},
            r"book\.edition: expected one of \['ko'\], got 'id'",
        ),
    ],
)
def test_a_wrong_setting_is_refused_naming_the_key_the_expected_and_the_given(data, message):
    with pytest.raises(ConfigError, match=message):
        BookSettings.from_config(data)
    with pytest.raises(ExtensionError, match=message):
        settings_of(SimpleNamespace(book=data))  # type: ignore[arg-type]


def test_the_warning_file_is_added_to_the_derived_settings(tmp_path: Path):
    derived = {"sphinx": {"config": {"book": {"edition": "ko", "live_server": "https://mybinder.org"}}}}
    with_warning_file(derived, tmp_path / "warnings.txt")
    book = BookSettings.from_config(derived["sphinx"]["config"]["book"])
    assert book.warning_file == str(tmp_path / "warnings.txt") and book.live_server == "https://mybinder.org"
