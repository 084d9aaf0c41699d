"""Issue 37: ``DotProductAttention`` trains through the built-in's own backward pass.

With autograd recording and no dropout, the layer calls ``_TwiceDifferentiableSDPA``: the
forward pass records ``scaled_dot_product_attention``'s graph (the fused CPU kernel's, here),
the backward pass runs it, and only a request for a graph of the gradients
(``create_graph=True``) computes attention again in explicit, twice differentiable steps.
Held here: gradients equal the explicit formula's in float64, with every kind of lengths
and rows of length 0; double backward (``gradgradcheck``); gradients of only some inputs;
a second backward pass through a kept graph; the recorded graph freed after the backward
pass; dropout in training; and the claim that lets the layer skip its own handling of rows
of length 0 from PyTorch 2.5 on.
"""

from __future__ import annotations

import gc
import math
import weakref

import pytest
import torch
from torch import nn

from d2l_lib import torch as d2l

LENGTHS = {
    "none": None,
    "1-D": [0, 3, 6],
    "2-D": [[0, 1, 2, 6], [6, 5, 4, 0], [1, 1, 1, 1]],
    "float with inf": [math.inf, 2.0, 0.0],
}


def _inputs(dtype=torch.float64, seed=0, sizes=(3, 4, 6, 8, 5)):
    batch_size, num_queries, num_keys, d, v = sizes
    gen = torch.Generator().manual_seed(seed)
    return [
        torch.randn(batch_size, n, m, generator=gen, dtype=torch.float64).to(dtype).requires_grad_()
        for n, m in ((num_queries, d), (num_keys, d), (num_keys, v))
    ]


def _formula(queries, keys, values, lens):
    """softmax(Q K^T / sqrt(d)) V with the padding's weights set to 0, step by step."""
    scores = queries @ keys.transpose(1, 2) / math.sqrt(queries.shape[-1])
    if lens is not None:
        lens = torch.as_tensor(lens, dtype=torch.float64)
        lens = lens.reshape(lens.shape[0], -1, 1)
        padding = torch.arange(scores.shape[-1]) >= lens
        weights = torch.softmax(scores.masked_fill(padding, -math.inf), dim=-1)
        return torch.nan_to_num(weights).masked_fill(padding, 0.0) @ values
    return torch.softmax(scores, dim=-1) @ values


def _recording_layer(dropout=0.0):
    return d2l.DotProductAttention(dropout=dropout).train()


def _count_calls(monkeypatch):
    calls = []
    original = d2l._TwiceDifferentiableSDPA.apply

    def counted(*args):
        calls.append(args)
        return original(*args)

    monkeypatch.setattr(d2l._TwiceDifferentiableSDPA, "apply", counted)
    return calls


@pytest.mark.parametrize("value_length", [8, 5], ids=["fused kernel", "math path"])
@pytest.mark.parametrize("own_zeroing", [False, True], ids=["kernel zeroes", "layer zeroes"])
@pytest.mark.parametrize("case", LENGTHS)
def test_training_goes_through_the_built_in_and_its_gradients_equal_the_formula(
    case, own_zeroing, value_length, monkeypatch
):
    """Also with the layer's own handling of rows of length 0 (PyTorch before 2.5, and GPUs)."""
    if own_zeroing:
        monkeypatch.setattr(d2l, "_CPU_SDPA_ZEROES_EMPTY_ROWS", False)
    calls = _count_calls(monkeypatch)
    # Values as long as the queries: SDPA's fused CPU kernel; shorter: its math path
    queries, keys, values = _inputs(sizes=(3, 4, 6, 8, value_length))
    lens = None if LENGTHS[case] is None else torch.tensor(LENGTHS[case])
    output = _recording_layer()(queries, keys, values, lens)
    assert len(calls) == 1
    upstream = torch.randn(output.shape, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    grads = torch.autograd.grad(output, (queries, keys, values), upstream)
    expected_output = _formula(queries, keys, values, LENGTHS[case])
    expected = torch.autograd.grad(expected_output, (queries, keys, values), upstream)
    torch.testing.assert_close(output, expected_output, rtol=1e-12, atol=1e-12)
    for grad, reference in zip(grads, expected):
        torch.testing.assert_close(grad, reference, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_float32_and_bfloat16_gradients_equal_the_formula_within_rounding(dtype):
    queries, keys, values = _inputs(dtype, sizes=(4, 16, 32, 16, 8))
    lens = torch.tensor([0, 5, 17, 32])
    output = _recording_layer()(queries, keys, values, lens)
    upstream = torch.ones_like(output)
    grads = torch.autograd.grad(output, (queries, keys, values), upstream)
    exact = [x.detach().double().requires_grad_() for x in (queries, keys, values)]
    expected = torch.autograd.grad(_formula(*exact, lens), exact, upstream.double())
    tolerance = {torch.float32: 1e-5, torch.bfloat16: 3e-2}[dtype]
    for grad, reference in zip(grads, expected):
        assert grad.dtype == dtype
        torch.testing.assert_close(grad.double(), reference, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("case", LENGTHS)
def test_double_backward_works(case):
    queries, keys, values = _inputs(sizes=(3, 4, 6, 4, 2))
    lens = None if LENGTHS[case] is None else torch.tensor(LENGTHS[case])
    attention = _recording_layer()

    def layer(q, k, v):
        return attention(q, k, v, lens)

    inputs = (queries, keys, values)
    # The gradients that can be differentiated again are the gradients: gradgradcheck
    # checks only that their own derivatives are right
    with_graph = torch.autograd.grad(layer(*inputs).sum(), inputs, create_graph=True)
    expected = torch.autograd.grad(_formula(*inputs, LENGTHS[case]).sum(), inputs)
    for grad, reference in zip(with_graph, expected):
        assert grad.requires_grad
        torch.testing.assert_close(grad, reference, rtol=1e-10, atol=1e-12)
    # fast_mode checks random projections of the Jacobians: a fraction of the time
    assert torch.autograd.gradcheck(layer, inputs, fast_mode=True)
    assert torch.autograd.gradgradcheck(layer, inputs, fast_mode=True)


def test_only_the_inputs_that_need_a_gradient_get_one():
    queries, keys, values = _inputs()
    keys.requires_grad_(False)
    lens = torch.tensor([0, 3, 6])
    output = _recording_layer()(queries, keys, values, lens)
    output.sum().backward()
    assert keys.grad is None
    expected = torch.autograd.grad(_formula(queries, keys, values, lens).sum(), (queries, values))
    torch.testing.assert_close(queries.grad, expected[0])
    torch.testing.assert_close(values.grad, expected[1])


def test_a_kept_graph_gives_the_same_gradients_twice():
    queries, keys, values = _inputs()
    output = _recording_layer()(queries, keys, values, torch.tensor([0, 3, 6]))
    first = torch.autograd.grad(output.sum(), (queries, keys, values), retain_graph=True)
    second = torch.autograd.grad(output.sum(), (queries, keys, values))
    for a, b in zip(first, second):
        torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-12)


def test_the_built_ins_graph_is_freed_by_the_backward_pass(monkeypatch):
    recorded = []
    original = nn.functional.scaled_dot_product_attention

    def spy(*args, **kwargs):
        output = original(*args, **kwargs)
        recorded.append(weakref.ref(output))
        return output

    monkeypatch.setattr(nn.functional, "scaled_dot_product_attention", spy)
    queries, keys, values = _inputs()
    output = _recording_layer()(queries, keys, values, torch.tensor([1, 3, 6]))
    output.sum().backward()
    gc.collect()
    assert recorded and all(ref() is None for ref in recorded)
    del output


def test_in_place_changes_before_the_backward_pass_raise():
    queries, keys, values = _inputs()
    output = _recording_layer()(queries, keys, values, torch.tensor([1, 3, 6]))
    with torch.no_grad():
        keys.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        output.sum().backward()


def test_dropout_in_training_leaves_the_padding_without_gradient():
    queries, keys, values = _inputs(torch.float32, sizes=(3, 4, 6, 8, 5))
    lens = torch.tensor([0, 3, 6])
    torch.manual_seed(0)
    output = _recording_layer(dropout=0.1)(queries, keys, values, lens)
    output.sum().backward()
    assert torch.equal(output[0], torch.zeros_like(output[0]))
    assert torch.count_nonzero(values.grad[1, 3:]) == 0 and torch.count_nonzero(keys.grad[0]) == 0
    assert torch.isfinite(queries.grad).all() and torch.count_nonzero(values.grad[2]) > 0


@pytest.mark.skipif(not d2l._CPU_SDPA_ZEROES_EMPTY_ROWS, reason="PyTorch before 2.5: the layer zeroes such rows itself")
@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_the_built_in_gives_a_row_without_keys_a_zero_output(dtype, requires_grad):
    """The fact behind ``_CPU_SDPA_ZEROES_EMPTY_ROWS``, on this machine's CPU kernels."""
    gen = torch.Generator().manual_seed(0)
    queries, keys, values = (
        torch.randn(2, 1, n, 64, generator=gen).to(dtype).requires_grad_(requires_grad) for n in (32, 48, 48)
    )
    mask = torch.arange(48) < torch.tensor([0, 20]).reshape(2, 1, 1, 1)
    output = nn.functional.scaled_dot_product_attention(queries, keys, values, attn_mask=mask)
    assert torch.equal(output[0], torch.zeros_like(output[0]))
    assert torch.isfinite(output).all()


def test_autocast_gives_the_same_gradients_in_a_second_backward_pass():
    """The recomputations run under the forward pass's autocast state."""
    queries, keys, values = _inputs(torch.float32, sizes=(2, 8, 16, 16, 16))
    lens = torch.tensor([5, 16])
    with torch.autocast("cpu", dtype=torch.bfloat16):
        output = _recording_layer()(queries, keys, values, lens)
    assert output.dtype == torch.bfloat16
    first = torch.autograd.grad(output.float().sum(), (queries, keys, values), retain_graph=True)
    second = torch.autograd.grad(output.float().sum(), (queries, keys, values))
    for a, b in zip(first, second):
        assert torch.equal(a, b)


def test_torch_func_and_forward_mode_ad_take_the_explicit_steps():
    queries, keys, values = (x.detach() for x in _inputs())
    lens = torch.tensor([0, 3, 6])
    attention = _recording_layer()
    jacobian = torch.func.jacrev(lambda q: attention(q, keys, values, lens))(queries)
    expected = torch.func.jacrev(lambda q: _formula(q, keys, values, [0, 3, 6]))(queries)
    torch.testing.assert_close(jacobian, expected)
    tangent = torch.randn_like(queries)
    with torch.autograd.forward_ad.dual_level():
        dual = torch.autograd.forward_ad.make_dual(queries, tangent)
        derivative = torch.autograd.forward_ad.unpack_dual(attention(dual, keys, values, lens)).tangent
    torch.testing.assert_close(derivative, torch.einsum("bqvcpd,cpd->bqv", expected, tangent))


def test_after_a_read_training_still_goes_through_the_built_in(monkeypatch):
    """A read does not switch the path while autograd records: a checkpointed call and its
    recomputation must take the same one."""
    calls = _count_calls(monkeypatch)
    queries, keys, values = _inputs()
    lens = torch.tensor([0, 3, 6])
    attention = _recording_layer()
    attention(queries, keys, values, lens)
    assert attention.attention_weights is not None
    output = attention(queries, keys, values, lens)
    assert len(calls) == 2
    grads = torch.autograd.grad(output.sum(), (queries, keys, values))
    expected = torch.autograd.grad(_formula(queries, keys, values, lens).sum(), (queries, keys, values))
    for grad, reference in zip(grads, expected):
        torch.testing.assert_close(grad, reference)


@pytest.mark.parametrize("dropout", [0.0, 0.1])
def test_reading_the_weights_inside_a_checkpointed_block(dropout):
    """As D2L's Transformer encoder does after each block, here under non-reentrant
    activation checkpointing, whose recomputation must save what the forward pass saved."""
    queries, keys, values = _inputs(torch.float32)
    lens = torch.tensor([0, 3, 6])
    attention = _recording_layer(dropout)
    outputs = []
    for _ in range(2):
        outputs.append(torch.utils.checkpoint.checkpoint(attention, queries, keys, values, lens, use_reentrant=False))
        assert attention.attention_weights.shape == (3, 4, 6)
    sum(output.sum() for output in outputs).backward()
    assert all(torch.isfinite(x.grad).all() for x in (queries, keys, values))


def test_forward_mode_ad_through_masked_softmax_and_a_read():
    X = torch.randn(2, 3, 5, dtype=torch.float64)
    tangent = torch.randn_like(X)
    lens = torch.tensor([2, 5])
    with torch.autograd.forward_ad.dual_level():
        dual = torch.autograd.forward_ad.make_dual(X, tangent)
        derivative = torch.autograd.forward_ad.unpack_dual(d2l.masked_softmax(dual, lens)).tangent
    expected = torch.func.jvp(lambda x: d2l.masked_softmax(x, lens), (X,), (tangent,))[1]
    torch.testing.assert_close(derivative, expected)
    queries, keys, values = (x.detach() for x in _inputs())
    attention = _recording_layer()
    with torch.autograd.forward_ad.dual_level():
        dual = torch.autograd.forward_ad.make_dual(queries, torch.ones_like(queries))
        attention(dual, keys, values, torch.tensor([0, 3, 6]))
        weights = attention.attention_weights
        assert torch.autograd.forward_ad.unpack_dual(weights).tangent is not None


def test_weights_read_later_are_computed_under_the_calls_autocast():
    queries, keys, values = (x.detach() for x in _inputs(torch.float32, sizes=(2, 8, 16, 16, 16)))
    lens = torch.tensor([5, 16])
    later = d2l.DotProductAttention(dropout=0.0).eval()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        later(queries, keys, values, lens)
    weights = later.attention_weights
    at_once = d2l.DotProductAttention(dropout=0.0).eval()
    at_once(queries, keys, values, lens)
    at_once.attention_weights  # noqa: B018 (a read: the next call computes its weights)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        at_once(queries, keys, values, lens)
    assert weights.dtype == at_once.attention_weights.dtype
    assert torch.equal(weights, at_once.attention_weights)


@pytest.mark.parametrize("training", [False, True])
def test_a_batch_of_no_examples_with_lengths(training):
    queries, keys, values = (torch.zeros(0, n, 4, requires_grad=training) for n in (2, 3, 3))
    attention = d2l.DotProductAttention(dropout=0.0).train(training)
    for lens in (torch.zeros(0, dtype=torch.int64), torch.zeros(0, 2, dtype=torch.int64)):
        assert attention(queries, keys, values, lens).shape == (0, 2, 4)


def test_a_call_lets_the_previous_calls_inputs_go():
    queries, keys, values = (x.detach() for x in _inputs(torch.float32))
    attention = d2l.DotProductAttention(dropout=0.0).eval()
    attention(queries.clone(), keys, values, torch.tensor([1, 2, 3]))
    held = weakref.ref(attention._pending.inputs["queries"][0])
    attention(queries, keys, values)
    gc.collect()
    assert held() is None
