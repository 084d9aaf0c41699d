"""The preliminaries' helpers in PyTorch only: ``torch.Size``, ``normal`` and the aliases as
torch's own functions, views, and heatmaps of tensors that require grad or are not contiguous.

What every framework shares is in ``tests/library/test_helpers.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from matplotlib.figure import Figure

from d2l_lib import torch as d2l


# ------------------------------------------------------------------ check_shape
def test_check_shape_accepts_a_torch_size():
    assert d2l.check_shape(torch.zeros(2, 3, 4), torch.Size([2, 3, 4])) is None


# ------------------------------------------------------------------ aliases
def test_normal_is_torch_normal_with_d2l_arguments():
    assert d2l.normal is torch.normal
    torch.manual_seed(3)
    x = d2l.normal(0, 1, (2, 10, 4))
    torch.manual_seed(3)
    assert torch.equal(x, torch.normal(0, 1, (2, 10, 4)))
    assert x.shape == (2, 10, 4) and x.dtype == torch.float32
    y = d2l.normal(5.0, 0.5, (20000,))
    assert abs(y.mean().item() - 5.0) < 0.02 and abs(y.std().item() - 0.5) < 0.02


def test_ones_and_tensor_are_torch_s_own():
    assert d2l.ones is torch.ones and d2l.tensor is torch.tensor
    assert torch.equal(d2l.ones((2, 3)), torch.ones(2, 3))
    assert d2l.ones(2, 3).shape == (2, 3)
    lens = d2l.tensor([2, 6])
    assert lens.dtype == torch.int64 and lens.tolist() == [2, 6]
    assert d2l.tensor([1.5]).dtype == torch.float32


@pytest.mark.parametrize("sizes", [((3, 4),), (3, 4), ([3, -1],)], ids=["tuple", "sizes", "list-with--1"])
def test_reshape_alias_takes_the_sizes_as_arguments_and_gives_a_view(sizes):
    x = torch.arange(12.0)
    y = d2l.reshape(x, *sizes)
    assert torch.equal(y, x.view(3, 4)) and x.shape == (12,)
    assert y.data_ptr() == x.data_ptr()  # a view, like Tensor.reshape on contiguous data


# ------------------------------------------------------------------ show_heatmaps


def test_show_heatmaps_takes_tensors_that_require_grad_without_touching_them():
    weights = torch.rand(1, 1, 3, 4, requires_grad=True)
    before = weights.detach().clone()
    fig = d2l.show_heatmaps(weights * 2, xlabel="Keys", ylabel="Queries")  # a non-leaf in a graph
    ax = fig.axes[0]  # the only panel; axes[1] is the colorbar
    np.testing.assert_allclose(np.asarray(ax.images[0].get_array()), (before * 2)[0, 0].numpy(), rtol=1e-6)
    fig = d2l.show_heatmaps(weights, xlabel="Keys", ylabel="Queries")  # a leaf
    assert isinstance(fig, Figure)
    assert weights.requires_grad and weights.grad is None and torch.equal(weights.detach(), before)


def test_show_heatmaps_takes_non_contiguous_tensors():
    base = torch.rand(5, 4)
    fig = d2l.show_heatmaps(base.T, xlabel="Keys", ylabel="Queries")
    ax = fig.axes[0]  # the only panel; axes[1] is the colorbar
    np.testing.assert_allclose(np.asarray(ax.images[0].get_array()), base.T.numpy(), rtol=1e-6)


def test_show_heatmaps_of_attention_weights_after_a_forward_pass():
    """The chapter's use: the weights of a layer that took part in autograd."""
    queries = torch.randn(2, 1, 2, requires_grad=True)
    keys, values = torch.randn(2, 10, 2), torch.randn(2, 10, 4)
    attention = d2l.DotProductAttention(dropout=0.5)
    attention.eval()
    attention(queries, keys, values, torch.tensor([2, 6]))
    assert attention.attention_weights.requires_grad
    fig = d2l.show_heatmaps(attention.attention_weights.reshape((1, 1, 2, 10)), xlabel="Keys", ylabel="Queries")
    ax = fig.axes[0]  # the only panel; axes[1] is the colorbar
    drawn = np.asarray(ax.images[0].get_array())
    assert (drawn[0, 2:] == 0).all() and (drawn[1, 6:] == 0).all()
    assert (drawn[0, :2] > 0).all() and (drawn[1, :6] > 0).all()
