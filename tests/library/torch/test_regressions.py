"""Regressions found while benchmarking and reviewing the library: checks on X without lengths,
lengths on another device, low-precision float lengths, one color scale for all heatmap panels."""

from __future__ import annotations

import pytest
import torch

from d2l_lib import torch as d2l


# 1. masked_softmax checks X also when valid_lens is None (issue 5, item 2: "scores that are
#    not 3-D or not floating point"). Today: a 2-D X is silently accepted, an integer X
#    raises NotImplementedError from inside torch.
@pytest.mark.parametrize("shape", [(3, 4), (1, 2, 3, 4)])
def test_scores_not_3d_are_refused_without_lengths_too(shape):
    with pytest.raises(ValueError, match=r"X must have shape \(batch size, no. of queries, no. of keys\)"):
        d2l.masked_softmax(torch.rand(shape), None)


def test_integer_scores_are_refused_without_lengths_too():
    with pytest.raises(TypeError, match="X must hold floating-point scores, got dtype torch.int64"):
        d2l.masked_softmax(torch.ones(2, 3, 4, dtype=torch.int64), None)


# 2. Devices: lengths are checked on their own device and then moved to X's. Today the
#    value checks run after the move, so X on the meta device fails ("Tensor.item() cannot
#    be called on meta tensors") and, on a GPU, every call synchronizes with the device.
def test_lengths_on_another_device_are_moved_to_the_device_of_the_scores():
    X = torch.empty(2, 3, 4, device="meta")
    for lens in (torch.tensor([1, 2]), [1, 2], torch.tensor([[0, 1, 2], [3, 4, 5]])):
        weights = d2l.masked_softmax(X, lens)
        assert weights.device.type == "meta" and weights.shape == (2, 3, 4)


def test_attention_layers_with_lengths_on_the_meta_device():
    queries, keys, values = (torch.empty(2, n, m, device="meta") for n, m in ((3, 8), (5, 8), (5, 4)))
    for lens in (torch.tensor([1, 5]), torch.tensor([1, 5], device="meta")):
        out = d2l.DotProductAttention(dropout=0.0)(queries, keys, values, lens)
        assert out.device.type == "meta" and out.shape == (2, 3, 4)


# 3. Float16/bfloat16 lengths: today arange(keys) < lens compares in the lengths' dtype,
#    which cannot hold every index past 2048 (float16) or 256 (bfloat16), so key 299 of a
#    bfloat16 length 300 is masked. Lengths become int64 first.
@pytest.mark.parametrize("dtype, num_keys, length", [(torch.bfloat16, 512, 300), (torch.float16, 4096, 3000)])
def test_low_precision_float_lengths_count_every_key(dtype, num_keys, length):
    weights = d2l.masked_softmax(torch.zeros(1, 1, num_keys), torch.tensor([length], dtype=dtype))
    assert int((weights > 0).sum()) == length
    mask = d2l.mask_from_valid_lens(torch.tensor([length], dtype=dtype), 1, num_keys)
    assert int(mask.sum()) == length


# 4. show_heatmaps (cell show-heatmaps of the preliminaries): one colorbar for the whole
#    grid, but every imshow scales its own colors, so the colorbar is right only for the
#    last panel (a panel of weights in [0, 0.1] is drawn as dark as one in [0, 1]). Proposed:
#    ``vmin, vmax = grid.min(), grid.max()`` and ``imshow(..., vmin=vmin, vmax=vmax)``.
#    A single panel (every figure of the chapter) is drawn exactly as before.
def test_show_heatmaps_panels_share_one_color_scale():
    matrices = torch.stack([torch.full((2, 2), 0.1), torch.eye(2)]).reshape(1, 2, 2, 2)
    matrices[0, 0, 0, 0] = 0.0
    fig = d2l.show_heatmaps(matrices, xlabel="Keys", ylabel="Queries")
    scales = {(ax.images[0].norm.vmin, ax.images[0].norm.vmax) for ax in fig.axes if ax.images}
    assert scales == {(0.0, 1.0)}
