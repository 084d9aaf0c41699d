"""Fixtures for the unit tests of ``d2l_lib.torch``.

Figures are drawn with the non-interactive Agg backend and closed after every
test; ``reference_masked_softmax`` is a deliberately naive, loop-by-loop masked
softmax in float64 that the library is compared against. The figure fixture also serves
the JAX and TensorFlow tests in the folders below, so this file imports torch only inside the
torch helpers: ``make test-versions`` runs those tests where torch is not installed.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg", force=True)

import pytest  # noqa: E402
from matplotlib import pyplot as plt  # noqa: E402

if TYPE_CHECKING:
    import torch


@pytest.fixture(autouse=True)
def _close_figures():
    """No test leaves a figure open (pyplot keeps every figure alive until closed)."""
    yield
    plt.close("all")


def _reference_masked_softmax(X: torch.Tensor, valid_lens) -> torch.Tensor:
    """Masked softmax by hand, in float64: softmax over the first ``l`` scores of each row,
    zeros after them, and an all-zero row when ``l`` is 0. ``valid_lens`` is None, 1-D or 2-D."""
    import torch

    X = X.detach().to(torch.float64)
    batch_size, num_queries, num_keys = X.shape
    out = torch.zeros_like(X)
    for b in range(batch_size):
        for i in range(num_queries):
            if valid_lens is None:
                length = num_keys
            else:
                lens = torch.as_tensor(valid_lens)
                length = int(lens[b] if lens.dim() == 1 else lens[b, i])
            length = min(length, num_keys)
            if length > 0:
                row = X[b, i, :length]
                e = torch.exp(row - row.max())
                out[b, i, :length] = e / e.sum()
    return out


@pytest.fixture(scope="session")
def reference_masked_softmax():
    """The naive float64 masked softmax (a function)."""
    return _reference_masked_softmax


def _padding_mask(shape, valid_lens) -> torch.Tensor:
    """Boolean mask of ``shape`` (batch, queries, keys): True past each valid length."""
    import torch

    batch_size, num_queries, num_keys = shape
    lens = torch.as_tensor(valid_lens).reshape(batch_size, -1, 1)
    return torch.arange(num_keys) >= lens.expand(batch_size, num_queries, 1)


@pytest.fixture(scope="session")
def padding_mask():
    """``padding_mask(shape, valid_lens)``: True where a key lies past the valid length."""
    return _padding_mask


# The lesson's own code: the chapter page shows short, unchecked versions of the functions
# the library saves from the engineering page ("Attention Scoring in Practice"). The
# tests in test_lesson_equals_library.py (and its JAX and TensorFlow twins) prove that
# both give the same results. The notebook is read as JSON, so that these tests need
# nothing of booktools (``make test-versions`` runs them in bare environments).
LESSON = Path(__file__).resolve().parents[2] / "chapters" / "en" / "attention-scoring-functions.ipynb"
LESSON_CELLS = (
    "imports",
    "masked-softmax",
    "dot-product-attention",
    "additive-attention",
    "solution-1-code",
    "solution-2-code",
)
CELL_SUFFIX = {"pytorch": "", "jax": "-jax", "tensorflow": "-tf"}


@functools.cache
def _lesson_namespace(framework: str) -> dict:
    """Run the lesson's cells of ``framework`` (imports, masked softmax, layers, exercise
    solutions) in a fresh namespace and return it."""
    cells = {cell["id"]: "".join(cell["source"]) for cell in json.loads(LESSON.read_text(encoding="utf-8"))["cells"]}
    namespace: dict = {}
    for name in LESSON_CELLS:
        cell_id = name + CELL_SUFFIX[framework]
        source = cells[cell_id]
        assert source.startswith(f"#@tab {framework}\n"), f"cell {cell_id} is not a {framework} cell"
        exec(compile(source, f"{LESSON.name}, cell {cell_id}", "exec"), namespace)
    return namespace


@pytest.fixture(scope="session")
def lesson():
    """``lesson(framework)``: the namespace in which the lesson's code of ``framework`` ran."""
    return _lesson_namespace
