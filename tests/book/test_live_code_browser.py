"""The "Live code" button in headless Chromium, against the servers ``make serve`` starts.

One module-wide pair of servers on free localhost ports (``booktools.servers.serve``). For
each edition, with another framework each time: open the chapter page, choose the
framework's tab, press the translated "Live code" button from the keyboard, wait
for the kernel, run the masked-softmax example and read its weights, change a valid
length in the editor by typing and run it again (Shift+Enter) to read the changed
weights, then run a heatmap cell and see its image. Only the selected framework's
cells become live, and no request leaves the two local servers (Thebe is served by
the site). The servers are stopped at the end of the module, also when a test
fails, and no process of theirs is left. First, without a browser: every edition's
page carries the button's settings in its language, and the site serves Thebe itself.
"""

from __future__ import annotations

import dataclasses
import json
import re
import urllib.request
from collections.abc import Iterator
from itertools import cycle

import pytest
import yaml

from booktools.configuration.config_file import configured_editions
from booktools.project import Project
from booktools.servers import serve
from booktools.sources.frameworks import NAMES
from booktools.sources.strings import load_strings
from booktools.website.extension.live import SETTINGS_ID, STRINGS, THEBE_STATIC

PROJECT = Project.here()
CONFIG = yaml.safe_load(PROJECT.config_file.read_text(encoding="utf-8"))
EDITIONS = [edition.code for edition in configured_editions(PROJECT.config())]
# Each edition runs another framework: every framework is covered once with three editions.
CASES = list(zip(EDITIONS, cycle(NAMES), strict=False))
CHAPTER = "attention-scoring-functions"
# The kernel imports every framework on its first cells; the heatmap needs every cell above it.
KERNEL_TIMEOUT_MS = 90_000
RUN_TIMEOUT_MS = 120_000
# The masked-softmax example of the chapter, the same code in every edition: valid lengths [2, 3].
MASKED_SOFTMAX = "masked_softmax("
EXAMPLE_LENGTHS = "[2, 3]))"
HEATMAP = "fig = d2l.show_heatmaps("
# The masked-softmax exercise: its starter's stub line, a wrong answer typed in its place, and
# the check (the solution's own check comes later, inside the collapsed solution).
EXERCISE_STARTER = ("def masked_softmax_by_adding(X, valid_lens):", "raise NotImplementedError")
STUB_LINE = "raise NotImplementedError"
WRONG_ANSWER = "return d2l.masked_softmax(X, None)"  # ignores the valid lengths
EXERCISE_CHECK = "check_exercise('masked-softmax'"
NUMBER = re.compile(r"-?\d+\.\d*(?:e[-+]?\d+)?")
SETTINGS = re.compile(rf'<script id="{SETTINGS_ID}" type="application/json">(.*?)</script>', re.S)
# What the check greps for: no Thebe, CDN or Binder script or stylesheet from elsewhere.
REMOTE_THEBE = re.compile(r'(src|href)="https?://[^"]*(thebe|unpkg|jsdelivr|binder)', re.I)


def strings(code: str) -> dict[str, str]:
    """The Live code button's strings in edition ``code`` (its ``strings.yml``, every key ``STRINGS`` names)."""
    return dataclasses.asdict(load_strings(PROJECT, code).live)


def weights(text: str) -> list[list[float]]:
    """The rows of four weights a masked-softmax output prints, whatever the framework."""
    numbers = [float(n) for n in NUMBER.findall(text)]
    return [numbers[i : i + 4] for i in range(0, len(numbers), 4)]


def nonzero(rows: list[list[float]]) -> list[int]:
    return [sum(1 for w in row if w > 0) for row in rows]


def test_every_edition_serves_thebe_and_the_button_settings_in_its_language(site, built_editions):
    assert built_editions == EDITIONS
    for code in built_editions:
        html = (site / code / f"{CHAPTER}.html").read_text(encoding="utf-8")
        found = SETTINGS.findall(html)
        assert len(found) == 1, f"{code}: one settings script"
        settings = json.loads(found[0])
        assert settings["strings"] == strings(code)
        assert sorted(settings["strings"]) == sorted(STRINGS), f"{code}: every string live-code.js reads"
        assert settings["mode"] == CONFIG["sphinx"]["config"]["book"]["live_server"] == "local"
        assert settings["serverInfo"] == serve.SERVER_INFO_PATH
        assert "_static/live-code.js" in html
        assert "text/x-thebe-config" not in html, "sphinx-thebe's settings are removed"
        thebe = site / code / "_static" / THEBE_STATIC
        assert (thebe / "index.js").stat().st_size > 100_000 and (thebe / "thebe.css").is_file()
        assert not list(thebe.glob("*.map"))
        if code != "en":
            untranslated = [key for key in STRINGS if strings(code)[key] == strings("en")[key]]
            assert untranslated == [], f"{code}: strings left in English"
    remote = [
        f"{path.relative_to(site)}: {match.group(0)}"
        for path in site.rglob("*.html")
        for match in REMOTE_THEBE.finditer(path.read_text(encoding="utf-8", errors="replace"))
    ]
    assert remote == []


def shut_down_kernels(servers: serve.Servers) -> None:
    """Stop the kernels a page started, so that each edition's test has the machine to itself."""
    headers = {"Authorization": f"token {servers.token}"}
    api = f"{servers.jupyter_url}/api/kernels"
    with urllib.request.urlopen(urllib.request.Request(api, headers=headers), timeout=10) as response:
        kernels = json.load(response)
    for kernel in kernels:
        request = urllib.request.Request(f"{api}/{kernel['id']}", headers=headers, method="DELETE")
        urllib.request.urlopen(request, timeout=30).close()


@pytest.fixture
def live_page(new_guarded_tab, live: serve.Servers) -> Iterator[object]:
    """A tab that may reach the two local servers only; requests elsewhere are blocked and recorded."""
    tab = new_guarded_tab((live.site_url, live.jupyter_url))
    try:
        yield tab
    finally:
        tab.close()
        shut_down_kernels(live)


def live_cell(cells, *texts: str) -> int:
    """The position of the first live cell whose code holds every one of ``texts`` (an edit keeps it)."""
    index = cells.evaluate_all(
        "(cells, texts) => cells.findIndex(c => texts.every(t => c.textContent.includes(t)))", list(texts)
    )
    assert index >= 0, f"no live cell with {texts}"
    return int(index)


def run_cell(page, cell, *, keyboard: bool = False) -> None:
    """Run ``cell`` with its Run button (or Shift+Enter in its editor) and wait until the kernel is idle."""
    if keyboard:
        cell.locator(".CodeMirror textarea").focus()
        page.keyboard.press("Shift+Enter")
    else:
        cell.locator(".d2l-live-run").click()
    page.wait_for_function(
        "cell => cell.getAttribute('aria-busy') === 'false'"
        " && document.documentElement.dataset.d2lLiveState === 'ready'",
        arg=cell.element_handle(),
        timeout=RUN_TIMEOUT_MS,
        polling=200,
    )


@pytest.mark.parametrize(("code", "framework"), CASES)
def test_live_code_runs_edits_and_plots(live_page, live, built_editions, code, framework):
    page = live_page
    if code not in built_editions:
        pytest.fail(f"the {code} edition was not built")
    text = strings(code)
    response = page.goto(f"{live.site_url}/{code}/{CHAPTER}.html", wait_until="load")
    assert response is not None and response.ok
    page.locator(f'label[data-sync-group="framework"][data-sync-id="{framework}"]').first.click()

    # A real button, named in the edition's language, pressed from the keyboard.
    button = page.get_by_role("button", name=text["button"], exact=True)
    button.focus()
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => ['ready', 'failed'].includes(document.documentElement.dataset.d2lLiveState)",
        timeout=KERNEL_TIMEOUT_MS,
    )
    status = page.locator(".d2l-live-status").inner_text()
    assert page.evaluate("() => document.documentElement.dataset.d2lLiveState") == "ready", status
    label = page.locator(f'label[data-sync-group="framework"][data-sync-id="{framework}"]').first.inner_text()
    assert status.startswith(text["ready"].split("(")[0].strip()) and label.strip() in status

    # Live: the shared cells and the selected framework's, never a hidden tab's.
    cells = page.locator(".d2l-live-cell")
    assert cells.count() > 10
    assert page.locator(f".sd-tab-content .d2l-live-cell.tag_d2l-tab-{framework}").count() > 0
    hidden = page.evaluate(
        "() => [...document.querySelectorAll('.d2l-live-cell')].filter(c => {"
        " const tab = c.closest('.sd-tab-content'); return tab && tab.offsetParent === null; }).length"
    )
    assert hidden == 0, "a hidden framework's cell was made live"

    # The masked-softmax example: valid lengths 2 and 3 of 4.
    position = live_cell(cells, MASKED_SOFTMAX, EXAMPLE_LENGTHS)
    example = cells.nth(position)
    run_cell(page, example)
    rows = weights(example.locator(".thebe-cell > .thebe-output").inner_text())
    assert nonzero(rows) == [2, 2, 3, 3], rows

    # Type other valid lengths, 1 and 4, into the editor and run it again.
    example.locator(".CodeMirror-line").last.click()
    page.keyboard.press("End")
    for _ in range(3):  # before "]))"
        page.keyboard.press("ArrowLeft")
    for _ in range(len("2, 3")):
        page.keyboard.press("Backspace")
    page.keyboard.type("1, 4")
    assert "[1, 4]))" in example.locator(".CodeMirror").inner_text()
    run_cell(page, example, keyboard=True)
    rows = weights(example.locator(".thebe-cell > .thebe-output").inner_text())
    assert nonzero(rows) == [1, 1, 4, 4], rows
    assert rows[0] == [1.0, 0.0, 0.0, 0.0]
    # The editor is no keyboard trap: Esc leaves it, and Tab reaches the cell's Run button.
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    focused = page.evaluate("() => document.activeElement.getAttribute('aria-label')")
    assert focused == text["run_label"].format(number=position + 1)

    # A heatmap: its cell and, first, every cell above it that has not run.
    heatmap = cells.nth(live_cell(cells, HEATMAP))
    run_cell(page, heatmap)
    image = heatmap.locator(".thebe-cell > .thebe-output img")
    assert image.count() == 1, heatmap.locator(".thebe-cell > .thebe-output").inner_text()[-2000:]
    assert image.evaluate("img => img.complete && img.naturalWidth > 0")

    check_an_exercise_live(page, cells, code)

    assert page.external_requests == [], "requests that left the local servers"
    assert page.errors == [], "JavaScript errors"


def flat(text: str) -> str:
    """``text`` with every run of whitespace one space (a check's report is wrapped at 79 columns)."""
    return " ".join(text.split())


def check_an_exercise_live(page, cells, code: str) -> None:
    """The masked-softmax exercise, live: a wrong answer typed into the starter is reported, with
    its mistake named in the edition's language; the solution (opened from its dropdown) passes."""
    words = exercise_messages(code)
    starter = cells.nth(live_cell(cells, *EXERCISE_STARTER))
    starter.locator(".CodeMirror-line").last.click()
    page.keyboard.press("End")
    for _ in range(len(STUB_LINE)):
        page.keyboard.press("Backspace")
    page.keyboard.type(WRONG_ANSWER)
    assert WRONG_ANSWER in starter.locator(".CodeMirror").inner_text()
    check = cells.nth(live_cell(cells, EXERCISE_CHECK))
    run_cell(page, check)  # runs the edited starter first: it has not run
    report = flat(check.locator(".thebe-cell > .thebe-output").inner_text())
    assert "passed=False" in report, report[-2000:]
    assert flat(words["mistakes"]["no_mask"]) in report, report[-2000:]
    assert "Traceback" not in report

    checks = cells.evaluate_all(
        "(cells, text) => cells.flatMap((c, i) => c.textContent.includes(text) ? [i] : [])", EXERCISE_CHECK
    )
    assert len(checks) == 2, "the exercise's check, then the solution's"
    solution_check = cells.nth(checks[1])
    solution_check.evaluate(
        "cell => { const box = cell.closest('.dropdown');"
        " (box.querySelector('.toggle-button') || box.querySelector('.admonition-title')).click(); }"
    )
    run_cell(page, solution_check)  # runs the solution's own cells first
    report = flat(solution_check.locator(".thebe-cell > .thebe-output").inner_text())
    assert "passed=True" in report, report[-2000:]
    assert flat(words["all_passed"].format(count=10)) in report, report[-2000:]


def exercise_messages(code: str) -> dict:
    """The exercise checks' strings of edition ``code`` (``d2l_lib/messages/<code>.json``)."""
    path = PROJECT.library_messages_file(code)
    return json.loads(path.read_text(encoding="utf-8"))["exercises"]
