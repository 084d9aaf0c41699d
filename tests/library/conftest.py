"""Fixtures of the library's tests, for every framework.

The modules directly in ``tests/library/`` hold the contract that ``d2l_lib.torch``,
``d2l_lib.jax`` and ``d2l_lib.tensorflow`` all keep; each of their tests takes the ``lib``
fixture and runs once per framework (its id is the framework's name: ``torch``, ``jax``,
``tensorflow``). What only one framework has (PyTorch's autograd checks and devices, JAX's
``jit`` and Flax parameter trees, TensorFlow's ``tf.function`` and Keras) is tested in the
folders ``torch/``, ``jax/`` and ``tensorflow/`` beside them.

Which frameworks run: ``--framework NAME`` (repeatable) or the environment variable
``D2L_TEST_FRAMEWORKS`` (names separated by commas), all three by default. ``make
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
import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg", force=True)

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib import pyplot as plt  # noqa: E402

FRAMEWORKS = ("torch", "jax", "tensorflow")
FRAMEWORKS_VARIABLE = "D2L_TEST_FRAMEWORKS"
ADAPTERS = Path(__file__).resolve().parent / "frameworks"
# JAX compiles every operation for every new shape, and these tests call the library on many
# small inputs: most of their time goes into XLA's CPU compiler. Its expensive LLVM passes buy
# nothing for arrays of a few dozen numbers, so this process skips them. XLA reads XLA_FLAGS
# once, when it compiles its first program; the variable is then restored, so that
# subprocesses, notebook kernels included, compile as usual.
FAST_COMPILE = "--xla_backend_optimization_level=0 --xla_llvm_disable_expensive_passes=true"


def pytest_addoption(parser):
    parser.addoption(
        "--framework",
        action="append",
        choices=FRAMEWORKS,
        help=f"run the library's tests for this framework only (repeatable; default: ${FRAMEWORKS_VARIABLE} or all)",
    )


def selected_frameworks(config) -> tuple[str, ...]:
    """The frameworks to test: ``--framework``, else ``$D2L_TEST_FRAMEWORKS``, else all three."""
    chosen = config.getoption("--framework", default=None)
    if not chosen:
        chosen = [name.strip() for name in os.environ.get(FRAMEWORKS_VARIABLE, "").split(",") if name.strip()]
    unknown = sorted(set(chosen) - set(FRAMEWORKS))
    if unknown:
        raise pytest.UsageError(f"{FRAMEWORKS_VARIABLE}: unknown framework {', '.join(unknown)}")
    return tuple(name for name in FRAMEWORKS if name in chosen) if chosen else FRAMEWORKS


def _compile_jax_fast() -> None:
    previous = os.environ.get("XLA_FLAGS")
    os.environ["XLA_FLAGS"] = f"{previous or ''} {FAST_COMPILE}".strip()
    try:
        import jax

        jax.block_until_ready(jax.jit(lambda x: x + 1)(1))
    finally:
        if previous is None:
            del os.environ["XLA_FLAGS"]
        else:
            os.environ["XLA_FLAGS"] = previous


def pytest_configure(config):
    if "jax" in selected_frameworks(config):
        _compile_jax_fast()


def pytest_report_header(config):
    return f"d2l_lib frameworks: {', '.join(selected_frameworks(config))}"


def pytest_generate_tests(metafunc):
    """Run every test that takes ``lib`` once per selected framework (tests that parametrize a
    ``framework`` of their own, without ``lib``, are left alone)."""
    if "lib" in metafunc.fixturenames:
        frameworks = selected_frameworks(metafunc.config)
        metafunc.parametrize("framework", frameworks, ids=frameworks, scope="session")


FACTS = {
    "torch": {
        "tab": "pytorch",
        "array_type": "torch.Tensor",
        "shape_types": "tuple, list or torch.Size",
        "int_dtypes": ("int64", "int32", "int16", "uint8"),
        "unmasked_rtol": 0.0,
        "unmasked_atol": 0.0,
    },
    "jax": {
        "tab": "jax",
        "array_type": "jax.Array or a NumPy array",
        "shape_types": "tuple or a list",
        "int_dtypes": ("int32", "int16", "int8", "uint8", "uint16", "uint32", "int64"),
        # JAX 0.4 runs the unmasked softmax op by op and the masked one compiled: one float32 ulp apart.
        "unmasked_rtol": 1e-6,
        # An output mixes those weights with values of both signs: one near zero moves by about
        # one ulp of the values (6.5e-8 on JAX 0.4.30), which no relative bound covers.
        "unmasked_atol": 1e-7,
    },
    "tensorflow": {
        "tab": "tensorflow",
        "array_type": "tf.Tensor",
        "shape_types": "tuple, list or tf.TensorShape",
        "int_dtypes": ("int64", "int32", "int16", "int8", "uint8"),
        "unmasked_rtol": 0.0,
        "unmasked_atol": 0.0,
    },
}
"""Where the frameworks' libraries differ, as the shared tests see it: the tab of the lesson's
cells, how error messages name the array and shape types, the integer dtypes lengths may have,
and how far a softmax without lengths (and the outputs it weighs) may be from one with full lengths."""


@functools.cache
def load_lib(framework: str):
    """The adapter of ``framework`` (``frameworks/<framework>_lib.py``), imported on first use,
    with its ``name`` and its ``FACTS``."""
    path = ADAPTERS / f"{framework}_lib.py"
    spec = importlib.util.spec_from_file_location(f"d2l_tests_{framework}_lib", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    lib = module.Lib()
    lib.name = framework
    vars(lib).update(FACTS[framework])
    return lib


@pytest.fixture(scope="session")
def lib(framework):
    """The framework under test: ``lib.d2l`` is its ``d2l_lib`` module; ``lib.array``,
    ``lib.randn``, ``lib.numpy``, ``lib.grad``, ``lib.layer`` ... make, read and differentiate
    its arrays and call its layers alike (``frameworks/torch_lib.py`` and its twins)."""
    return load_lib(framework)


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
