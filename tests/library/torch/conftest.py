"""Fixtures of the PyTorch-only tests: the reference and the padding of
``tests/library/conftest.py`` as tensors, so that ``torch.testing`` and tensor indexing
take them as they are."""

from __future__ import annotations

import numpy as np
import pytest
import torch


def _as_numpy(x):
    return x.detach().cpu().numpy() if isinstance(x, torch.Tensor) else x


@pytest.fixture(scope="session")
def reference_masked_softmax(reference_masked_softmax):
    """The naive float64 masked softmax, taking tensors and returning a float64 tensor."""

    def reference(X, valid_lens):
        X = _as_numpy(X.detach().to(torch.float64))
        return torch.from_numpy(reference_masked_softmax(X, None if valid_lens is None else _as_numpy(valid_lens)))

    return reference


@pytest.fixture(scope="session")
def padding_mask(padding_mask):
    """``padding_mask(shape, valid_lens)`` as a bool tensor: True where a key lies past the valid length."""

    def padding(shape, valid_lens) -> torch.Tensor:
        return torch.from_numpy(np.ascontiguousarray(padding_mask(tuple(shape), _as_numpy(valid_lens))))

    return padding
