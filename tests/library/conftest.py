"""Fixtures of the library's tests, for every framework.

The modules directly in ``tests/library/`` hold the contract that ``d2l_lib.torch``,
``d2l_lib.jax`` and ``d2l_lib.tensorflow`` all keep; each of their tests takes the ``lib``
fixture and runs once per framework (its id is the framework's name: ``torch``, ``jax``,
``tensorflow``). What only one framework has (PyTorch's autograd checks and devices, JAX's
``jit`` and Flax parameter trees, TensorFlow's ``tf.function`` and Keras) is tested in the
folders ``torch/``, ``jax/`` and ``tensorflow/`` beside them.

Which frameworks run: ``--framework NAME`` (repeatable) or the environment variable
``D2L_TEST_FRAMEWORKS`` (names separated by commas), all three by default; the plugin
``tests/frameworks.py`` selects them, for these tests and those of ``tests/exercises``. ``make
test-versions`` picks one in an environment that has only that one installed; no shared
module imports a framework itself: ``lib`` imports the one it stands for, from
``frameworks/<name>_lib.py``. (``test_cross_framework.py``, ``test_quiz_answers.py`` and
``test_benchmark_baselines.py`` need more than one framework's library and stay out of
``make test-versions``.)

Figures are drawn with the non-interactive Agg backend and closed after every test;
``reference_masked_softmax`` is a deliberately naive, loop-by-loop masked softmax in NumPy
float64 that the library is compared against. The lesson's cells are read from the chapter
as JSON, so that these tests need nothing of booktools.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg", force=True)

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib import pyplot as plt  # noqa: E402


def _frameworks():
    """``tests/frameworks.py``, the plugin that selects the frameworks (shared with ``tests/exercises``)."""
    path = Path(__file__).resolve().parents[1] / "frameworks.py"
    name = "d2l_tests_frameworks"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    return sys.modules[name]


_selection = _frameworks()
# The plugin's hooks and fixture, as this conftest's (re-exported: pytest finds them here).
pytest_addoption = _selection.pytest_addoption
pytest_configure = _selection.pytest_configure
pytest_report_header = _selection.pytest_report_header
pytest_generate_tests = _selection.pytest_generate_tests
lib = _selection.lib
FRAMEWORKS, selected_frameworks, load_lib = _selection.FRAMEWORKS, _selection.selected_frameworks, _selection.load_lib


def _raises(error, fn, *fragments):
    """Call ``fn``; it must raise exactly ``error`` with every fragment in its message."""
    with pytest.raises(error) as info:
        fn()
    assert type(info.value) is error
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    return message


@pytest.fixture(scope="session")
def raises():
    """``raises(error, fn, *fragments)``: ``fn()`` must raise exactly ``error`` (not a subclass)
    with every fragment in its message, which it returns."""
    return _raises


@pytest.fixture(autouse=True)
def _close_figures():
    """No test leaves a figure open (pyplot keeps every figure alive until closed)."""
    yield
    plt.close("all")


def lengths_per_query(shape, valid_lens) -> np.ndarray:
    """Lengths of shape (batch, queries), from None, 1-D or 2-D lengths (clipped to the keys)."""
    batch_size, num_queries, num_keys = shape
    if valid_lens is None:
        return np.full((batch_size, num_queries), num_keys, dtype=np.int64)
    lens = np.minimum(np.asarray(valid_lens, dtype=np.float64), num_keys).astype(np.int64)
    return np.broadcast_to(lens.reshape(batch_size, -1), (batch_size, num_queries))


def _reference_masked_softmax(X, valid_lens) -> np.ndarray:
    """Masked softmax by hand, in float64: softmax over the first ``l`` scores of each row,
    zeros after them, and an all-zero row when ``l`` is 0. ``X`` and ``valid_lens`` (None,
    1-D or 2-D) are anything NumPy reads."""
    X = np.asarray(X).astype(np.float64)
    lens = lengths_per_query(X.shape, valid_lens)
    out = np.zeros_like(X)
    for b in range(X.shape[0]):
        for i in range(X.shape[1]):
            length = lens[b, i]
            if length > 0:
                row = X[b, i, :length]
                e = np.exp(row - row.max())
                out[b, i, :length] = e / e.sum()
    return out


@pytest.fixture(scope="session")
def reference_masked_softmax():
    """The naive float64 masked softmax (a function returning a NumPy array)."""
    return _reference_masked_softmax


# How far a row's sum may be from 1, and the weights from the naive reference (rtol, atol), per dtype.
SUM_TOLERANCE = {"float16": 5e-3, "bfloat16": 3e-2, "float32": 1e-5, "float64": 1e-12}
REFERENCE_TOLERANCE = {
    "float16": (2e-3, 1e-3),
    "bfloat16": (2e-2, 1e-2),
    "float32": (1e-5, 1e-6),
    "float64": (1e-12, 1e-14),
}


def _check_masked_distribution(weights, scores, valid_lens, dtype: str) -> None:
    """``weights`` (float64 NumPy), computed in ``dtype`` from ``scores`` (float64 NumPy of the
    scores the library got) and ``valid_lens``, are finite and non-negative, exactly 0 beyond
    each length, an all-zero row for a length of 0, sum to 1 otherwise, and equal the reference."""
    assert weights.shape == scores.shape
    assert np.isfinite(weights).all() and (weights >= 0).all()
    valid = lengths_per_query(scores.shape, valid_lens)
    assert (weights[np.arange(scores.shape[-1]) >= valid[..., None]] == 0).all()  # exactly 0 beyond the length
    sums = weights.sum(-1)
    assert (sums[valid == 0] == 0).all()  # length 0: an all-zero row
    assert (np.abs(sums[valid > 0] - 1) <= SUM_TOLERANCE[dtype]).all()
    rtol, atol = REFERENCE_TOLERANCE[dtype]
    np.testing.assert_allclose(weights, _reference_masked_softmax(scores, valid_lens), rtol=rtol, atol=atol)


@pytest.fixture(scope="session")
def masked_distribution():
    """``masked_distribution(weights, scores, valid_lens, dtype)``: the properties every masked
    softmax has (see ``_check_masked_distribution``), for the property-based tests."""
    return _check_masked_distribution


@pytest.fixture(scope="session")
def padding_mask():
    """``padding_mask(shape, valid_lens)``: a NumPy bool array, True where a key lies past the valid length."""

    def padding(shape, valid_lens) -> np.ndarray:
        return np.arange(shape[-1]) >= lengths_per_query(tuple(shape), valid_lens)[:, :, None]

    return padding


# The lesson's own code: the chapter page shows short, unchecked versions of the functions
# the library saves from the engineering page ("Attention Scoring in Practice"). The
# tests in test_lesson_equals_library.py prove, for every framework, that
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
def lesson(lib):
    """The namespace in which the lesson's code of the framework under test ran."""
    return _lesson_namespace(lib.tab)
