"""Which frameworks a test run covers, shared by the library's tests and the exercise checks' tests.

A pytest plugin, loaded by ``tests/library/conftest.py`` and ``tests/exercises/conftest.py``
(by path, as ``sys.modules["d2l_tests_frameworks"]``, so that both share one module and its
caches), not by
``tests/conftest.py``: ``make test-versions`` runs ``tests/library`` with ``--confcutdir
tests/library`` in environments without ``booktools``, which leaves ``tests/conftest.py`` out.

Which frameworks run: ``--framework NAME`` (repeatable) or the environment variable
``D2L_TEST_FRAMEWORKS`` (names separated by commas), all three by default. Every test that
takes the ``lib`` fixture runs once per selected framework (its id is the framework's name:
``torch``, ``jax``, ``tensorflow``); ``lib`` imports the framework it stands for, from
``tests/library/frameworks/<name>_lib.py``, so no module imports a framework itself.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from pathlib import Path

import pytest

FRAMEWORKS = ("torch", "jax", "tensorflow")
FRAMEWORKS_VARIABLE = "D2L_TEST_FRAMEWORKS"
ADAPTERS = Path(__file__).resolve().parent / "library" / "frameworks"
# JAX compiles every operation for every new shape, and these tests call the library on many
# small inputs: most of their time goes into XLA's CPU compiler. Its expensive LLVM passes buy
# nothing for arrays of a few dozen numbers, so this process skips them. XLA reads XLA_FLAGS
# once, when it compiles its first program; the variable is then restored, so that
# subprocesses, notebook kernels included, compile as usual.
FAST_COMPILE = "--xla_backend_optimization_level=0 --xla_llvm_disable_expensive_passes=true"


def pytest_addoption(parser):
    """``--framework``, once, whichever of the conftests that load this plugin registers it first."""
    try:
        parser.addoption(
            "--framework",
            action="append",
            choices=FRAMEWORKS,
            help=f"run the tests of this framework only (repeatable; default: ${FRAMEWORKS_VARIABLE} or all)",
        )
    except ValueError:  # "option names {'--framework'} already added": the other conftest did
        pass


def selected_frameworks(config) -> tuple[str, ...]:
    """The frameworks to test: ``--framework``, else ``$D2L_TEST_FRAMEWORKS``, else all three."""
    chosen = config.getoption("--framework", default=None)
    if not chosen:
        chosen = [name.strip() for name in os.environ.get(FRAMEWORKS_VARIABLE, "").split(",") if name.strip()]
    unknown = sorted(set(chosen) - set(FRAMEWORKS))
    if unknown:
        raise pytest.UsageError(f"{FRAMEWORKS_VARIABLE}: unknown framework {', '.join(unknown)}")
    return tuple(name for name in FRAMEWORKS if name in chosen) if chosen else FRAMEWORKS


_compiled_fast = False


def _compile_jax_fast() -> None:
    global _compiled_fast
    if _compiled_fast:  # both conftests configure; XLA reads its flags once anyway
        return
    _compiled_fast = True
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
    """The adapter of ``framework`` (``library/frameworks/<framework>_lib.py``), imported on first
    use, with its ``name`` and its ``FACTS``."""
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
    its arrays and call its layers alike (``library/frameworks/torch_lib.py`` and its twins)."""
    return load_lib(framework)
