"""``DotProductAttention`` and ``AdditiveAttention`` in PyTorch only: no mutation, the meta
device, dropout under ``torch.manual_seed``, parameters, lazy layers and D2L state dicts.

What every framework shares is in ``tests/library/test_attention_layers.py``."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from d2l_lib import torch as d2l

D2L_ADDITIVE_KEYS = {"W_k.weight", "W_q.weight", "w_v.weight"}


def _chapter_data(seed: int = 0):
    """The chapter's example: one query per example, ten key-value pairs, lengths 2 and 6."""
    torch.manual_seed(seed)
    queries = d2l.normal(0, 1, (2, 1, 2))
    keys = d2l.normal(0, 1, (2, 10, 2))
    values = d2l.normal(0, 1, (2, 10, 4))
    return queries, keys, values, d2l.tensor([2, 6])


# ------------------------------------------------------------------ DotProductAttention


def test_dot_product_does_not_mutate_its_inputs():
    queries, keys, values, valid_lens = _chapter_data()
    before = [t.clone() for t in (queries, keys, values, valid_lens)]
    d2l.DotProductAttention(dropout=0.5)(queries, keys, values, valid_lens)
    assert all(torch.equal(a, b) for a, b in zip((queries, keys, values, valid_lens), before))


def test_dot_product_has_no_parameters_and_backpropagates():
    attention = d2l.DotProductAttention(dropout=0.1)
    assert isinstance(attention, nn.Module) and attention.state_dict() == {}
    queries, keys, values = (torch.randn(2, n, 3, requires_grad=True) for n in (4, 5, 5))
    attention(queries, keys, values, torch.tensor([0, 3])).sum().backward()
    for t in (queries, keys, values):
        assert t.grad is not None and torch.isfinite(t.grad).all()
    assert (keys.grad[0] == 0).all() and (values.grad[0] == 0).all()  # length 0: no key is used
    assert (keys.grad[1, 3:] == 0).all() and (values.grad[1, 3:] == 0).all()


def test_dot_product_on_the_meta_device():
    """No hidden CPU tensors: the layer runs (shape inference) on the meta device."""
    queries, keys, values = (torch.empty(2, n, m, device="meta") for n, m in ((3, 8), (5, 8), (5, 4)))
    attention = d2l.DotProductAttention(dropout=0.0)
    out = attention(queries, keys, values)
    assert out.device.type == "meta" and out.shape == (2, 3, 4)
    assert attention.attention_weights.device.type == "meta" and attention.attention_weights.shape == (2, 3, 5)


# ------------------------------------------------------------------ dropout (both layers)
@pytest.mark.parametrize(
    "make",
    [lambda p: d2l.DotProductAttention(dropout=p), lambda p: d2l.AdditiveAttention(num_hiddens=8, dropout=p)],
    ids=["dot", "additive"],
)
def test_dropout_acts_in_training_mode_only(make):
    gen = torch.Generator().manual_seed(5)
    queries, keys, values = (torch.randn(4, n, 6, generator=gen) for n in (8, 16, 16))
    lens = torch.tensor([16, 12, 9, 16])
    attention = make(0.5)
    attention(queries, keys, values, lens)  # sizes the lazy layers, if any
    no_dropout = make(0.0)
    no_dropout.load_state_dict(attention.state_dict())

    attention.eval()
    evaluated = attention(queries, keys, values, lens)
    assert torch.equal(attention(queries, keys, values, lens), evaluated)  # deterministic
    torch.testing.assert_close(evaluated, no_dropout.train()(queries, keys, values, lens), rtol=0, atol=0)

    attention.train()
    torch.manual_seed(11)
    trained = attention(queries, keys, values, lens)
    weights = attention.attention_weights
    torch.manual_seed(11)
    assert torch.equal(attention(queries, keys, values, lens), trained)  # seeded: reproducible
    assert not torch.allclose(trained, evaluated)  # 0.5 dropout on ~400 weights changes the output
    torch.testing.assert_close(weights.sum(-1), torch.ones(4, 8))  # kept weights are before dropout
    torch.manual_seed(11)
    dropped = nn.functional.dropout(weights, p=0.5, training=True)
    torch.testing.assert_close(trained, torch.bmm(dropped, values))  # dropout acts on the weights


# ------------------------------------------------------------------ AdditiveAttention
def _additive_by_hand(queries, keys, values, lens, W_q, W_k, w_v, reference_masked_softmax):
    """Scores w_v . tanh(W_q q + W_k k) of every query-key pair at once, in float64."""
    features = torch.tanh((queries @ W_q.T).unsqueeze(2) + (keys @ W_k.T).unsqueeze(1))
    weights = reference_masked_softmax(features @ w_v, lens)
    return weights, weights @ values


def test_additive_parameter_names_and_shapes():
    attention = d2l.AdditiveAttention(num_hiddens=8, dropout=0.1)
    assert {name for name, _ in attention.named_parameters()} == D2L_ADDITIVE_KEYS
    assert all(isinstance(layer, nn.LazyLinear) for layer in (attention.W_q, attention.W_k, attention.w_v))
    queries, keys, values, valid_lens = _chapter_data()
    queries = d2l.normal(0, 1, (2, 1, 20))
    attention(queries, keys, values, valid_lens)
    shapes = {name: tuple(p.shape) for name, p in attention.named_parameters()}
    assert shapes == {"W_q.weight": (8, 20), "W_k.weight": (8, 2), "w_v.weight": (1, 8)}  # no biases
    assert set(attention.state_dict()) == D2L_ADDITIVE_KEYS


def test_a_d2l_state_dict_loads_into_a_fresh_additive_attention(reference_masked_softmax):
    """A state dict saved from D2L's AdditiveAttention (keys W_k.weight, W_q.weight,
    w_v.weight) loads strictly into the lazy, not yet sized layers and gives D2L's result."""
    gen = torch.Generator().manual_seed(7)
    d2l_state = {
        "W_k.weight": torch.randn(8, 2, generator=gen),
        "W_q.weight": torch.randn(8, 20, generator=gen),
        "w_v.weight": torch.randn(1, 8, generator=gen),
    }
    attention = d2l.AdditiveAttention(num_hiddens=8, dropout=0.1)
    result = attention.load_state_dict(d2l_state, strict=True)
    assert not result.missing_keys and not result.unexpected_keys
    attention.eval()
    queries, keys, values, valid_lens = _chapter_data()
    queries = d2l.normal(0, 1, (2, 1, 20))
    out = attention(queries, keys, values, valid_lens)
    weights, expected = _additive_by_hand(
        queries.double(),
        keys.double(),
        values.double(),
        valid_lens,
        d2l_state["W_q.weight"].double(),
        d2l_state["W_k.weight"].double(),
        d2l_state["w_v.weight"][0].double(),
        reference_masked_softmax,
    )
    torch.testing.assert_close(out.double(), expected, rtol=1e-5, atol=1e-6)
    for name, tensor in attention.state_dict().items():
        assert torch.equal(tensor, d2l_state[name])


def test_additive_state_dict_round_trip():
    queries, keys, values, valid_lens = _chapter_data()
    first = d2l.AdditiveAttention(num_hiddens=8, dropout=0.1).eval()
    out = first(queries, keys, values, valid_lens)
    second = d2l.AdditiveAttention(num_hiddens=8, dropout=0.1).eval()
    second.load_state_dict(first.state_dict())
    assert torch.equal(second(queries, keys, values, valid_lens), out)


def test_additive_does_not_mutate_its_inputs_and_backpropagates():
    queries, keys, values = (torch.randn(2, n, m, requires_grad=True) for n, m in ((3, 5), (4, 2), (4, 3)))
    before = [t.detach().clone() for t in (queries, keys, values)]
    attention = d2l.AdditiveAttention(num_hiddens=6, dropout=0.2)
    attention(queries, keys, values, torch.tensor([1, 3])).sum().backward()
    assert all(torch.equal(t.detach(), b) for t, b in zip((queries, keys, values), before))
    assert all(torch.isfinite(p.grad).all() for p in attention.parameters())
    assert (keys.grad[0, 1:] == 0).all() and (values.grad[1, 3:] == 0).all()
