"""The preliminaries' helpers: ``check_shape``, the tensor aliases and ``show_heatmaps``.

Errors these helpers raise are in ``test_errors.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from matplotlib.figure import Figure

from d2l_lib import torch as d2l


# ------------------------------------------------------------------ check_shape
@pytest.mark.parametrize("shape", [(2, 3, 4), [2, 3, 4], torch.Size([2, 3, 4])], ids=["tuple", "list", "Size"])
def test_check_shape_accepts_tuple_list_and_size(shape):
    assert d2l.check_shape(torch.zeros(2, 3, 4), shape) is None


def test_check_shape_accepts_a_scalar_and_an_empty_tensor():
    assert d2l.check_shape(torch.tensor(1.0), ()) is None
    assert d2l.check_shape(torch.zeros(0, 5), [0, 5]) is None


def test_check_shape_on_the_chapter_bmm_example():
    Q, K = d2l.ones((2, 3, 4)), d2l.ones((2, 4, 6))
    assert d2l.check_shape(torch.bmm(Q, K), (2, 3, 6)) is None


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


def test_ones_and_tensor_aliases():
    assert d2l.ones is torch.ones and d2l.tensor is torch.tensor
    assert torch.equal(d2l.ones((2, 3)), torch.ones(2, 3))
    assert d2l.ones(2, 3).shape == (2, 3)
    lens = d2l.tensor([2, 6])
    assert lens.dtype == torch.int64 and lens.tolist() == [2, 6]
    assert d2l.tensor([1.5]).dtype == torch.float32


@pytest.mark.parametrize(
    "call",
    [lambda x: d2l.reshape(x, (3, 4)), lambda x: d2l.reshape(x, 3, 4), lambda x: d2l.reshape(x, [3, -1])],
    ids=["tuple", "sizes", "list-with--1"],
)
def test_reshape_alias(call):
    x = torch.arange(12.0)
    y = call(x)
    assert y.shape == (3, 4)
    assert torch.equal(y.flatten(), x)
    assert x.shape == (12,)  # the input keeps its shape
    assert y.data_ptr() == x.data_ptr()  # a view, like Tensor.reshape on contiguous data


def test_reshape_alias_on_the_heatmap_example():
    weights = torch.rand(2, 10)
    assert torch.equal(d2l.reshape(weights, (1, 1, 2, 10))[0, 0], weights)


# ------------------------------------------------------------------ show_heatmaps
def _panels(fig: Figure) -> dict[tuple[int, int], object]:
    """The heatmap axes of ``fig``, keyed by (grid row, grid column); the colorbar is left out."""
    panels = {}
    for ax in fig.axes:
        if ax.get_label() == "<colorbar>":
            continue
        spec = ax.get_subplotspec()
        panels[(spec.rowspan.start, spec.colspan.start)] = ax
    return panels


def _colorbars(fig: Figure) -> int:
    return sum(ax.get_label() == "<colorbar>" for ax in fig.axes)


def test_show_heatmaps_grid_labels_titles_and_one_colorbar():
    matrices = torch.rand(2, 3, 4, 5)
    fig = d2l.show_heatmaps(matrices, xlabel="Keys", ylabel="Queries", titles=["t0", "t1", "t2"])
    assert isinstance(fig, Figure)
    panels = _panels(fig)
    assert sorted(panels) == [(i, j) for i in range(2) for j in range(3)]
    assert _colorbars(fig) == 1
    for (i, j), ax in panels.items():
        assert len(ax.images) == 1
        np.testing.assert_allclose(np.asarray(ax.images[0].get_array()), matrices[i, j].numpy(), rtol=1e-6)
        assert ax.get_xlabel() == ("Keys" if i == 1 else "")  # only under the bottom row
        assert ax.get_ylabel() == ("Queries" if j == 0 else "")  # only left of the first column
        if i == 0:
            assert ax.get_title() == f"t{j}"  # each column headed by its title
        assert ax.images[0].get_cmap().name == "Reds"
    first = panels[(0, 0)]
    assert first.get_shared_x_axes().joined(first, panels[(1, 2)])
    assert first.get_shared_y_axes().joined(first, panels[(1, 2)])


def test_show_heatmaps_identity_example_of_the_preliminaries():
    fig = d2l.show_heatmaps(d2l.reshape(torch.eye(10), (1, 1, 10, 10)), xlabel="Keys", ylabel="Queries")
    (ax,) = _panels(fig).values()
    np.testing.assert_array_equal(np.asarray(ax.images[0].get_array()), np.eye(10))
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_title()) == ("Keys", "Queries", "")
    assert _colorbars(fig) == 1
    assert tuple(fig.get_size_inches()) == (2.5, 2.5)


@pytest.mark.parametrize(
    "shape, grid", [((4, 5), (1, 1)), ((3, 4, 5), (1, 3)), ((2, 1, 4, 5), (2, 1))], ids=["2-D", "3-D", "4-D"]
)
def test_show_heatmaps_accepts_2d_3d_4d(shape, grid):
    matrices = torch.rand(shape)
    fig = d2l.show_heatmaps(matrices, xlabel="x", ylabel="y")
    panels = _panels(fig)
    assert sorted(panels) == [(i, j) for i in range(grid[0]) for j in range(grid[1])]
    as_grid = matrices.reshape(grid + (4, 5))
    for (i, j), ax in panels.items():
        np.testing.assert_allclose(np.asarray(ax.images[0].get_array()), as_grid[i, j].numpy(), rtol=1e-6)
    assert _colorbars(fig) == 1


def test_show_heatmaps_takes_tensors_that_require_grad_without_touching_them():
    weights = torch.rand(1, 1, 3, 4, requires_grad=True)
    before = weights.detach().clone()
    fig = d2l.show_heatmaps(weights * 2, xlabel="Keys", ylabel="Queries")  # a non-leaf in a graph
    (ax,) = _panels(fig).values()
    np.testing.assert_allclose(np.asarray(ax.images[0].get_array()), (before * 2)[0, 0].numpy(), rtol=1e-6)
    fig = d2l.show_heatmaps(weights, xlabel="Keys", ylabel="Queries")  # a leaf
    assert isinstance(fig, Figure)
    assert weights.requires_grad and weights.grad is None and torch.equal(weights.detach(), before)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float64])
def test_show_heatmaps_takes_low_and_high_precision(dtype):
    matrices = torch.rand(1, 2, 3, 3).to(dtype)  # numpy has no bfloat16
    fig = d2l.show_heatmaps(matrices, xlabel="Keys", ylabel="Queries")
    for (_, j), ax in _panels(fig).items():
        np.testing.assert_allclose(np.asarray(ax.images[0].get_array()), matrices[0, j].float().numpy(), rtol=1e-6)


def test_show_heatmaps_takes_non_contiguous_tensors_arrays_and_lists():
    base = torch.rand(5, 4)
    fig = d2l.show_heatmaps(base.T, xlabel="Keys", ylabel="Queries")
    (ax,) = _panels(fig).values()
    np.testing.assert_allclose(np.asarray(ax.images[0].get_array()), base.T.numpy(), rtol=1e-6)
    for matrices in (np.eye(3), [[0.0, 1.0], [1.0, 0.0]]):
        fig = d2l.show_heatmaps(matrices, xlabel="Keys", ylabel="Queries")
        (ax,) = _panels(fig).values()
        np.testing.assert_array_equal(np.asarray(ax.images[0].get_array()), np.asarray(matrices))


def test_show_heatmaps_figsize_and_cmap():
    fig = d2l.show_heatmaps(torch.rand(1, 2, 3, 3), xlabel="Keys", ylabel="Queries", figsize=(6, 3), cmap="viridis")
    assert tuple(fig.get_size_inches()) == (6, 3)
    assert all(ax.images[0].get_cmap().name == "viridis" for ax in _panels(fig).values())


def test_show_heatmaps_of_attention_weights_after_a_forward_pass():
    """The chapter's use: the weights of a layer that took part in autograd."""
    queries = torch.randn(2, 1, 2, requires_grad=True)
    keys, values = torch.randn(2, 10, 2), torch.randn(2, 10, 4)
    attention = d2l.DotProductAttention(dropout=0.5)
    attention.eval()
    attention(queries, keys, values, torch.tensor([2, 6]))
    assert attention.attention_weights.requires_grad
    fig = d2l.show_heatmaps(attention.attention_weights.reshape((1, 1, 2, 10)), xlabel="Keys", ylabel="Queries")
    (ax,) = _panels(fig).values()
    drawn = np.asarray(ax.images[0].get_array())
    assert (drawn[0, 2:] == 0).all() and (drawn[1, 6:] == 0).all()
    assert (drawn[0, :2] > 0).all() and (drawn[1, :6] > 0).all()
