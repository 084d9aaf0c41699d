"""The exercise solutions' library pieces in PyTorch only: ``DistanceAttention`` against
``torch.cdist``, ``BilinearAttention``'s ``M`` (by hand, the identity, its gradient, typed
inputs) and ``DotProductAttention`` against ``scaled_dot_product_attention`` with the mask of
``mask_from_valid_lens``. What every framework shares is in ``tests/library/test_solutions.py``."""

from __future__ import annotations

import math

import pytest
import torch

from d2l_lib import torch as d2l


def random_inputs(batch=2, n=3, m=7, d=5, v=4, seed=0, dtype=torch.float64):
    generator = torch.Generator().manual_seed(seed)
    return tuple(
        torch.randn(*shape, generator=generator, dtype=dtype) for shape in ((batch, n, d), (batch, m, d), (batch, m, v))
    )


VALID_LENS = [None, torch.tensor([2, 7]), torch.tensor([[1, 4, 7], [3, 3, 0]])]


# ---------------------------------------------------------------- DistanceAttention


def test_distance_attention_matches_cdist():
    queries, keys, values = random_inputs(n=4, m=6, d=3)
    attention = d2l.DistanceAttention(dropout=0.0)
    attention(queries, keys, values)
    expected = torch.softmax(-(torch.cdist(queries, keys) ** 2) / (2 * math.sqrt(3)), dim=-1)
    torch.testing.assert_close(attention.attention_weights, expected)


# ---------------------------------------------------------------- BilinearAttention


@pytest.mark.parametrize("valid_lens", VALID_LENS, ids=["none", "1d", "2d"])
def test_bilinear_attention_equals_explicit_bilinear_form(valid_lens):
    torch.manual_seed(0)
    queries = torch.randn(2, 3, 6)
    _, keys, values = random_inputs(d=5, dtype=torch.float32)
    attention = d2l.BilinearAttention(query_size=6, key_size=5, dropout=0.0)
    output = attention(queries, keys, values, valid_lens)
    M = attention.M.weight
    assert M.shape == (6, 5)
    scores = torch.einsum("bnq,qk,bmk->bnm", queries, M, keys) / math.sqrt(6)
    expected = d2l.masked_softmax(scores, valid_lens)
    torch.testing.assert_close(attention.attention_weights, expected)
    torch.testing.assert_close(output, torch.bmm(expected, values))
    assert output.shape == (2, 3, 4)


def test_bilinear_attention_with_identity_is_dot_product_attention():
    queries, keys, values = random_inputs(dtype=torch.float32)
    attention = d2l.BilinearAttention(query_size=5, key_size=5, dropout=0.0)
    with torch.no_grad():
        attention.M.weight.copy_(torch.eye(5))
    dot = d2l.DotProductAttention(dropout=0.0)
    lens = torch.tensor([2, 7])
    torch.testing.assert_close(attention(queries, keys, values, lens), dot(queries, keys, values, lens))


def test_bilinear_attention_learns():
    queries, keys, values = random_inputs(dtype=torch.float32)
    attention = d2l.BilinearAttention(query_size=5, key_size=5, dropout=0.0)
    attention(queries, keys, values).sum().backward()
    assert attention.M.weight.grad is not None
    assert [name for name, _ in attention.named_parameters()] == ["M.weight"]


def test_bilinear_attention_checks_batch_and_pairs():
    attention = d2l.BilinearAttention(query_size=6, key_size=5, dropout=0.0)
    with pytest.raises(ValueError, match="same number of key-value pairs"):
        attention(torch.zeros(2, 1, 6), torch.zeros(2, 7, 5), torch.zeros(2, 8, 4))
    with pytest.raises(TypeError, match="keys must be a torch.Tensor"):
        attention(torch.zeros(2, 1, 6), [[0.0] * 5], torch.zeros(2, 8, 4))


# ---------------------------------------------------------------- mask_from_valid_lens


@pytest.mark.parametrize("valid_lens", [torch.tensor([2, 7]), torch.tensor([[1, 4, 7], [3, 3, 1]])], ids=["1d", "2d"])
def test_dot_product_attention_equals_builtin_with_mask(valid_lens):
    queries, keys, values = random_inputs(m=7, dtype=torch.float32)
    attention = d2l.DotProductAttention(dropout=0.0)
    mask = d2l.mask_from_valid_lens(valid_lens, 3, 7)
    builtin = torch.nn.functional.scaled_dot_product_attention(queries, keys, values, attn_mask=mask)
    torch.testing.assert_close(attention(queries, keys, values, valid_lens), builtin)
