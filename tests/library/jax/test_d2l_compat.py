"""Code written for this D2L chapter against ``from d2l import jax as d2l`` runs unchanged
against ``from d2l_lib import jax as d2l``, and a D2L-shaped parameter tree applies as it is."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import textwrap

import jax
import numpy as np
import pytest
from jax import numpy as jnp

from d2l_lib import jax as d2l

# The chapter's code in the style of D2L's JAX edition, as a student would copy it from d2l.ai;
# only the import line differs. It runs in a fresh interpreter outside the repository, under
# ``python -O``, which also shows that check_shape does not rely on assert.
D2L_STYLE_SCRIPT = textwrap.dedent("""\
    import jax
    from flax import linen as nn
    from jax import numpy as jnp
    from d2l_lib import jax as d2l

    first_key = d2l.get_key()  # the library's key is seeded: the same in every fresh process
    print(jax.random.key_data(first_key).tolist())
    print(d2l.masked_softmax(jax.random.uniform(d2l.get_key(), (2, 2, 4)), jnp.array([2, 3])).shape)
    print(d2l.masked_softmax(jax.random.uniform(d2l.get_key(), (2, 2, 4)), jnp.array([[1, 3], [2, 4]])).shape)
    print(d2l.masked_softmax(jax.random.uniform(d2l.get_key(), (2, 2, 4)), jnp.array([2.0, 3.0])).shape)

    Q = d2l.ones((2, 3, 4))
    K = d2l.ones((2, 4, 6))
    d2l.check_shape(jax.lax.batch_matmul(Q, K), (2, 3, 6))

    queries = jax.random.normal(d2l.get_key(), (2, 1, 2))
    keys = jax.random.normal(d2l.get_key(), (2, 10, 2))
    values = jax.random.normal(d2l.get_key(), (2, 10, 4))
    valid_lens = d2l.tensor([2, 6])

    attention = d2l.DotProductAttention(dropout=0.5)
    (output, attention_weights), params = attention.init_with_output(
        d2l.get_key(), queries, keys, values, valid_lens)
    d2l.check_shape(output, (2, 1, 4))
    d2l.show_heatmaps(attention_weights.reshape((1, 1, 2, 10)), xlabel='Keys', ylabel='Queries')

    queries = jax.random.normal(d2l.get_key(), (2, 1, 20))
    attention = d2l.AdditiveAttention(num_hiddens=8, dropout=0.1)
    (output, attention_weights), params = attention.init_with_output(
        d2l.get_key(), queries, keys, values, valid_lens)
    d2l.check_shape(output, (2, 1, 4))
    d2l.show_heatmaps(d2l.reshape(attention_weights, (1, 1, 2, 10)), xlabel='Keys', ylabel='Queries')

    # The identity example of D2L's attention-cues section, and a grid with titles.
    d2l.show_heatmaps(d2l.reshape(jnp.eye(10), (1, 1, 10, 10)), xlabel='Keys', ylabel='Queries')
    d2l.show_heatmaps(jax.random.uniform(d2l.get_key(), (2, 2, 3, 3)), xlabel='Keys', ylabel='Queries',
                      titles=['a', 'b'], figsize=(5, 5), cmap='Reds')

    # Training, as D2L's later sections do with these layers: dropout on, a key for it, an SGD step.
    def loss(params, key):
        output, _ = attention.apply(params, queries, keys, values, valid_lens, training=True,
                                    rngs={'dropout': key})
        return (output ** 2).sum()

    grads = jax.jit(jax.grad(loss))(params, d2l.get_key())
    params = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
    try:
        d2l.check_shape(output, (2, 4, 1))
    except ValueError as error:
        print('check_shape under -O:', error)
    d2l.plt.close('all')
    print('d2l-style code ran', sorted(params['params']))
""")


def test_d2l_style_script_runs_unchanged(tmp_path):
    script = tmp_path / "d2l_style.py"
    script.write_text(D2L_STYLE_SCRIPT)
    env = {**os.environ, "MPLBACKEND": "Agg"}
    result = subprocess.run(
        [sys.executable, "-O", str(script)], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    expected_key = jax.random.key_data(jax.random.split(jax.random.key(0))[1]).tolist()
    assert lines[0] == str(expected_key)
    assert lines[1:4] == ["(2, 2, 4)"] * 3
    assert lines[-2] == "check_shape under -O: expected a tensor of shape (2, 4, 1), got shape (2, 1, 4)"
    assert lines[-1] == "d2l-style code ran ['W_k', 'W_q', 'w_v']"


def _parameters(fn):
    return [(p.name, p.default) for p in inspect.signature(fn).parameters.values()]


def test_layer_signatures_are_d2l_s():
    empty = inspect.Parameter.empty
    assert _parameters(d2l.normal)[:3] == [("mean", empty), ("std", empty), ("size", empty)]
    assert _parameters(d2l.get_key) == []
    # Flax modules are dataclasses: D2L creates them with these fields, positionally or by name.
    assert [name for name, _ in _parameters(d2l.AdditiveAttention)][:2] == ["num_hiddens", "dropout"]
    for layer in (d2l.DotProductAttention, d2l.AdditiveAttention):
        assert _parameters(layer.__call__)[1:] == [
            ("queries", empty),
            ("keys", empty),
            ("values", empty),
            ("valid_lens", None),
            ("training", False),
        ]


@pytest.mark.parametrize("name", ["get_key", "jax", "jnp", "nn", "math"])
def test_framework_names_d2l_code_uses_exist(name):
    assert hasattr(d2l, name)


def test_keyword_arguments_as_d2l_passes_them():
    rng = np.random.default_rng(0)
    q, k, v = (jnp.asarray(rng.uniform(size=s), dtype=jnp.float32) for s in ((1, 2, 3), (1, 4, 3), (1, 4, 5)))
    out, _ = d2l.DotProductAttention(dropout=0.0).apply(
        {}, queries=q, keys=k, values=v, valid_lens=jnp.array([3]), training=False
    )
    assert out.shape == (1, 2, 5)
    (out, _), _ = d2l.AdditiveAttention(num_hiddens=4, dropout=0.0).init_with_output(
        jax.random.key(0), queries=q, keys=k, values=v, valid_lens=jnp.array([3])
    )
    assert out.shape == (1, 2, 5)
    assert d2l.masked_softmax(X=q, valid_lens=jnp.array([2]))[0, 0, 2] == 0
