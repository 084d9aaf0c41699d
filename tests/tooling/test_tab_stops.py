"""The theme's tab-stop check rewritten to run as the reader reaches each block (booktools.website.theme.tab_stops)."""

from __future__ import annotations

from pathlib import Path

import pydata_sphinx_theme
import pytest

from booktools.website.theme import tab_stops

# The theme's own script, as the pinned release ships it.
SHIPPED = Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme" / "static" / "scripts"


def test_the_pinned_theme_holds_the_check_once():
    text = (SHIPPED / "pydata-sphinx-theme.js").read_text(encoding="utf-8")
    assert text.count(tab_stops.EAGER_CHECK) == 1


def test_the_check_is_rewritten_once_and_kept(tmp_path: Path):
    script = tmp_path / tab_stops.THEME_SCRIPT
    script.parent.mkdir(parents=True)
    script.write_text("a();" + tab_stops.EAGER_CHECK + ";b()", encoding="utf-8")
    assert tab_stops.check_as_reached(tmp_path)
    rewritten = script.read_text(encoding="utf-8")
    assert rewritten == "a();" + tab_stops.CHECK_AS_REACHED + ";b()"
    assert "IntersectionObserver" in rewritten and "scrollWidth>e.clientWidth" in rewritten
    assert tab_stops.check_as_reached(tmp_path), "a second build finds it rewritten"
    assert script.read_text(encoding="utf-8") == rewritten


def test_a_changed_theme_fails_the_build_and_no_theme_is_no_change(tmp_path: Path):
    assert not tab_stops.check_as_reached(tmp_path)
    script = tmp_path / tab_stops.THEME_SCRIPT
    script.parent.mkdir(parents=True)
    script.write_text("function I(){/* another release */}", encoding="utf-8")
    with pytest.raises(tab_stops.ThemeScriptChanged, match="tab-stop check"):
        tab_stops.check_as_reached(tmp_path)


def test_every_code_block_has_a_tab_stop_until_checked():
    page = '<pre>a</pre><pre class="x">b</pre><pre tabindex="-1">c</pre><prefix>'
    assert tab_stops.focusable_code(page) == (
        '<pre tabindex="0">a</pre><pre tabindex="0" class="x">b</pre><pre tabindex="-1">c</pre><prefix>'
    )
