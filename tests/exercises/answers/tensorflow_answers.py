"""Answers to the exercises in TensorFlow (Keras), as readers write them: right ones by other routes, and mistakes."""

from __future__ import annotations

import math

import keras
import numpy as np
import tensorflow as tf

from d2l_lib import tensorflow as d2l


def _mask(X, valid_lens, compare=tf.less):
    """(batch, queries, keys) bool: key j valid when j < its query's length."""
    lens = tf.cast(valid_lens, tf.int32)
    if lens.shape.rank == 1:
        lens = tf.broadcast_to(lens[:, None], tf.shape(X)[:2])
    return compare(tf.range(tf.shape(X)[-1]), lens[..., None])


# masked-softmax -------------------------------------------------------------------------------


def softmax_by_where(X, valid_lens):
    """Right: tf.where with the lowest finite number of X's dtype, zeros where nothing is valid."""
    if valid_lens is None:
        return tf.nn.softmax(X, axis=-1)
    mask = _mask(X, valid_lens)
    weights = tf.nn.softmax(tf.where(mask, X, tf.constant(X.dtype.min, X.dtype)), axis=-1)
    return tf.where(mask, weights, tf.zeros_like(weights))


def fill_minus_10(X, valid_lens):
    if valid_lens is None:
        return tf.nn.softmax(X, axis=-1)
    mask = _mask(X, valid_lens)
    some = tf.cast(tf.reduce_any(mask, axis=-1, keepdims=True), X.dtype)
    return tf.nn.softmax(tf.where(mask, X, X - 10), axis=-1) * some


def less_or_equal(X, valid_lens):
    if valid_lens is None:
        return tf.nn.softmax(X, axis=-1)
    mask = _mask(X, valid_lens, tf.less_equal)
    return tf.nn.softmax(tf.where(mask, X, -1e4 * tf.ones_like(X)), axis=-1) * tf.cast(mask, X.dtype)


def over_queries(X, valid_lens):
    mask = tf.ones_like(X, tf.bool) if valid_lens is None else _mask(X, valid_lens)
    return tf.nn.softmax(tf.where(mask, X, -1e4 * tf.ones_like(X)), axis=1) * tf.cast(mask, X.dtype)


def promoted(X, valid_lens):
    if valid_lens is None:
        return tf.nn.softmax(X, axis=-1)
    mask = tf.cast(_mask(X, valid_lens), tf.float32)
    return tf.nn.softmax(tf.cast(X, tf.float32) - 1e4 * (1 - mask), axis=-1) * mask


def nan_for_zero(X, valid_lens):
    if valid_lens is None:
        return tf.nn.softmax(X, axis=-1)
    return tf.nn.softmax(tf.where(_mask(X, valid_lens), X, -np.inf * tf.ones_like(X)), axis=-1)


def first_length_only(X, valid_lens):
    if valid_lens is None:
        return tf.nn.softmax(X, axis=-1)
    lens = valid_lens if valid_lens.shape.rank == 1 else valid_lens[:, 0]
    mask = tf.range(X.shape[-1])[None, None, :] < tf.cast(lens, tf.int32)[:, None, None]
    return tf.nn.softmax(tf.where(mask, X, -1e4 * tf.ones_like(X)), axis=-1) * tf.cast(mask, X.dtype)


def softmax_numpy(X, valid_lens):
    """Returns a NumPy array."""
    return softmax_by_where(X, valid_lens).numpy()


def softmax_list(X, valid_lens):
    """Returns a list."""
    return softmax_by_where(X, valid_lens).numpy().tolist()


def softmax_shape_error(X, valid_lens):
    """Multiplies by a mask of the wrong shape: TensorFlow raises deep inside."""
    return tf.nn.softmax(X, axis=-1) * tf.ones(X.shape[-1] + 1)


def softmax_stub(X, valid_lens):
    raise NotImplementedError


def softmax_ellipsis(X, valid_lens): ...


# distance-attention ---------------------------------------------------------------------------


class _Scores(d2l.DotProductAttention):
    """A reader's layer: D2L's dot product attention with scores of its own (``scores``)."""

    def scores(self, queries, keys):
        distances = tf.reduce_sum((queries[:, :, None, :] - keys[:, None, :, :]) ** 2, axis=-1)
        return -distances / (2 * math.sqrt(queries.shape[-1]))

    def weights(self, scores, valid_lens):
        return d2l.masked_softmax(scores, valid_lens)

    def call(self, queries, keys, values, valid_lens=None, training=None):
        self.attention_weights = self.weights(self.scores(queries, keys), valid_lens)
        return tf.matmul(self.dropout(self.attention_weights, training=training), values)


class DistanceExplicit(_Scores):
    """Right: -||q - k||^2 / (2 sqrt(d)) with the distances computed in full."""


def _expanded(queries, keys, half=0.5, scale=None, sign=-1.0):
    norms = half * tf.reduce_sum(keys**2, axis=-1)[:, None, :]
    scale = math.sqrt(queries.shape[-1]) if scale is None else scale
    return (tf.matmul(queries, keys, transpose_b=True) + sign * norms) / scale


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
        return tf.nn.softmax(scores, axis=-1)


class DistanceDropoutAlways(_Scores):
    def call(self, queries, keys, values, valid_lens=None, training=None):
        self.attention_weights = self.weights(self.scores(queries, keys), valid_lens)
        return tf.matmul(tf.nn.dropout(self.attention_weights, rate=0.5), values)


class DistanceNoAttribute(keras.layers.Layer):
    """Returns the right output and keeps the weights in a local variable only."""

    def __init__(self, dropout, **kwargs):
        super().__init__(**kwargs)
        self.dropout = keras.layers.Dropout(dropout)

    def call(self, queries, keys, values, valid_lens=None, training=None):
        weights = d2l.masked_softmax(_Scores.scores(self, queries, keys), valid_lens)
        return tf.matmul(self.dropout(weights, training=training), values)


class DistanceStub(d2l.DotProductAttention):
    def call(self, queries, keys, values, valid_lens=None, training=None):
        raise NotImplementedError


class DistanceEllipsis(d2l.DotProductAttention):
    def call(self, queries, keys, values, valid_lens=None, training=None): ...


class DistanceShapeError(_Scores):
    """Multiplies queries by keys without transposing them."""

    def scores(self, queries, keys):
        return tf.matmul(queries, keys)


def distance_function(queries, keys, values, valid_lens=None):
    """A function where a class is asked for."""
    return d2l.DistanceAttention(0.5)(queries, keys, values, valid_lens, training=False)


# bilinear-attention ---------------------------------------------------------------------------


class BilinearOnQueries(d2l.DotProductAttention):
    """Right: M^T applied to the queries, M a weight of shape (query_size, key_size)."""

    scale: float | None = None  # None: sqrt(query_size)
    masked = True

    def __init__(self, query_size, key_size, dropout, **kwargs):
        super().__init__(dropout, **kwargs)
        self.query_size, self.key_size = query_size, key_size
        self.M = self.add_weight(shape=(query_size, key_size), initializer="random_normal", name="M")

    def call(self, queries, keys, values, valid_lens=None, training=None):
        if queries.shape[-1] != self.query_size or keys.shape[-1] != self.key_size:
            raise ValueError(f"queries of length {self.query_size} and keys of length {self.key_size} expected")
        scale = math.sqrt(self.query_size) if self.scale is None else self.scale
        scores = tf.matmul(tf.matmul(queries, self.M), keys, transpose_b=True) / scale
        self.attention_weights = (
            d2l.masked_softmax(scores, valid_lens) if self.masked else tf.nn.softmax(scores, axis=-1)
        )
        return tf.matmul(self.dropout(self.attention_weights, training=training), values)


class BilinearByKeySize(BilinearOnQueries):
    scale = math.sqrt(2)  # sqrt(key_size) for the check's key_size=2


class BilinearUnscaled(BilinearOnQueries):
    scale = 1.0


class BilinearUnmasked(BilinearOnQueries):
    masked = False


class BilinearWithBias(d2l.DotProductAttention):
    def __init__(self, query_size, key_size, dropout, **kwargs):
        super().__init__(dropout, **kwargs)
        self.M = keras.layers.Dense(query_size)

    def call(self, queries, keys, values, valid_lens=None, training=None):
        return super().call(queries, self.M(keys), values, valid_lens, training=training)


class BilinearUnchecked(d2l.DotProductAttention):
    def __init__(self, query_size, key_size, dropout, **kwargs):
        super().__init__(dropout, **kwargs)
        self.M = keras.layers.Dense(query_size, use_bias=False)

    def call(self, queries, keys, values, valid_lens=None, training=None):
        return super().call(queries, self.M(keys), values, valid_lens, training=training)


class BilinearShapeError(BilinearUnchecked):
    """Maps the queries instead of the keys: the dot products' lengths do not fit."""

    def call(self, queries, keys, values, valid_lens=None, training=None):
        return tf.matmul(tf.matmul(self.M(queries), keys, transpose_b=True), values)


class BilinearStub(d2l.DotProductAttention):
    def __init__(self, query_size, key_size, dropout, **kwargs):
        super().__init__(dropout, **kwargs)

    def call(self, queries, keys, values, valid_lens=None, training=None):
        raise NotImplementedError


class BilinearEllipsis(BilinearStub):
    def call(self, queries, keys, values, valid_lens=None, training=None): ...


class BilinearPositional(d2l.BilinearAttention):
    """Takes its sizes by other names: D2L's call cannot construct it."""

    def __init__(self, q_dim, k_dim, p):
        super().__init__(q_dim, k_dim, p)


def never_masks(X, valid_lens):
    """A softmax that ignores the valid lengths altogether."""
    return tf.nn.softmax(X, axis=-1)


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
        "wrong_types": {"numpy": softmax_numpy, "list": softmax_list, "class": keras.layers.Softmax},
    },
    "distance-attention": {
        "right": [DistanceExplicit],
        "mistakes": {
            "no_half": DistanceNoHalf,
            "no_scale": DistanceNoScale,
            "wrong_sign": DistanceWrongSign,
            "dropout_in_eval": DistanceDropoutAlways,
            "unmasked": DistanceUnmasked,
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
