"""Answers to the exercises in PyTorch, as readers write them: right ones by other routes, and mistakes."""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from d2l_lib import torch as d2l


def _mask(X, valid_lens, compare=torch.lt):
    """(batch, queries, keys) bool: key j valid when j < its query's length."""
    lens = valid_lens if valid_lens.dim() == 2 else valid_lens[:, None].expand(-1, X.shape[1])
    return compare(torch.arange(X.shape[-1], device=X.device), lens[..., None])


# masked-softmax -------------------------------------------------------------------------------


def softmax_by_where(X, valid_lens):
    """Right: torch.where with the lowest finite number of X's dtype, zeros where nothing is valid."""
    if valid_lens is None:
        return F.softmax(X, dim=-1)
    mask = _mask(X, valid_lens)
    scores = torch.where(mask, X, torch.finfo(X.dtype).min)
    return torch.where(mask, F.softmax(scores, dim=-1), torch.zeros((), dtype=X.dtype))


def softmax_by_adding(X, valid_lens):
    """Right: the exercise's route, adding a large negative number to the padded scores."""
    if valid_lens is None:
        return F.softmax(X, dim=-1)
    mask = _mask(X, valid_lens)
    big = torch.tensor(torch.finfo(X.dtype).min / 2, dtype=X.dtype)
    return F.softmax(X + (~mask) * big, dim=-1) * mask


def fill_minus_10(X, valid_lens):
    if valid_lens is None:
        return F.softmax(X, dim=-1)
    mask = _mask(X, valid_lens)
    return F.softmax(X - 10 * (~mask).to(X.dtype), dim=-1) * mask.any(-1, keepdim=True)


def less_or_equal(X, valid_lens):
    if valid_lens is None:
        return F.softmax(X, dim=-1)
    mask = _mask(X, valid_lens, torch.le)
    return F.softmax(X.masked_fill(~mask, -1e4), dim=-1) * mask


def over_queries(X, valid_lens):
    mask = torch.ones_like(X, dtype=torch.bool) if valid_lens is None else _mask(X, valid_lens)
    return F.softmax(X.masked_fill(~mask, -1e4), dim=1) * mask


def in_place(X, valid_lens):
    if valid_lens is None:
        return F.softmax(X, dim=-1)
    mask = _mask(X, valid_lens)
    X[~mask] = -1e4
    return F.softmax(X, dim=-1) * mask


def promoted(X, valid_lens):
    if valid_lens is None:
        return F.softmax(X, dim=-1)
    mask = _mask(X, valid_lens)
    return F.softmax(X - 1e4 * (~mask).float(), dim=-1) * mask


def nan_for_zero(X, valid_lens):
    if valid_lens is None:
        return F.softmax(X, dim=-1)
    return F.softmax(X.masked_fill(~_mask(X, valid_lens), float("-inf")), dim=-1)


def uniform_for_zero(X, valid_lens):
    if valid_lens is None:
        return F.softmax(X, dim=-1)
    return F.softmax(X.masked_fill(~_mask(X, valid_lens), -1e4), dim=-1)


def first_length_only(X, valid_lens):
    if valid_lens is None:
        return F.softmax(X, dim=-1)
    lens = valid_lens if valid_lens.dim() == 1 else valid_lens[:, 0]
    mask = torch.arange(X.shape[-1])[None, None, :] < lens[:, None, None]
    return F.softmax(X.masked_fill(~mask, -1e4), dim=-1) * mask


def overflowing(X, valid_lens):
    if valid_lens is None:
        return F.softmax(X, dim=-1)
    mask = _mask(X, valid_lens)
    return F.softmax(X + (~mask).to(X.dtype) * -1e9, dim=-1) * mask


def softmax_numpy(X, valid_lens):
    """Returns a NumPy array."""
    return softmax_by_where(X, valid_lens).numpy()


def softmax_list(X, valid_lens):
    """Returns a list."""
    return softmax_by_where(X, valid_lens).tolist()


def softmax_shape_error(X, valid_lens):
    """Multiplies by a mask of the wrong shape: PyTorch raises deep inside."""
    return F.softmax(X, dim=-1) * torch.ones(X.shape[-1] + 1)


def softmax_stub(X, valid_lens):
    raise NotImplementedError


def softmax_ellipsis(X, valid_lens): ...


# distance-attention ---------------------------------------------------------------------------


class _Scores(d2l.DotProductAttention):
    """A reader's layer: D2L's dot product attention with scores of its own (``scores``)."""

    def scores(self, queries, keys):
        raise NotImplementedError

    def weights(self, scores, valid_lens):
        return d2l.masked_softmax(scores, valid_lens)

    def forward(self, queries, keys, values, valid_lens=None):
        self.attention_weights = self.weights(self.scores(queries, keys), valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)


class DistanceExplicit(_Scores):
    """Right: -||q - k||^2 / (2 sqrt(d)) with the distances computed in full."""

    def scores(self, queries, keys):
        distances = ((queries.unsqueeze(2) - keys.unsqueeze(1)) ** 2).sum(-1)
        return -distances / (2 * math.sqrt(queries.shape[-1]))


class DistanceCdist(_Scores):
    """Right: torch.cdist gives the distances."""

    def scores(self, queries, keys):
        return -(torch.cdist(queries, keys) ** 2) / (2 * math.sqrt(queries.shape[-1]))


class DistanceNoHalf(_Scores):
    def scores(self, queries, keys):
        norms = (keys**2).sum(-1).unsqueeze(1)
        return (torch.bmm(queries, keys.transpose(1, 2)) - norms) / math.sqrt(queries.shape[-1])


class DistanceNoScale(_Scores):
    def scores(self, queries, keys):
        return torch.bmm(queries, keys.transpose(1, 2)) - 0.5 * (keys**2).sum(-1).unsqueeze(1)


class DistanceWrongSign(_Scores):
    def scores(self, queries, keys):
        norms = 0.5 * (keys**2).sum(-1).unsqueeze(1)
        return (torch.bmm(queries, keys.transpose(1, 2)) + norms) / math.sqrt(queries.shape[-1])


class DistanceByD(_Scores):
    def scores(self, queries, keys):
        norms = 0.5 * (keys**2).sum(-1).unsqueeze(1)
        return (torch.bmm(queries, keys.transpose(1, 2)) - norms) / queries.shape[-1]


class DistanceDropoutAlways(DistanceExplicit):
    def forward(self, queries, keys, values, valid_lens=None):
        self.attention_weights = d2l.masked_softmax(self.scores(queries, keys), valid_lens)
        return torch.bmm(F.dropout(self.attention_weights, 0.5), values)


class DistanceUnmasked(DistanceExplicit):
    def weights(self, scores, valid_lens):
        return F.softmax(scores, dim=-1)


class DistanceInPlace(DistanceExplicit):
    def scores(self, queries, keys):
        queries /= math.sqrt(math.sqrt(queries.shape[-1]))
        keys /= math.sqrt(math.sqrt(queries.shape[-1]))
        return -(torch.cdist(queries, keys) ** 2) / 2


class DistanceNoAttribute(nn.Module):
    """Returns the right output and keeps the weights in a local variable only."""

    def __init__(self, dropout):
        super().__init__()
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens=None):
        weights = d2l.masked_softmax(DistanceExplicit.scores(self, queries, keys), valid_lens)
        return torch.bmm(self.dropout(weights), values)


class DistanceStub(d2l.DotProductAttention):
    def forward(self, queries, keys, values, valid_lens=None):
        raise NotImplementedError


class DistanceEllipsis(d2l.DotProductAttention):
    def forward(self, queries, keys, values, valid_lens=None): ...


class DistanceShapeError(_Scores):
    """Multiplies queries by keys without transposing them."""

    def scores(self, queries, keys):
        return torch.bmm(queries, keys)


def distance_function(queries, keys, values, valid_lens=None):
    """A function where a class is asked for."""
    return d2l.DistanceAttention(0.5).eval()(queries, keys, values, valid_lens)


# bilinear-attention ---------------------------------------------------------------------------


class BilinearOnQueries(nn.Module):
    """Right: M^T applied to the queries, M a parameter of shape (query_size, key_size)."""

    def __init__(self, query_size, key_size, dropout):
        super().__init__()
        self.query_size, self.key_size = query_size, key_size
        self.M = nn.Parameter(torch.randn(query_size, key_size) * 0.1)
        self.dropout = nn.Dropout(dropout)

    def check(self, queries, keys):
        if queries.shape[-1] != self.query_size or keys.shape[-1] != self.key_size:
            raise ValueError(f"queries of length {self.query_size} and keys of length {self.key_size} expected")

    def forward(self, queries, keys, values, valid_lens=None):
        self.check(queries, keys)
        scores = torch.bmm(queries @ self.M, keys.transpose(1, 2)) / math.sqrt(self.query_size)
        self.attention_weights = d2l.masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)


class _BilinearScale(BilinearOnQueries):
    scale = 1.0

    def forward(self, queries, keys, values, valid_lens=None):
        self.check(queries, keys)
        scores = torch.bmm(queries @ self.M, keys.transpose(1, 2)) / self.scale
        self.attention_weights = d2l.masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)


class BilinearByKeySize(_BilinearScale):
    scale = math.sqrt(2)  # sqrt(key_size) for the check's key_size=2


class BilinearUnscaled(_BilinearScale):
    scale = 1.0


class BilinearWithBias(d2l.DotProductAttention):
    def __init__(self, query_size, key_size, dropout):
        super().__init__(dropout)
        self.M = nn.Linear(key_size, query_size)

    def forward(self, queries, keys, values, valid_lens=None):
        return super().forward(queries, self.M(keys), values, valid_lens)


class BilinearUnchecked(d2l.DotProductAttention):
    def __init__(self, query_size, key_size, dropout):
        super().__init__(dropout)
        self.M = nn.Linear(key_size, query_size, bias=False)

    def forward(self, queries, keys, values, valid_lens=None):
        return super().forward(queries, self.M(keys), values, valid_lens)


class BilinearUnmasked(BilinearOnQueries):
    def forward(self, queries, keys, values, valid_lens=None):
        self.check(queries, keys)
        scores = torch.bmm(queries @ self.M, keys.transpose(1, 2)) / math.sqrt(self.query_size)
        self.attention_weights = F.softmax(scores, dim=-1)
        return torch.bmm(self.dropout(self.attention_weights), values)


class BilinearStub(nn.Module):
    def __init__(self, query_size, key_size, dropout):
        super().__init__()

    def forward(self, queries, keys, values, valid_lens=None):
        raise NotImplementedError


class BilinearShapeError(d2l.DotProductAttention):
    """Maps the queries instead of the keys: PyTorch raises inside the linear layer."""

    def __init__(self, query_size, key_size, dropout):
        super().__init__(dropout)
        self.M = nn.Linear(key_size, query_size, bias=False)

    def forward(self, queries, keys, values, valid_lens=None):
        return super().forward(self.M(queries), keys, values, valid_lens)


class BilinearEllipsis(BilinearStub):
    def forward(self, queries, keys, values, valid_lens=None): ...


class BilinearPositional(d2l.BilinearAttention):
    """Takes its sizes in another order and by other names: D2L's call cannot construct it."""

    def __init__(self, q_dim, k_dim, p):
        super().__init__(q_dim, k_dim, p)


def never_masks(X, valid_lens):
    """A softmax that ignores the valid lengths altogether."""
    return F.softmax(X, dim=-1)


ANSWERS = {
    "masked-softmax": {
        "right": [softmax_by_where, softmax_by_adding],
        "mistakes": {
            "fill_minus_10": fill_minus_10,
            "less_or_equal": less_or_equal,
            "over_queries": over_queries,
            "in_place": in_place,
            "promoted": promoted,
            "nan_for_zero": nan_for_zero,
            "uniform_for_zero": uniform_for_zero,
            "first_length_only": first_length_only,
            "never_masks": never_masks,
            "overflowing": overflowing,
        },
        "stub": softmax_stub,
        "ellipsis": softmax_ellipsis,
        "raises": softmax_shape_error,
        "wrong_types": {"numpy": softmax_numpy, "list": softmax_list, "class": nn.Softmax},
    },
    "distance-attention": {
        "right": [DistanceExplicit, DistanceCdist],
        "mistakes": {
            "no_half": DistanceNoHalf,
            "no_scale": DistanceNoScale,
            "wrong_sign": DistanceWrongSign,
            "by_d": DistanceByD,
            "dropout_in_eval": DistanceDropoutAlways,
            "unmasked": DistanceUnmasked,
            "in_place": DistanceInPlace,
            "no_attribute": DistanceNoAttribute,
        },
        "stub": DistanceStub,
        "ellipsis": DistanceEllipsis,
        "raises": DistanceShapeError,
        "wrong_types": {"instance": DistanceExplicit(0.5), "function": distance_function, "array": np.zeros(3)},
    },
    "bilinear-attention": {
        "right": [BilinearOnQueries],
        "mistakes": {
            "by_key_size": BilinearByKeySize,
            "unscaled": BilinearUnscaled,
            "with_bias": BilinearWithBias,
            "unchecked": BilinearUnchecked,
            "unmasked": BilinearUnmasked,
            "other_arguments": BilinearPositional,
        },
        "stub": BilinearStub,
        "ellipsis": BilinearEllipsis,
        "raises": BilinearShapeError,
        "wrong_types": {"instance": d2l.BilinearAttention(20, 2, 0.1), "function": distance_function},
    },
}
