"""The quizzes' secrets in the HTML of ``d2l_lib.quiz``: encoded, and decoded only on an answer.

Each choice, and each numeric question, carries one opaque ``data-code``: the verdict (or
the number and its tolerance) and the explanation, XOR-ed with a key stream derived from
the page, question and choice ids, in base64. Here: the encoding round trip in Python, the
browser's decoder (run by Node.js) against Python's, and the HTML of every page and
edition, which holds no explanation and no key in plain text, is the same on every run, and
changes only inside the codes when an answer or an explanation changes. Also: the data ships
with the package, and an unknown language or page is an error, never another language.
"""

from __future__ import annotations

import base64
import copy
import html
import json
import re
import shutil
import subprocess
from importlib import resources

import pytest

from d2l_lib import quiz
from d2l_lib.quiz import DECODER, Quiz, decode, encode, languages, load_quizzes, salt, show_quiz

PAGES = [(lang, page) for lang in languages() for page in sorted(load_quizzes(lang))]
VALUES = [
    {"right": 1, "why": "The shapes differ (section “Checking Shapes”)."},
    {"right": 0, "why": "그것은 출력의 모양입니다(“스케일드 내적 어텐션” 절)."},
    {"answer": 64, "tolerance": 2, "why": "q⊤k adalah jumlah 64 hasil kali; √64 = 8."},
    {"answer": 0.25, "tolerance": 0.01, "why": ""},
    "",
]
CODE = re.compile(r'data-code="([A-Za-z0-9+/=]*)"')


def secrets(questions: list[dict]) -> list[str]:
    """Every explanation of ``questions``."""
    found = [question["why"] for question in questions if "why" in question]
    return found + [choice["why"] for question in questions for choice in question.get("choices", [])]


def fragments(text: str, size: int = 40) -> list[str]:
    """``text``, and its consecutive pieces of ``size`` characters (a text split over lines still shows)."""
    return [text] + [text[i : i + size] for i in range(0, len(text) - size + 1, size)]


def test_the_data_of_every_language_ships_with_the_package():
    folder = resources.files("d2l_lib").joinpath("quizzes")
    assert sorted(entry.name for entry in folder.iterdir() if entry.name.endswith(".json")) == [
        f"{lang}.json" for lang in languages()
    ]


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_round_trip(value):
    code = encode(value, salt("attention-scoring-functions", "why-scale", "b"))
    assert code == encode(value, salt("attention-scoring-functions", "why-scale", "b")), "deterministic"
    assert decode(code, salt("attention-scoring-functions", "why-scale", "b")) == value
    base64.b64decode(code, validate=True)
    if isinstance(value, dict) and value.get("why"):
        assert value["why"] not in base64.b64decode(code).decode("utf-8", errors="replace")
        assert code != encode(value, salt("attention-scoring-functions", "why-scale", "c")), "salted per choice"
        with pytest.raises((ValueError, UnicodeDecodeError)):
            assert decode(code, salt("preliminaries", "why-scale", "b")) != value


def test_the_browser_decodes_what_python_encodes():
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed")
    cases = [(encode(value, f"page/q{i}/c"), f"page/q{i}/c") for i, value in enumerate(VALUES)]
    script = DECODER + f"\nconsole.log(JSON.stringify({json.dumps(cases)}.map(c => d2lQuizDecode(c[0], c[1]))));"
    result = subprocess.run([node, "-e", script], capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(result.stdout) == VALUES


@pytest.mark.parametrize(("lang", "page"), PAGES)
def test_the_html_gives_nothing_away(lang, page):
    questions = load_quizzes(lang)[page]
    text = show_quiz(page, lang=lang)._repr_html_()
    assert text == show_quiz(page, lang=lang)._repr_html_(), "the same HTML on every run"
    for why in secrets(questions):
        for piece in fragments(why):
            assert piece not in text and html.escape(piece) not in text, f"explanation in plain text: {piece!r}"
    assert not re.search(r"data-(answer|why|tolerance)\b|['\"](answer|why|tolerance)['\"]\s*:", text)
    assert not re.search(r"\b(answer|why)\b", repr(show_quiz(page, lang=lang))), "nor in the plain-text repr"
    codes = CODE.findall(text)
    forms = re.findall(r'<form id="[^"]+" data-kind="(\w+)" data-question="([^"]+)"', text)
    assert len(codes) == sum(len(q.get("choices", [])) if q["kind"] == "choice" else 1 for q in questions)
    assert [question for _, question in forms] == [q["id"] for q in questions]
    # Decoded, the codes hold exactly the key and the explanations.
    at = 0
    for question in questions:
        if question["kind"] == "choice":
            for choice in question["choices"]:
                secret = decode(codes[at], salt(page, question["id"], choice["id"]))
                assert secret == {"right": int(choice["id"] == question["answer"]), "why": choice["why"]}
                at += 1
        else:
            secret = decode(codes[at], salt(page, question["id"]))
            assert secret == {"answer": question["answer"], "tolerance": question["tolerance"], "why": question["why"]}
            at += 1


@pytest.mark.parametrize(("lang", "page"), PAGES)
def test_the_key_changes_the_html_only_inside_the_codes(lang, page):
    questions = load_quizzes(lang)[page]
    changed = copy.deepcopy(questions)
    for question in changed:
        if question["kind"] == "choice":
            ids = [choice["id"] for choice in question["choices"]]
            question["answer"] = ids[(ids.index(question["answer"]) + 1) % len(ids)]
            question["choices"][0]["why"] += " (changed)"
        else:
            question["answer"] += 1
            question["tolerance"] += 1
            question["why"] += " (changed)"
    before, after = Quiz(page, lang, questions)._repr_html_(), Quiz(page, lang, changed)._repr_html_()
    assert before != after
    assert CODE.sub('data-code=""', before) == CODE.sub('data-code=""', after)


def test_an_unknown_language_or_page_is_an_error():
    with pytest.raises(ValueError, match="no quizzes in language 'fr'"):
        show_quiz("preliminaries", lang="fr")
    with pytest.raises(ValueError, match="no quiz for page 'nowhere'"):
        show_quiz("nowhere", lang="ko")


def test_malformed_questions_are_refused():
    good = copy.deepcopy(load_quizzes("en")["attention-scoring-functions"])
    Quiz("attention-scoring-functions", "en", good)
    for breaks in (
        lambda qs: qs[0].update(answer="z"),
        lambda qs: qs[0]["choices"][1].update(why=" "),
        lambda qs: qs[1].update(tolerance="2"),
        lambda qs: qs[1].pop("why"),
        lambda qs: qs.append(qs[0]),
    ):
        broken = copy.deepcopy(good)
        breaks(broken)
        with pytest.raises(ValueError):
            Quiz("attention-scoring-functions", "en", broken)


def test_the_key_stream_is_the_documented_generator():
    """FNV-1a of the salt seeds xorshift32; a change on either side would break old outputs silently."""
    assert quiz._key_stream("d2l", 8).hex() == "5afb9f1437975c32"
    assert quiz._key_stream("a/b", 8)[:4] == quiz._key_stream("a/b", 4)
    assert quiz._key_stream("a/b", 8) != quiz._key_stream("a/c", 8)
