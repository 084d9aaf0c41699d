"""Each framework's data-parallel engine trains a multi-head attention built around d2l_lib's
``DotProductAttention`` exactly as one device does.

Every case runs a script of ``data_parallel/`` in a subprocess of its own: XLA's device count
and TensorFlow's logical devices must be set before the framework is imported or runs an
operation, and PyTorch's DistributedDataParallel spawns processes that join a gloo group on a
port of 127.0.0.1. Each script trains ``data_parallel/problem.py``'s problem (a batch of 4, one
example with no valid key) for a few SGD steps on one device and on 2 CPU replicas, each taking
half the batch; here the weights after training must equal the one-device run's to within
float32 rounding, be the same on every replica, and differ from the starting weights.

The subprocess runs in a session of its own: when it outlives its timeout, or the test stops for
any other reason, the whole session (PyTorch's spawned processes with it) is killed.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

SCRIPTS = Path(__file__).resolve().parent / "data_parallel"
ROOT = Path(__file__).resolve().parents[2]
CASES = {
    "torch": ("torch_ddp.py", ("torch",)),
    "jax": ("jax_sharding.py", ("jax", "flax")),
    "tensorflow": ("tensorflow_mirrored.py", ("tensorflow", "keras")),
}
"""Per framework: its script in ``data_parallel/`` and the modules the script needs."""
TIMEOUT = 180  # seconds; each script took 4 to 21 on a busy 2-core machine
# The two runs add the same gradients in a different order (the replicas' halves, then their
# sum): float32 rounding, a few units in the last place of weights of size about 1
RTOL, ATOL = 1e-5, 1e-6


def _problem():
    """``data_parallel/problem.py``, the problem the scripts solve and the format they save in."""
    spec = importlib.util.spec_from_file_location("d2l_tests_data_parallel_problem", SCRIPTS / "problem.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


problem = _problem()


def pytest_generate_tests(metafunc):
    """One case per framework that this run selects (``--framework``, ``$D2L_TEST_FRAMEWORKS``)."""
    if "framework" in metafunc.fixturenames:
        # The plugin tests/library/conftest.py loads, as it registered itself
        frameworks = sys.modules["d2l_tests_frameworks"].selected_frameworks(metafunc.config)
        metafunc.parametrize("framework", frameworks, ids=frameworks)


def _kill_session(process: subprocess.Popen) -> None:
    """Kill ``process`` and every process of its session, then reap ``process``.

    Only while ``process`` is not yet reaped: until then its id, the session's, cannot be reused.
    """
    if process.returncode is None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def run_script(script: Path, directory: Path) -> subprocess.CompletedProcess:
    """Run ``script`` on ``directory`` with this repository's d2l_lib, in a session of its own."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    command = [sys.executable, str(script), str(directory)]
    process = subprocess.Popen(
        command,
        cwd=directory,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=TIMEOUT)
    except BaseException:  # the timeout, or pytest stopping: leave no process behind
        _kill_session(process)
        raise
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def test_data_parallel_training_equals_one_device(framework, tmp_path):
    script, modules = CASES[framework]
    for module in modules:
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed")
    result = run_script(SCRIPTS / script, tmp_path)
    assert result.returncode == 0, f"{script} failed:\n{result.stderr[-4000:]}"
    initial, single = problem.load(tmp_path, "initial"), problem.load(tmp_path, "single")
    replicas = [problem.load(tmp_path, f"replica{rank}") for rank in range(problem.NUM_REPLICAS)]
    for name in problem.PROJECTIONS:
        # Training moved every weight matrix: the comparison below is not of untouched weights
        assert np.abs(single[name] - initial[name]).max() > 1e-2, name
        for rank, weights in enumerate(replicas):
            np.testing.assert_array_equal(weights[name], replicas[0][name], err_msg=f"{name}, replica {rank}")
        np.testing.assert_allclose(replicas[0][name], single[name], rtol=RTOL, atol=ATOL, err_msg=name)
    differences = {name: float(np.abs(replicas[0][name] - single[name]).max()) for name in problem.PROJECTIONS}
    print(f"{framework}: max |data-parallel - one device| per weight matrix: {differences}")
