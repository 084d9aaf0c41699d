"""The releases the extension's couplings were written for (booktools.website.theme.upstream)."""

from __future__ import annotations

import re
from importlib.metadata import version
from pathlib import Path

import pytest
from sphinx.errors import ExtensionError

from booktools.project import Project
from booktools.website.theme import upstream

PROJECT = Project.here()
TEMPLATES = Path(upstream.__file__).parent / "templates"


@pytest.mark.parametrize("tool", upstream.UPSTREAM, ids=lambda tool: tool.distribution)
def test_requirements_pin_and_the_environment_hold_the_release_each_coupling_was_written_for(tool) -> None:
    pins = dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)$", (PROJECT.root / "requirements.txt").read_text(), re.M))
    assert pins.get(tool.distribution) == tool.release, (
        f"requirements.txt pins {tool.distribution} {pins.get(tool.distribution)}; upstream.py says {tool.release}"
    )
    assert version(tool.distribution) == tool.release
    assert upstream.problems({t.distribution: version(t.distribution) for t in upstream.UPSTREAM}) == []


def test_another_release_stops_the_build_naming_the_tool_the_releases_and_the_places() -> None:
    installed = {tool.distribution: tool.release for tool in upstream.UPSTREAM} | {"sphinx-book-theme": "1.4.0"}
    (problem,) = upstream.problems(installed)
    assert "sphinx-book-theme is 1.4.0" in problem and "1.3.0" in problem and "author.html" in problem
    (missing,) = upstream.problems({tool.distribution: tool.release for tool in upstream.UPSTREAM[1:]})
    assert "pydata-sphinx-theme is not installed" in missing


def test_the_theme_s_asset_digest_is_read_from_its_own_template_not_copied(tmp_path: Path) -> None:
    digest = upstream.theme_asset_digest()
    assert re.fullmatch(r"[0-9a-f]{8,}", digest)
    ours = (TEMPLATES / "static" / "webpack-macros.html").read_text(encoding="utf-8")
    assert "?digest=" not in ours.replace("?digest={{ book_theme_digest }}", ""), "a digest copied by hand"
    two = tmp_path / "macros.html"
    two.write_text('<a href="a?digest=0a1b2c3d"></a><a href="b?digest=ffff0000"></a>', encoding="utf-8")
    with pytest.raises(ExtensionError, match="expected one asset digest"):
        upstream.theme_asset_digest(two)
