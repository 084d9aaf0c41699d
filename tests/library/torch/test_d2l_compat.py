"""Code written for this D2L chapter against ``from d2l import torch as d2l`` runs unchanged
against ``from d2l_lib import torch as d2l`` (issue 2, item 4)."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import textwrap

import pytest
import torch

from d2l_lib import torch as d2l

# The chapter's code in D2L's own style, as a student would copy it from d2l.ai; only the
# import line differs. It runs in a fresh interpreter outside the repository.
D2L_STYLE_SCRIPT = textwrap.dedent("""\
    import math
    import torch
    from torch import nn
    from d2l_lib import torch as d2l

    print(d2l.masked_softmax(torch.rand(2, 2, 4), torch.tensor([2, 3])).shape)
    print(d2l.masked_softmax(torch.rand(2, 2, 4), torch.tensor([[1, 3], [2, 4]])).shape)
    print(d2l.masked_softmax(torch.rand(2, 2, 4), torch.FloatTensor([2, 3])).shape)  # older D2L

    Q = d2l.ones((2, 3, 4))
    K = d2l.ones((2, 4, 6))
    d2l.check_shape(torch.bmm(Q, K), (2, 3, 6))

    queries = d2l.normal(0, 1, (2, 1, 2))
    keys = d2l.normal(0, 1, (2, 10, 2))
    values = d2l.normal(0, 1, (2, 10, 4))
    valid_lens = d2l.tensor([2, 6])

    attention = d2l.DotProductAttention(dropout=0.5)
    attention.eval()
    d2l.check_shape(attention(queries, keys, values, valid_lens), (2, 1, 4))
    d2l.show_heatmaps(attention.attention_weights.reshape((1, 1, 2, 10)),
                      xlabel='Keys', ylabel='Queries')

    queries = d2l.normal(0, 1, (2, 1, 20))
    attention = d2l.AdditiveAttention(num_hiddens=8, dropout=0.1)
    attention.eval()
    d2l.check_shape(attention(queries, keys, values, valid_lens), (2, 1, 4))
    d2l.show_heatmaps(d2l.reshape(attention.attention_weights, (1, 1, 2, 10)),
                      xlabel='Keys', ylabel='Queries')

    # The identity example of D2L's attention-cues section, and a grid with titles.
    d2l.show_heatmaps(d2l.reshape(torch.eye(10), (1, 1, 10, 10)), xlabel='Keys', ylabel='Queries')
    d2l.show_heatmaps(torch.rand(2, 2, 3, 3), xlabel='Keys', ylabel='Queries',
                      titles=['a', 'b'], figsize=(5, 5), cmap='Reds')

    # Training, as D2L's later sections do with these layers.
    attention.train()
    optimizer = torch.optim.SGD(attention.parameters(), lr=0.1)
    loss = attention(queries, keys, values, valid_lens).pow(2).sum()
    loss.backward()
    optimizer.step()
    d2l.plt.close('all')
    print('d2l-style code ran', sorted(attention.state_dict()))
""")


def test_d2l_style_script_runs_unchanged(tmp_path):
    script = tmp_path / "d2l_style.py"
    script.write_text(D2L_STYLE_SCRIPT)
    env = {**os.environ, "MPLBACKEND": "Agg"}
    result = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=180
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:3] == ["torch.Size([2, 2, 4])"] * 3
    assert lines[-1] == "d2l-style code ran ['W_k.weight', 'W_q.weight', 'w_v.weight']"


def _parameters(fn):
    return [(p.name, p.default) for p in inspect.signature(fn).parameters.values()]


def test_layer_signatures_are_d2l_s():
    assert [name for name, _ in _parameters(d2l.AdditiveAttention)][:2] == ["num_hiddens", "dropout"]
    for layer in (d2l.DotProductAttention, d2l.AdditiveAttention):
        assert [name for name, _ in _parameters(layer.forward)][1:5] == ["queries", "keys", "values", "valid_lens"]


@pytest.mark.parametrize("name", ["torch", "nn", "math"])
def test_framework_names_d2l_code_uses_exist(name):
    assert hasattr(d2l, name)


def test_keyword_arguments_as_d2l_passes_them():
    out = d2l.DotProductAttention(dropout=0.0)(
        queries=torch.rand(1, 2, 3), keys=torch.rand(1, 4, 3), values=torch.rand(1, 4, 5), valid_lens=torch.tensor([3])
    )
    assert out.shape == (1, 2, 5)
    out = d2l.AdditiveAttention(num_hiddens=4, dropout=0.0)(
        queries=torch.rand(1, 2, 3), keys=torch.rand(1, 4, 7), values=torch.rand(1, 4, 5), valid_lens=torch.tensor([3])
    )
    assert out.shape == (1, 2, 5)
    assert d2l.masked_softmax(X=torch.rand(1, 1, 3), valid_lens=torch.tensor([2]))[0, 0, 2] == 0
