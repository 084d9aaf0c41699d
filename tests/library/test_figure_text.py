"""d2l_lib.figure_text: a figure's words in the edition's language are drawn, never as empty boxes.

With a CJK font installed (the book's build, CI: fonts-noto-cjk), a Korean label gets it as a
fallback font; without one (Colab), the label shows its English original, from the table
`make lib` generates. Either way, drawing the figure warns of no missing glyph.
"""

from __future__ import annotations

import json
import warnings
from importlib import resources

import matplotlib
import pytest

matplotlib.use("Agg")
from matplotlib import pyplot as plt  # noqa: E402

from d2l_lib import figure_text  # noqa: E402

PAIRS = [("{}: 기울기 {}", "{}: slope {}"), ("n을 키움", "n grows"), ("키", "Keys")]


def korean_figure() -> plt.Figure:
    fig, ax = plt.subplots()
    ax.plot([1, 2], label="n을 키움: 기울기 1.02")
    ax.set_xlabel("키")
    ax.set_ylabel("time (seconds)")
    ax.legend()
    return fig


def drawn_warnings(fig: plt.Figure) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig.canvas.draw()
    plt.close(fig)
    return [str(warning.message) for warning in caught]


def test_to_english_fills_the_english_template_with_the_same_values() -> None:
    assert figure_text.to_english("n을 키움: 기울기 1.02", PAIRS) == "n grows: slope 1.02"
    assert figure_text.to_english("키", PAIRS) == "Keys"
    assert figure_text.to_english("열쇠", PAIRS) is None


def test_the_library_table_has_every_edition_and_is_package_data() -> None:
    table = json.loads(resources.files("d2l_lib").joinpath(figure_text.TEXT_FILE).read_text(encoding="utf-8"))
    assert set(table) == {"id", "ko"}
    korean = dict(map(tuple, table["ko"]))
    assert figure_text.to_english(next(k for k, v in korean.items() if v == "Keys")) == "Keys"


@pytest.mark.skipif(figure_text.fallback_font() is None, reason="needs a CJK font (CI installs fonts-noto-cjk)")
def test_with_a_cjk_font_korean_labels_are_drawn_in_hangul() -> None:
    fig = korean_figure()
    figure_text.fit(fig)
    label = fig.axes[0].xaxis.label
    assert label.get_text() == "키"
    assert figure_text.fallback_font() in label.get_fontfamily()
    assert fig.axes[0].yaxis.label.get_fontfamily() == ["sans-serif"]  # English text is left alone
    assert drawn_warnings(fig) == []


def test_without_a_cjk_font_the_labels_are_english(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(figure_text, "fallback_font", lambda: None)
    monkeypatch.setattr(figure_text, "templates", lambda: {"ko": PAIRS})
    fig = korean_figure()
    figure_text.fit(fig)
    ax = fig.axes[0]
    assert ax.xaxis.label.get_text() == "Keys"
    assert [text.get_text() for text in ax.get_legend().get_texts()] == ["n grows: slope 1.02"]
    assert drawn_warnings(fig) == []  # no "Glyph ... missing from font(s)" from the draw


def test_without_a_cjk_font_unknown_words_are_left_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(figure_text, "fallback_font", lambda: None)
    fig, ax = plt.subplots()
    ax.set_xlabel("열쇠")  # a reader's own label: no English original to show
    figure_text.fit(fig)
    assert ax.xaxis.label.get_text() == "열쇠"
    plt.close(fig)
