"""The theme's tab-stop check, run as the reader reaches each element (booktools.website.extension.tab_stops).

The override lives in templates/layout.html and matches the theme's own query; the theme's
release is pinned by booktools.upstream (tests/tooling/test_upstream.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pydata_sphinx_theme

from booktools.project import Project
from booktools.website.extension import tab_stops

PROJECT = Project.here()
# The theme's own script, as the pinned release ships it.
SHIPPED = Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme" / "static" / "scripts"
LAYOUT = Path(tab_stops.__file__).parent / "templates" / "layout.html"
# The theme's check in its minified script: its list of selectors, joined, then each element's sizes read.
THEME_CHECK = re.compile(
    r'document\.querySelectorAll\((\[[^\]]*\])\.join\(", "\)\)\.forEach\(e=>\{e\.tabIndex=e\.scrollWidth'
)


def test_the_theme_queries_exactly_the_selector_the_override_answers():
    script = (SHIPPED / "pydata-sphinx-theme.js").read_text(encoding="utf-8")
    checks = THEME_CHECK.findall(script)
    assert len(checks) == 1, "the theme's script holds its tab-stop check once"
    assert ", ".join(json.loads(checks[0])) == tab_stops.THEME_SELECTOR


def test_the_layout_overrides_the_query_with_the_selector_and_the_lines_property_it_is_given():
    layout = LAYOUT.read_text(encoding="utf-8")
    assert "{{ book_tab_stops|tojson }}" in layout
    assert "selectors !== theme.selector" in layout and "IntersectionObserver" in layout
    assert "getPropertyValue(theme.lines)" in layout


def test_every_code_block_has_a_tab_stop_until_checked():
    page = '<pre>a</pre><pre class="x">b</pre><pre tabindex="-1">c</pre><prefix>'
    assert tab_stops.focusable_code(page) == (
        '<pre tabindex="0">a</pre><pre tabindex="0" class="x">b</pre><pre tabindex="-1">c</pre><prefix>'
    )
