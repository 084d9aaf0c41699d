"""Answers to the exercises in JAX (Flax linen), as readers write them: right ones by other routes, and mistakes."""

from __future__ import annotations

import math

import jax
import numpy as np
from flax import linen as nn
from jax import numpy as jnp

from d2l_lib import jax as d2l


def _mask(X, valid_lens, compare=jnp.less):
    """(batch, queries, keys) bool: key j valid when j < its query's length."""
    lens = valid_lens if valid_lens.ndim == 2 else jnp.broadcast_to(valid_lens[:, None], X.shape[:2])
    return compare(jnp.arange(X.shape[-1]), lens[..., None])


# masked-softmax -------------------------------------------------------------------------------


def softmax_by_where(X, valid_lens):
    """Right: jnp.where with the lowest finite number of X's dtype, zeros where nothing is valid."""
    if valid_lens is None:
        return jax.nn.softmax(X, axis=-1)
    mask = _mask(X, valid_lens)
    weights = jax.nn.softmax(jnp.where(mask, X, jnp.finfo(X.dtype).min), axis=-1)
    return jnp.where(mask, weights, jnp.zeros((), X.dtype))


def fill_minus_10(X, valid_lens):
    if valid_lens is None:
        return jax.nn.softmax(X, axis=-1)
    mask = _mask(X, valid_lens)
    return jax.nn.softmax(jnp.where(mask, X, X - 10), axis=-1) * mask.any(-1, keepdims=True)


def less_or_equal(X, valid_lens):
    if valid_lens is None:
        return jax.nn.softmax(X, axis=-1)
    mask = _mask(X, valid_lens, jnp.less_equal)
    return jax.nn.softmax(jnp.where(mask, X, -1e4), axis=-1) * mask


def over_queries(X, valid_lens):
    mask = jnp.ones(X.shape, bool) if valid_lens is None else _mask(X, valid_lens)
    return jax.nn.softmax(jnp.where(mask, X, -1e4), axis=1) * mask


def promoted(X, valid_lens):
    if valid_lens is None:
        return jax.nn.softmax(X, axis=-1)
    mask = _mask(X, valid_lens)
    return jax.nn.softmax(X - jnp.float32(1e4) * ~mask, axis=-1) * mask


def nan_for_zero(X, valid_lens):
    if valid_lens is None:
        return jax.nn.softmax(X, axis=-1)
    return jax.nn.softmax(jnp.where(_mask(X, valid_lens), X, -jnp.inf), axis=-1)


def first_length_only(X, valid_lens):
    if valid_lens is None:
        return jax.nn.softmax(X, axis=-1)
    lens = valid_lens if valid_lens.ndim == 1 else valid_lens[:, 0]
    mask = jnp.arange(X.shape[-1])[None, None, :] < lens[:, None, None]
    return jax.nn.softmax(jnp.where(mask, X, -1e4), axis=-1) * mask


def softmax_numpy(X, valid_lens):
    """Returns a NumPy array."""
    return np.asarray(softmax_by_where(X, valid_lens))


def softmax_list(X, valid_lens):
    """Returns a list."""
    return softmax_by_where(X, valid_lens).tolist()


def softmax_shape_error(X, valid_lens):
    """Multiplies by a mask of the wrong shape: JAX raises deep inside."""
    return jax.nn.softmax(X, axis=-1) * jnp.ones(X.shape[-1] + 1)


def softmax_stub(X, valid_lens):
    raise NotImplementedError


def softmax_ellipsis(X, valid_lens): ...


# distance-attention ---------------------------------------------------------------------------


def _explicit(queries, keys):
    distances = jnp.sum((queries[:, :, None, :] - keys[:, None, :, :]) ** 2, axis=-1)
    return -distances / (2 * math.sqrt(queries.shape[-1]))


def _expanded(queries, keys, half=0.5, scale=None, sign=-1.0):
    norms = half * jnp.sum(keys**2, axis=-1)[:, None, :]
    scale = math.sqrt(queries.shape[-1]) if scale is None else scale
    return (jnp.matmul(queries, jnp.swapaxes(keys, 1, 2)) + sign * norms) / scale


class _Scores(d2l.DotProductAttention):
    """A reader's layer: D2L's dot product attention with scores of its own."""

    def scores(self, queries, keys):
        return _explicit(queries, keys)

    def weights(self, scores, valid_lens):
        return d2l.masked_softmax(scores, valid_lens)

    @nn.compact
    def __call__(self, queries, keys, values, valid_lens=None, training=False):
        weights = self.weights(self.scores(queries, keys), valid_lens)
        dropped = nn.Dropout(self.dropout, deterministic=not training)(weights)
        return jnp.matmul(dropped, values), weights


class DistanceExplicit(_Scores):
    """Right: -||q - k||^2 / (2 sqrt(d)) with the distances computed in full."""


class DistanceNoHalf(_Scores):
    def scores(self, queries, keys):
        return _expanded(queries, keys, half=1.0)


class DistanceNoScale(_Scores):
    def scores(self, queries, keys):
        return _expanded(queries, keys, scale=1.0)


class DistanceWrongSign(_Scores):
    def scores(self, queries, keys):
        return _expanded(queries, keys, sign=1.0)


class DistanceUnmasked(_Scores):
    def weights(self, scores, valid_lens):
        return jax.nn.softmax(scores, axis=-1)


class DistanceDropoutAlways(_Scores):
    """Applies dropout whatever ``training`` says (with a fixed key, as readers do to make it run)."""

    @nn.compact
    def __call__(self, queries, keys, values, valid_lens=None, training=False):
        weights = self.weights(self.scores(queries, keys), valid_lens)
        keep = jax.random.bernoulli(jax.random.key(len(values)), 0.5, weights.shape)
        return jnp.matmul(jnp.where(keep, weights / 0.5, 0.0), values), weights


class DistanceOutputOnly(_Scores):
    """Returns the output alone, as PyTorch's layers do."""

    @nn.compact
    def __call__(self, queries, keys, values, valid_lens=None, training=False):
        return super().__call__(queries, keys, values, valid_lens, training)[0]


class DistanceStub(d2l.DotProductAttention):
    @nn.compact
    def __call__(self, queries, keys, values, valid_lens=None, training=False):
        raise NotImplementedError


class DistanceEllipsis(d2l.DotProductAttention):
    @nn.compact
    def __call__(self, queries, keys, values, valid_lens=None, training=False): ...


class DistanceShapeError(_Scores):
    """Multiplies queries by keys without transposing them."""

    def scores(self, queries, keys):
        return jnp.matmul(queries, keys)


def distance_function(queries, keys, values, valid_lens=None):
    """A function where a class is asked for."""
    return d2l.DistanceAttention(0.5).apply({}, queries, keys, values, valid_lens)


# bilinear-attention ---------------------------------------------------------------------------


class BilinearOnQueries(d2l.DotProductAttention):
    """Right: M^T applied to the queries, M a parameter of shape (query_size, key_size)."""

    query_size: int = 0
    key_size: int = 0
    scale: float | None = None  # None: sqrt(query_size)
    masked: bool = True

    @nn.compact
    def __call__(self, queries, keys, values, valid_lens=None, training=False):
        if queries.shape[-1] != self.query_size or keys.shape[-1] != self.key_size:
            raise ValueError(f"queries of length {self.query_size} and keys of length {self.key_size} expected")
        M = self.param("M", nn.initializers.normal(0.1), (self.query_size, self.key_size))
        scale = math.sqrt(self.query_size) if self.scale is None else self.scale
        scores = jnp.matmul(queries @ M, jnp.swapaxes(keys, 1, 2)) / scale
        weights = d2l.masked_softmax(scores, valid_lens) if self.masked else jax.nn.softmax(scores, axis=-1)
        dropped = nn.Dropout(self.dropout, deterministic=not training)(weights)
        return jnp.matmul(dropped, values), weights


class BilinearByKeySize(BilinearOnQueries):
    scale: float | None = math.sqrt(2)  # sqrt(key_size) for the check's key_size=2


class BilinearUnscaled(BilinearOnQueries):
    scale: float | None = 1.0


class BilinearUnmasked(BilinearOnQueries):
    masked: bool = False


class BilinearWithBias(d2l.DotProductAttention):
    query_size: int = 0
    key_size: int = 0

    @nn.compact
    def __call__(self, queries, keys, values, valid_lens=None, training=False):
        return super().__call__(queries, nn.Dense(self.query_size)(keys), values, valid_lens, training)


class BilinearUnchecked(d2l.DotProductAttention):
    query_size: int = 0
    key_size: int = 0

    @nn.compact
    def __call__(self, queries, keys, values, valid_lens=None, training=False):
        M = self.param("M", nn.initializers.normal(0.1), (self.key_size, self.query_size))
        return super().__call__(queries, keys @ M, values, valid_lens, training)


class BilinearStub(d2l.DotProductAttention):
    query_size: int = 0
    key_size: int = 0

    @nn.compact
    def __call__(self, queries, keys, values, valid_lens=None, training=False):
        raise NotImplementedError


class BilinearEllipsis(BilinearStub):
    @nn.compact
    def __call__(self, queries, keys, values, valid_lens=None, training=False): ...


class BilinearShapeError(BilinearUnchecked):
    """Maps the queries instead of the keys: the product's shapes do not fit."""

    @nn.compact
    def __call__(self, queries, keys, values, valid_lens=None, training=False):
        M = self.param("M", nn.initializers.normal(0.1), (self.key_size, self.query_size))
        return d2l.DotProductAttention.__call__(self, queries @ M, keys, values, valid_lens, training)


def never_masks(X, valid_lens):
    """A softmax that ignores the valid lengths altogether."""
    return jax.nn.softmax(X, axis=-1)


ANSWERS = {
    "masked-softmax": {
        "right": [softmax_by_where],
        "mistakes": {
            "fill_minus_10": fill_minus_10,
            "less_or_equal": less_or_equal,
            "over_queries": over_queries,
            "promoted": promoted,
            "nan_for_zero": nan_for_zero,
            "first_length_only": first_length_only,
            "never_masks": never_masks,
        },
        "stub": softmax_stub,
        "ellipsis": softmax_ellipsis,
        "raises": softmax_shape_error,
        "wrong_types": {"numpy": softmax_numpy, "list": softmax_list, "class": nn.Dense},
    },
    "distance-attention": {
        "right": [DistanceExplicit],
        "mistakes": {
            "no_half": DistanceNoHalf,
            "no_scale": DistanceNoScale,
            "wrong_sign": DistanceWrongSign,
            "dropout_in_eval": DistanceDropoutAlways,
            "unmasked": DistanceUnmasked,
            "output_only": DistanceOutputOnly,
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
        },
        "stub": BilinearStub,
        "ellipsis": BilinearEllipsis,
        "raises": BilinearShapeError,
        "wrong_types": {"instance": d2l.BilinearAttention(0.1, 20, 2), "function": distance_function},
    },
}
