"""Fixtures for the unit tests of ``d2l_lib.tensorflow``.

TensorFlow's C++ start-up notes are silenced before it is imported. ``reference_masked_softmax``
is a deliberately naive, loop-by-loop masked softmax in float64 NumPy that the library is
compared against; ``padding_mask`` says where a key lies past its valid length. Figures are
closed after every test by the fixture of ``tests/library/conftest.py``.
"""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import tensorflow as tf  # noqa: E402


def _per_query_lengths(shape, valid_lens) -> np.ndarray:
    """Lengths of shape (batch, queries), from None, 1-D or 2-D lengths (clipped to the keys)."""
    batch_size, num_queries, num_keys = shape
    if valid_lens is None:
        return np.full((batch_size, num_queries), num_keys, dtype=np.int64)
    lens = np.asarray(tf.cast(valid_lens, tf.float64) if tf.is_tensor(valid_lens) else valid_lens, dtype=np.float64)
    lens = np.minimum(lens, num_keys).astype(np.int64)
    return np.broadcast_to(lens.reshape(batch_size, -1), (batch_size, num_queries))


def _reference_masked_softmax(X, valid_lens) -> np.ndarray:
    """Masked softmax by hand, in float64: softmax over the first ``l`` scores of each row,
    zeros after them, and an all-zero row when ``l`` is 0. ``valid_lens`` is None, 1-D or 2-D."""
    X = np.asarray(tf.cast(X, tf.float64))
    lens = _per_query_lengths(X.shape, valid_lens)
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


@pytest.fixture(scope="session")
def padding_mask():
    """``padding_mask(shape, valid_lens)``: a NumPy bool array, True where a key lies past the valid length."""

    def padding(shape, valid_lens) -> np.ndarray:
        return np.arange(shape[-1]) >= _per_query_lengths(shape, valid_lens)[:, :, None]

    return padding
