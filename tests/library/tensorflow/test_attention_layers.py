"""``DotProductAttention`` and ``AdditiveAttention`` as Keras layers only: variables, dropout and
``training=``, dtype policies, weights, and ``tf.function`` / Keras models with sizes unknown
while tracing.

What every framework shares is in ``tests/library/test_attention_layers.py``."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

from d2l_lib import tensorflow as d2l


def _normal(shape, seed, dtype=tf.float32):
    return tf.random.stateless_normal(shape, seed=(seed, len(shape) * 1000 + shape[-1]), dtype=dtype)


def _chapter_data(seed: int = 0):
    """The chapter's example: one query per example, ten key-value pairs, lengths 2 and 6."""
    return (_normal((2, 1, 2), seed), _normal((2, 10, 2), seed + 1), _normal((2, 10, 4), seed + 2), tf.constant([2, 6]))


# ------------------------------------------------------------------ DotProductAttention


def _run_chapter_example(attention, queries, keys, values, valid_lens):
    """Run the chapter's example (lengths 2 and 6 of 10 keys); check output and weights."""
    out = attention(queries, keys, values, valid_lens, training=False)
    d2l.check_shape(out, (2, 1, 4))
    weights = attention.attention_weights.numpy()
    d2l.check_shape(weights, (2, 1, 10))
    assert (weights[0, 0, 2:] == 0).all() and (weights[1, 0, 6:] == 0).all()
    assert (weights[0, 0, :2] > 0).all() and (weights[1, 0, :6] > 0).all()
    np.testing.assert_allclose(weights.sum(-1), np.ones((2, 1)), rtol=1e-6)
    return out


def test_dot_product_does_not_change_variables_passed_to_it():
    inputs = [tf.Variable(x) for x in _chapter_data()]
    before = [x.numpy().copy() for x in inputs]
    d2l.DotProductAttention(dropout=0.5)(*inputs, training=True)
    assert all(np.array_equal(x.numpy(), b) for x, b in zip(inputs, before))


def test_dot_product_has_no_weights_and_backpropagates():
    attention = d2l.DotProductAttention(dropout=0.1)
    assert isinstance(attention, keras.layers.Layer) and attention.weights == []
    queries, keys, values = (_normal((2, n, 3), 5) for n in (4, 5, 5))
    with tf.GradientTape() as tape:
        tape.watch([queries, keys, values])
        loss = tf.reduce_sum(attention(queries, keys, values, tf.constant([0, 3]), training=True))
    grads = [g.numpy() for g in tape.gradient(loss, [queries, keys, values])]
    assert all(np.isfinite(g).all() for g in grads)
    _, keys_grad, values_grad = grads
    assert (keys_grad[0] == 0).all() and (values_grad[0] == 0).all()  # length 0: no key is used
    assert (keys_grad[1, 3:] == 0).all() and (values_grad[1, 3:] == 0).all()


@pytest.mark.parametrize("policy", ["float16", "bfloat16", "float64", "mixed_float16", "mixed_bfloat16"])
def test_dot_product_computes_in_its_compute_dtype(policy):
    queries, keys, values = (_normal((2, n, m), 6) for n, m in ((3, 8), (5, 8), (5, 4)))
    attention = d2l.DotProductAttention(dropout=0.0, dtype=policy)
    out = attention(queries, keys, values, tf.constant([[0, 2, 5], [1, 4, 9]]))
    assert out.dtype == attention.compute_dtype == attention.attention_weights.dtype
    out, weights = np.asarray(tf.cast(out, tf.float64)), np.asarray(tf.cast(attention.attention_weights, tf.float64))
    assert np.isfinite(out).all() and (out[0, 0] == 0).all() and (weights[0, 1, 2:] == 0).all()


def test_a_float32_layer_computes_half_precision_inputs_in_float32():
    """Keras semantics: the layer's compute dtype decides, whatever the inputs' dtype."""
    queries, keys, values = (tf.cast(_normal((1, n, 4), 7), tf.float16) for n in (2, 3, 3))
    assert d2l.DotProductAttention(dropout=0.0)(queries, keys, values).dtype == tf.float32


@pytest.mark.parametrize("policy", ["float16", "mixed_float16"])
def test_float_lengths_are_not_cast_to_a_half_precision_compute_dtype(policy):
    """Keras's automatic casting would turn the float32 length 3001 into float16 3000."""
    queries, keys, values = tf.ones((1, 1, 8)), tf.zeros((1, 4096, 8)), tf.ones((1, 4096, 1))
    attention = d2l.DotProductAttention(dropout=0.0, dtype=policy)
    attention(queries, keys, values, tf.constant([3001.0]))
    assert int(tf.reduce_sum(tf.cast(attention.attention_weights > 0, tf.int32))) == 3001


def test_attention_layers_inside_tf_function_with_unknown_sizes():
    queries, keys, values, lens = _chapter_data()
    dot = d2l.DotProductAttention(dropout=0.5)
    additive = d2l.AdditiveAttention(key_size=2, query_size=2, num_hiddens=8, dropout=0.1)
    traces = []
    spec = tf.TensorSpec((None, None, None))

    @tf.function(input_signature=(spec, spec, spec, tf.TensorSpec((None,), tf.int32)))
    def both(q, k, v, lens):
        traces.append(1)
        return dot(q, k, v, lens), additive(q, k, v, lens)

    for q, k, v in ((queries, keys, values), (queries[:1], keys[:1, :7], values[:1, :7])):
        graph_dot, graph_additive = both(q, k, v, lens[: q.shape[0]])
        np.testing.assert_allclose(graph_dot.numpy(), dot(q, k, v, lens[: q.shape[0]]).numpy(), rtol=1e-6)
        np.testing.assert_allclose(graph_additive.numpy(), additive(q, k, v, lens[: q.shape[0]]).numpy(), rtol=1e-6)
    assert len(traces) == 1


def test_additive_attention_in_a_keras_model():
    """A functional Keras model: the batch size is unknown while Keras builds it."""
    queries, keys, values, lens = _chapter_data()
    queries = _normal((2, 1, 20), 8)
    attention = d2l.AdditiveAttention(key_size=2, query_size=20, num_hiddens=8, dropout=0.1)
    inputs = [keras.Input((1, 20)), keras.Input((10, 2)), keras.Input((10, 4)), keras.Input((), dtype="int32")]
    model = keras.Model(inputs, attention(*inputs))
    np.testing.assert_allclose(
        model([queries, keys, values, lens]).numpy(), attention(queries, keys, values, lens).numpy(), rtol=1e-6
    )


# ------------------------------------------------------------------ dropout (both layers)
MAKERS = [
    lambda p: d2l.DotProductAttention(dropout=p),
    lambda p: d2l.AdditiveAttention(key_size=6, query_size=6, num_hiddens=8, dropout=p),
]


@pytest.mark.parametrize("make", MAKERS, ids=["dot", "additive"])
def test_dropout_acts_in_training_mode_only(make):
    queries, keys = _normal((4, 8, 6), 9), _normal((4, 16, 6), 10)
    values = tf.eye(16, batch_shape=[4])  # identity values: the output is the dropped-out weights
    lens = tf.constant([16, 12, 9, 16])
    attention, no_dropout = make(0.5), make(0.0)
    no_dropout.set_weights(attention.get_weights())

    evaluated = attention(queries, keys, values, lens, training=False).numpy()
    np.testing.assert_array_equal(attention(queries, keys, values, lens).numpy(), evaluated)  # default: no dropout
    np.testing.assert_array_equal(no_dropout(queries, keys, values, lens, training=True).numpy(), evaluated)

    trained = attention(queries, keys, values, lens, training=True).numpy()
    weights = attention.attention_weights.numpy()  # kept before dropout
    np.testing.assert_allclose(weights, evaluated, rtol=1e-6)
    kept = trained != 0
    np.testing.assert_allclose(trained[kept], 2 * weights[kept], rtol=1e-6)  # kept weights scaled by 1 / (1 - p)
    dropped = (weights > 0) & ~kept
    assert 0.3 < dropped.sum() / (weights > 0).sum() < 0.7  # about half of ~400 weights


@pytest.mark.parametrize("make", MAKERS, ids=["dot", "additive"])
def test_dropout_is_reproducible_under_a_seed(make):
    queries, keys, values = _normal((2, 4, 6), 11), _normal((2, 9, 6), 12), _normal((2, 9, 3), 13)
    outputs = []
    for _ in range(2):
        keras.utils.set_random_seed(11)
        outputs.append(make(0.5)(queries, keys, values, training=True).numpy())
    np.testing.assert_array_equal(*outputs)


def test_training_reaches_the_dropout_from_an_outer_layer():
    """Keras passes ``training`` on to nested layers, as ``fit`` relies on."""

    class Outer(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.attention = d2l.DotProductAttention(dropout=0.9)

        def call(self, queries, keys, values):
            return self.attention(queries, keys, values)

    queries, keys, values = _normal((2, 4, 6), 14), _normal((2, 9, 6), 15), tf.eye(9, batch_shape=[2])
    outer = Outer()
    np.testing.assert_array_equal(
        outer(queries, keys, values, training=False).numpy(), outer.attention.attention_weights.numpy()
    )
    assert (outer(queries, keys, values, training=True).numpy() == 0).mean() > 0.5


# ------------------------------------------------------------------ AdditiveAttention


def test_additive_weights_exist_from_the_start_with_d2l_names_and_shapes():
    attention = d2l.AdditiveAttention(key_size=2, query_size=20, num_hiddens=8, dropout=0.1)
    shapes = {layer: tuple(getattr(attention, layer).kernel.shape) for layer in ("W_k", "W_q", "w_v")}
    assert shapes == {"W_k": (2, 8), "W_q": (20, 8), "w_v": (8, 1)}
    assert all(getattr(attention, layer).bias is None for layer in ("W_k", "W_q", "w_v"))  # no biases
    assert [w.path for w in attention.trainable_weights] == [
        f"{attention.name}/{layer}/kernel" for layer in ("W_k", "W_q", "w_v")
    ]
    _run_chapter_example(attention, _normal((2, 1, 20), 18), *_chapter_data()[1:])
    assert len(attention.weights) == 3  # the call created nothing new


def test_additive_weights_round_trip():
    queries, keys, values, valid_lens = _chapter_data()
    first = d2l.AdditiveAttention(key_size=2, query_size=2, num_hiddens=8, dropout=0.1)
    second = d2l.AdditiveAttention(key_size=2, query_size=2, num_hiddens=8, dropout=0.1)
    second.set_weights(first.get_weights())
    np.testing.assert_array_equal(
        second(queries, keys, values, valid_lens).numpy(), first(queries, keys, values, valid_lens).numpy()
    )


@pytest.mark.parametrize("policy", ["float64", "mixed_float16", "bfloat16"])
def test_additive_computes_in_its_compute_dtype(policy):
    queries, keys, values = (_normal((2, n, m), 21) for n, m in ((3, 5), (4, 2), (4, 3)))
    attention = d2l.AdditiveAttention(key_size=2, query_size=5, num_hiddens=6, dropout=0.0, dtype=policy)
    out = attention(queries, keys, values, tf.constant([[0, 1, 4], [2, 0, 3]]))
    assert out.dtype == attention.compute_dtype and attention.W_q.kernel.dtype == attention.variable_dtype
    assert (np.asarray(tf.cast(out, tf.float32))[0, 0] == 0).all()


def test_additive_backpropagates_to_its_weights_and_inputs():
    queries, keys, values = (_normal((2, n, m), 22) for n, m in ((3, 5), (4, 2), (4, 3)))
    attention = d2l.AdditiveAttention(key_size=2, query_size=5, num_hiddens=6, dropout=0.2)
    with tf.GradientTape() as tape:
        tape.watch([keys, values])
        loss = tf.reduce_sum(attention(queries, keys, values, tf.constant([1, 3]), training=True))
    *weight_grads, keys_grad, values_grad = tape.gradient(loss, [*attention.trainable_weights, keys, values])
    assert all(np.isfinite(g.numpy()).all() for g in weight_grads)
    assert (keys_grad.numpy()[0, 1:] == 0).all() and (values_grad.numpy()[1, 3:] == 0).all()
