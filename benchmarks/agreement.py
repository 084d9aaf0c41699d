"""Refuse to time things that do not compute the same result: the library against each baseline."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from types import ModuleType

import torch

from .baselines import (
    D2LStyleAdditiveAttention,
    LayerBeforeIssue27,
    attention_mask,
    d2l_masked_softmax,
    sdpa,
    sdpa_fused,
)


def gradients(layer: Callable[..., torch.Tensor], *inputs: torch.Tensor) -> list[torch.Tensor]:
    """The gradients of ``layer(*inputs).sum()`` with respect to (copies of) ``inputs``."""
    copies = [t.detach().clone().requires_grad_() for t in inputs]
    layer(*copies).sum().backward()
    return [t.grad for t in copies]  # type: ignore[misc]


def check_agreement(d2l: ModuleType) -> None:
    """Raise if the library and the baselines disagree (outputs, weights, gradients) on small inputs."""
    gen = torch.Generator().manual_seed(1)
    X = torch.rand(3, 4, 7, generator=gen)
    for lens in (torch.tensor([1, 7, 3]), torch.tensor([[1, 2, 3, 4], [7, 6, 5, 4], [2, 2, 9, 1]])):
        torch.testing.assert_close(d2l.masked_softmax(X, lens), d2l_masked_softmax(X.clone(), lens))
        q, k, v = (torch.randn(3, n, 8, generator=gen) for n in (4, 7, 7))
        attention = d2l.DotProductAttention(dropout=0.5).eval()
        mask = attention_mask(lens, 7)
        torch.testing.assert_close(attention(q, k, v, lens), sdpa(q, k, v, mask))
        torch.testing.assert_close(attention(q, k, v, lens), sdpa_fused(q, k, v, mask))
        before = LayerBeforeIssue27(dropout=0.5).eval()
        torch.testing.assert_close(attention(q, k, v, lens), before(q, k, v, lens))
        torch.testing.assert_close(attention.attention_weights, before.attention_weights, rtol=0, atol=0)
        for ours, theirs in zip(
            gradients(partial(attention, valid_lens=lens), q, k, v), gradients(partial(sdpa, mask=mask), q, k, v)
        ):
            torch.testing.assert_close(ours, theirs)
        additive = d2l.AdditiveAttention(num_hiddens=5, dropout=0.5).eval()
        q6 = torch.randn(3, 4, 6, generator=gen)
        expected = additive(q6, k, v, lens)
        baseline = D2LStyleAdditiveAttention(num_hiddens=5, dropout=0.5).eval()
        baseline(q6, k, v, lens)  # sizes the lazy layers
        baseline.load_state_dict(additive.state_dict())
        torch.testing.assert_close(baseline(q6, k, v, lens), expected)


def check_training_agreement(
    d2l: ModuleType,
    queries: torch.Tensor,
    keys: torch.Tensor,
    values: torch.Tensor,
    lens: torch.Tensor,
    tolerance: float | None = None,
) -> None:
    """Raise if ``d2l.DotProductAttention(0)`` in ``train()`` mode and SDPA on one-head views with
    the same mask differ in output or gradients on the examples whose length is not 0 (a kernel
    may give such an example NaN where the layer gives 0). ``tolerance``: rtol and atol, scaled
    by each gradient's largest entry; None: ``assert_close``'s defaults for the dtype."""
    layer = d2l.DotProductAttention(dropout=0.0).train()
    mask = attention_mask(lens, keys.shape[1])
    kept = lens.reshape(lens.shape[0], -1).amin(dim=1) > 0
    sides = []
    for fn in (partial(layer, valid_lens=lens), partial(sdpa_fused, mask=mask)):
        inputs = [t.detach().clone().requires_grad_() for t in (queries, keys, values)]
        out = fn(*inputs)
        out.float().sum().backward()
        sides.append([out.detach()] + [t.grad for t in inputs])
    for ours, theirs in zip(*sides):
        ours, theirs = ours[kept].float(), theirs[kept].float()
        if tolerance is None:
            torch.testing.assert_close(ours, theirs)
        else:
            scale = max(float(theirs.abs().max()), 1.0)
            torch.testing.assert_close(ours, theirs, rtol=tolerance, atol=tolerance * scale)
