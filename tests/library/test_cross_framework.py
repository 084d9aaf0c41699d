"""The three libraries agree: the same inputs and parameters give the same weights and outputs.

Each framework's module is generated from its own cells, so nothing but these tests
keeps them computing the same thing. Inputs are drawn once with NumPy and handed to
PyTorch, JAX and TensorFlow alike; the attention layers of each get the same weights.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

torch_lib = pytest.importorskip("d2l_lib.torch")
jax_lib = pytest.importorskip("d2l_lib.jax")
tf_lib = pytest.importorskip("d2l_lib.tensorflow")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import tensorflow as tf  # noqa: E402
import torch  # noqa: E402

ATOL = 1e-5
LENGTHS = {
    "one per example": np.array([2, 6]),
    "one per query": np.array([[1, 3, 10], [0, 6, 4]]),
    "none": None,
}


def as_numpy(x) -> np.ndarray:
    if isinstance(x, torch.Tensor):
        return x.detach().numpy()
    return np.asarray(x)


def inputs(seed: int = 0, d: int = 8, v: int = 4) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    return (
        rng.standard_normal((2, 3, d), dtype=np.float32),
        rng.standard_normal((2, 10, d), dtype=np.float32),
        rng.standard_normal((2, 10, v), dtype=np.float32),
    )


@pytest.mark.parametrize("lengths", LENGTHS.values(), ids=LENGTHS.keys())
def test_masked_softmax_agrees(lengths):
    X = np.random.default_rng(1).standard_normal((2, 3, 10), dtype=np.float32)
    results = [
        as_numpy(torch_lib.masked_softmax(torch.tensor(X), None if lengths is None else torch.tensor(lengths))),
        as_numpy(jax_lib.masked_softmax(jnp.asarray(X), None if lengths is None else jnp.asarray(lengths))),
        as_numpy(tf_lib.masked_softmax(tf.constant(X), None if lengths is None else tf.constant(lengths))),
    ]
    for result in results[1:]:
        np.testing.assert_allclose(result, results[0], atol=ATOL)
    if lengths is not None and lengths.ndim == 2:
        assert not results[0][1, 0].any(), "a query of valid length 0 gets no weight"


@pytest.mark.parametrize("lengths", LENGTHS.values(), ids=LENGTHS.keys())
def test_dot_product_attention_agrees(lengths):
    q, k, v = inputs()
    torch_layer = torch_lib.DotProductAttention(dropout=0.5).eval()
    torch_out = torch_layer(
        torch.tensor(q), torch.tensor(k), torch.tensor(v), None if lengths is None else torch.tensor(lengths)
    )
    (jax_out, jax_weights), _ = jax_lib.DotProductAttention(dropout=0.5).init_with_output(
        jax.random.key(0),
        jnp.asarray(q),
        jnp.asarray(k),
        jnp.asarray(v),
        None if lengths is None else jnp.asarray(lengths),
    )
    tf_layer = tf_lib.DotProductAttention(dropout=0.5)
    tf_out = tf_layer(
        tf.constant(q),
        tf.constant(k),
        tf.constant(v),
        None if lengths is None else tf.constant(lengths),
        training=False,
    )
    for out, weights in ((jax_out, jax_weights), (tf_out, tf_layer.attention_weights)):
        np.testing.assert_allclose(as_numpy(weights), as_numpy(torch_layer.attention_weights), atol=ATOL)
        np.testing.assert_allclose(as_numpy(out), as_numpy(torch_out), atol=ATOL)


@pytest.mark.parametrize("lengths", [LENGTHS["one per example"], LENGTHS["one per query"]], ids=["1-D", "2-D"])
def test_additive_attention_agrees_given_the_same_parameters(lengths):
    _, k, v = inputs(seed=2, d=2)
    q = np.random.default_rng(3).standard_normal((2, 3, 20), dtype=np.float32)  # queries longer than keys
    hidden = 8
    rng = np.random.default_rng(4)
    # Kernels as JAX and Keras store them: (inputs, outputs); torch's weights are their transposes.
    W_q, W_k, w_v = (rng.standard_normal(shape, dtype=np.float32) for shape in ((20, hidden), (2, hidden), (hidden, 1)))

    torch_layer = torch_lib.AdditiveAttention(num_hiddens=hidden, dropout=0.1).eval()
    torch_layer(torch.tensor(q), torch.tensor(k), torch.tensor(v), torch.tensor(lengths))  # sizes the lazy layers
    with torch.no_grad():
        for name, kernel in (("W_q", W_q), ("W_k", W_k), ("w_v", w_v)):
            getattr(torch_layer, name).weight.copy_(torch.tensor(kernel.T))
    torch_out = torch_layer(torch.tensor(q), torch.tensor(k), torch.tensor(v), torch.tensor(lengths))

    jax_layer = jax_lib.AdditiveAttention(num_hiddens=hidden, dropout=0.1)
    params = {
        "params": {
            "W_q": {"kernel": jnp.asarray(W_q)},
            "W_k": {"kernel": jnp.asarray(W_k)},
            "w_v": {"kernel": jnp.asarray(w_v)},
        }
    }
    jax_out, jax_weights = jax_layer.apply(params, jnp.asarray(q), jnp.asarray(k), jnp.asarray(v), jnp.asarray(lengths))

    tf_layer = tf_lib.AdditiveAttention(key_size=2, query_size=20, num_hiddens=hidden, dropout=0.1)
    tf_layer(tf.constant(q), tf.constant(k), tf.constant(v), tf.constant(lengths), training=False)
    for name, kernel in (("W_q", W_q), ("W_k", W_k), ("w_v", w_v)):
        getattr(tf_layer, name).kernel.assign(kernel)
    tf_out = tf_layer(tf.constant(q), tf.constant(k), tf.constant(v), tf.constant(lengths), training=False)

    for out, weights in ((jax_out, jax_weights), (tf_out, tf_layer.attention_weights)):
        np.testing.assert_allclose(as_numpy(weights), as_numpy(torch_layer.attention_weights), atol=ATOL)
        np.testing.assert_allclose(as_numpy(out), as_numpy(torch_out), atol=ATOL)


def test_float16_masking_agrees_and_has_no_nan():
    X = np.random.default_rng(5).random((1, 2, 4)).astype(np.float16)
    lengths = np.array([[0, 3]])
    results = [
        as_numpy(torch_lib.masked_softmax(torch.tensor(X), torch.tensor(lengths))),
        as_numpy(jax_lib.masked_softmax(jnp.asarray(X), jnp.asarray(lengths))),
        as_numpy(tf_lib.masked_softmax(tf.constant(X), tf.constant(lengths))),
    ]
    for result in results:
        assert result.dtype == np.float16
        assert not np.isnan(result).any()
        np.testing.assert_array_equal(result[0, 0], 0)
        np.testing.assert_array_equal(result[0, 1, 3:], 0)
        np.testing.assert_allclose(result, results[0], atol=2e-3)


@pytest.mark.parametrize(
    "module, framework, others",
    [
        ("torch", "torch", ("jax", "flax", "tensorflow", "keras")),
        ("jax", "jax", ("torch", "tensorflow", "keras")),
        ("tensorflow", "tensorflow", ("torch", "jax", "flax")),
    ],
)
def test_each_module_imports_only_its_own_framework(module, framework, others):
    """`import d2l_lib.<module>` loads no other framework than the one the framework itself loads.

    (TensorFlow's own start-up imports JAX when JAX is installed beside it: that is not ours.)
    """
    code = (
        "import sys\n"
        f"import {framework}\n"
        f"before = {{name for name in {others!r} if name in sys.modules}}\n"
        f"import d2l_lib.{module}\n"
        f"loaded = [name for name in {others!r} if name in sys.modules and name not in before]\n"
        "assert not loaded, loaded\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
