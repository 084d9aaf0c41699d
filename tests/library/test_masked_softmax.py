"""``masked_softmax``: values, masking, dtypes, no mutation, gradients, devices (issue 5, item 1).

Errors are in ``test_errors.py``; random shapes, lengths and dtypes in ``test_properties.py``.
"""

from __future__ import annotations

import math

import pytest
import torch

from d2l_lib import torch as d2l

DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
# How far the sum of a row's weights may be from 1 (half precision rounds each weight).
SUM_TOLERANCE = {torch.float16: 4e-3, torch.bfloat16: 2e-2, torch.float32: 1e-5, torch.float64: 1e-12}


# ------------------------------------------------------------------ values
def test_values_by_hand():
    X = torch.tensor([[[1.0, 2.0, 3.0, 4.0], [0.0, 0.0, 5.0, 5.0]]], dtype=torch.float64)
    weights = d2l.masked_softmax(X, torch.tensor([2]))
    e1, e2 = math.exp(1.0), math.exp(2.0)
    expected = torch.tensor([[[e1 / (e1 + e2), e2 / (e1 + e2), 0.0, 0.0], [0.5, 0.5, 0.0, 0.0]]], dtype=torch.float64)
    torch.testing.assert_close(weights, expected, rtol=1e-14, atol=0)


def test_values_by_hand_with_one_length_per_query():
    X = torch.tensor([[[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]], dtype=torch.float64)
    weights = d2l.masked_softmax(X, torch.tensor([[1, 3]]))
    e = [math.exp(v) for v in (1.0, 2.0, 3.0)]
    expected = torch.tensor([[[1.0, 0.0, 0.0], [x / sum(e) for x in e]]], dtype=torch.float64)
    torch.testing.assert_close(weights, expected, rtol=1e-14, atol=0)


def test_chapter_examples(padding_mask):
    """masked_softmax(torch.rand(2, 2, 4), [2, 3]) and the 2-D lengths [[1, 3], [2, 4]]."""
    torch.manual_seed(0)
    X = torch.rand(2, 2, 4)
    for lens in (torch.tensor([2, 3]), torch.tensor([[1, 3], [2, 4]])):
        weights = d2l.masked_softmax(X, lens)
        padding = padding_mask(X.shape, lens)
        assert (weights[padding] == 0).all()
        assert (weights[~padding] > 0).all()
        torch.testing.assert_close(weights.sum(-1), torch.ones(2, 2))


@pytest.mark.parametrize("lens", [[3, 1, 5], [[1, 2, 3, 4], [5, 0, 2, 1], [4, 4, 4, 4]]], ids=["1-D", "2-D"])
def test_matches_the_naive_reference(lens, reference_masked_softmax):
    X = torch.randn(3, 4, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    torch.testing.assert_close(
        d2l.masked_softmax(X, torch.tensor(lens)), reference_masked_softmax(X, lens), rtol=1e-12, atol=1e-15
    )


def test_none_is_a_plain_softmax_over_the_last_axis():
    X = torch.randn(2, 3, 5)
    assert torch.equal(d2l.masked_softmax(X, None), torch.softmax(X, dim=-1))


@pytest.mark.parametrize("dtype", DTYPES)
def test_shape_and_dtype_are_kept(dtype):
    X = torch.randn(2, 3, 5).to(dtype)
    for lens in (None, torch.tensor([1, 4]), torch.tensor([[1, 2, 3], [0, 5, 9]])):
        weights = d2l.masked_softmax(X, lens)
        assert weights.shape == X.shape and weights.dtype == dtype


# ------------------------------------------------------------------ masking
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scale", [1.0, 1e3, "huge"], ids=["unit", "1e3", "half-dtype-max"])
def test_exact_zeros_past_the_length_in_every_dtype(dtype, scale, padding_mask):
    """Exact zeros, no overflow, no NaN, even for scores of half the dtype's largest magnitude
    (float16 cannot hold D2L's -1e6: masked_fill(..., -1e6) raises on it). Half, because the
    padding is filled with the dtype's minimum: a row whose valid scores all sit at that very
    minimum would tie with its padding (a known limit of the finite fill)."""
    gen = torch.Generator().manual_seed(2)
    X = torch.randn(3, 4, 6, dtype=torch.float64, generator=gen)
    if scale == "huge":
        X = X.sign() * (torch.finfo(dtype).max / 2)
    else:
        X = X * scale
    X = X.to(dtype)
    lens = torch.tensor([[0, 1, 3, 6], [2, 5, 7, 4], [6, 6, 1, 0]])
    weights = d2l.masked_softmax(X, lens)
    padding = padding_mask(X.shape, lens)
    assert torch.isfinite(weights).all()
    assert (weights[padding] == 0).all()
    assert (weights >= 0).all()
    sums = weights.double().sum(-1)
    has_keys = lens > 0
    torch.testing.assert_close(sums[has_keys], torch.ones_like(sums[has_keys]), rtol=0, atol=SUM_TOLERANCE[dtype])
    assert (sums[~has_keys] == 0).all()


def test_float16_where_d2l_fill_value_overflows():
    X = torch.rand(2, 2, 4, dtype=torch.float16)
    with pytest.raises(RuntimeError, match="overflow"):
        X.masked_fill(torch.ones(2, 2, 4, dtype=torch.bool), -1e6)  # what D2L's -1e6 fill does
    weights = d2l.masked_softmax(X, torch.tensor([2, 3]))
    assert weights.dtype == torch.float16 and torch.isfinite(weights).all()
    assert (weights[0, :, 2:] == 0).all() and (weights[1, :, 3:] == 0).all()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lens", [[0, 2], [[0, 3], [0, 0]]], ids=["1-D", "2-D"])
def test_length_zero_gives_an_all_zero_row(dtype, lens):
    X = torch.randn(2, 2, 4).to(dtype)
    weights = d2l.masked_softmax(X, torch.tensor(lens))
    zero_rows = torch.tensor(lens).reshape(2, -1).expand(2, 2) == 0
    assert (weights[zero_rows] == 0).all()
    assert not torch.isnan(weights).any()
    assert (weights[~zero_rows].sum(-1) > 0.99).all()


def test_length_zero_gives_a_zero_output_row():
    queries, keys, values = torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 6) + 10
    attention = d2l.DotProductAttention(dropout=0.0)
    out = attention(queries, keys, values, torch.tensor([[0, 2, 5], [1, 0, 3]]))
    assert (out[0, 0] == 0).all() and (out[1, 1] == 0).all()
    assert (out[0, 1].abs() > 0).all() and (out[1, 0].abs() > 0).all()


@pytest.mark.parametrize("length", [4, 5, 10**9])
def test_length_at_or_past_the_number_of_keys_masks_nothing(length):
    X = torch.randn(2, 3, 4)
    expected = torch.softmax(X, dim=-1)
    torch.testing.assert_close(d2l.masked_softmax(X, torch.tensor([length, length])), expected, rtol=0, atol=0)
    torch.testing.assert_close(d2l.masked_softmax(X, torch.full((2, 3), length)), expected, rtol=0, atol=0)


def test_padding_never_gets_weight_whatever_its_scores():
    """NaN, inf or huge scores in the padding do not leak into the weights."""
    X = torch.randn(2, 2, 5)
    X[0, :, 2:] = float("nan")
    X[1, 0, 3:] = float("inf")
    X[1, 1, 3:] = 1e30
    weights = d2l.masked_softmax(X, torch.tensor([2, 3]))
    clean = X.clone()
    clean[0, :, 2:] = 0.0
    clean[1, :, 3:] = 0.0
    torch.testing.assert_close(weights, d2l.masked_softmax(clean, torch.tensor([2, 3])), rtol=0, atol=0)
    assert torch.isfinite(weights).all()


def test_no_weight_leaks_into_padding_when_all_valid_scores_are_minus_inf():
    X = torch.tensor([[[-math.inf, -math.inf, 0.5, 0.3]]])
    weights = d2l.masked_softmax(X, torch.tensor([2]))
    assert (weights[0, 0, 2:] == 0).all()


# ------------------------------------------------------------------ lengths
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_integral_float_lengths_equal_integer_lengths(dtype):
    """Old D2L code passes FloatTensors of lengths."""
    X = torch.randn(2, 3, 6)
    for lens in ([2, 5], [[0, 3, 6], [1, 2, 9]]):
        expected = d2l.masked_softmax(X, torch.tensor(lens))
        got = d2l.masked_softmax(X, torch.tensor(lens, dtype=dtype))
        torch.testing.assert_close(got, expected, rtol=0, atol=0)


def test_legacy_float_tensor_lengths():
    X = torch.rand(2, 2, 4)
    torch.testing.assert_close(
        d2l.masked_softmax(X, torch.FloatTensor([2, 3])), d2l.masked_softmax(X, torch.tensor([2, 3])), rtol=0, atol=0
    )


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int16, torch.uint8])
def test_integer_length_dtypes(dtype):
    X = torch.randn(2, 2, 5)
    torch.testing.assert_close(
        d2l.masked_softmax(X, torch.tensor([1, 4], dtype=dtype)),
        d2l.masked_softmax(X, torch.tensor([1, 4])),
        rtol=0,
        atol=0,
    )


def test_lengths_as_a_python_list():
    X = torch.randn(2, 2, 5)
    torch.testing.assert_close(
        d2l.masked_softmax(X, [1, 4]), d2l.masked_softmax(X, torch.tensor([1, 4])), rtol=0, atol=0
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


def test_gradient_is_zero_past_the_length_and_that_of_the_unpadded_softmax(padding_mask):
    X = torch.randn(2, 3, 5, dtype=torch.float64, requires_grad=True)
    upstream = torch.randn(2, 3, 5, dtype=torch.float64)
    lens = torch.tensor([[0, 2, 5], [1, 3, 9]])
    (d2l.masked_softmax(X, lens) * upstream).sum().backward()
    padding = padding_mask(X.shape, lens)
    assert (X.grad[padding] == 0).all()
    for b in range(2):
        for i in range(3):
            length = min(int(lens[b, i]), 5)
            if length == 0:
                continue
            row = X.detach()[b, i, :length].clone().requires_grad_()
            (torch.softmax(row, -1) * upstream[b, i, :length]).sum().backward()
            torch.testing.assert_close(X.grad[b, i, :length], row.grad)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
def test_gradient_in_low_precision_is_finite_and_zero_past_the_length(dtype, padding_mask):
    X = (torch.randn(2, 3, 5) * 100).to(dtype).requires_grad_()
    lens = torch.tensor([[0, 2, 5], [1, 3, 4]])
    (d2l.masked_softmax(X, lens) * torch.randn(2, 3, 5).to(dtype)).sum().backward()
    assert torch.isfinite(X.grad).all()
    assert (X.grad[padding_mask(X.shape, lens)] == 0).all()


# ------------------------------------------------------------------ devices
def test_result_is_on_the_device_of_the_scores():
    X = torch.randn(2, 3, 4)
    assert d2l.masked_softmax(X, torch.tensor([1, 2])).device == X.device
    meta = torch.empty(2, 3, 4, device="meta")
    weights = d2l.masked_softmax(meta, None)
    assert weights.device.type == "meta" and weights.shape == (2, 3, 4)
