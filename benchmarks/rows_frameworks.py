"""The CPU table's JAX and TensorFlow rows (issues 12 and 27).

When ``d2l_lib.jax`` / ``d2l_lib.tensorflow`` define ``DotProductAttention``: the JAX layer
under ``jax.jit`` against ``jax.nn.dot_product_attention``, and the TensorFlow layer inside
``tf.function`` against ``keras.ops.dot_product_attention`` (no goal; issue 12 asks for an
explanation of any ratio above 1.5), and each of them with its weights unused, only the
output leaving the compiled function (issue 27: goal 1.10).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from .settings import ATTENTION_SIZES, FRAMEWORK_BUDGET, FRAMEWORK_GOAL, FRAMEWORK_LIMIT, PER_EXAMPLE
from .table import Row, emit
from .timing import interleaved_samples


def jax_call(fn: Callable[..., Any], *args: Any) -> Any:
    """Call a jitted function and wait for its results."""
    import jax

    return jax.block_until_ready(fn(*args))


def tf_call(fn: Callable[..., Any], *args: Any) -> Any:
    """Call a ``tf.function``.

    Eager TensorFlow on the CPU returns once the results are computed: nothing to wait for,
    and no copy into NumPy (which would charge the 32 MiB weights to one side only)."""
    return fn(*args)


def _emit_pair(rows: list[Row], name: str, baseline: str, size: tuple[int, ...], times: list[list[float]]) -> None:
    """The rows of one size: weights returned (no goal, a limit), then weights unused (a goal)."""
    cand, base, unused = times
    emit(rows, Row(name, baseline, size, PER_EXAMPLE, cand, base, None, FRAMEWORK_LIMIT))
    emit(rows, Row('... weights unused', baseline, size, PER_EXAMPLE, unused, base, FRAMEWORK_GOAL))


def jax_rows(budget: float, rows: list[Row]) -> None:
    """The JAX layer under ``jax.jit`` (weights returned, weights unused) against the built-in."""
    import jax
    import jax.numpy as jnp

    from d2l_lib import jax as d2l_jax

    layer = d2l_jax.DotProductAttention(dropout=0.1)
    rng = np.random.default_rng(2)
    for size in ATTENTION_SIZES:
        batch_size, num_queries, num_pairs, d = size
        q, k, v = (
            jnp.asarray(rng.standard_normal(shape, dtype=np.float32))
            for shape in ((batch_size, num_queries, d), (batch_size, num_pairs, d), (batch_size, num_pairs, d))
        )
        lens = jnp.asarray(rng.integers(1, num_pairs + 1, (batch_size,)))
        mask = jnp.arange(num_pairs) < lens.reshape(batch_size, -1, 1)
        params = layer.init(jax.random.key(0), q[:1, :1], k[:1], v[:1], lens[:1])
        ours = jax.jit(partial(layer.apply, params))  # returns the output and the weights
        # The weights unused: only the output leaves the compiled function
        ours_output = jax.jit(lambda q, k, v, lens, params=params: layer.apply(params, q, k, v, lens)[0])
        theirs = jax.jit(
            lambda q, k, v, mask: jax.nn.dot_product_attention(
                q[:, :, None], k[:, :, None], v[:, :, None], mask=mask[:, None]
            )[:, :, 0]
        )
        np.testing.assert_allclose(ours(q, k, v, lens)[0], theirs(q, k, v, mask), rtol=1e-4, atol=1e-5)
        times, _ = interleaved_samples(
            [
                partial(jax_call, ours, q, k, v, lens),
                partial(jax_call, theirs, q, k, v, mask),
                partial(jax_call, ours_output, q, k, v, lens),
            ],
            budget * FRAMEWORK_BUDGET,
            9,
            301,
        )
        _emit_pair(rows, 'jax DotProductAttention, jit', 'jax.nn.dot_product_attention, jit', size, times)


def tensorflow_rows(budget: float, rows: list[Row]) -> None:
    """The TensorFlow layer in ``tf.function`` (weights returned, weights unused) against Keras's."""
    import keras
    import tensorflow as tf

    from d2l_lib import tensorflow as d2l_tf

    layer = d2l_tf.DotProductAttention(dropout=0.1)
    rng = np.random.default_rng(3)
    for size in ATTENTION_SIZES:
        batch_size, num_queries, num_pairs, d = size
        q, k, v = (
            tf.constant(rng.standard_normal(shape, dtype=np.float32))
            for shape in ((batch_size, num_queries, d), (batch_size, num_pairs, d), (batch_size, num_pairs, d))
        )
        lens = tf.constant(rng.integers(1, num_pairs + 1, (batch_size,)))
        mask = tf.range(num_pairs) < tf.reshape(tf.cast(lens, tf.int32), (batch_size, -1, 1))

        @tf.function
        def ours(q, k, v, lens):
            output = layer(q, k, v, lens)
            return output, layer.attention_weights  # the weights are computed and returned

        @tf.function
        def ours_output(q, k, v, lens):
            return (layer(q, k, v, lens),)  # the weights unused

        @tf.function
        def theirs(q, k, v, mask):
            out = keras.ops.dot_product_attention(q[:, :, None], k[:, :, None], v[:, :, None], mask=mask[:, None])
            return (out[:, :, 0],)

        np.testing.assert_allclose(
            ours(q, k, v, lens)[0].numpy(), theirs(q, k, v, mask)[0].numpy(), rtol=1e-4, atol=1e-5
        )
        times, _ = interleaved_samples(
            [
                partial(tf_call, ours, q, k, v, lens),
                partial(tf_call, theirs, q, k, v, mask),
                partial(tf_call, ours_output, q, k, v, lens),
            ],
            budget * FRAMEWORK_BUDGET,
            9,
            301,
        )
        _emit_pair(rows, 'tf DotProductAttention, tf.function', 'keras.ops.dot_product_attention', size, times)
