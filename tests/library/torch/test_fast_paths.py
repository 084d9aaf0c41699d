"""The code paths that make the attention layers fast (issue 12) compute what the plain ones do.

* ``_masked_softmax(X, lens, overwrite=True)``, used by the attention layers on scores of
  their own, fills the padding in place (unseen by autograd) and, without gradients, writes
  the weights over ``X``; ``masked_softmax`` (``overwrite=False``) never writes to ``X``.
* With 2**14 scores or more, the fill is a torch.where(out=) and the pass that zeroes the
  padding runs only when the weights of the last key show that some row needs it (length 0,
  valid scores all -inf, NaN, +inf); below that, the fill is a masked_fill_ and the zeroing
  always runs. Both give exact zeros.
* With and without gradients, the weights are identical, and the gradients are those of the
  plain formula (gradcheck), although the fill is not recorded by autograd. The outputs are
  equal to within rounding: without gradients ``DotProductAttention`` computes its output
  with ``scaled_dot_product_attention`` (issue 27; ``test_weights_on_demand.py``).
"""

from __future__ import annotations

import math

import pytest
import torch

from d2l_lib import torch as d2l

DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
LOOK_FROM = 2**14  # from this many weights on, the layer looks before zeroing
SMALL, LARGE = (3, 4, 6), (4, 64, 80)  # 72 and 20480 weights: one on each side of LOOK_FROM


def _lengths(shape, kind, with_zero, seed=0):
    batch_size, num_queries, num_keys = shape
    gen = torch.Generator().manual_seed(seed)
    lens = torch.randint(1, num_keys + 1, (batch_size,) if kind == "1-D" else (batch_size, num_queries), generator=gen)
    if with_zero:
        lens.view(-1)[1] = 0
    return lens


def _scores(shape, dtype=torch.float32, seed=1):
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64).to(dtype)


def _padding(shape, lens):
    """True where a key lies past the valid length, of the full shape (batch, queries, keys)."""
    return (torch.arange(shape[-1]) >= torch.as_tensor(lens).reshape(shape[0], -1, 1)).expand(shape)


def test_the_two_sizes_straddle_the_threshold():
    assert math.prod(SMALL) < LOOK_FROM <= math.prod(LARGE)


# ------------------------------------------------------------------ overwrite=True
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [SMALL, LARGE], ids=["small", "large"])
@pytest.mark.parametrize("kind", ["1-D", "2-D", "none"])
@pytest.mark.parametrize("with_zero", [False, True], ids=["no-zero-length", "a-zero-length"])
def test_overwriting_gives_the_weights_of_masked_softmax(dtype, shape, kind, with_zero, reference_masked_softmax):
    X = _scores(shape, dtype)
    lens = None if kind == "none" else _lengths(shape, kind, with_zero)
    expected = d2l.masked_softmax(X, lens)
    scratch = X.clone()
    weights = d2l._masked_softmax(scratch, lens, overwrite=True)
    assert weights.data_ptr() == scratch.data_ptr()  # written over the scores: no new tensor
    torch.testing.assert_close(weights, expected, rtol=0, atol=0)
    if lens is not None:
        assert (weights[_padding(shape, lens)] == 0).all()
    if dtype == torch.float64:
        torch.testing.assert_close(weights, reference_masked_softmax(X, lens), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("kind", ["1-D", "2-D"])
def test_overwriting_strided_scores_gives_the_weights_of_masked_softmax(kind):
    """The large fill writes its result into X itself (out=X): right for a transposed view too."""
    scratch = _scores((LARGE[0], LARGE[2], LARGE[1])).transpose(1, 2)  # shape LARGE, not contiguous
    lens = _lengths(LARGE, kind, with_zero=True)
    expected = d2l.masked_softmax(scratch, lens)
    weights = d2l._masked_softmax(scratch, lens, overwrite=True)
    assert not scratch.is_contiguous() and weights.data_ptr() == scratch.data_ptr()
    torch.testing.assert_close(weights, expected, rtol=0, atol=0)


@pytest.mark.parametrize("shape", [SMALL, LARGE], ids=["small", "large"])
@pytest.mark.parametrize("kind", ["1-D", "2-D", "none"])
def test_masked_softmax_writes_nothing_whatever_the_size(shape, kind):
    X = _scores(shape)
    lens = None if kind == "none" else _lengths(shape, kind, with_zero=False)
    before, version = X.clone(), X._version
    weights = d2l.masked_softmax(X, lens)
    assert torch.equal(X, before) and X._version == version
    assert weights.data_ptr() != X.data_ptr()


@pytest.mark.parametrize("shape", [SMALL, LARGE], ids=["small", "large"])
@pytest.mark.parametrize("kind", ["1-D", "2-D"])
def test_overwriting_keeps_the_gradient_of_the_plain_function(shape, kind):
    """The fill is not recorded by autograd; the gradient is that of masked_softmax anyway."""
    X = _scores(shape, torch.float64).requires_grad_()
    upstream = _scores(shape, torch.float64, seed=2)
    lens = _lengths(shape, kind, with_zero=True)
    (d2l.masked_softmax(X, lens) * upstream).sum().backward()
    expected = X.grad.clone()
    X.grad = None
    scores = X * 1.0  # a new, non-leaf tensor, as the layers' scores are
    weights = d2l._masked_softmax(scores, lens, overwrite=True)
    (weights * upstream).sum().backward()
    torch.testing.assert_close(X.grad, expected, rtol=1e-12, atol=1e-15)
    assert (X.grad[_padding(shape, lens)] == 0).all()


# ------------------------------------------------------------------ rows that need zeroing
def _rows_that_need_zeroing(dtype):
    """Large scores with one length of 0 and rows whose valid scores are -inf, NaN or +inf."""
    X = _scores(LARGE, dtype)
    lens = torch.full((LARGE[0], LARGE[1]), 40)
    lens[0, 0] = 0
    X[1, 0, :40] = -math.inf  # valid scores all -inf
    X[1, 1, :40] = torch.finfo(dtype).min  # all equal to the fill
    X[2, 0, 5] = math.nan
    X[2, 1, 7] = math.inf
    return X, lens


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("overwrite", [False, True])
@pytest.mark.parametrize("grad", [False, True])
def test_padding_is_zero_in_rows_the_shortcut_cannot_handle(dtype, overwrite, grad):
    X, lens = _rows_that_need_zeroing(dtype)
    if grad:
        X.requires_grad_()
    scores = X * 1 if overwrite else X  # overwrite only scores of our own
    weights = d2l._masked_softmax(scores, lens, overwrite=overwrite)
    padding = _padding(LARGE, lens)
    assert (weights[padding] == 0).all()
    assert (weights[0, 0] == 0).all() and (weights[1, 0] == 0).all()
    assert torch.isnan(weights[2, 0, :40]).all() and torch.isnan(weights[2, 1, :40]).all()
    ordinary = lens > 0
    ordinary[:3, :2] = False  # the rows set up above
    sums = weights.detach().double().sum(-1)[ordinary]
    tolerance = {torch.float16: 5e-3, torch.bfloat16: 3e-2}.get(dtype, 1e-5)
    torch.testing.assert_close(sums, torch.ones_like(sums), rtol=0, atol=tolerance)


@pytest.mark.parametrize("dtype", DTYPES)
def test_huge_scores_underflow_to_exact_zeros_without_the_zeroing_pass(dtype, monkeypatch):
    """Scores of half the dtype's largest magnitude: exp(fill - max) is still exactly 0."""
    X = _scores(LARGE, torch.float64).sign().mul(torch.finfo(dtype).max / 2).to(dtype)
    lens = _lengths(LARGE, "2-D", with_zero=False)
    calls = _record_masked_fill_(monkeypatch)
    weights = d2l._masked_softmax(X.clone(), lens, overwrite=True)
    assert calls == []  # no zeroing pass (the fill is a torch.where)
    assert (weights[_padding(LARGE, lens)] == 0).all() and torch.isfinite(weights).all()


def _record_masked_fill_(monkeypatch):
    """Record every Tensor.masked_fill_ call: "fill" (the dtype's lowest value) or "zero"."""
    calls = []
    original = torch.Tensor.masked_fill_

    def spy(self, mask, value):
        calls.append("fill" if value == torch.finfo(self.dtype).min else "zero" if value == 0 else value)
        return original(self, mask, value)

    monkeypatch.setattr(torch.Tensor, "masked_fill_", spy)
    return calls


@pytest.mark.parametrize("kind", ["1-D", "2-D"])
def test_the_zeroing_pass_runs_only_when_needed(kind, monkeypatch):
    calls = _record_masked_fill_(monkeypatch)
    with torch.no_grad():
        d2l._masked_softmax(_scores(LARGE), _lengths(LARGE, kind, with_zero=False), overwrite=True)
        assert calls == []  # large: the fill is a torch.where, and no zeroing pass
        d2l._masked_softmax(_scores(LARGE), _lengths(LARGE, kind, with_zero=True), overwrite=True)
        assert calls == ["zero"]  # a row of length 0 needs it
        calls.clear()
        d2l._masked_softmax(_scores(SMALL), _lengths(SMALL, kind, with_zero=False), overwrite=True)
        assert calls == ["fill", "zero"]  # small: the fewest operations, zeroed without looking
        calls.clear()
        d2l.masked_softmax(_scores(LARGE), _lengths(LARGE, kind, with_zero=False))
        assert calls == []  # masked_softmax fills a copy (torch.where) and needs no zeroing


def test_large_scores_on_the_meta_device_are_zeroed_without_looking():
    X = torch.empty(LARGE, device="meta")
    for lens in (torch.tensor([1, 80, 0, 5]), torch.tensor([1, 80, 0, 5], device="meta")):
        for overwrite in (False, True):
            weights = d2l._masked_softmax(X, lens, overwrite=overwrite)
            assert weights.device.type == "meta" and weights.shape == LARGE


# ------------------------------------------------------------------ the layers
def _attention_inputs(batch_size, num_queries, num_pairs, d=8, v=5, dtype=torch.float32, seed=3):
    gen = torch.Generator().manual_seed(seed)
    return tuple(
        torch.randn(batch_size, n, m, generator=gen, dtype=torch.float64).to(dtype)
        for n, m in ((num_queries, d), (num_pairs, d), (num_pairs, v))
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("size", [(2, 3, 6), (4, 64, 80)], ids=["small", "large"])
@pytest.mark.parametrize("kind", ["1-D", "2-D", "none"])
@pytest.mark.parametrize("with_zero", [False, True], ids=["no-zero-length", "a-zero-length"])
def test_dot_product_weights_are_the_same_with_and_without_gradients(dtype, size, kind, with_zero):
    queries, keys, values = _attention_inputs(*size, dtype=dtype)
    lens = None if kind == "none" else _lengths(size, kind, with_zero)
    attention = d2l.DotProductAttention(dropout=0.2).eval()
    with torch.inference_mode():
        out_no_grad = attention(queries, keys, values, lens)
        weights_no_grad = attention.attention_weights
    grads = [t.clone().requires_grad_() for t in (queries, keys, values)]
    out_grad = attention(*grads, lens)
    assert attention.attention_weights.requires_grad
    assert torch.equal(attention.attention_weights.detach(), weights_no_grad)
    # Without gradients the output comes from scaled_dot_product_attention, which sums in
    # another order (in float32 for float16 and bfloat16): equal to within that rounding.
    tolerance = {torch.float16: 2e-3, torch.bfloat16: 1.6e-2}.get(dtype, 1e-5 if dtype == torch.float32 else 1e-12)
    torch.testing.assert_close(out_grad.detach(), out_no_grad, rtol=tolerance, atol=tolerance)
    if lens is not None:
        assert (weights_no_grad[_padding(weights_no_grad.shape, lens)] == 0).all()


@pytest.mark.parametrize("size", [(2, 3, 6), (4, 64, 80)], ids=["small", "large"])
@pytest.mark.parametrize("kind", ["1-D", "2-D"])
def test_dot_product_matches_the_formula_in_float64(size, kind, reference_masked_softmax):
    """Scaling the queries instead of the scores changes nothing but rounding."""
    queries, keys, values = _attention_inputs(*size, dtype=torch.float64)
    lens = _lengths(size, kind, with_zero=True)
    attention = d2l.DotProductAttention(dropout=0.0)
    out = attention(queries, keys, values, lens)
    weights = reference_masked_softmax(queries @ keys.transpose(1, 2) / math.sqrt(8), lens)
    torch.testing.assert_close(attention.attention_weights, weights, rtol=1e-12, atol=1e-15)
    torch.testing.assert_close(out, weights @ values, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("lens", [[0, 3], [[0, 2, 5], [1, 3, 9]], None], ids=["1-D", "2-D", "none"])
def test_dot_product_gradcheck(lens):
    queries, keys, values = (t.requires_grad_() for t in _attention_inputs(2, 3, 5, d=4, v=2, dtype=torch.float64))
    attention = d2l.DotProductAttention(dropout=0.0)
    lens = None if lens is None else torch.tensor(lens)
    assert torch.autograd.gradcheck(lambda q, k, v: attention(q, k, v, lens), (queries, keys, values))
    assert torch.autograd.gradgradcheck(lambda q, k, v: attention(q, k, v, lens), (queries, keys, values))


def test_dot_product_gradcheck_past_the_threshold():
    """2**14 weights and more: the path that looks before zeroing, with a length 0 and a full one."""
    queries, keys, values = (t.requires_grad_() for t in _attention_inputs(4, 64, 70, d=3, v=2, dtype=torch.float64))
    lens = torch.tensor([0, 5, 70, 33])
    attention = d2l.DotProductAttention(dropout=0.0)
    assert torch.autograd.gradcheck(lambda q, k, v: attention(q, k, v, lens), (queries, keys, values), fast_mode=True)


@pytest.mark.parametrize("size", [(2, 3, 6), (4, 64, 80)], ids=["small", "large"])
def test_dot_product_does_not_mutate_inputs_with_or_without_gradients(size):
    inputs = _attention_inputs(*size)
    lens = _lengths(size, "2-D", with_zero=True)
    before = [t.clone() for t in (*inputs, lens)]
    attention = d2l.DotProductAttention(dropout=0.3)
    with torch.no_grad():
        attention(*inputs, lens)
    grads = [t.requires_grad_() for t in inputs]
    attention(*grads, lens).sum().backward()
    assert all(torch.equal(a.detach(), b) for a, b in zip((*inputs, lens), before))


@pytest.mark.parametrize("num_queries", [3, 1], ids=["three-queries", "one-query"])
def test_additive_attention_gradcheck_with_tanh_in_place(num_queries):
    """With one query per example the sum is also added in place, into the projected keys."""
    queries, keys, values = (
        torch.randn(2, n, m, dtype=torch.float64, requires_grad=True) for n, m in ((num_queries, 4), (5, 3), (5, 2))
    )
    attention = d2l.AdditiveAttention(num_hiddens=4, dropout=0.0).double()
    lens = torch.tensor([[0, 2, 5], [1, 3, 4]])[:, :num_queries]
    attention(queries, keys, values, lens)  # sizes the lazy layers
    assert torch.autograd.gradcheck(lambda q, k, v: attention(q, k, v, lens), (queries, keys, values))


@pytest.mark.parametrize("size", [(2, 3, 6), (4, 64, 80), (4, 1, 80)], ids=["small", "large", "one-query"])
def test_additive_weights_are_the_same_with_and_without_gradients(size):
    queries, keys, values = _attention_inputs(*size)
    lens = _lengths(size, "1-D", with_zero=True)
    attention = d2l.AdditiveAttention(num_hiddens=6, dropout=0.2).eval()
    with torch.no_grad():
        out = attention(queries, keys, values, lens)
        weights = attention.attention_weights
    assert torch.equal(attention(queries, keys, values, lens).detach(), out)
    assert torch.equal(attention.attention_weights.detach(), weights)
    features = torch.tanh(attention.W_q(queries).unsqueeze(2) + attention.W_k(keys).unsqueeze(1))
    expected = d2l.masked_softmax(attention.w_v(features).squeeze(-1), lens)
    torch.testing.assert_close(weights, expected.detach(), rtol=0, atol=0)
