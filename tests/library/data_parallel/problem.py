"""The training problem that every data-parallel script of this folder solves twice.

Each script (``torch_ddp.py``, ``jax_sharding.py``, ``tensorflow_mirrored.py``) builds a
multi-head attention around its framework's ``d2l_lib`` ``DotProductAttention``, starts it
from ``initial_weights()``, and trains it for ``STEPS`` steps of plain SGD on the mean squared
error between its outputs and ``batch()``'s targets: once on one device with the whole batch,
and once with the batch split over ``NUM_REPLICAS`` replicas. It writes what it got with
``save``; ``tests/library/test_data_parallel.py`` reads it back with ``load`` and compares.

Weights are NumPy float32 matrices of shape (inputs, outputs), so that ``x @ W`` projects
``x``: Flax and Keras kernels as they are, PyTorch ``Linear`` weights transposed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

NUM_REPLICAS = 2
BATCH_SIZE = 4  # two examples per replica
NUM_QUERIES, NUM_PAIRS = 3, 5
QUERY_SIZE, KEY_SIZE, VALUE_SIZE = 6, 5, 4
NUM_HIDDENS, NUM_HEADS = 8, 2
# One example attends to no key at all (its outputs are zero before W_o), the others to
# some or all of the NUM_PAIRS keys; each replica gets one short and one long example.
VALID_LENS = (5, 0, 2, 4)
STEPS = 3
LEARNING_RATE = 0.5

# Each projection's name and (inputs, outputs): the queries, keys and values are projected to
# NUM_HIDDENS numbers, NUM_HEADS heads of NUM_HIDDENS // NUM_HEADS each; W_o mixes the heads.
PROJECTIONS = {
    "W_q": (QUERY_SIZE, NUM_HIDDENS),
    "W_k": (KEY_SIZE, NUM_HIDDENS),
    "W_v": (VALUE_SIZE, NUM_HIDDENS),
    "W_o": (NUM_HIDDENS, NUM_HIDDENS),
}
# What the scripts save: the weights before training, after training on one device, and on
# each replica after training on the split batch.
GROUPS = ("initial", "single", *(f"replica{rank}" for rank in range(NUM_REPLICAS)))


def batch() -> dict[str, np.ndarray]:
    """The whole batch: ``queries``, ``keys``, ``values`` (float32), ``valid_lens`` (int32),
    ``targets`` (float32, the shape of the outputs); every array's first axis is the batch."""
    rng = np.random.default_rng(0)

    def normal(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape, dtype=np.float32)

    return {
        "queries": normal(BATCH_SIZE, NUM_QUERIES, QUERY_SIZE),
        "keys": normal(BATCH_SIZE, NUM_PAIRS, KEY_SIZE),
        "values": normal(BATCH_SIZE, NUM_PAIRS, VALUE_SIZE),
        "valid_lens": np.array(VALID_LENS, dtype=np.int32),
        "targets": normal(BATCH_SIZE, NUM_QUERIES, NUM_HIDDENS),
    }


def shard(arrays: dict[str, np.ndarray], rank: int) -> dict[str, np.ndarray]:
    """Replica ``rank``'s part of ``arrays``: its consecutive slice of the batch."""
    size = BATCH_SIZE // NUM_REPLICAS
    return {name: array[rank * size : (rank + 1) * size] for name, array in arrays.items()}


def initial_weights() -> dict[str, np.ndarray]:
    """The projections' starting weights, float32 (inputs, outputs), scaled by 1/sqrt(inputs)."""
    rng = np.random.default_rng(1)
    return {
        name: (rng.standard_normal(shape, dtype=np.float32) / np.sqrt(shape[0])).astype(np.float32)
        for name, shape in PROJECTIONS.items()
    }


def save(directory: Path, group: str, weights: dict[str, np.ndarray]) -> None:
    """Write the weights of ``group`` (one of ``GROUPS``) to ``directory``."""
    if group not in GROUPS:
        raise ValueError(f"group must be one of {GROUPS}, got {group!r}")
    if set(weights) != set(PROJECTIONS):
        raise ValueError(f"weights must be named {sorted(PROJECTIONS)}, got {sorted(weights)}")
    np.savez(Path(directory) / f"{group}.npz", **{name: np.asarray(w, dtype=np.float32) for name, w in weights.items()})


def load(directory: Path, group: str) -> dict[str, np.ndarray]:
    """The weights of ``group`` that a script wrote to ``directory``."""
    with np.load(Path(directory) / f"{group}.npz") as arrays:
        return {name: arrays[name] for name in PROJECTIONS}
