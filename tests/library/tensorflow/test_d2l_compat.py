"""Code written for this D2L chapter against ``from d2l import tensorflow as d2l`` runs unchanged
against ``from d2l_lib import tensorflow as d2l``, and weights of D2L's layers load by name."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import textwrap

import keras
import numpy as np
import pytest
import tensorflow as tf

from d2l_lib import tensorflow as d2l

# The chapter's code in the style of D2L's TensorFlow edition, as a student would write it
# from d2l.ai; only the import line differs. It runs in a fresh interpreter outside the
# repository, under ``python -O``, which also shows that check_shape does not rely on assert.
D2L_STYLE_SCRIPT = textwrap.dedent("""\
    import sys
    import tensorflow as tf
    from d2l_lib import tensorflow as d2l

    print(d2l.masked_softmax(tf.random.uniform(shape=(2, 2, 4)), tf.constant([2, 3])).shape)
    print(d2l.masked_softmax(tf.random.uniform(shape=(2, 2, 4)), tf.constant([[1, 3], [2, 4]])).shape)
    print(d2l.masked_softmax(tf.random.uniform(shape=(2, 2, 4)), tf.constant([2.0, 3.0])).shape)

    Q = d2l.ones((2, 3, 4))
    K = d2l.ones((2, 4, 6))
    d2l.check_shape(tf.matmul(Q, K), (2, 3, 6))

    queries = tf.random.normal(shape=(2, 1, 2))
    keys = tf.random.normal(shape=(2, 10, 2))
    values = tf.random.normal(shape=(2, 10, 4))
    valid_lens = tf.constant([2, 6])

    attention = d2l.DotProductAttention(dropout=0.5)
    d2l.check_shape(attention(queries, keys, values, valid_lens, training=False), (2, 1, 4))
    d2l.show_heatmaps(d2l.reshape(attention.attention_weights, (1, 1, 2, 10)),
                      xlabel='Keys', ylabel='Queries')

    queries = tf.random.normal(shape=(2, 1, 20))
    attention = d2l.AdditiveAttention(key_size=2, query_size=20, num_hiddens=8, dropout=0.1)
    d2l.check_shape(attention(queries, keys, values, valid_lens, training=False), (2, 1, 4))
    d2l.show_heatmaps(d2l.reshape(attention.attention_weights, (1, 1, 2, 10)),
                      xlabel='Keys', ylabel='Queries')

    # The identity example of D2L's attention-cues section, and a grid with titles.
    d2l.show_heatmaps(d2l.reshape(tf.eye(10), (1, 1, 10, 10)), xlabel='Keys', ylabel='Queries')
    d2l.show_heatmaps(tf.random.uniform((2, 2, 3, 3)), xlabel='Keys', ylabel='Queries',
                      titles=['a', 'b'], figsize=(5, 5), cmap='Reds')

    # Training, as D2L's later sections do with these layers.
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.1)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(attention(queries, keys, values, valid_lens, training=True) ** 2)
    optimizer.apply_gradients(zip(tape.gradient(loss, attention.trainable_variables),
                                  attention.trainable_variables))
    d2l.plt.close('all')
    print('d2l-style code ran', sorted(w.path.split('/', 1)[1] for w in attention.trainable_variables))

    assert False, 'asserts are on'  # skipped under -O
    try:
        d2l.check_shape(tf.zeros((2, 3)), (3, 2))
    except ValueError as error:
        print('optimize', sys.flags.optimize, 'ValueError:', error)
""")


@pytest.fixture(scope="module")
def d2l_style_run(tmp_path_factory):
    """One run of the D2L-style script in a fresh interpreter (TensorFlow takes seconds to import)."""
    folder = tmp_path_factory.mktemp("d2l_style")
    script = folder / "d2l_style.py"
    script.write_text(D2L_STYLE_SCRIPT)
    env = {**os.environ, "MPLBACKEND": "Agg", "TF_CPP_MIN_LOG_LEVEL": "2"}
    return subprocess.run(
        [sys.executable, "-O", str(script)], capture_output=True, text=True, cwd=folder, env=env, timeout=300
    )


def test_d2l_style_script_runs_unchanged(d2l_style_run):
    assert d2l_style_run.returncode == 0, d2l_style_run.stderr
    lines = d2l_style_run.stdout.splitlines()
    assert lines[:3] == ["(2, 2, 4)"] * 3
    assert lines[3] == "d2l-style code ran ['W_k/kernel', 'W_q/kernel', 'w_v/kernel']"


def test_check_shape_survives_python_optimize_mode(d2l_style_run):
    """D2L's check_shape is an assert, which ``python -O`` removes; this one is an if."""
    assert d2l_style_run.stdout.splitlines()[-1] == (
        "optimize 1 ValueError: expected a tensor of shape (3, 2), got shape (2, 3)"
    )


def _parameters(fn):
    return [(p.name, p.default) for p in inspect.signature(fn).parameters.values()]


def test_layer_signatures_are_d2l_s():
    empty = inspect.Parameter.empty
    assert [name for name, _ in _parameters(d2l.AdditiveAttention)][:4] == [
        "key_size",
        "query_size",
        "num_hiddens",
        "dropout",
    ]
    for layer in (d2l.DotProductAttention, d2l.AdditiveAttention):
        assert issubclass(layer, tf.keras.layers.Layer)
        assert _parameters(layer.call)[1:6] == [
            ("queries", empty),
            ("keys", empty),
            ("values", empty),
            ("valid_lens", None),
            ("training", None),
        ]


@pytest.mark.parametrize("name", ["tf", "keras"])
def test_framework_names_d2l_code_uses_exist(name):
    assert hasattr(d2l, name)


def test_keyword_arguments_as_d2l_passes_them():
    layers = {
        3: d2l.DotProductAttention(dropout=0.0),
        7: d2l.AdditiveAttention(key_size=7, query_size=3, num_hiddens=4, dropout=0.0),
    }
    for key_size, attention in layers.items():
        out = attention(
            queries=tf.ones((1, 2, 3)),
            keys=tf.ones((1, 4, key_size)),
            values=tf.ones((1, 4, 5)),
            valid_lens=tf.constant([3]),
            training=False,
        )
        assert out.shape == (1, 2, 5)
    assert d2l.masked_softmax(X=tf.ones((1, 1, 3)), valid_lens=tf.constant([2])).numpy()[0, 0, 2] == 0


# ------------------------------------------------------------------ D2L's weights, by name
class D2LAdditiveAttention(keras.layers.Layer):
    """The shape of D2L's TensorFlow AdditiveAttention: Dense sublayers W_k, W_q (num_hiddens units)
    and w_v (one unit), without biases or names, created in this order, and a Dropout; the
    weights are created at the first call. It masks nothing: the tests pass no lengths."""

    def __init__(self, key_size, query_size, num_hiddens, dropout, **kwargs):
        super().__init__(**kwargs)
        self.W_k = keras.layers.Dense(num_hiddens, use_bias=False)
        self.W_q = keras.layers.Dense(num_hiddens, use_bias=False)
        self.w_v = keras.layers.Dense(1, use_bias=False)
        self.dropout = keras.layers.Dropout(dropout)

    def call(self, queries, keys, values, valid_lens=None, **kwargs):
        features = tf.tanh(tf.expand_dims(self.W_q(queries), 2) + tf.expand_dims(self.W_k(keys), 1))
        self.attention_weights = tf.nn.softmax(tf.squeeze(self.w_v(features), -1))
        return tf.matmul(self.dropout(self.attention_weights, **kwargs), values)


class Decoder(keras.Model):
    """A model that keeps its attention layer in ``self.attention``, as D2L's decoders do."""

    def __init__(self, attention):
        super().__init__()
        self.attention = attention

    def call(self, queries, keys, values):
        return self.attention(queries, keys, values)


def _example(seed=0):
    return (
        tf.random.stateless_normal((2, 3, 20), (seed, 0)),
        tf.random.stateless_normal((2, 10, 2), (seed, 1)),
        tf.random.stateless_normal((2, 10, 4), (seed, 2)),
    )


@pytest.mark.filterwarnings("ignore:__array__ implementation doesn.t accept a copy keyword:DeprecationWarning")
def test_weights_saved_from_d2l_s_layer_load_into_ours_by_name(tmp_path):
    """Keras's weights files name each weight by the attribute path (attention/W_k/...)."""
    inputs = _example()
    theirs = Decoder(D2LAdditiveAttention(key_size=2, query_size=20, num_hiddens=8, dropout=0.1))
    expected = theirs(*inputs).numpy()
    theirs.save_weights(tmp_path / "d2l.weights.h5")
    ours = Decoder(d2l.AdditiveAttention(key_size=2, query_size=20, num_hiddens=8, dropout=0.1))
    ours(*inputs)  # a subclassed model is built by its first call
    ours.load_weights(tmp_path / "d2l.weights.h5")
    np.testing.assert_allclose(ours(*inputs).numpy(), expected, rtol=1e-6)


def test_d2l_weight_lists_and_kernels_fit_a_fresh_layer():
    """get_weights lists W_k, W_q, w_v in D2L's order; ours exist before any call."""
    inputs = _example(1)
    theirs = D2LAdditiveAttention(key_size=2, query_size=20, num_hiddens=8, dropout=0.1)
    expected = theirs(*inputs).numpy()
    by_list = d2l.AdditiveAttention(key_size=2, query_size=20, num_hiddens=8, dropout=0.1)
    by_list.set_weights(theirs.get_weights())
    by_name = d2l.AdditiveAttention(key_size=2, query_size=20, num_hiddens=8, dropout=0.1)
    for name in ("W_k", "W_q", "w_v"):
        getattr(by_name, name).kernel.assign(getattr(theirs, name).kernel)
    for attention in (by_list, by_name):
        np.testing.assert_allclose(attention(*inputs).numpy(), expected, rtol=1e-6)
