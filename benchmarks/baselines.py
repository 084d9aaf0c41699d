"""The baselines the library is timed against, written out so a reader sees what each does.

* ``d2l_masked_softmax``: D2L's masked softmax, as D2L computes it (it writes into its argument).
* ``D2LStyleAdditiveAttention``: D2L's additive attention layer.
* ``LayerBeforeIssue27``: the library's ``DotProductAttention`` before issue 27.
* ``sdpa``, ``sdpa_fused``, ``sdpa_mask_inside``: direct calls of
  ``torch.nn.functional.scaled_dot_product_attention`` (SDPA) on 3-D tensors, on 4-D one-head
  views with a mask built before timing, and on 4-D views with the mask built in the call.
"""

from __future__ import annotations

import math

import torch
from torch import nn


def d2l_masked_softmax(X: torch.Tensor, valid_lens: torch.Tensor | None) -> torch.Tensor:
    """BASELINE: D2L's masked softmax, as D2L computes it. It writes into ``X``.

    The scores are viewed as a 2-D (batch * queries, keys) matrix; one length per example
    is repeated once per query; a float ``arange`` compared with the lengths marks the
    keys to keep, and every other score of the view (and so of ``X``) is set to -1e6 by
    boolean indexing before the softmax. Rows of length 0 are spread evenly over their
    keys, and there are no argument checks.
    """
    if valid_lens is None:
        return nn.functional.softmax(X, dim=-1)
    shape = X.shape
    if valid_lens.dim() == 1:
        lens = torch.repeat_interleave(valid_lens, shape[1])
    else:
        lens = valid_lens.reshape(-1)
    rows = X.reshape(-1, shape[-1])  # a view of X
    keep = torch.arange(shape[-1], dtype=torch.float32, device=X.device)[None, :] < lens[:, None]
    rows[~keep] = -1e6
    return nn.functional.softmax(rows.reshape(shape), dim=-1)


class D2LStyleAdditiveAttention(nn.Module):
    """BASELINE: D2L's additive attention layer; the parameters are named as in the library's.

    Projects queries and keys, adds every pair by broadcasting, applies ``torch.tanh``
    (a new tensor), scores with ``w_v`` and normalizes with ``d2l_masked_softmax``.
    """

    def __init__(self, num_hiddens: int, dropout: float):
        super().__init__()
        self.W_k = nn.LazyLinear(num_hiddens, bias=False)
        self.W_q = nn.LazyLinear(num_hiddens, bias=False)
        self.w_v = nn.LazyLinear(1, bias=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens=None):
        queries, keys = self.W_q(queries), self.W_k(keys)
        features = torch.tanh(queries.unsqueeze(2) + keys.unsqueeze(1))
        scores = self.w_v(features).squeeze(-1)
        self.attention_weights = d2l_masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)


class LayerBeforeIssue27(nn.Module):
    """BASELINE: ``DotProductAttention`` as the library wrote it before issue 27.

    Every call computes the scores and the masked softmax (the library's own, in place) and
    keeps the weights in a plain attribute; the output is their product with the values.
    """

    def __init__(self, dropout: float):
        super().__init__()
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens=None):
        from d2l_lib import torch as d2l

        d2l._check_attention_inputs(queries, keys, values, same_length=True)
        scores = torch.bmm(queries / math.sqrt(queries.shape[-1]), keys.transpose(1, 2))
        self.attention_weights = d2l._masked_softmax(scores, valid_lens, overwrite=True)
        return torch.bmm(self.dropout(self.attention_weights), values)


def attention_mask(valid_lens: torch.Tensor, num_keys: int) -> torch.Tensor:
    """The boolean mask (True = attend) equivalent to ``valid_lens``, in its smallest shape:
    (batch, 1, keys) for one length per example, (batch, queries, keys) for one per query."""
    return torch.arange(num_keys, device=valid_lens.device) < valid_lens.reshape(valid_lens.shape[0], -1, 1)


def sdpa(
    queries: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, mask: torch.Tensor | None = None
) -> torch.Tensor:
    """BASELINE: SDPA on the 3-D tensors (on CPU: its unfused path, which computes the weights)."""
    return nn.functional.scaled_dot_product_attention(queries, keys, values, attn_mask=mask)


def sdpa_fused(
    queries: torch.Tensor,
    keys: torch.Tensor,
    values: torch.Tensor,
    mask: torch.Tensor | None = None,
    dropout_p: float = 0.0,
) -> torch.Tensor:
    """BASELINE: SDPA on 4-D one-head views (``x.unsqueeze(1)``), which on CPU runs the fused
    (flash) kernel, with the 3-D mask of ``attention_mask`` and dropout ``dropout_p``."""
    mask = None if mask is None else mask.unsqueeze(1)
    out = nn.functional.scaled_dot_product_attention(
        queries.unsqueeze(1), keys.unsqueeze(1), values.unsqueeze(1), attn_mask=mask, dropout_p=dropout_p
    )
    return out.squeeze(1)


def sdpa_mask_inside(
    queries: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, valid_lens: torch.Tensor
) -> torch.Tensor:
    """BASELINE: SDPA on 4-D one-head tensors (batch, 1, n, d) whose (batch, 1, 1, m) boolean
    mask is built from one length per example in the call (``arange < lens``), as the layer must."""
    mask = torch.arange(keys.shape[-2], device=valid_lens.device) < valid_lens.reshape(-1, 1, 1, 1)
    return nn.functional.scaled_dot_product_attention(queries, keys, values, attn_mask=mask)
