"""``masked_softmax`` in PyTorch only: D2L's fill in float16, legacy FloatTensor lengths, no
mutation (tensor versions, views, leaves that require grad), ``gradcheck`` and devices
(issue 5, item 1).

What every framework shares is in ``tests/library/test_masked_softmax.py``.
"""

from __future__ import annotations

import pytest
import torch

from d2l_lib import torch as d2l

# ------------------------------------------------------------------ masking


def test_float16_where_d2l_fill_value_overflows():
    X = torch.rand(2, 2, 4, dtype=torch.float16)
    with pytest.raises(RuntimeError, match="overflow"):
        X.masked_fill(torch.ones(2, 2, 4, dtype=torch.bool), -1e6)  # what D2L's -1e6 fill does
    weights = d2l.masked_softmax(X, torch.tensor([2, 3]))
    assert weights.dtype == torch.float16 and torch.isfinite(weights).all()
    assert (weights[0, :, 2:] == 0).all() and (weights[1, :, 3:] == 0).all()


# ------------------------------------------------------------------ lengths


def test_legacy_float_tensor_lengths():
    X = torch.rand(2, 2, 4)
    torch.testing.assert_close(
        d2l.masked_softmax(X, torch.FloatTensor([2, 3])), d2l.masked_softmax(X, torch.tensor([2, 3])), rtol=0, atol=0
    )


# ------------------------------------------------------------------ no mutation
def test_does_not_mutate_scores_or_lengths():
    X = torch.randn(2, 3, 4)
    lens = torch.tensor([1, 2])
    X_before, lens_before = X.clone(), lens.clone()
    X_version, lens_version = X._version, lens._version
    for valid_lens in (lens, lens.float(), torch.tensor([[0, 1, 2], [3, 4, 5]])):
        d2l.masked_softmax(X, valid_lens)
    assert torch.equal(X, X_before) and X._version == X_version
    assert torch.equal(lens, lens_before) and lens._version == lens_version


def test_does_not_mutate_a_view_of_a_larger_tensor():
    """D2L writes the mask through X.reshape(...), a view of the caller's tensor."""
    base = torch.randn(4, 3, 8)
    before = base.clone()
    X = base[1:3, :, :4]  # non-contiguous view
    d2l.masked_softmax(X, torch.tensor([1, 2]))
    d2l.masked_softmax(base[1:3], torch.tensor([1, 2]))  # contiguous view
    assert torch.equal(base, before)


def test_accepts_a_leaf_that_requires_grad():
    """D2L's in-place fill raises on a leaf tensor that requires grad."""
    X = torch.randn(2, 2, 4, requires_grad=True)
    before = X.detach().clone()
    weights = d2l.masked_softmax(X, torch.tensor([2, 3]))
    assert weights.requires_grad
    weights.sum().backward()
    assert torch.equal(X.detach(), before) and X.grad is not None


# ------------------------------------------------------------------ gradients
@pytest.mark.parametrize("lens", [[0, 2], [[0, 2, 5], [1, 3, 7]], [5, 5]], ids=["1-D", "2-D", "full"])
def test_gradcheck(lens):
    X = torch.randn(2, 3, 5, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda x: d2l.masked_softmax(x, torch.tensor(lens)), (X,))
    assert torch.autograd.gradgradcheck(lambda x: d2l.masked_softmax(x, torch.tensor(lens)), (X,))


# ------------------------------------------------------------------ devices
def test_result_is_on_the_device_of_the_scores():
    X = torch.randn(2, 3, 4)
    assert d2l.masked_softmax(X, torch.tensor([1, 2])).device == X.device
    meta = torch.empty(2, 3, 4, device="meta")
    weights = d2l.masked_softmax(meta, None)
    assert weights.device.type == "meta" and weights.shape == (2, 3, 4)
