"""Alt text of heatmaps: from a figure's weights to a sentence in each edition's language.

The templates are ``booktools.sources.alt_text``'s, the sentence ``booktools.website.heatmap_alt_text``'s.

The description a figure carries is made by the library's own ``_heatmap_description``
(the code ``show_heatmaps`` runs, from the preliminaries page), here from NumPy weights. The tests check that
the English sentence the book build writes says exactly which keys each query of
each panel gives a non-zero weight, by reading the sentence back and comparing it
with the weights; that every edition has valid templates; and that myst-nb 1.4
writes the sentence as the image's ``alt``.
"""

from __future__ import annotations

import base64
import dataclasses
import re
from pathlib import Path

import nbformat
import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from booktools.configuration.schema import ConfigError, validate
from booktools.project import Project
from booktools.sources import alt_text
from booktools.sources.alt_text import HeatmapText, load_alt_text
from booktools.sources.mime_types import HEATMAP_MIME
from booktools.website.edition_copy import book_notebook
from booktools.website.heatmap_alt_text import (
    DESCRIPTION_VERSION,
    AltTextError,
    describe_heatmaps,
    parse_description,
    set_heatmap_alt_text,
)
from d2l_lib.torch import _heatmap_description as heatmap_description

PROJECT = Project.here()
CONFIG = yaml.safe_load(PROJECT.config_file.read_text(encoding="utf-8"))
PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6300010000050001a5f645400000000049454e44ae426082"
    )
).decode()


def english() -> HeatmapText:
    return load_alt_text("en", PROJECT).heatmaps


# --- reading an English sentence back into the keys of each query ------------------------------

KEY_PHRASE = re.compile(r"^(?:key (\d+)|keys (\d+) (?:to|and) (\d+))$")
QUERY_PHRASE = re.compile(r"^(?:query (\d+) attends|queries (\d+) to (\d+) attend|every query attends) to (.+)$")


def read_keys(phrase: str, keys: int) -> set[int]:
    """The keys a phrase names, numbered from 0 as the alt text (and the figure's axes) number them."""
    if phrase == "every key":
        return set(range(keys))
    if phrase == "no key":
        return set()
    found: set[int] = set()
    for part in phrase.split(", "):
        match = KEY_PHRASE.match(part)
        assert match, f"not a key phrase: {part!r}"
        single, first, last = match.groups()
        found |= {int(single)} if single else set(range(int(first), int(last) + 1))
    return found


def read_panel(body: str, queries: int, keys: int) -> list[set[int]]:
    """The keys of each query, from a panel's sentence ("query 0 attends to keys 0 and 1; ...")."""
    attended: list[set[int] | None] = [None] * queries
    for clause in body.split("; "):
        match = QUERY_PHRASE.match(clause)
        assert match, f"not a query clause: {clause!r}"
        single, first, last, phrase = match.groups()
        if single:
            span = [int(single)]
        elif first:
            span = list(range(int(first), int(last) + 1))
        else:
            span = list(range(queries))
        for query in span:
            assert attended[query] is None, f"query {query} described twice"
            attended[query] = read_keys(phrase, keys)
    assert all(keys_of is not None for keys_of in attended), f"a query is not described: {body!r}"
    return [keys_of for keys_of in attended if keys_of is not None]


SINGLE = re.compile(r"^Heatmap of attention weights, (\d+) queries \(rows\) over (\d+) keys \(columns\): (.+)\.$")
GRID = re.compile(
    r"^(\d+) × (\d+) grid of heatmaps of attention weights, each of (\d+) queries \(rows\) "
    r"over (\d+) keys \(columns\)\. (.+)$"
)
PANEL = re.compile(r"Row (\d+), column (\d+) of the grid: (.+?)\.(?= Row |$)")
EVERY_PANEL = re.compile(r"^In every panel, (.+)\.$")


def read_alt_text(text: str) -> np.ndarray:
    """The non-zero pattern (grid rows, grid columns, queries, keys) an English alt text states."""
    single = SINGLE.match(text)
    if single:
        queries, keys, body = int(single[1]), int(single[2]), single[3]
        pattern = np.zeros((1, 1, queries, keys), dtype=bool)
        for q, attended in enumerate(read_panel(body, queries, keys)):
            pattern[0, 0, q, sorted(attended)] = True
        return pattern
    grid = GRID.match(text)
    assert grid, f"not an alt text of heatmaps: {text!r}"
    rows, columns, queries, keys, body = (*(int(grid[i]) for i in range(1, 5)), grid[5])
    pattern = np.zeros((rows, columns, queries, keys), dtype=bool)
    every = EVERY_PANEL.match(body)
    panels = (
        [(r, c, every[1]) for r in range(1, rows + 1) for c in range(1, columns + 1)]
        if every
        else [(int(r), int(c), panel) for r, c, panel in PANEL.findall(body)]
    )
    assert len(panels) == rows * columns, f"{len(panels)} panels described of {rows * columns}: {text!r}"
    for r, c, panel in panels:
        for q, attended in enumerate(read_panel(panel, queries, keys)):
            pattern[r - 1, c - 1, q, sorted(attended)] = True
    return pattern


def english_alt_text(weights: np.ndarray) -> str:
    return describe_heatmaps(parse_description(heatmap_description(weights)), english())


# --- descriptions and sentences ------------------------------------------------------------------


def masked_softmax_weights() -> np.ndarray:
    """The chapter's example: 2 queries, 10 keys, valid lengths 2 and 6."""
    weights = np.zeros((1, 1, 2, 10))
    weights[0, 0, 0, :2] = [0.4, 0.6]
    weights[0, 0, 1, :6] = 1 / 6
    return weights


def test_the_chapters_example_reads_as_the_issue_asks():
    assert english_alt_text(masked_softmax_weights()) == (
        "Heatmap of attention weights, 2 queries (rows) over 10 keys (columns): "
        "query 0 attends to keys 0 and 1; query 1 attends to keys 0 to 5."
    )


def test_runs_of_alike_queries_and_alike_panels_are_said_once():
    uniform = np.full((2, 3, 4, 5), 0.2)
    assert english_alt_text(uniform) == (
        "2 × 3 grid of heatmaps of attention weights, each of 4 queries (rows) over 5 keys (columns). "
        "In every panel, every query attends to every key."
    )
    identity = np.eye(10).reshape(1, 1, 10, 10)
    assert english_alt_text(identity).count("attends to key ") == 10


def test_two_neighbouring_keys_are_said_as_a_pair_and_longer_runs_as_a_range():
    causal = np.tril(np.ones((4, 4))).reshape(1, 1, 4, 4)
    assert english_alt_text(causal).endswith(
        "query 0 attends to key 0; query 1 attends to keys 0 and 1; "
        "query 2 attends to keys 0 to 2; query 3 attends to every key."
    )


@pytest.mark.parametrize(
    "weights",
    [
        masked_softmax_weights(),
        np.eye(10).reshape(1, 1, 10, 10),
        np.tril(np.ones((6, 6))).reshape(1, 1, 6, 6),  # causal
        np.array([[[[0.5, 0, 0.5, 0], [0, 0, 0, 0], [1, 0, 0, 0]]]]),  # gaps and an all-zero row
        np.stack(
            [
                np.stack([np.eye(3), np.ones((3, 3))]),
                np.stack([np.zeros((3, 3)), np.eye(3)[::-1]]),
            ]
        ),
        np.full((1, 1, 1, 1), 1.0),
    ],
    ids=["masked-softmax", "identity", "causal", "gaps", "grid", "one-cell"],
)
def test_the_alt_text_states_exactly_the_non_zero_weights(weights):
    assert np.array_equal(read_alt_text(english_alt_text(weights)), weights != 0)


@settings(max_examples=60, deadline=None)
@given(
    st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 6), st.integers(1, 8)).flatmap(
        lambda shape: st.lists(st.booleans(), min_size=int(np.prod(shape)), max_size=int(np.prod(shape))).map(
            lambda flags: np.array(flags, dtype=float).reshape(shape)
        )
    )
)
def test_any_pattern_of_weights_is_stated_exactly(weights):
    assert np.array_equal(read_alt_text(english_alt_text(weights)), weights != 0)


# --- the library's own description, in every framework -------------------------------------------

WEIGHT_GRIDS = st.tuples(st.integers(1, 2), st.integers(1, 2), st.integers(1, 4), st.integers(1, 6)).flatmap(
    lambda shape: st.lists(
        st.sampled_from([0.0, 1e-30, 0.25, 1.0]), min_size=int(np.prod(shape)), max_size=int(np.prod(shape))
    ).map(lambda values: np.array(values).reshape(shape))
)


def framework_tensor(framework: str, weights: np.ndarray):
    """``weights`` as a float32 tensor of ``framework``, as the chapter passes them to show_heatmaps."""
    if framework == "torch":
        import torch

        return torch.tensor(weights, dtype=torch.float32)
    if framework == "jax":
        import jax.numpy as jnp

        return jnp.asarray(weights, dtype=jnp.float32)
    import tensorflow as tf

    return tf.constant(weights, dtype=tf.float32)


@pytest.mark.parametrize("framework", ["torch", "jax", "tensorflow"])
@settings(max_examples=12, deadline=None)
@given(weights=WEIGHT_GRIDS)
def test_show_heatmaps_attaches_the_description_of_its_own_weights(framework, weights):
    import importlib

    from matplotlib import pyplot as plt

    d2l = importlib.import_module(f"d2l_lib.{framework}")
    fig = d2l.show_heatmaps(framework_tensor(framework, weights), xlabel="Keys", ylabel="Queries")
    try:
        bundle = fig._repr_mimebundle_(include=None, exclude=None)
    finally:
        plt.close(fig)
    assert set(bundle) == {HEATMAP_MIME}
    assert bundle[HEATMAP_MIME] == d2l._heatmap_description(weights)  # tiny weights (1e-30) count as non-zero
    assert np.array_equal(
        read_alt_text(describe_heatmaps(parse_description(bundle[HEATMAP_MIME]), english())), weights != 0
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(version=2), "version"),
        (lambda d: d.update(grid=[1]), "grid"),
        (lambda d: d["panels"][0][0].pop(), "one entry per query"),
        (lambda d: d["panels"][0][0].__setitem__(0, [[2, 11]]), "within keys 1–10"),
        (lambda d: d["panels"][0][0].__setitem__(0, [[1, 2], [3, 4]]), "touch"),
        (lambda d: d.pop("keys"), "keys"),
    ],
)
def test_a_malformed_description_is_refused(change, message):
    description = heatmap_description(masked_softmax_weights())
    change(description)
    with pytest.raises(ValueError, match=message):
        parse_description(description)


# --- the templates of every edition --------------------------------------------------------------


@pytest.mark.parametrize("code", CONFIG["editions"])
def test_every_edition_has_valid_templates_beside_its_pages(code):
    assert PROJECT.alt_text_file(code).is_file(), f"every edition of _config.yml has {PROJECT.alt_text_file(code)}"
    assert isinstance(load_alt_text(code, PROJECT).heatmaps, HeatmapText)


@pytest.mark.parametrize("code", [code for code in CONFIG["editions"] if code != "en"])
def test_a_flagged_edition_is_still_english_and_a_translated_one_is_not_flagged(code):
    text = load_alt_text(code, PROJECT).heatmaps
    same = dataclasses.replace(text, english_placeholder=False) == english()
    assert text.english_placeholder == same, (
        f"{PROJECT.relative(PROJECT.alt_text_file(code))}: heatmaps: english_placeholder is "
        f"{text.english_placeholder}, but the templates are {'' if same else 'not '}the English ones"
    )


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("query {query} attends", r"missing \{keys\}"),
        ("query {query} attends to {keys} {weight}", r"unknown \{weight\}"),
        ("query {query} attends to {keys} {", "not a valid template"),
    ],
)
def test_a_template_without_its_placeholders_is_refused_naming_the_key(template, message):
    path = PROJECT.alt_text_file("id")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["heatmaps"]["query"] = template
    with pytest.raises(ConfigError, match=rf"chapters/id/alt_text\.yml: heatmaps\.query: {message}"):
        validate(data, alt_text.AltTextFile, PROJECT.relative(path))


# --- a page: the build sets the alt text of each heatmap ------------------------------------------


def figure_output(weights: np.ndarray | None) -> nbformat.NotebookNode:
    data = {"image/png": PNG, "text/plain": "<Figure size 250x250 with 2 Axes>"}
    if weights is not None:
        data[HEATMAP_MIME] = heatmap_description(weights)
    return new_output("display_data", data=data)


def page_with_heatmaps(figures: dict[str, np.ndarray]) -> nbformat.NotebookNode:
    """A source page with one framework group per figure (each framework drawing the same weights)."""
    cells = [new_markdown_cell("# Heatmaps")]
    cells[0]["id"] = "title"
    for name, weights in figures.items():
        for framework, suffix in (
            ("pytorch", ""),
            ("jax", "-jax"),
            ("tensorflow", "-tf"),
        ):
            cell = new_code_cell(f"#@tab {framework}\nfig = show_heatmaps(w, xlabel='Keys', ylabel='Queries')")
            cell["id"] = f"{name}{suffix}"
            cell.outputs = [figure_output(weights)]
            cells.append(cell)
        prose = new_markdown_cell(f"The {name} weights.")  # ends the group of framework cells
        prose["id"] = f"{name}-prose"
        cells.append(prose)
    notebook = new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {
        "display_name": "Python 3",
        "language": "python",
        "name": "python3",
    }
    return notebook


FIGURES = {
    "masked": masked_softmax_weights(),
    "identity": np.eye(10).reshape(1, 1, 10, 10),
    "grid": np.stack([np.stack([np.eye(3), np.ones((3, 3))])]),
}


def test_each_heatmap_of_a_page_gets_the_alt_text_of_its_own_weights():
    page = book_notebook(page_with_heatmaps(FIGURES), "chapters/en/heatmaps.ipynb")
    set_heatmap_alt_text(page, english(), "chapters/en/heatmaps.ipynb")
    described = {cell.id: cell.metadata["mystnb"]["image"]["alt"] for cell in page.cells if cell.cell_type == "code"}
    assert len(described) == 3 * len(FIGURES)
    for cell_id, text in described.items():
        weights = FIGURES[cell_id.removesuffix("-jax").removesuffix("-tf")]
        assert np.array_equal(read_alt_text(text), weights != 0), cell_id
    # Said once, then removed: Sphinx's myst-nb renders every MIME type and warns of unknown ones (-W).
    assert not [
        cell.id for cell in page.cells for output in cell.get("outputs", []) if HEATMAP_MIME in output.get("data", {})
    ]


def test_other_image_options_of_a_cell_are_kept():
    page = page_with_heatmaps({"masked": masked_softmax_weights()})
    page.cells[1].metadata["mystnb"] = {"image": {"width": "60%"}}
    set_heatmap_alt_text(page, english(), "page")
    assert page.cells[1].metadata["mystnb"]["image"] == {
        "width": "60%",
        "alt": english_alt_text(FIGURES["masked"]),
    }


def test_a_cell_with_two_figures_is_refused():
    page = page_with_heatmaps({"masked": masked_softmax_weights()})
    page.cells[1].outputs.append(figure_output(None))
    with pytest.raises(AltTextError, match=r"page: cell masked: 2 images, 1 of them heatmaps"):
        set_heatmap_alt_text(page, english(), "page")


def test_a_heatmap_in_an_edition_without_templates_is_refused():
    page = page_with_heatmaps({"masked": masked_softmax_weights()})
    with pytest.raises(AltTextError, match="no templates for this edition"):
        set_heatmap_alt_text(page, None, "page")


def test_a_malformed_description_names_the_page_and_the_cell():
    page = page_with_heatmaps({"masked": masked_softmax_weights()})
    page.cells[1].outputs[0].data[HEATMAP_MIME]["version"] = 7
    with pytest.raises(AltTextError, match=rf"page: cell masked: {re.escape(HEATMAP_MIME)}: version 7"):
        set_heatmap_alt_text(page, english(), "page")


def test_myst_nb_writes_the_alt_text_into_the_image(tmp_path: Path):
    """myst-nb 1.4 reads ``mystnb: {image: {alt: ...}}``; the description's MIME type is gone."""
    from docutils.core import publish_string
    from myst_nb.docutils_ import Parser

    page = page_with_heatmaps({"masked": masked_softmax_weights()})
    page.cells = page.cells[:2]
    set_heatmap_alt_text(page, english(), "page")
    html = publish_string(
        nbformat.writes(page),
        parser=Parser(),
        writer_name="html5",
        settings_overrides={
            "nb_execution_mode": "off",
            "nb_output_folder": str(tmp_path),
            "output_encoding": "unicode",
            "report_level": 2,
            "halt_level": 2,  # a warning (an unknown MIME type, an invalid option) fails
        },
    )
    images = re.findall(r'<img alt="([^"]*)"', html)
    assert images == [english_alt_text(FIGURES["masked"])]


SENTENCE_ENDS = ".。!?！？"


def _figure(grid: list[int], queries: int, keys: int, panels: list[list[list[list[list[int]]]]]) -> object:
    return {
        "version": DESCRIPTION_VERSION,
        "grid": grid,
        "queries": queries,
        "keys": keys,
        "panels": panels,
    }


# A query of every kind (one key, two, a range, every key, none), runs of queries said once, and each
# template that ends a text: one heatmap (single), a grid of alike panels (every_panel), of unlike ones (panel).
ONE_PANEL = [[[1, 1], [3, 4]], [[1, 6]], [], []]
OTHER_PANEL = [[[2, 2]], [[1, 2], [4, 6]], [[1, 1]], [[1, 1]]]
ENDINGS = {
    "single": _figure([1, 1], 4, 6, [[ONE_PANEL]]),
    "grid, alike panels": _figure([1, 2], 4, 6, [[ONE_PANEL, ONE_PANEL]]),
    "grid, unlike panels": _figure([2, 2], 4, 6, [[ONE_PANEL, OTHER_PANEL], [OTHER_PANEL, ONE_PANEL]]),
}


@pytest.mark.parametrize("code", PROJECT.editions())
@pytest.mark.parametrize("figure", ENDINGS, ids=list(ENDINGS))
def test_every_heatmap_alt_text_ends_one_sentence_with_one_mark(code: str, figure: str) -> None:
    """The templates' full stops add up: single ends with its own, grid leaves it to panel and every_panel
    (chapters/en/alt_text.yml's header), so no edition doubles one or leaves one out."""
    text = describe_heatmaps(parse_description(ENDINGS[figure]), load_alt_text(code, PROJECT).heatmaps)
    assert text[-1] in SENTENCE_ENDS and text[-2] not in SENTENCE_ENDS, text
    doubled = [mark * 2 for mark in SENTENCE_ENDS] + [f"{mark} {mark}" for mark in SENTENCE_ENDS]
    assert not [pair for pair in doubled if pair in text], text
