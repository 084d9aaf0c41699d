"""The "Check Yourself" quiz of each page, in each edition, used with the keyboard alone.

Per edition: every page with an answer key ends with its quiz (before the exercises);
no explanation is on the page, in its text or its HTML, before the reader answers; a
choice question answered wrong shows that choice's explanation in the live region and
marks it wrong, answered right marks it right and shows its explanation; a numeric answer
within the tolerance is accepted, with its explanation, and one outside it refused without
it. All by keyboard: focus moves with Tab and Shift+Tab, arrow keys pick a choice, Enter
submits. Dark mode and a 390-px-wide screen keep the quiz readable. No request may leave
the local site. Screenshots go to ``_build/screenshots/``.
"""

from __future__ import annotations

import html
import json

import pytest

from booktools.configuration.config_file import configured_editions
from booktools.project import Project
from booktools.sources.quizzes import read_keys
from d2l_lib.quiz import load_quizzes

PROJECT = Project.here()
EDITIONS = [edition.code for edition in configured_editions(PROJECT.config())]
KEYS = read_keys(PROJECT)
CHAPTER = "attention-scoring-functions"
TIMEOUT_MS = 20_000
LABELS = {  # what the verdict says, per edition (the quiz's words in d2l_lib/messages/<lang>.json)
    code: (words["quiz"]["right"], words["quiz"]["wrong"])
    for code in ("en", "id", "ko")
    for words in [json.loads(PROJECT.library_messages_file(code).read_text(encoding="utf-8"))]
}


def open_quiz(page, site_url: str, code: str, name: str, built_editions: list[str]):
    """Load page ``name`` of edition ``code``; return the locator of its quiz."""
    if code not in built_editions:
        pytest.fail(f"the {code} edition was not built")
    response = page.goto(f"{site_url}/{code}/{name}.html", wait_until="load")
    assert response is not None and response.ok
    quiz = page.locator(f"#d2l-quiz-{name}")
    quiz.wait_for(state="attached", timeout=TIMEOUT_MS)
    page.wait_for_function(
        f"() => document.getElementById('d2l-quiz-{name}').dataset.bound === '1'", timeout=TIMEOUT_MS
    )
    return quiz


def feedback(page, form_id: str) -> tuple[str | None, str]:
    form = page.locator(f"#{form_id}")
    return form.get_attribute("data-state"), form.locator(".d2l-quiz-feedback").inner_text()


def explanations(code: str, name: str) -> dict[str, list[str]]:
    """The explanations of page ``name``'s quiz in edition ``code``, by question id (the library's data)."""
    return {
        question["id"]: [question["why"]] if "why" in question else [c["why"] for c in question["choices"]]
        for question in load_quizzes(code)[name]
    }


def shown(page, why: str) -> bool:
    """Whether ``why`` is anywhere on the page: in its text, or in its HTML (attributes included)."""
    content = page.content()
    return any(text in content for text in (why, html.escape(why), html.escape(why, quote=False))) or (
        why in page.locator("body").inner_text()
    )


def assert_offline(page) -> None:
    assert page.external_requests == [], "requests that left the site"
    assert page.errors == [], "JavaScript errors"


@pytest.mark.parametrize("code", EDITIONS)
@pytest.mark.parametrize("name", sorted(KEYS))
def test_every_page_ends_with_its_quiz(page, site_url, built_editions, code, name):
    quiz = open_quiz(page, site_url, code, name, built_editions)
    forms = quiz.locator("form")
    assert [forms.nth(i).get_attribute("id") for i in range(forms.count())] == [
        f"d2l-quiz-{name}-{question.id}" for question in KEYS[name].questions
    ]
    for i in range(forms.count()):
        status = forms.nth(i).locator(".d2l-quiz-feedback")
        assert status.get_attribute("role") == "status" and status.get_attribute("aria-live") == "polite"
    # Every control has a label the screen reader reads.
    unlabelled = page.evaluate(
        """(id) => [...document.querySelectorAll('#' + id + ' input')]
                 .filter(input => !input.labels || input.labels.length === 0).map(input => input.id)""",
        f"d2l-quiz-{name}",
    )
    assert unlabelled == []
    # The quiz ends the page: at most one section, the exercises, comes after it.
    after = page.evaluate(
        """(id) => { const quiz = document.getElementById(id);
                     return [...document.querySelectorAll('main h2')].filter(h =>
                         quiz.compareDocumentPosition(h) & Node.DOCUMENT_POSITION_FOLLOWING).length; }""",
        f"d2l-quiz-{name}",
    )
    assert after == (1 if name == CHAPTER else 0), f"{after} section(s) after the quiz"
    assert "show_quiz" not in page.locator("main").inner_text()
    hidden = [why for whys in explanations(code, name).values() for why in whys if shown(page, why)]
    assert hidden == [], "explanations on the page before an answer"
    assert_offline(page)


@pytest.mark.parametrize("code", EDITIONS)
def test_quiz_by_keyboard(page, site_url, built_editions, screenshots, code):
    right, wrong = LABELS[code]
    open_quiz(page, site_url, code, CHAPTER, built_editions)
    # Before any answer, no explanation is on the page, neither shown nor hidden in its HTML.
    hidden = [why for whys in explanations(code, CHAPTER).values() for why in whys if shown(page, why)]
    assert hidden == [], "explanations on the page before an answer"
    form = f"d2l-quiz-{CHAPTER}-why-scale"
    question = next(q for q in KEYS[CHAPTER].questions if q.id == "why-scale")
    choices = page.locator(f"#{form} input[type=radio]")
    values = [choices.nth(i).get_attribute("value") for i in range(choices.count())]
    first_wrong = next(value for value in values if value != question.answer)

    # A wrong choice: focus the group, move to the choice with the arrow keys, Tab to Check, Enter.
    page.focus(f"#{form} input[type=radio] >> nth=0")
    for _ in range(values.index(first_wrong)):
        page.keyboard.press("ArrowDown")
    if values.index(first_wrong) == 0:
        page.keyboard.press("Space")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.tagName") == "BUTTON"
    page.keyboard.press("Enter")
    state, text = feedback(page, form)
    whys = dict(zip(values, explanations(code, CHAPTER)["why-scale"]))
    assert state == "wrong" and text.startswith(wrong) and whys[first_wrong] in text
    assert not shown(page, whys[question.answer]), "only the explanation of the choice answered"

    # The right choice: back into the group with Shift+Tab, arrow keys, Tab, Enter.
    page.keyboard.press("Shift+Tab")
    step = values.index(question.answer) - values.index(first_wrong)
    for _ in range(abs(step)):
        page.keyboard.press("ArrowDown" if step > 0 else "ArrowUp")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    state, text = feedback(page, form)
    assert state == "right" and text.startswith(right) and whys[question.answer] in text
    assert page.locator(f"#{form} input[value={question.answer}]").is_checked()

    # Numeric answers: within the tolerance (64 ± 2) accepted, outside it refused; Enter submits.
    number = f"d2l-quiz-{CHAPTER}-unscaled-variance"
    page.focus(f"#{number}-input")
    page.keyboard.type("80")
    page.keyboard.press("Enter")
    (number_why,) = explanations(code, CHAPTER)["unscaled-variance"]
    assert feedback(page, number)[0] == "wrong" and not shown(page, number_why)
    page.keyboard.press("Control+A")
    page.keyboard.type("65,5" if code == "id" else "65.5")  # a decimal comma where the language writes one
    page.keyboard.press("Enter")
    state, text = feedback(page, number)
    assert state == "right" and text.startswith(right) and number_why in text
    page.locator(f"#d2l-quiz-{CHAPTER}").screenshot(path=str(screenshots / f"{code}-quiz.png"))
    assert_offline(page)


def test_an_answer_on_the_bound_of_the_tolerance_is_right(page, site_url, built_editions):
    """0.5 for 0.51 ± 0.01 is right, though 0.5 - 0.51 is a hair more than 0.01 in binary floats."""
    practice = "attention-scoring-in-practice"
    open_quiz(page, site_url, "en", practice, built_editions)
    number = f"d2l-quiz-{practice}-decode-intensity"
    for answer, verdict in (("0.5", "right"), ("0.52", "right"), ("0.53", "wrong")):
        page.fill(f"#{number}-input", answer)
        page.press(f"#{number}-input", "Enter")
        assert feedback(page, number)[0] == verdict, answer


@pytest.mark.parametrize("code", EDITIONS)
def test_quiz_dark_and_narrow(page, site_url, built_editions, screenshots, code):
    page.set_viewport_size({"width": 390, "height": 844})
    page.emulate_media(color_scheme="dark")
    open_quiz(page, site_url, code, CHAPTER, built_editions)
    page.evaluate("() => document.documentElement.dataset.theme = 'dark'")
    quiz = page.locator(f"#d2l-quiz-{CHAPTER}")
    box = quiz.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, "the quiz is wider than the screen"
    assert page.evaluate(
        "(id) => { const q = document.getElementById(id); return q.scrollWidth <= q.clientWidth; }",
        f"d2l-quiz-{CHAPTER}",
    ), "the quiz scrolls sideways at 390 px"
    # The text takes the theme's colour (light on dark), and a verdict is in the dark palette.
    colors = page.evaluate(
        """(id) => { const q = document.getElementById(id);
                     return [getComputedStyle(q).color, getComputedStyle(document.body).color,
                             getComputedStyle(q).getPropertyValue('--quiz-ok').trim()]; }""",
        f"d2l-quiz-{CHAPTER}",
    )
    assert colors[0] == colors[1] and colors[2] == "#6fdd8b"
    page.focus(f"#d2l-quiz-{CHAPTER}-nonzero-weights-input")
    page.keyboard.type("9")
    page.keyboard.press("Enter")
    assert feedback(page, f"d2l-quiz-{CHAPTER}-nonzero-weights")[0] == "right"
    quiz.screenshot(path=str(screenshots / f"{code}-quiz-dark-390.png"))
    assert_offline(page)
