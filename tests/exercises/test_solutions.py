"""Unit tests of the library pieces saved by the exercise solutions and "Going Further"."""

from __future__ import annotations

import math

import pytest
import torch

from d2l_lib import torch as d2l


def explicit_distance_weights(queries, keys, valid_lens):
    """Masked softmax of -||q - k||^2 / (2 sqrt(d)), from explicit differences."""
    sq_dists = ((queries.unsqueeze(2) - keys.unsqueeze(1)) ** 2).sum(dim=-1)
    return d2l.masked_softmax(-sq_dists / (2 * math.sqrt(queries.shape[-1])), valid_lens)


def random_inputs(batch=2, n=3, m=7, d=5, v=4, seed=0, dtype=torch.float64):
    generator = torch.Generator().manual_seed(seed)
    return tuple(
        torch.randn(*shape, generator=generator, dtype=dtype) for shape in ((batch, n, d), (batch, m, d), (batch, m, v))
    )


VALID_LENS = [None, torch.tensor([2, 7]), torch.tensor([[1, 4, 7], [3, 3, 0]])]


# ---------------------------------------------------------------- DistanceAttention


@pytest.mark.parametrize("valid_lens", VALID_LENS, ids=["none", "1d", "2d"])
def test_distance_attention_equals_explicit_distances(valid_lens):
    queries, keys, values = random_inputs()
    attention = d2l.DistanceAttention(dropout=0.0)
    output = attention(queries, keys, values, valid_lens)
    expected = explicit_distance_weights(queries, keys, valid_lens)
    torch.testing.assert_close(attention.attention_weights, expected)
    torch.testing.assert_close(output, torch.bmm(expected, values))
    assert output.shape == (2, 3, 4)
    assert attention.attention_weights.shape == (2, 3, 7)


def test_distance_attention_matches_cdist():
    queries, keys, values = random_inputs(n=4, m=6, d=3)
    attention = d2l.DistanceAttention(dropout=0.0)
    attention(queries, keys, values)
    expected = torch.softmax(-(torch.cdist(queries, keys) ** 2) / (2 * math.sqrt(3)), dim=-1)
    torch.testing.assert_close(attention.attention_weights, expected)


def test_distance_attention_masks_past_the_valid_length():
    queries, keys, values = random_inputs()
    attention = d2l.DistanceAttention(dropout=0.0)
    attention(queries, keys, values, torch.tensor([[1, 4, 7], [3, 3, 0]]))
    weights = attention.attention_weights
    assert torch.all(weights[0, 0, 1:] == 0) and torch.all(weights[1, :2, 3:] == 0)
    assert torch.all(weights[1, 2] == 0)  # valid length 0: no weight at all
    torch.testing.assert_close(weights[0].sum(-1), torch.ones(3, dtype=weights.dtype))


@pytest.mark.parametrize("norm", [0.5, 1.0, 3.0])
def test_distance_attention_ranks_equal_norm_keys_like_dot_product(norm):
    queries, keys, values = random_inputs(n=5, m=9, d=4, seed=1)
    keys = norm * keys / keys.norm(dim=-1, keepdim=True)
    distance, dot = d2l.DistanceAttention(dropout=0.0), d2l.DotProductAttention(dropout=0.0)
    torch.testing.assert_close(distance(queries, keys, values), dot(queries, keys, values))
    torch.testing.assert_close(distance.attention_weights, dot.attention_weights)
    assert torch.equal(distance.attention_weights.argsort(-1), dot.attention_weights.argsort(-1))


def test_distance_attention_differs_from_dot_product_for_unequal_norms():
    queries, keys, values = random_inputs(n=5, m=9, d=4, seed=1)
    keys = keys * torch.linspace(0.2, 5.0, 9, dtype=keys.dtype).reshape(1, 9, 1)
    distance, dot = d2l.DistanceAttention(dropout=0.0), d2l.DotProductAttention(dropout=0.0)
    distance(queries, keys, values)
    dot(queries, keys, values)
    assert not torch.allclose(distance.attention_weights, dot.attention_weights)


def test_distance_attention_is_translation_invariant():
    queries, keys, values = random_inputs()
    shift = torch.randn(1, 1, 5, dtype=queries.dtype)
    attention = d2l.DistanceAttention(dropout=0.0)
    torch.testing.assert_close(attention(queries + shift, keys + shift, values), attention(queries, keys, values))


def test_distance_attention_leaves_inputs_alone_and_is_a_dot_product_attention():
    queries, keys, values = random_inputs()
    copies = [x.clone() for x in (queries, keys, values)]
    d2l.DistanceAttention(dropout=0.0)(queries, keys, values, torch.tensor([2, 7]))
    assert all(torch.equal(x, y) for x, y in zip((queries, keys, values), copies))
    assert isinstance(d2l.DistanceAttention(0.1), d2l.DotProductAttention)


def test_distance_attention_float32_and_gradients():
    queries, keys, values = random_inputs(dtype=torch.float32)
    queries.requires_grad_(True)
    output = d2l.DistanceAttention(dropout=0.0)(queries, keys, values, torch.tensor([2, 7]))
    assert output.dtype == torch.float32
    output.sum().backward()
    assert queries.grad is not None and torch.isfinite(queries.grad).all()


@pytest.mark.parametrize(
    "shapes, message",
    [
        (((2, 3, 5), (2, 7, 4), (2, 7, 4)), "same length d"),
        (((2, 3, 5), (2, 7, 5), (2, 6, 4)), "same number of key-value pairs"),
        (((2, 3, 5), (1, 7, 5), (1, 7, 4)), "same batch size"),
        (((3, 5), (2, 7, 5), (2, 7, 4)), "queries must have shape"),
    ],
)
def test_distance_attention_errors(shapes, message):
    tensors = [torch.zeros(shape) for shape in shapes]
    with pytest.raises(ValueError, match=message):
        d2l.DistanceAttention(dropout=0.0)(*tensors)


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


@pytest.mark.parametrize("query_len, key_len", [(4, 5), (6, 3)])
def test_bilinear_attention_names_wrong_lengths(query_len, key_len):
    attention = d2l.BilinearAttention(query_size=6, key_size=5, dropout=0.0)
    queries, keys, values = torch.zeros(2, 1, query_len), torch.zeros(2, 7, key_len), torch.zeros(2, 7, 4)
    expected = (
        r"expected queries of length 6 and keys of length 5, "
        rf"got queries \(2, 1, {query_len}\), keys \(2, 7, {key_len}\)"
    )
    with pytest.raises(ValueError, match=expected):
        attention(queries, keys, values)


def test_bilinear_attention_checks_batch_and_pairs():
    attention = d2l.BilinearAttention(query_size=6, key_size=5, dropout=0.0)
    with pytest.raises(ValueError, match="same number of key-value pairs"):
        attention(torch.zeros(2, 1, 6), torch.zeros(2, 7, 5), torch.zeros(2, 8, 4))
    with pytest.raises(TypeError, match="keys must be a torch.Tensor"):
        attention(torch.zeros(2, 1, 6), [[0.0] * 5], torch.zeros(2, 8, 4))


def test_bilinear_attention_on_the_chapter_example_shapes():
    torch.manual_seed(0)
    queries, keys, values = torch.randn(2, 1, 20), torch.randn(2, 10, 2), torch.randn(2, 10, 4)
    attention = d2l.BilinearAttention(query_size=20, key_size=2, dropout=0.1)
    attention.eval()
    d2l.check_shape(attention(queries, keys, values, torch.tensor([2, 6])), (2, 1, 4))
    weights = attention.attention_weights
    assert torch.all(weights[0, 0, 2:] == 0) and torch.all(weights[1, 0, 6:] == 0)
    assert torch.all(weights[0, 0, :2] > 0) and torch.all(weights[1, 0, :6] > 0)


# ---------------------------------------------------------------- attention_cost


def test_attention_cost_formulas():
    n, m, d, v = 3, 5, 7, 11
    cost = d2l.attention_cost(n, m, d, v)
    assert cost["flops"] == 2 * 3 * 5 * (7 + 11) + 6 * 3 * 5 == 630
    io = 3 * 7 + 5 * 7 + 5 * 11 + 3 * 11
    assert cost["bytes_fused"] == 4 * io == 576
    assert cost["bytes"] == 4 * (io + 4 * 3 * 5) == 816


def test_attention_cost_scales():
    base = d2l.attention_cost(64, 128, 32, 16)
    batched = d2l.attention_cost(64, 128, 32, 16, batch_size=8, bytes_per_number=2)
    assert batched["flops"] == 8 * base["flops"]
    assert batched["bytes"] == 4 * base["bytes"]
    assert batched["bytes_fused"] == 4 * base["bytes_fused"]
    doubled = d2l.attention_cost(128, 256, 32, 16)
    assert doubled["flops"] == 4 * base["flops"]


def test_attention_cost_intensity_tends_to_d_plus_v_over_8():
    cost = d2l.attention_cost(1 << 16, 1 << 16, 64, 64)
    assert cost["flops"] / cost["bytes"] == pytest.approx((64 + 64) / 8, rel=0.05)
    assert cost["bytes_fused"] < cost["bytes"]


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"n": 0}, ValueError),
        ({"m": -1}, ValueError),
        ({"d": 2.0}, TypeError),
        ({"v": True}, TypeError),
        ({"batch_size": 0}, ValueError),
        ({"bytes_per_number": 0}, ValueError),
    ],
)
def test_attention_cost_rejects_bad_sizes(kwargs, error):
    sizes = {"n": 2, "m": 3, "d": 4, "v": 5} | kwargs
    with pytest.raises(error, match=next(iter(kwargs))):
        d2l.attention_cost(**sizes)


# ---------------------------------------------------------------- mask_from_valid_lens


def test_mask_from_valid_lens_1d_and_2d():
    mask = d2l.mask_from_valid_lens(torch.tensor([2, 0]), num_queries=2, num_keys=4)
    assert mask.dtype == torch.bool and mask.shape == (2, 2, 4)
    assert mask.int().tolist() == [[[1, 1, 0, 0], [1, 1, 0, 0]], [[0, 0, 0, 0], [0, 0, 0, 0]]]
    mask = d2l.mask_from_valid_lens(torch.tensor([[1, 3], [4, 9]]), num_queries=2, num_keys=4)
    assert mask.int().tolist() == [[[1, 0, 0, 0], [1, 1, 1, 0]], [[1, 1, 1, 1], [1, 1, 1, 1]]]
    float_lens = d2l.mask_from_valid_lens(torch.tensor([[1.0, 3.0], [4.0, 9.0]]), 2, 4)
    assert torch.equal(float_lens, mask)
    assert torch.equal(d2l.mask_from_valid_lens([2, 0], 2, 4), d2l.mask_from_valid_lens(torch.tensor([2, 0]), 2, 4))


@pytest.mark.parametrize("valid_lens", [torch.tensor([2, 7]), torch.tensor([[1, 4, 7], [3, 3, 1]])], ids=["1d", "2d"])
def test_mask_matches_masked_softmax(valid_lens):
    weights = d2l.masked_softmax(torch.rand(2, 3, 7) + 0.1, valid_lens)
    assert torch.equal(d2l.mask_from_valid_lens(valid_lens, 3, 7), weights > 0)


@pytest.mark.parametrize("valid_lens", [torch.tensor([2, 7]), torch.tensor([[1, 4, 7], [3, 3, 1]])], ids=["1d", "2d"])
def test_dot_product_attention_equals_builtin_with_mask(valid_lens):
    queries, keys, values = random_inputs(m=7, dtype=torch.float32)
    attention = d2l.DotProductAttention(dropout=0.0)
    mask = d2l.mask_from_valid_lens(valid_lens, 3, 7)
    builtin = torch.nn.functional.scaled_dot_product_attention(queries, keys, values, attn_mask=mask)
    torch.testing.assert_close(attention(queries, keys, values, valid_lens), builtin)


@pytest.mark.parametrize("length", [math.inf, 1e20], ids=["inf", "1e20"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64], ids=str)
def test_mask_from_valid_lens_infinite_or_huge_float_length_masks_nothing(length, dtype):
    """Float lengths are clamped before the cast: inf or 1e20 must not overflow int64."""
    mask = d2l.mask_from_valid_lens(torch.tensor([length, 2.0], dtype=dtype), num_queries=2, num_keys=4)
    assert mask.int().tolist() == [[[1, 1, 1, 1], [1, 1, 1, 1]], [[1, 1, 0, 0], [1, 1, 0, 0]]]
    per_query = torch.tensor([[length, 1.0], [0.0, length]], dtype=dtype)
    mask = d2l.mask_from_valid_lens(per_query, num_queries=2, num_keys=4)
    assert mask.int().tolist() == [[[1, 1, 1, 1], [1, 0, 0, 0]], [[0, 0, 0, 0], [1, 1, 1, 1]]]
    weights = d2l.masked_softmax(torch.rand(2, 2, 4) + 0.1, per_query)
    assert torch.equal(mask, weights > 0)


@pytest.mark.parametrize(
    "valid_lens, error, message",
    [
        (torch.tensor([[1, 2, 3]]), ValueError, r"shape \(batch size,\) or \(batch size, 2\)"),
        (torch.zeros(1, 2, 3, dtype=torch.long), ValueError, "shape"),
        (torch.tensor([-1, 2]), ValueError, "negative"),
        (torch.tensor([1.5, 2.0]), ValueError, "whole numbers"),
        (torch.tensor([True, False]), TypeError, "integer lengths"),
    ],
)
def test_mask_from_valid_lens_errors(valid_lens, error, message):
    with pytest.raises(error, match=message):
        d2l.mask_from_valid_lens(valid_lens, num_queries=2, num_keys=4)
